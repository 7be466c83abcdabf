package evalfit

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// truth is the value of a position for its side to move under which the
// synthetic games are decided: a soldier is worth 100 on its own half of
// the board and 250 beyond the middle, a prince 300, a king 600.
func truth(p *game.Position) float64 {
	b := p.Board()
	_, top := b.XY(b.Points() - 1)
	v := 0.0
	for _, s := range []game.Side{p.SideToMove(), p.SideToMove().Other()} {
		sign := 1.0
		if s != p.SideToMove() {
			sign = -1
		}
		for r, w := range [game.NumRanks]float64{100, 300, 600} {
			for pcs := p.Pieces(s, game.Rank(r)); !pcs.Empty(); {
				q := pcs.PopFirst()
				if game.Rank(r) == game.Soldier && advanced(b, s, q, top) {
					w = 250
				}
				v += sign * w
			}
		}
	}
	return v
}

// advanced reports whether side s's piece on q is beyond the middle.
func advanced(b *game.Board, s game.Side, q, top int) bool {
	_, y := b.XY(q)
	if s == game.North {
		y = top - y
	}
	return 2*y > top
}

// syntheticGames returns n one-turn records of positions from random
// games, each won by its side to move with the probability that truth
// gives, lost otherwise.
func syntheticGames(t *testing.T, r *game.Rules, n int, seed uint64) []*game.Record {
	rng := rand.New(rand.NewPCG(seed, 1))
	var recs []*game.Record
	var scratch game.MoveScratch
	for len(recs) < n {
		p := r.Start()
		plies := 20 + rng.IntN(200)
		for ply := 0; ply < plies; ply++ {
			d, ok := p.RandomDecision(rng, &scratch)
			if !ok {
				break
			}
			p.Apply(d)
		}
		if p.Status().Over() || !quiet(&p) {
			continue
		}
		rec := game.NewRecord(r, &p)
		rec.Turns = []string{p.Turns()[0].Format(r.Board)}
		won := rng.Float64() < 1/(1+math.Exp(-truth(&p)/150))
		if won == (p.SideToMove() == game.South) {
			rec.Result = "1-0"
		} else {
			rec.Result = "0-1"
		}
		recs = append(recs, rec)
	}
	return recs
}

// TestFit: from games decided by a known evaluation, the fit finds that
// an advanced soldier is worth more than one at home, values the soldier
// at 100 on average, and predicts the results held out better than the
// hand-written evaluation does.
func TestFit(t *testing.T) {
	r := configs.MustVariant("dablot")
	recs := syntheticGames(t, r, 2000, 3)
	recs = append(recs, &game.Record{Variant: "dablot", Result: "*", Turns: []string{firstTurn(r)}}) // unfinished: skipped
	d, err := Collect(recs, r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fit, held := d.Positions()
	if d.Games != 2000 || d.Held != 200 || fit != 1800 || held != 200 {
		t.Fatalf("%d games, %d held out, %d and %d positions; want 2000, 200, 1800, 200", d.Games, d.Held, fit, held)
	}
	e, err := Fit(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Check("dablot", r.Board); err != nil {
		t.Fatal(err)
	}
	b := r.Board
	_, top := b.XY(b.Points() - 1)
	var home, away, all []float64
	for q, v := range e.Square[game.Soldier] {
		all = append(all, float64(v))
		if advanced(b, game.South, q, top) {
			away = append(away, float64(v))
		} else {
			home = append(home, float64(v))
		}
	}
	if m := mean(all); math.Abs(m-100) > 1 {
		t.Errorf("the mean soldier is worth %.1f, want 100", m)
	}
	if mean(away) < 1.5*mean(home) {
		t.Errorf("an advanced soldier is worth %.0f, one at home %.0f: want 2.5 times", mean(away), mean(home))
	}
	if !slices.Contains(L2Grid, e.Fit.L2) {
		t.Errorf("the fit's l2 %g is not one of %v", e.Fit.L2, L2Grid)
	}
	if !(e.Fit.Loss < e.Fit.HandLoss) {
		t.Errorf("held-out loss %.4f, the hand-written %.4f: want lower", e.Fit.Loss, e.Fit.HandLoss)
	}
	t.Logf("soldier at home %.0f, advanced %.0f; mobility %d; held-out loss %.4f, hand-written %.4f", mean(home), mean(away), e.Mobility, e.Fit.Loss, e.Fit.HandLoss)
	s := Summary(e, b)
	for _, want := range []string{"held-out cross-entropy", "soldier", "mobility"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary without %q:\n%s", want, s)
		}
	}
}

// TestCollectErrors: no finished game, or a record that does not replay,
// is an error that says so.
func TestCollectErrors(t *testing.T) {
	r := configs.MustVariant("dablot")
	first := firstTurn(r)
	for _, tc := range []struct {
		name string
		recs []*game.Record
		want string
	}{
		{"none finished", []*game.Record{{Variant: "dablot", Result: "*", Turns: []string{first}}}, "no quiet positions"},
		{"illegal", []*game.Record{{Variant: "dablot", Result: "1-0", Turns: []string{first, first}}}, "game 1, turn 2"},
		{"bad setup", []*game.Record{{Variant: "dablot", Setup: "x", Result: "1-0"}}, "game 1"},
	} {
		if _, err := Collect(tc.recs, r, Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %q", tc.name, err, tc.want)
		}
	}
}

// firstTurn is a legal first turn of r.
func firstTurn(r *game.Rules) string {
	p := r.Start()
	return p.Turns()[0].Format(r.Board)
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
