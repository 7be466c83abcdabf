package kernel

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/dablot-zero/dablot/internal/cputime"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

func benchGemm(b *testing.B, tA, tB bool, m, n, k int, f func(a, bb, c []float32)) {
	r := rand.New(rand.NewPCG(1, 1))
	a, bb, c := randSlice(r, m*k), randSlice(r, k*n), make([]float32, m*n)
	_ = tA
	_ = tB
	b.ResetTimer()
	cpu0 := cputime.Process()
	for i := 0; i < b.N; i++ {
		f(a, bb, c)
	}
	reportFlops(b, 2*float64(m)*float64(n)*float64(k), cpu0)
}

// reportFlops reports b's speed in GFLOP/s and GFLOP/CPU-s for flopsPerOp
// floating-point operations an iteration, cpu0 being the process's CPU
// time when the timed loop began.
func reportFlops(b *testing.B, flopsPerOp float64, cpu0 time.Duration) {
	gflop := flopsPerOp * float64(b.N) / 1e9
	b.ReportMetric(gflop/b.Elapsed().Seconds(), "GFLOP/s")
	// Per CPU-second: what the kernel achieves whatever else the machine runs.
	if cpu := (cputime.Process() - cpu0).Seconds(); cpu > 0 {
		b.ReportMetric(gflop/cpu, "GFLOP/CPU-s")
	}
}

// BenchmarkSgemm measures the package kernel on the shapes the network
// uses (M = 64 positions x 72 points) next to gonum's blas32 at 512^3.
func BenchmarkSgemm(b *testing.B) {
	type shape struct {
		name    string
		tA, tB  bool
		m, n, k int
	}
	M := 64 * 72
	for _, s := range []shape{
		{"512cubed", false, false, 512, 512, 512},
		{"fwd_im2col_MxCx9C", false, false, M, 64, 576},
		{"fwd_Z_Mx9CxC", false, false, M, 576, 64},
		{"dW_9CxCxM_tA", true, false, 576, 64, M},
		{"dX_Mx9CxC_tB", false, true, M, 576, 64},
	} {
		for _, th := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/threads=%d", s.name, th), func(b *testing.B) {
				lda, ldb := s.k, s.n
				if s.tA {
					lda = s.m
				}
				if s.tB {
					ldb = s.k
				}
				benchGemm(b, s.tA, s.tB, s.m, s.n, s.k, func(a, bb, c []float32) {
					if err := Gemm(s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, bb, ldb, 0, c, s.n, th, nil); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
	b.Run("blas32_512cubed", func(b *testing.B) {
		benchGemm(b, false, false, 512, 512, 512, func(a, bb, c []float32) {
			blas32.Implementation().Sgemm(blas.NoTrans, blas.NoTrans, 512, 512, 512, 1, a, 512, bb, 512, 0, c, 512)
		})
	})
}
