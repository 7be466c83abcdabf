//go:build goexperiment.simd && amd64

package net

import (
	"fmt"
	"testing"
)

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
					if err := sgemm(s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, bb, ldb, 0, c, s.n, 1, nil); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}
