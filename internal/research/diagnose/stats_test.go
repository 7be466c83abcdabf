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

// TestClusters: trials that come in clusters of equal outcomes (the
// positions of a game) are fewer independent trials than they look, and
// the interval says so.
func TestClusters(t *testing.T) {
	var own, games Proportion
	for g := range 10 {
		for range 20 {
			x := b2f(g < 3)
			own.Add(x)
			games.AddIn(g, x)
		}
	}
	if own.Rate() != 0.3 || games.Rate() != 0.3 {
		t.Fatalf("rates %g and %g, want 0.3", own.Rate(), games.Rate())
	}
	wlo, whi := own.Wilson()
	olo, ohi := own.Interval()
	glo, ghi := games.Interval()
	if olo > wlo || ohi < whi || ohi-olo > 1.3*(whi-wlo) {
		t.Errorf("independent trials: interval [%g, %g], Wilson's [%g, %g]", olo, ohi, wlo, whi)
	}
	if ghi-glo < 2*(whi-wlo) {
		t.Errorf("10 clusters of 20: interval [%g, %g], hardly wider than Wilson's for 200 trials [%g, %g]", glo, ghi, wlo, whi)
	}
	var m Mean
	for g := range 4 {
		m.AddIn(g, float64(g))
		m.AddIn(g, float64(g))
	}
	if mu, lo, hi := m.Value(); mu != 1.5 || !(lo < 1.5 && hi > 1.5) {
		t.Errorf("clustered mean %g [%g, %g]", mu, lo, hi)
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

func TestPartialSpearman(t *testing.T) {
	// y is z plus what x knows: x adds to z's ranking of y.
	z := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	x := []float64{0, 1, 0, 1, 0, 1, 0, 1}
	y := make([]float64, len(z))
	for i := range y {
		y[i] = z[i] + 1.5*x[i]
	}
	if r := PartialSpearman(x, y, z); !(r > 0.5) {
		t.Errorf("x knows y beyond z: partial ρ = %g, want well above 0", r)
	}
	// y is z alone: x knows nothing more.
	if r := PartialSpearman(x, z, z); !math.IsNaN(r) && math.Abs(r) > 1e-9 {
		t.Errorf("y = z: partial ρ = %g, want 0 or NaN", r)
	}
	noise := []float64{3, 1, 4, 1, 5, 9, 2, 6}
	if r := PartialSpearman(noise, y, y); !math.IsNaN(r) {
		t.Errorf("z ranks y perfectly: partial ρ = %g, want NaN", r)
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
