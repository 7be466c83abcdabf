package mcts

import (
	"context"
	"slices"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// TestScoreDecisionsEqualMinimax: every decision's score is the exact
// minimax value of the position after it, and the best of them is the
// alpha-beta search's score, with and without a table.
func TestScoreDecisionsEqualMinimax(t *testing.T) {
	positions := smallPositions(t)
	sameWin := func(a, b int) bool {
		return a == b || a >= winBound && b >= winBound || a <= -winBound && b <= -winBound
	}
	for _, tt := range []int{0, 16} {
		for depth := 1; depth <= 3; depth++ {
			for i, p := range positions {
				c := DefaultAlphaBetaConfig()
				c.Depth, c.TTBits, c.Quiescence = depth, tt, false
				ab, err := NewAlphaBetaPlayer(c)
				if err != nil {
					t.Fatal(err)
				}
				legal, scores, err := ab.ScoreDecisions(context.Background(), &p, depth)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(legal, p.Decisions(nil)) || len(scores) != len(legal) {
					t.Fatalf("position %d: %d scores of %d decisions, not in p.Decisions order", i, len(scores), len(legal))
				}
				for j, d := range legal {
					q := p
					q.Apply(d)
					nd := depth
					if q.Chain() < 0 {
						nd--
					}
					want := minimax(ab, &q, nd, 1)
					if q.SideToMove() != p.SideToMove() {
						want = -want
					}
					if !sameWin(scores[j], want) {
						t.Errorf("tt %d depth %d position %d (%s) %s: score %d, minimax %d", tt, depth, i, p.FEN(), p.DecisionString(d), scores[j], want)
					}
				}
				ab, _ = NewAlphaBetaPlayer(c)
				r, err := ab.Search(context.Background(), &p)
				if err != nil {
					t.Fatal(err)
				}
				if best := slices.Max(scores); !sameWin(best, r.Score) {
					t.Errorf("tt %d depth %d position %d: best score %d, search %d", tt, depth, i, best, r.Score)
				}
			}
		}
	}
	ab, _ := NewAlphaBetaPlayer(DefaultAlphaBetaConfig())
	p := positions[0]
	for _, depth := range []int{0, maxDepth + 1} {
		if _, _, err := ab.ScoreDecisions(context.Background(), &p, depth); err == nil {
			t.Errorf("depth %d: no error", depth)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := ab.ScoreDecisions(ctx, &p, 3); err == nil {
		t.Error("cancelled context: no error")
	}
}

// favour is a stub evaluator: at the root position it gives decision d
// nearly all the prior; elsewhere uniform priors; value 0 everywhere.
type favour struct {
	root game.Position
	d    game.Decision
}

func (e favour) Evaluate(batch []Request) error {
	for i := range batch {
		r := &batch[i]
		uniform(r)
		r.Value = 0
		if r.Pos == e.root {
			for j, d := range r.Legal {
				r.Priors[j] = 0.01 / float32(len(r.Legal))
				if d == e.d {
					r.Priors[j] += 0.99
				}
			}
		}
	}
	return nil
}

// TestSearchExclude: an excluded root decision is never visited or chosen,
// however much the evaluator favours it, by PUCT and by Gumbel; the
// exclusion ends when the root moves on; bad exclusions are refused.
func TestSearchExclude(t *testing.T) {
	p := configs.MustVariant("dablot").Start()
	legal := p.Decisions(nil)
	fav := legal[3]
	gumbel := DefaultConfig()
	gumbel.Gumbel = true
	for name, cfg := range map[string]Config{"puct": DefaultConfig(), "gumbel": gumbel} {
		s := newSearch(t, favour{root: p, d: fav}, cfg, p)
		res, err := s.Run(context.Background(), Limits{Sims: 64})
		if err != nil {
			t.Fatal(err)
		}
		if res.Best != fav {
			t.Fatalf("%s: without exclusion the favoured %s is not chosen: the test proves nothing", name, p.DecisionString(fav))
		}
		s = newSearch(t, favour{root: p, d: fav}, cfg, p)
		if err := s.Exclude([]game.Decision{fav, legal[0]}); err != nil {
			t.Fatal(err)
		}
		res, err = s.Run(context.Background(), Limits{Sims: 64})
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range res.Legal {
			if (d == fav || d == legal[0]) && res.Visits[i] > 0 {
				t.Errorf("%s: excluded %s has %d visits", name, p.DecisionString(d), res.Visits[i])
			}
		}
		if res.Best == fav || res.Best == legal[0] {
			t.Errorf("%s: chose the excluded %s", name, p.DecisionString(res.Best))
		}
		// A new root has no exclusions.
		s = newSearch(t, favour{root: p, d: fav}, cfg, p)
		if err := s.Exclude([]game.Decision{fav}); err != nil {
			t.Fatal(err)
		}
		if err := s.Advance(legal[1]); err != nil {
			t.Fatal(err)
		}
		s.SetPosition(p)
		if res, err = s.Run(context.Background(), Limits{Sims: 64}); err != nil || res.Best != fav {
			t.Errorf("%s: after SetPosition: best %v, %v; want the favoured decision again", name, res.Best, err)
		}
	}
	s := newSearch(t, favour{root: p, d: fav}, DefaultConfig(), p)
	if err := s.Exclude(legal); err == nil {
		t.Error("excluding every decision: no error")
	}
	q := p
	q.Apply(legal[0])
	if err := s.Exclude(q.Decisions(nil)[:1]); err == nil && !slices.Contains(legal, q.Decisions(nil)[0]) {
		t.Error("excluding a decision not legal at the root: no error")
	}
}

// TestGuardVetoes: where a shallow search finds that some decisions lose
// material, a network player that favours one of them plays it without
// the guard and avoids it with the guard.
func TestGuardVetoes(t *testing.T) {
	checked := 0
	for i, p := range smallPositions(t) {
		g, err := NewGuard(2, 100)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := g.Excluded(context.Background(), &p)
		if err != nil {
			t.Fatal(err)
		}
		legal, scores, _ := g.ab.ScoreDecisions(context.Background(), &p, 2)
		best := slices.Max(scores)
		for j, d := range legal {
			if vetoed := slices.Contains(ex, d); vetoed != (scores[j] < best-100) {
				t.Errorf("position %d: %s scores %d of best %d, vetoed %v", i, p.DecisionString(d), scores[j], best, vetoed)
			}
		}
		if len(ex) == len(legal) {
			t.Fatalf("position %d: every decision vetoed", i)
		}
		// The favoured decision: a vetoed one that does not end the game
		// (a search sees a lost game without the guard's help).
		fav := -1
		for j, d := range ex {
			q := p
			q.Apply(d)
			if !q.Status().Over() {
				fav = j
				break
			}
		}
		if fav < 0 {
			continue
		}
		ex[0], ex[fav] = ex[fav], ex[0]
		checked++
		// PUCT without the solver, one simulation: the favoured decision is played.
		cfg := DefaultConfig()
		cfg.Solver = false
		play := func(guarded bool) game.Decision {
			pl, err := NewSearchPlayer(favour{root: p, d: ex[0]}, cfg, Limits{Sims: 1})
			if err != nil {
				t.Fatal(err)
			}
			if guarded {
				pl.Guard = g
			}
			ds, err := pl.Turn(context.Background(), &p)
			if err != nil {
				t.Fatal(err)
			}
			return ds[0]
		}
		if d := play(false); d != ex[0] {
			t.Errorf("position %d: without the guard the player chose %s, not the favoured %s", i, p.DecisionString(d), p.DecisionString(ex[0]))
		}
		if d := play(true); slices.Contains(ex, d) {
			t.Errorf("position %d: the guarded player chose the vetoed %s", i, p.DecisionString(d))
		}
	}
	if checked == 0 {
		t.Fatal("no position had a vetoed decision: the test proves nothing")
	}
	for _, c := range [][2]int{{0, 100}, {MaxGuardDepth + 1, 100}, {2, -1}} {
		if _, err := NewGuard(c[0], c[1]); err == nil {
			t.Errorf("NewGuard(%d, %d): no error", c[0], c[1])
		}
	}
}
