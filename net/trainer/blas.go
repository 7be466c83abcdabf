package trainer

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"

	"github.com/dablot-zero/dablot/net/internal/kernel"
)

// BLAS is gonum's pure-Go BLAS with Sgemm replaced by the kernel of net.Sgemm.
// Install it in gorgonia with UseInGorgonia (or G.Use(BLAS{})).
type BLAS struct{ gonum.Implementation }

// Sgemm implements blas.Float32 with the kernel of net.Sgemm. Like every gonum
// BLAS routine it panics on inconsistent arguments.
func (BLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	ta := tA == blas.Trans || tA == blas.ConjTrans
	tb := tB == blas.Trans || tB == blas.ConjTrans
	if err := kernel.Sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); err != nil {
		panic(err)
	}
}

// UseInGorgonia makes gorgonia (and its tensor package) use BLAS{} for
// every matrix product. It affects the whole process.
func UseInGorgonia() { G.Use(BLAS{}) }
