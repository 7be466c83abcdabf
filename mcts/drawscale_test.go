package mcts

import (
	"math"
	"testing"
)

// TestDrawScale: the value shrinks towards a draw in proportion to the
// no-capture counter, and stands at a fresh counter or without a limit.
func TestDrawScale(t *testing.T) {
	// winther's no-capture limit is 100 plies; keyland's 400.
	const rows = "5k/5/6/5/6/5/s5/5/6/5/s5/5/S4K s - "
	for _, tc := range []struct {
		name    string
		variant string
		quiet   string
		inner   float32
		rate    float64
		want    float64
	}{
		{"a fresh counter", "winther", "0", 0.8, 1, 0.8},
		{"half the limit", "winther", "50", 0.8, 1, 0.4},
		{"half the limit, half the rate", "winther", "50", -0.8, 0.5, -0.6},
		{"a longer limit", "keyland", "50", 0.8, 1, 0.7},
		{"no limit", "winther,no_capture_limit=0", "50", 0.8, 1, 0.8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mustFEN(t, tc.variant, rows+tc.quiet)
			batch := []Request{{Pos: p, Legal: p.Decisions(nil)}}
			batch[0].Priors = make([]float32, len(batch[0].Legal))
			e := &DrawScale{Inner: constEvaluator{tc.inner}, Rate: tc.rate}
			if err := e.Evaluate(batch); err != nil {
				t.Fatal(err)
			}
			if got := float64(batch[0].Value); math.Abs(got-tc.want) > 1e-6 {
				t.Fatalf("value %v, want %v", got, tc.want)
			}
		})
	}
}

// TestDrawScaleSpec: dscale= wraps a player's evaluator, within bounds.
func TestDrawScaleSpec(t *testing.T) {
	for _, tc := range []struct {
		spec string
		ok   bool
	}{
		{"mcts:eval=material,sims=8,dscale=0.5", true},
		{"gumbel:eval=material,sims=8,dscale=1", true},
		{"gumbel:eval=material,sims=8,dscale=2", false},
		{"alphabeta:depth=2,dscale=1", false},
	} {
		sp, err := ParseSpec(tc.spec)
		if err == nil {
			_, err = NewSpecFactory(sp, SpecOptions{})
		}
		if (err == nil) != tc.ok {
			t.Errorf("%s: error %v, want ok %v", tc.spec, err, tc.ok)
		}
	}
}
