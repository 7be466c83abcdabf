package match

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestWDLStatistics(t *testing.T) {
	for _, tc := range []struct {
		wdl             WDL
		score, lo, hi   float64
		elo, elo0, elo1 float64
	}{
		// Score 0.7; per-game variance (60·0.09 + 20·0.04 + 20·0.49)/100 =
		// 0.16, so the standard error is 0.04 and the 95 % interval
		// 0.7 ± 1.96·0.04.
		{WDL{60, 20, 20}, 0.7, 0.7 - 1.959964*0.04, 0.7 + 1.959964*0.04, 147.19, 86.23, 218.25},
		{WDL{10, 0, 10}, 0.5, 0.5 - 1.959964*0.5/math.Sqrt(20), 0.5 + 1.959964*0.5/math.Sqrt(20), 0, -163.32, 163.32},
		// No variance: Wilson's interval.
		{WDL{0, 40, 0}, 0.5, 0.351995, 0.648005, 0, -106.02, 106.02},
		{WDL{25, 0, 0}, 1, 0.866808, 1, math.Inf(1), 325.38, math.Inf(1)},
	} {
		if got := tc.wdl.Score(); !near(got, tc.score, 1e-12) {
			t.Errorf("%v: score %g, want %g", tc.wdl, got, tc.score)
		}
		lo, hi := tc.wdl.ScoreCI(0.95)
		if !near(lo, tc.lo, 1e-5) || !near(hi, tc.hi, 1e-5) {
			t.Errorf("%v: CI [%g, %g], want [%g, %g]", tc.wdl, lo, hi, tc.lo, tc.hi)
		}
		elo, e0, e1 := tc.wdl.Elo(0.95)
		for _, c := range [][2]float64{{elo, tc.elo}, {e0, tc.elo0}, {e1, tc.elo1}} {
			if !(math.IsInf(c[1], 0) && c[0] == c[1]) && !near(c[0], c[1], 0.1) {
				t.Errorf("%v: Elo %.2f [%.2f, %.2f], want %.2f [%.2f, %.2f]", tc.wdl, elo, e0, e1, tc.elo, tc.elo0, tc.elo1)
				break
			}
		}
	}
	if s := (WDL{}).Score(); !math.IsNaN(s) {
		t.Errorf("empty score %g", s)
	}
	for _, e := range []float64{-400, -50, 0, 10, 300} {
		if got := EloFromScore(ScoreFromElo(e)); !near(got, e, 1e-9) {
			t.Errorf("Elo %g round trip: %g", e, got)
		}
	}
	if got := (WDL{W: 60, L: 40}).LOS(); !near(got, 0.97725, 1e-4) {
		t.Errorf("LOS(60, 40) = %g, want Φ(2) = 0.97725", got)
	}
	var w WDL
	for _, s := range []float64{1, 0.5, 0, 1} {
		w.Add(s)
	}
	if w != (WDL{2, 1, 1}) {
		t.Errorf("Add: %v", w)
	}
}

func TestSPRT(t *testing.T) {
	test := SPRT{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.05}
	lower, upper := test.Bounds()
	if !near(lower, -math.Log(19), 1e-12) || !near(upper, math.Log(19), 1e-12) {
		t.Errorf("bounds %g, %g, want ∓ln 19", lower, upper)
	}
	// For small Elo differences the GSPRT agrees with the normal
	// approximation LLR ≈ N·(s1−s0)·(2s−s0−s1) / (2σ²).
	for _, w := range []WDL{{420, 300, 380}, {380, 300, 420}, {5000, 4000, 4900}} {
		s0, s1 := ScoreFromElo(test.Elo0), ScoreFromElo(test.Elo1)
		approx := float64(w.Games()) * (s1 - s0) * (2*w.Score() - s0 - s1) / (2 * w.Variance())
		if got := test.LLR(w); !near(got, approx, 0.05*math.Abs(approx)+0.05) {
			t.Errorf("%v: LLR %g, normal approximation %g", w, got, approx)
		}
	}
	// An exact case, checked by maximising the trinomial likelihoods
	// directly (grid search): 60/20/20 against Elo 0 and 50 gives 5.9556.
	if got := (SPRT{Elo0: 0, Elo1: 50, Alpha: 0.05, Beta: 0.05}).LLR(WDL{60, 20, 20}); !near(got, 5.9556, 1e-3) {
		t.Errorf("LLR(60/20/20, 0, 50) = %.4f, want 5.9556", got)
	}
	for _, tc := range []struct {
		wdl  WDL
		want Verdict
	}{
		{WDL{}, Continue},
		{WDL{10, 5, 8}, Continue},
		{WDL{2000, 1000, 1600}, AcceptH1},
		{WDL{1600, 1000, 2000}, AcceptH0},
		{WDL{0, 5000, 0}, AcceptH0},
	} {
		if _, got := test.Test(tc.wdl); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.wdl, got, tc.want)
		}
	}
	for _, bad := range []SPRT{{Elo0: 10, Elo1: 0, Alpha: 0.05, Beta: 0.05}, {Elo0: 0, Elo1: 5, Alpha: 0, Beta: 0.05}, {Elo0: math.NaN(), Elo1: 5, Alpha: 0.05, Beta: 0.05}} {
		if bad.Validate() == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}
