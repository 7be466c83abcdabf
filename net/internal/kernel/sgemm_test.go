package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func naiveGemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for p := 0; p < k; p++ {
				var av, bv float32
				if tA {
					av = a[p*lda+i]
				} else {
					av = a[i*lda+p]
				}
				if tB {
					bv = b[j*ldb+p]
				} else {
					bv = b[p*ldb+j]
				}
				s += float64(av) * float64(bv)
			}
			if beta == 0 {
				c[i*ldc+j] = alpha * float32(s)
			} else {
				c[i*ldc+j] = alpha*float32(s) + beta*c[i*ldc+j]
			}
		}
	}
}

func randSlice(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	return x
}

func TestSgemmMatchesNaive(t *testing.T) {
	t.Logf("implementation: %s", Implementation())
	checkSgemmMatchesNaive(t)
}

// checkSgemmMatchesNaive compares Gemm with naiveGemm over shapes,
// transpositions, alpha and beta, padded strides and 1 or 2 threads.
func checkSgemmMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	shapes := [][3]int{
		{1, 1, 1}, {1, 7, 3}, {5, 1, 9}, {3, 33, 2}, {4, 32, 128}, {7, 31, 129},
		{13, 65, 257}, {33, 5, 300}, {64, 64, 64}, {72, 16, 577}, {129, 67, 31},
		{300, 64, 9}, {2, 600, 70}, {17, 17, 17}, {250, 250, 3}, {100, 40, 260},
	}
	for _, sh := range shapes {
		m, n, k := sh[0], sh[1], sh[2]
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				for _, ab := range [][2]float32{{1, 0}, {0.5, 1}, {-2, 0.25}} {
					alpha, beta := ab[0], ab[1]
					name := fmt.Sprintf("%dx%dx%d/tA=%v/tB=%v/a=%v/b=%v", m, n, k, tA, tB, alpha, beta)
					// Padded strides catch indexing mistakes.
					ar, ac := m, k
					if tA {
						ar, ac = k, m
					}
					br, bc := k, n
					if tB {
						br, bc = n, k
					}
					lda, ldb, ldc := ac+3, bc+1, n+2
					a := randSlice(r, ar*lda)
					b := randSlice(r, br*ldb)
					c := randSlice(r, m*ldc)
					if beta == 0 {
						for i := range c {
							c[i] = float32(math.NaN()) // must not be read
						}
					}
					want := append([]float32(nil), c...)
					naiveGemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, want, ldc)
					for _, threads := range []int{1, 2} {
						got := append([]float32(nil), c...)
						if err := Gemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, got, ldc, threads, nil); err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						for i := 0; i < m; i++ {
							for j := 0; j < ldc; j++ {
								g, w := got[i*ldc+j], want[i*ldc+j]
								if j >= n {
									if math.Float32bits(g) != math.Float32bits(c[i*ldc+j]) {
										t.Fatalf("%s: wrote outside C at (%d,%d)", name, i, j)
									}
									continue
								}
								tol := 1e-4 * float64(k+1) * math.Max(1, math.Abs(float64(w)))
								if math.Abs(float64(g-w)) > tol || math.IsNaN(float64(g)) {
									t.Fatalf("%s threads=%d: C[%d,%d]=%v want %v", name, threads, i, j, g, w)
								}
							}
						}
					}
				}
			}
		}
	}
}

func TestSgemmErrors(t *testing.T) {
	a := make([]float32, 6)
	tests := []struct {
		name          string
		m, n, k       int
		lda, ldb, ldc int
		la, lb, lc    int
	}{
		{"negative", -1, 2, 3, 3, 2, 2, 6, 6, 6},
		{"short A", 2, 2, 3, 3, 2, 2, 5, 6, 4},
		{"small lda", 2, 2, 3, 2, 2, 2, 6, 6, 4},
		{"short C", 2, 2, 3, 3, 2, 2, 6, 6, 3},
		{"short B", 2, 2, 3, 3, 2, 2, 6, 5, 4},
	}
	for _, tc := range tests {
		err := Sgemm(false, false, tc.m, tc.n, tc.k, 1, a[:tc.la], tc.lda, make([]float32, tc.lb), tc.ldb, 0, make([]float32, tc.lc), tc.ldc)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	if err := Sgemm(false, false, 0, 0, 0, 1, nil, 1, nil, 1, 0, nil, 1); err != nil {
		t.Errorf("empty product: %v", err)
	}
}
