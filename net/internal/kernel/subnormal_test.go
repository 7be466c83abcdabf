package kernel

import (
	"math"
	"testing"
)

func TestFlushSubnormal(t *testing.T) {
	tiny := math.Float32frombits(1) // the smallest positive subnormal
	for _, tc := range []struct{ in, want float32 }{
		{0, 0},
		{1, 1},
		{-2.5, -2.5},
		{MinNormal32, MinNormal32},
		{-MinNormal32, -MinNormal32},
		{MinNormal32 / 2, 0},
		{-MinNormal32 / 2, 0},
		{tiny, 0},
		{-tiny, 0},
		{math.Float32frombits(0x007fffff), 0}, // the largest subnormal
	} {
		if got := FlushSubnormal(tc.in); got != tc.want || math.Signbit(float64(got)) && tc.want == 0 {
			t.Errorf("FlushSubnormal(%g) = %g, want %g", tc.in, got, tc.want)
		}
	}
	x := []float32{1, MinNormal32 / 4, -3, -tiny}
	if n := FlushSubnormals(x); n != 2 || x[0] != 1 || x[1] != 0 || x[2] != -3 || x[3] != 0 {
		t.Errorf("flushSubnormals: %d changed, %v", n, x)
	}
}
