//go:build !(goexperiment.simd && amd64)

package kernel

// simdAvailable is false in builds without GOEXPERIMENT=simd on amd64.
const simdAvailable = false

// gemmImpl names the matrix-multiply implementation compiled in.
func gemmImpl() string { return "gonum-blas32" }

// sgemmFast is not available in this build; Sgemm uses gonum.
func sgemmFast(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, threads int, sc *Scratch) bool {
	return false
}

// Scratch is the packing scratch of the archsimd kernel (unused here).
type Scratch struct{}

// ConvGatherFast is not available in this build: the evaluator gathers and
// multiplies.
func ConvGatherFast(rows, points int, tab []int32, x []float32, cin int, w []float32, cout int, out []float32, sc *Scratch) bool {
	return false
}
