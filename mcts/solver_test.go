package mcts

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// afterTurns is the start position of variant after the given turns.
func afterTurns(t testing.TB, variant string, turns ...string) game.Position {
	t.Helper()
	p := configs.MustVariant(variant).Start()
	for _, s := range turns {
		if err := p.ApplyTurn(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return p
}

// pinnedPrior is a stub evaluator: uniform priors but for one decision at
// the root position, whose prior it sets (tiny: a network that does not
// expect the move; near 1: one that insists on it), and a value of 0
// everywhere.
type pinnedPrior struct {
	root  game.Position
	d     game.Decision
	prior float32
}

func (e pinnedPrior) Evaluate(batch []Request) error {
	for i := range batch {
		r := &batch[i]
		uniform(r)
		r.Value = 0
		if r.Pos == e.root {
			for j, d := range r.Legal {
				if d == e.d {
					r.Priors[j] = e.prior
				}
			}
		}
	}
	return nil
}

// TestSolverFindsLure: in winther-all-must-capture, after e5-d6 c9-d8
// c5-b6 a7xc5xe7, South wins with g5-g7. North must capture, and either
// capture lets South take the king: e7xi7 k7xg7, or g9xg5 g3xg7 e7xi7
// k7xg7, five decisions in all. A search whose evaluator calls every
// position even and barely considers g5-g7 sees no more than that on
// average; the solver proves a win (PUCT, which hardly visits g5-g7, a
// longer one) and plays it.
func TestSolverFindsLure(t *testing.T) {
	p := afterTurns(t, "winther-all-must-capture", "e5-d6", "c9-d8", "c5-b6", "a7xc5xe7")
	_, ds, err := p.ParseTurn("g5-g7")
	if err != nil {
		t.Fatal(err)
	}
	ev := pinnedPrior{root: p, d: ds[0], prior: 1e-4}
	for _, gumbel := range []bool{false, true} {
		for _, solve := range []bool{false, true} {
			cfg := DefaultConfig()
			cfg.Gumbel, cfg.GumbelScale = gumbel, 0
			cfg.Solver, cfg.SkipForced = solve, solve
			res, err := newSearch(t, ev, cfg, p).Run(context.Background(), Limits{Sims: 2000})
			if err != nil {
				t.Fatal(err)
			}
			best := p.DecisionString(res.Best)
			switch {
			case solve && (!res.Solved || res.Value != 1):
				t.Errorf("gumbel %v, solver: solved %v value %g, best %s; want a proven win", gumbel, res.Solved, res.Value, best)
			case solve && gumbel && (res.Plies != 5 || res.Best != ds[0]):
				// Gumbel search visits every root decision, g5-g7 too.
				t.Errorf("gumbel, solver: a win in %d plies by %s; want 5 by g5-g7", res.Plies, best)
			case solve && res.Simulations >= 2000:
				t.Errorf("gumbel %v, solver: %d simulations; want a stop once the root is proven", gumbel, res.Simulations)
			case !solve && (res.Solved || res.Value > 0.9):
				t.Errorf("gumbel %v, no solver: solved %v value %g; the stub's values average the win away", gumbel, res.Solved, res.Value)
			}
		}
	}
}

// negamax solves p by full-width search to depth decisions: the value for
// the side to move and whether it is known (a result every line reaches
// within depth, or a win one line forces).
func negamax(p *game.Position, depth int) (float64, bool) {
	if st := p.Status(); st.Over() {
		return outcomeValue(st.Outcome, p.SideToMove()), true
	}
	if depth == 0 {
		return 0, false
	}
	best, all := -2.0, true
	for _, d := range p.Decisions(nil) {
		q := *p
		q.Apply(d)
		v, ok := negamax(&q, depth-1)
		if q.SideToMove() != p.SideToMove() {
			v = -v
		}
		if !ok {
			all = false
			continue
		}
		if v == 1 {
			return 1, true
		}
		best = max(best, v)
	}
	return best, all
}

// TestSolverProofsAreSound searches positions late in random games, where
// short forced endings abound, and checks every value the solver claims
// against full-width search to the proof's depth.
func TestSolverProofsAreSound(t *testing.T) {
	proofs := 0
	for _, v := range []string{"keyland", "dablot", "winther-all-must-capture", "frostviken"} {
		r := configs.MustVariant(v)
		rng := rand.New(rand.NewPCG(7, uint64(len(v))))
		for g := range 12 {
			p := r.Start()
			var line []game.Position
			for !p.Status().Over() && len(line) < 400 {
				line = append(line, p)
				ds := p.Decisions(nil)
				p.Apply(ds[rng.IntN(len(ds))])
			}
			// The last positions before the end, where proofs are short.
			for _, q := range line[max(0, len(line)-8):] {
				if len(q.Decisions(nil)) < 2 {
					continue
				}
				for _, gumbel := range []bool{false, true} {
					cfg := DefaultConfig()
					cfg.Gumbel, cfg.Solver, cfg.SkipForced = gumbel, true, true
					cfg.Seed = uint64(g)
					res, err := newSearch(t, &MaterialEvaluator{}, cfg, q).Run(context.Background(), Limits{Sims: 400})
					if err != nil {
						t.Fatal(err)
					}
					if !res.Solved || res.Plies > 6 {
						continue
					}
					proofs++
					want, ok := negamax(&q, res.Plies)
					if !ok || want != float64(res.Value) {
						t.Errorf("%s %s: solver says %g in %d plies (best %s); full width says %g (known %v)",
							v, q.FEN(), res.Value, res.Plies, q.DecisionString(res.Best), want, ok)
					}
					after := q
					after.Apply(res.Best)
					got, _ := negamax(&after, res.Plies-1)
					if after.SideToMove() != q.SideToMove() {
						got = -got
					}
					if got != float64(res.Value) {
						t.Errorf("%s %s: best %s is worth %g, not the proven %g", v, q.FEN(), q.DecisionString(res.Best), got, res.Value)
					}
				}
			}
		}
	}
	if proofs < 20 {
		t.Errorf("only %d proofs checked; want at least 20", proofs)
	}
	t.Logf("%d proofs checked", proofs)
}

// TestForcedRoot: a root with a single legal decision is returned at once,
// unsearched, unless the limits ask for it to be searched (an analysis),
// and then the solver proves what it is worth. After the lure of
// TestSolverFindsLure with g5-f6, North's only decision is e7xg5, lost in
// four decisions (e7xg5 i5-h6 g5xi7 k7xg7); the evaluator calls every
// position even.
func TestForcedRoot(t *testing.T) {
	p := afterTurns(t, "winther-all-must-capture", "e5-d6", "c9-d8", "c5-b6", "a7xc5xe7", "g5-f6")
	if n := len(p.Decisions(nil)); n != 1 {
		t.Fatalf("%d legal decisions; want the forced e7xg5", n)
	}
	for _, gumbel := range []bool{false, true} {
		for _, forced := range []bool{false, true} {
			cfg := DefaultConfig()
			cfg.Gumbel = gumbel
			res, err := newSearch(t, constEvaluator{}, cfg, p).Run(context.Background(), Limits{Sims: 400, Forced: forced})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case !forced && (res.Simulations != 0 || res.Solved):
				t.Errorf("gumbel %v: %d simulations, solved %v; want the forced decision at once", gumbel, res.Simulations, res.Solved)
			case forced && (res.Simulations == 0 || res.Visits[0] == 0):
				t.Errorf("gumbel %v, Forced: %d simulations, %d visits; want a search", gumbel, res.Simulations, res.Visits[0])
			case forced && (!res.Solved || res.Value != -1 || res.Plies != 4):
				t.Errorf("gumbel %v, Forced: solved %v value %g in %d plies; want a proven loss in 4", gumbel, res.Solved, res.Value, res.Plies)
			}
		}
	}
}

// forcedWatcher is a MaterialEvaluator that records whether it was asked
// about a position with a single legal decision.
type forcedWatcher struct {
	MaterialEvaluator
	root          game.Position
	forced, total int
}

func (e *forcedWatcher) Evaluate(batch []Request) error {
	for i := range batch {
		e.total++
		if len(batch[i].Legal) == 1 && batch[i].Pos != e.root {
			e.forced++
		}
	}
	return e.MaterialEvaluator.Evaluate(batch)
}

// TestSkipForced: with SkipForced the evaluator never sees a position with
// a single legal decision below the root; without it, it does (captures
// are compulsory in dablot, so forced replies are common).
func TestSkipForced(t *testing.T) {
	r := configs.MustVariant("dablot")
	rng := rand.New(rand.NewPCG(3, 3))
	for _, skip := range []bool{false, true} {
		forced, total := 0, 0
		for range 6 {
			p := r.Start()
			for i := 0; i < 60 && !p.Status().Over(); i++ {
				ds := p.Decisions(nil)
				p.Apply(ds[rng.IntN(len(ds))])
			}
			if p.Status().Over() || len(p.Decisions(nil)) < 2 {
				continue
			}
			ev := &forcedWatcher{root: p}
			cfg := DefaultConfig()
			cfg.SkipForced = skip
			if _, err := newSearch(t, ev, cfg, p).Run(context.Background(), Limits{Sims: 300}); err != nil {
				t.Fatal(err)
			}
			forced, total = forced+ev.forced, total+ev.total
		}
		if skip && forced > 0 || !skip && forced == 0 {
			t.Errorf("SkipForced %v: %d of %d evaluations were of forced positions", skip, forced, total)
		}
	}
}

// TestSolverAvoidsProvenLoss builds a root by hand whose most visited
// decision is proven lost: the result must play the other one, and must
// play the shortest of two proven wins.
func TestSolverAvoidsProvenLoss(t *testing.T) {
	p := configs.MustVariant("keyland").Start()
	cfg := DefaultConfig()
	cfg.Solver = true
	s := newSearch(t, &MaterialEvaluator{}, cfg, p)
	r := s.root
	r.state = expanded
	r.prior = make([]float32, len(r.legal))
	other := r.side.Other()
	// children[0]: visited most, lost for the root's side (won for the
	// opponent, who moves there). children[1]: a few visits, unknown.
	r.children[0] = &node{side: other, state: expanded, n: 90, w: -9, solved: true, exact: 1, plies: 3}
	r.children[1] = &node{side: other, state: expanded, n: 10, w: 2}
	res := s.result(100, time.Now())
	if res.Best != r.legal[1] || res.Solved {
		t.Errorf("best %s (solved %v); want %s, the decision not proven lost",
			p.DecisionString(res.Best), res.Solved, p.DecisionString(r.legal[1]))
	}
	if res.Q[0] != -1 {
		t.Errorf("Q of the proven loss = %g, want -1", res.Q[0])
	}
	// Drawn by visits at temperature 1, the proven loss (90 % of the
	// visits) is never played.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		if d := res.Choose(1, rng); d != r.legal[1] {
			t.Fatalf("Choose at temperature 1 played %s, want only %s", p.DecisionString(d), p.DecisionString(r.legal[1]))
		}
	}
	// Two proven wins for the root's side, in 7 and in 3 plies below.
	r.children[1] = &node{side: other, state: expanded, n: 10, w: -10, solved: true, exact: -1, plies: 6}
	r.children[2] = &node{side: other, state: expanded, n: 1, w: -1, solved: true, exact: -1, plies: 2}
	if !r.trySolve() || r.exact != 1 || r.plies != 3 {
		t.Fatalf("root: solved %v value %g in %d; want a win in 3", r.solved, r.exact, r.plies)
	}
	res = s.result(111, time.Now())
	if res.Best != r.legal[2] || !res.Solved || res.Value != 1 || res.Plies != 3 || res.Policy[2] != 1 {
		t.Errorf("best %s, solved %v value %g in %d, policy %g; want %s, a win in 3, policy 1",
			p.DecisionString(res.Best), res.Solved, res.Value, res.Plies, res.Policy[2], p.DecisionString(r.legal[2]))
	}
	for range 50 {
		if d := res.Choose(1, rng); d != r.legal[2] {
			t.Fatalf("Choose at a proven root played %s, want the proof's %s", p.DecisionString(d), p.DecisionString(r.legal[2]))
		}
	}
}
