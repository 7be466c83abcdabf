// Package numeric holds the small numeric helpers that several packages
// need and gonum does not provide in the form they want.
package numeric

import (
	"math"
	"slices"
)

// Median returns the median of xs, the mean of the two middle values when
// len(xs) is even, or NaN when xs is empty. xs is not changed.
// (gonum's stat.Quantile returns one of the middle values instead.)
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Finite reports whether x is neither infinite nor NaN.
func Finite(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }
