package net

import "github.com/dablot-zero/dablot/net/internal/kernel"

// SetGemmThreads sets how many goroutines one large Sgemm call may use
// (default GOMAXPROCS). Values below 1 are treated as 1.
func SetGemmThreads(n int) { kernel.SetThreads(n) }

// GemmImplementation names the matrix-multiply kernel used by Sgemm:
// "archsimd-avx512" in GOEXPERIMENT=simd builds on CPUs with AVX-512,
// "gonum-blas32" otherwise.
func GemmImplementation() string { return kernel.Implementation() }

// Sgemm computes C = alpha*op(A)*op(B) + beta*C for row-major float32
// matrices, where op(X) is X or its transpose. op(A) is m×k, op(B) is k×n
// and C is m×n; lda, ldb and ldc are the row strides of the stored matrices.
// When beta is zero C is not read. Inconsistent sizes return an error.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) error {
	return kernel.Sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
