//go:build goexperiment.simd && amd64

package kernel

import (
	"fmt"
	"simd/archsimd"
	"testing"
)

// withAVX2 runs f with the 256-bit kernels selected, as on a CPU with AVX2
// and FMA but not AVX-512; it skips where the CPU lacks AVX2 or FMA.
func withAVX2(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	if !archsimd.X86.AVX2() || !archsimd.X86.FMA() {
		t.Skip("the CPU lacks AVX2 or FMA")
	}
	defer func(s, a bool) { simdAvailable, avx2Available = s, a }(simdAvailable, avx2Available)
	simdAvailable, avx2Available = false, true
	f(t)
}

// TestSgemmAVX2 checks the 256-bit kernels (assembly and archsimd) against
// the naive product, whatever the CPU's widest kernel.
func TestSgemmAVX2(t *testing.T) {
	withAVX2(t, func(t *testing.T) {
		if got := Implementation(); got != "archsimd-avx2" {
			t.Errorf("Implementation() = %q, want archsimd-avx2", got)
		}
		defer func(a bool) { asmKernel = a }(asmKernel)
		for _, asm := range []bool{true, false} {
			t.Run(fmt.Sprintf("asm=%v", asm), func(t *testing.T) {
				asmKernel = asm
				checkSgemmMatchesNaive(t)
			})
		}
	})
}

// TestConvGatherAVX2 checks the 256-bit convolution kernel against
// gather-then-multiply, whatever the CPU's widest kernel.
func TestConvGatherAVX2(t *testing.T) {
	withAVX2(t, checkConvGatherFast)
}

// TestVecAVX2 checks the 256-bit vector operations against the plain ones.
func TestVecAVX2(t *testing.T) {
	withAVX2(t, checkVecOps)
}

// BenchmarkSgemmAVX2 measures the 256-bit kernels on the inference
// convolution's shape and at 512³, on one thread.
func BenchmarkSgemmAVX2(b *testing.B) {
	if !archsimd.X86.AVX2() || !archsimd.X86.FMA() {
		b.Skip("the CPU lacks AVX2 or FMA")
	}
	defer func(s, a, asm bool) { simdAvailable, avx2Available, asmKernel = s, a, asm }(simdAvailable, avx2Available, asmKernel)
	simdAvailable, avx2Available = false, true
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

// TestKernelChoice: a simd build never falls back to gonum on a CPU that
// runs one of its kernels.
func TestKernelChoice(t *testing.T) {
	want := "gonum-blas32"
	switch {
	case archsimd.X86.AVX512():
		want = "archsimd-avx512"
	case archsimd.X86.AVX2() && archsimd.X86.FMA():
		want = "archsimd-avx2"
	}
	if got := Implementation(); got != want {
		t.Errorf("Implementation() = %q on this CPU, want %q", got, want)
	}
}
