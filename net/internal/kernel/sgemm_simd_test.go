//go:build goexperiment.simd && amd64

package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestSgemmKernels checks every micro-kernel (assembly and archsimd) with
// both S layouts (compact, pre-broadcast) against the naive product.
func TestSgemmKernels(t *testing.T) {
	defer func(a bool, c int) { asmKernel, forceCompact = a, c }(asmKernel, forceCompact)
	for _, asm := range []bool{true, false} {
		for _, compact := range []int{1, 2} {
			t.Run(fmt.Sprintf("asm=%v/compact=%d", asm, compact), func(t *testing.T) {
				asmKernel, forceCompact = asm, compact
				checkSgemmMatchesNaive(t)
			})
		}
	}
}

// BenchmarkSgemmKernel compares the assembly and archsimd micro-kernels on
// the inference convolution's shape (batch 64 on the 72-point board, 32
// channels) and at 512³, on one thread.
func BenchmarkSgemmKernel(b *testing.B) { benchKernelShapes(b) }

// benchKernelShapes runs Gemm with the assembly and then the archsimd
// micro-kernel of whichever path is selected, on the inference
// convolution's shape and at 512³, on one thread.
func benchKernelShapes(b *testing.B) {
	defer func(a bool) { asmKernel = a }(asmKernel)
	for _, s := range [][3]int{{64 * 72, 32, 288}, {512, 512, 512}} {
		for _, asm := range []bool{true, false} {
			b.Run(fmt.Sprintf("%dx%dx%d/asm=%v", s[0], s[1], s[2], asm), func(b *testing.B) {
				asmKernel = asm
				m, n, k := s[0], s[1], s[2]
				benchGemm(b, false, false, m, n, k, func(a, bb, c []float32) {
					if err := Gemm(false, false, m, n, k, 1, a, k, bb, n, 0, c, n, 1, nil); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

// BenchmarkSgemmOrientation compares the two operand orientations of the
// archsimd kernel on the network's shapes (single thread).
func BenchmarkSgemmOrientation(b *testing.B) {
	M := 64 * 72
	type shape struct {
		name    string
		tA, tB  bool
		m, n, k int
	}
	for _, s := range []shape{
		{"fwd_im2col_MxCx9C", false, false, M, 64, 576},
		{"fwd_Z_Mx9CxC", false, false, M, 576, 64},
		{"dW_9CxCxM_tA", true, false, 576, 64, M},
		{"dX_Mx9CxC_tB", false, true, M, 576, 64},
		{"dG_MxCx9C_tB", false, true, M, 64, 576},
	} {
		for _, o := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/orient=%d", s.name, o), func(b *testing.B) {
				forceOrientation = o
				defer func() { forceOrientation = 0 }()
				lda, ldb := s.k, s.n
				if s.tA {
					lda = s.m
				}
				if s.tB {
					ldb = s.k
				}
				benchGemm(b, s.tA, s.tB, s.m, s.n, s.k, func(a, bb, c []float32) {
					if err := Gemm(s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, bb, ldb, 0, c, s.n, 1, nil); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

// TestConvGatherFast compares the implicit-gather convolution with a naive
// gather-then-multiply, on ragged sizes (rows not a multiple of 8, columns
// not a multiple of 32) and missing neighbours.
func TestConvGatherFast(t *testing.T) {
	if !simdAvailable && !avx2Available {
		t.Skip("neither AVX-512 nor AVX2 and FMA")
	}
	checkConvGatherFast(t)
}

// checkConvGatherFast is TestConvGatherFast's check, for whichever
// kernel runs.
func checkConvGatherFast(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct{ points, n, cin, cout int }{
		{41, 3, 8, 32}, {72, 2, 32, 32}, {41, 1, 5, 16}, {72, 1, 32, 40}, {7, 5, 3, 64}, {72, 3, 64, 64},
	} {
		name := fmt.Sprintf("points=%d/n=%d/cin=%d/cout=%d", tc.points, tc.n, tc.cin, tc.cout)
		tab := make([]int32, tc.points*convSegs)
		for i := range tab {
			tab[i] = int32(r.IntN(tc.points+3)) - 3 // some negative: no neighbour
			if tab[i] < 0 {
				tab[i] = -1
			}
		}
		rows := tc.points * tc.n
		x := randSlice(r, rows*tc.cin)
		w := randSlice(r, convSegs*tc.cin*tc.cout)
		bias := randSlice(r, rows*tc.cout)
		want := append([]float32(nil), bias...)
		for row := range rows {
			p, base := row%tc.points, row-row%tc.points
			for s := range convSegs {
				src := tab[p*convSegs+s]
				if src < 0 {
					continue
				}
				for c := range tc.cin {
					xv := x[(base+int(src))*tc.cin+c]
					for o := range tc.cout {
						want[row*tc.cout+o] += xv * w[(s*tc.cin+c)*tc.cout+o]
					}
				}
			}
		}
		got := append([]float32(nil), bias...)
		var sc Scratch
		if !ConvGatherFast(rows, tc.points, tab, x, tc.cin, w, tc.cout, got, &sc) {
			t.Fatalf("%s: not run", name)
		}
		for i := range want {
			if d := math.Abs(float64(got[i] - want[i])); d > 1e-4*float64(tc.cin*9+1) {
				t.Fatalf("%s: out[%d] = %v, want %v", name, i, got[i], want[i])
			}
		}
	}
}
