package trainer

import (
	"math"
	"testing"

	"github.com/dablot-zero/dablot/net/internal/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

func TestBLASAdapter(t *testing.T) {
	m, n, k := 37, 45, 53
	a, b := kernel.BenchInputs(m*k, 3), kernel.BenchInputs(k*n, 4)
	got, want := make([]float32, m*n), make([]float32, m*n)
	BLAS{}.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, k, b, n, 0, got, n)
	blas32.Implementation().Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, k, b, n, 0, want, n)
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > 1e-3 {
			t.Fatalf("element %d: %v want %v", i, got[i], want[i])
		}
	}
}
