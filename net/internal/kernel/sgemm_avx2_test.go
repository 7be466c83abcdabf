//go:build goexperiment.simd && amd64

package kernel

import (
	"fmt"
	"math/rand/v2"
	"simd/archsimd"
	"testing"

	"github.com/dablot-zero/dablot/internal/cputime"
)

// cpuHasAVX2 reports whether this CPU runs the 256-bit kernels.
func cpuHasAVX2() bool { return archsimd.X86.AVX2() && archsimd.X86.FMA() }

// useAVX2 selects the 256-bit kernels, as on a CPU with AVX2 and FMA but
// not AVX-512, and returns the function that restores the CPU's choice.
func useAVX2() (restore func()) {
	s, a := simdAvailable, avx2Available
	simdAvailable, avx2Available = false, true
	return func() { simdAvailable, avx2Available = s, a }
}

// withAVX2 runs f with the 256-bit kernels selected, as on a CPU with AVX2
// and FMA but not AVX-512; it skips where the CPU lacks AVX2 or FMA.
func withAVX2(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	if !cpuHasAVX2() {
		t.Skip("the CPU lacks AVX2 or FMA")
	}
	defer useAVX2()()
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
	if !cpuHasAVX2() {
		b.Skip("the CPU lacks AVX2 or FMA")
	}
	defer useAVX2()()
	benchKernelShapes(b)
}

// TestKernelChoice: a simd build never falls back to gonum on a CPU that
// runs one of its kernels.
func TestKernelChoice(t *testing.T) {
	want := "gonum-blas32"
	switch {
	case archsimd.X86.AVX512():
		want = "archsimd-avx512"
	case cpuHasAVX2():
		want = "archsimd-avx2"
	}
	if got := Implementation(); got != want {
		t.Errorf("Implementation() = %q on this CPU, want %q", got, want)
	}
}

// BenchmarkConvGather measures ConvGatherFast on the inference
// convolution's shape (64 positions of 72 points, 32 channels in and out)
// with the CPU's widest kernel and, where it runs, the 256-bit one. The
// flops counted are 2·rows·9·cin·cout, every neighbour present.
func BenchmarkConvGather(b *testing.B) {
	const points, n, cin, cout = 72, 64, 32, 32
	r := rand.New(rand.NewPCG(3, 4))
	tab := make([]int32, points*convSegs)
	for i := range tab {
		tab[i] = int32(r.IntN(points))
	}
	rows := points * n
	x := randSlice(r, rows*cin)
	w := randSlice(r, convSegs*cin*cout)
	out := make([]float32, rows*cout)
	run := func(b *testing.B) {
		var sc Scratch
		cpu0 := cputime.Process()
		for b.Loop() {
			if !ConvGatherFast(rows, points, tab, x, cin, w, cout, out, &sc) {
				b.Skip("no fast convolution kernel on this CPU")
			}
		}
		reportFlops(b, 2*float64(rows*convSegs*cin*cout), cpu0)
	}
	b.Run("widest", run)
	if cpuHasAVX2() {
		defer useAVX2()()
		b.Run("avx2", run)
	}
}
