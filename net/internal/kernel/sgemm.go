// Package kernel holds the arithmetic shared by inference (package net) and
// training (package net/trainer): the matrix product Sgemm, the vector
// operations of the layers, the neighbour gather and the flushing of
// subnormal values. GOEXPERIMENT=simd builds on amd64 use AVX-512 kernels
// written with simd/archsimd; other builds use gonum's blas32 and plain Go.
package kernel

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

var gemmThreads atomic.Int32

func init() { gemmThreads.Store(int32(runtime.GOMAXPROCS(0))) }

// SetThreads sets how many goroutines one large Sgemm call may use
// (default GOMAXPROCS). Values below 1 are treated as 1.
func SetThreads(n int) { gemmThreads.Store(int32(max(1, n))) }

// Threads returns the setting of SetThreads.
func Threads() int { return int(gemmThreads.Load()) }

// Implementation names the matrix-multiply kernel used by Sgemm:
// "archsimd-avx512" in GOEXPERIMENT=simd builds on CPUs with AVX-512,
// "archsimd-avx2" in such builds on CPUs with AVX2 and FMA alone,
// "gonum-blas32" otherwise.
func Implementation() string { return gemmImpl() }

// Sgemm computes C = alpha*op(A)*op(B) + beta*C for row-major float32
// matrices, where op(X) is X or its transpose. op(A) is m×k, op(B) is k×n
// and C is m×n; lda, ldb and ldc are the row strides of the stored matrices.
// When beta is zero C is not read. Inconsistent sizes return an error.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) error {
	return Gemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, int(gemmThreads.Load()), nil)
}

func checkMatrix(name string, x []float32, rows, cols, ld int) error {
	if ld < max(1, cols) {
		return fmt.Errorf("net: Gemm: leading dimension of %s is %d, need >= %d", name, ld, max(1, cols))
	}
	if rows > 0 && cols > 0 && len(x) < (rows-1)*ld+cols {
		return fmt.Errorf("net: Gemm: %s has %d elements, need %d for %dx%d with stride %d", name, len(x), (rows-1)*ld+cols, rows, cols, ld)
	}
	return nil
}

func Gemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, threads int, sc *Scratch) error {
	if m < 0 || n < 0 || k < 0 {
		return fmt.Errorf("net: Gemm: negative size m=%d n=%d k=%d", m, n, k)
	}
	ar, ac := m, k
	if tA {
		ar, ac = k, m
	}
	br, bc := k, n
	if tB {
		br, bc = n, k
	}
	if err := checkMatrix("A", a, ar, ac, lda); err != nil {
		return err
	}
	if err := checkMatrix("B", b, br, bc, ldb); err != nil {
		return err
	}
	if err := checkMatrix("C", c, m, n, ldc); err != nil {
		return err
	}
	if m == 0 || n == 0 {
		return nil
	}
	if k == 0 || alpha == 0 {
		for i := 0; i < m; i++ {
			row := c[i*ldc : i*ldc+n]
			if beta == 0 {
				clear(row)
				continue
			}
			for j := range row {
				row[j] *= beta
			}
		}
		return nil
	}
	if sgemmFast(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, threads, sc) {
		return nil
	}
	ta, tb := blas.NoTrans, blas.NoTrans
	if tA {
		ta = blas.Trans
	}
	if tB {
		tb = blas.Trans
	}
	if threads > 1 {
		blas32.Implementation().Sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return nil
	}
	// gonum runs products of at least 4 blocks of 64x64 on goroutines (and
	// allocates); feed it pieces small enough for its serial path.
	for i0 := 0; i0 < m; i0 += 64 {
		mi := min(64, m-i0)
		for j0 := 0; j0 < n; j0 += 128 {
			nj := min(128, n-j0)
			ao := i0 * lda
			if tA {
				ao = i0
			}
			bo := j0
			if tB {
				bo = j0 * ldb
			}
			blas32.Implementation().Sgemm(ta, tb, mi, nj, k, alpha, a[ao:], lda, b[bo:], ldb, beta, c[i0*ldc+j0:], ldc)
		}
	}
	return nil
}

// BenchInputs returns n random inputs, a quarter of them 1 and the rest 0,
// for the throughput measurements of net and net/trainer.
func BenchInputs(n int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 1))
	x := make([]float32, n)
	for i := range x {
		if r.IntN(4) == 0 {
			x[i] = 1
		}
	}
	return x
}
