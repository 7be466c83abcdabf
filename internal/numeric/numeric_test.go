package numeric

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{-1, -1, 7, 7}, 3},
	} {
		in := slices.Clone(tc.xs)
		if got := Median(tc.xs); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", in, got, tc.want)
		}
		if !slices.Equal(in, tc.xs) {
			t.Errorf("Median changed its input: %v, was %v", tc.xs, in)
		}
	}
	if got := Median(nil); !math.IsNaN(got) {
		t.Errorf("Median(nil) = %v, want NaN", got)
	}
}

func TestFinite(t *testing.T) {
	for x, want := range map[float64]bool{0: true, -1e300: true, math.Inf(1): false, math.Inf(-1): false, math.NaN(): false} {
		if got := Finite(x); got != want {
			t.Errorf("Finite(%v) = %v, want %v", x, got, want)
		}
	}
}

func ExampleMedian() {
	fmt.Println(Median([]float64{402, 456, 410, 430}))
	// Output: 420
}
