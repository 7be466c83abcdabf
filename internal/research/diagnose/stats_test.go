package diagnose

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestWilson(t *testing.T) {
	// 5 of 10: the Wilson interval is 0.2366 to 0.7634.
	p := Proportion{K: 5, N: 10}
	lo, hi := p.Wilson()
	if !near(lo, 0.2366, 1e-4) || !near(hi, 0.7634, 1e-4) {
		t.Errorf("Wilson(5/10) = [%.4f, %.4f], want [0.2366, 0.7634]", lo, hi)
	}
	// 0 of 20: from 0 to 0.1611.
	lo, hi = Proportion{K: 0, N: 20}.Wilson()
	if lo != 0 || !near(hi, 0.1611, 1e-4) {
		t.Errorf("Wilson(0/20) = [%.4f, %.4f], want [0, 0.1611]", lo, hi)
	}
	var q Proportion
	q.Add(1)
	q.Add(0.5)
	if q.Rate() != 0.75 {
		t.Errorf("a success and a coin toss: rate %g, want 0.75", q.Rate())
	}
}

func TestSpearman(t *testing.T) {
	// Ties take their mean rank: x ranks 1, 2.5, 2.5, 4.
	if got := ranks([]float64{1, 2, 2, 3}); got[1] != 2.5 || got[2] != 2.5 || got[3] != 4 {
		t.Errorf("ranks = %v, want [1 2.5 2.5 4]", got)
	}
	x := []float64{1, 2, 3, 4, 5}
	if r := Spearman(x, []float64{10, 20, 25, 100, 1000}); !near(r, 1, 1e-12) {
		t.Errorf("a monotone map: ρ = %g, want 1", r)
	}
	if r := Spearman(x, []float64{5, 4, 3, 2, 1}); !near(r, -1, 1e-12) {
		t.Errorf("reversed: ρ = %g, want -1", r)
	}
	// d = (0, 0, 1, -1, 0): 1 - 6·2/(5·24) = 0.9.
	if r := Spearman(x, []float64{1, 2, 4, 3, 5}); !near(r, 0.9, 1e-12) {
		t.Errorf("one swap: ρ = %g, want 0.9", r)
	}
	if r := Spearman(x, []float64{1, 1, 1, 1, 1}); !math.IsNaN(r) {
		t.Errorf("a constant: ρ = %g, want NaN", r)
	}
}

func TestBootstrapAndMean(t *testing.T) {
	x := make([]float64, 200)
	for i := range x {
		x[i] = float64(i % 10)
	}
	meanOf := func(idx []int) float64 {
		s := 0.0
		for _, i := range idx {
			s += x[i]
		}
		return s / float64(len(idx))
	}
	iv := Bootstrap(len(x), 1, meanOf)
	var m Mean
	for _, v := range x {
		m.Add(v)
	}
	mu, lo, hi := m.Value()
	if iv.Est != mu || !(iv.Lo < mu && mu < iv.Hi) {
		t.Errorf("bootstrap %+v around the mean %g", iv, mu)
	}
	// The bootstrap and the normal interval agree on a mean.
	if !near(iv.Lo, lo, 0.15) || !near(iv.Hi, hi, 0.15) {
		t.Errorf("bootstrap [%g, %g], normal [%g, %g]", iv.Lo, iv.Hi, lo, hi)
	}
}
