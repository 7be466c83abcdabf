package mcts

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// exactScores scores every legal decision of p by minimax to depth turns
// (the decision's own turn counted), for p's side to move.
func exactScores(ab *AlphaBetaPlayer, p *game.Position, depth int) ([]game.Decision, []int) {
	legal := p.Decisions(nil)
	scores := make([]int, len(legal))
	for j, d := range legal {
		q := *p
		q.Apply(d)
		nd := depth
		if q.Chain() < 0 {
			nd--
		}
		scores[j] = minimax(ab, &q, nd, 1)
		if q.SideToMove() != p.SideToMove() {
			scores[j] = -scores[j]
		}
	}
	return legal, scores
}

// TestVetoesEqualMinimax: the decisions vetoed with null windows are those
// whose exact minimax score is more than the margin below the best.
func TestVetoesEqualMinimax(t *testing.T) {
	checked := 0
	for depth, extend := range crossDepthsExtend(3) {
		for _, margin := range []int{0, 50, 150} {
			for i, p := range smallPositions(t) {
				c := DefaultAlphaBetaConfig()
				c.Depth, c.TTBits, c.Quiescence, c.Extend = depth, 0, false, extend
				ab, err := NewAlphaBetaPlayer(c)
				if err != nil {
					t.Fatal(err)
				}
				// Killers, history and null windows change the nodes, not the vetoes.
				var got [2][]game.Decision
				for o, order := range []bool{false, true} {
					ab.cfg.Order = order
					if got[o], err = ab.Vetoes(context.Background(), &p, depth, margin, time.Time{}); err != nil {
						t.Fatal(err)
					}
				}
				legal, scores := exactScores(ab, &p, depth) // after a search: its extension limit
				best := slices.Max(scores)
				var want []game.Decision
				for j, d := range legal {
					if scores[j] < best-margin {
						want = append(want, d)
					}
				}
				for o := range got {
					if !slices.Equal(got[o], want) {
						t.Errorf("depth %d extend %v order %v margin %d position %d (%s): vetoes %v, want %v (scores %v)", depth, extend, o == 1, margin, i, p.FEN(), got[o], want, scores)
					}
				}
				if len(want) > 0 {
					checked++
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no position had a veto: the test proves nothing")
	}
	ab, _ := NewAlphaBetaPlayer(DefaultAlphaBetaConfig())
	p := smallPositions(t)[0]
	for _, depth := range []int{0, maxDepth + 1} {
		if _, err := ab.Vetoes(context.Background(), &p, depth, 100, time.Time{}); err == nil {
			t.Errorf("depth %d: no error", depth)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ab.Vetoes(ctx, &p, 3, 100, time.Time{}); err == nil {
		t.Error("cancelled context: no error")
	}
}

// crossDepthsExtend yields the depths 1 to n, each without and with
// single-reply extensions.
func crossDepthsExtend(n int) func(yield func(int, bool) bool) {
	return func(yield func(int, bool) bool) {
		for depth := 1; depth <= n; depth++ {
			for _, extend := range []bool{false, true} {
				if !yield(depth, extend) {
					return
				}
			}
		}
	}
}

// TestGuardTime: with a deadline the guard stops deepening and vetoes by
// the deepest search it completed; a deadline already past, or a closed
// Stop, leaves the vetoes of one turn at most.
func TestGuardTime(t *testing.T) {
	p := configs.MustVariant("dablot").Start()
	g, err := NewGuard(MaxGuardDepth, 100, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := g.Excluded(context.Background(), &p, start.Add(20*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	// The deadline is checked every 1024 nodes: a little over is fine, a
	// search to depth 16 from the start position is not.
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("a 20 ms deadline took %v", took)
	}
	// A deadline already past: no deeper search than one turn.
	ex, err := g.Excluded(context.Background(), &p, time.Now().Add(-time.Second))
	one, _ := g.ab.Vetoes(context.Background(), &p, 1, 100, time.Time{})
	if err != nil || len(ex) != 0 && !slices.Equal(ex, one) {
		t.Errorf("a past deadline: vetoes %v, %v; want none or those of one turn, %v", ex, err, one)
	}
	// A closed Stop ends the deepening as a deadline does, with no error;
	// the search's time limit is what is left of it.
	stop := make(chan struct{})
	close(stop)
	start = time.Now()
	r, err := g.Restrict(context.Background(), &p, Limits{Sims: 10, Stop: stop})
	if err != nil || len(r.Excluded) != 0 && !slices.Equal(r.Excluded, one) || r.Guarded {
		t.Errorf("a closed Stop: %+v, %v; want no vetoes or those of one turn, %v", r, err, one)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("a closed Stop took %v", took)
	}
	if r, err := g.Restrict(context.Background(), &p, Limits{Time: 40 * time.Millisecond}); err != nil || r.Limits.Time != max(40*time.Millisecond-r.Took, time.Millisecond) {
		t.Errorf("40 ms: the guard took %v and left %v", r.Took, r.Limits.Time)
	}
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
		s := newSearch(t, pinnedPrior{root: p, d: fav, prior: 0.99}, cfg, p)
		res, err := s.Run(context.Background(), Limits{Sims: 64})
		if err != nil {
			t.Fatal(err)
		}
		if res.Best != fav {
			t.Fatalf("%s: without exclusion the favoured %s is not chosen: the test proves nothing", name, p.DecisionString(fav))
		}
		s = newSearch(t, pinnedPrior{root: p, d: fav, prior: 0.99}, cfg, p)
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
		// The policy target holds only the decisions left.
		var sum float32
		for i, d := range res.Legal {
			sum += res.Policy[i]
			if (d == fav || d == legal[0]) && res.Policy[i] != 0 {
				t.Errorf("%s: excluded %s has policy %g", name, p.DecisionString(d), res.Policy[i])
			}
		}
		if sum < 0.999 || sum > 1.001 {
			t.Errorf("%s: policy sums to %g", name, sum)
		}
		// A new root has no exclusions.
		s = newSearch(t, pinnedPrior{root: p, d: fav, prior: 0.99}, cfg, p)
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
	s := newSearch(t, pinnedPrior{root: p, d: fav, prior: 0.99}, DefaultConfig(), p)
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
		g, err := NewGuard(2, 100, 1)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := g.Excluded(context.Background(), &p, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if len(ex) == len(p.Decisions(nil)) {
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
			pl, err := NewSearchPlayer(pinnedPrior{root: p, d: ex[0], prior: 0.99}, cfg, Limits{Sims: 1})
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
	for _, c := range []struct {
		depth, margin int
		share         float64
	}{{0, 100, 1}, {MaxGuardDepth + 1, 100, 1}, {2, -1, 1}, {2, 100, 0}, {2, 100, 1.5}} {
		if _, err := NewGuard(c.depth, c.margin, c.share); err == nil {
			t.Errorf("NewGuard%+v: no error", c)
		}
	}
}

// TestGuardNodes: a node budget stops the deepening where it runs out, the
// same way every time; the vetoes are those of the deepest search done.
func TestGuardNodes(t *testing.T) {
	p := configs.MustVariant("dablot").Start()
	// nodesTo returns the nodes and vetoes of a fresh guard deepening to
	// depth without a budget.
	nodesTo := func(depth int) (int64, []game.Decision) {
		g, err := NewGuard(depth, 100, 1)
		if err != nil {
			t.Fatal(err)
		}
		r, err := g.Restrict(context.Background(), &p, Limits{Sims: 10})
		if err != nil {
			t.Fatal(err)
		}
		return g.ab.Nodes, r.Excluded
	}
	// The first depth whose next search is long enough to be stopped
	// (the budget is checked every 1024 nodes).
	depth := 1
	done, want := nodesTo(depth)
	for {
		next, vetoNext := nodesTo(depth + 1)
		if next-done > 2048 {
			break
		}
		if depth++; depth >= MaxGuardDepth {
			t.Fatal("no search of the start position takes over 2048 nodes")
		}
		done, want = next, vetoNext
	}
	for _, tc := range []struct {
		name   string
		budget int64
		want   []game.Decision
	}{
		{"the nodes to that depth and one more", done + 1, want},
		{"the nodes to that depth exactly", done, want},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 2 {
				g, err := NewGuard(MaxGuardDepth, 100, 1)
				if err != nil {
					t.Fatal(err)
				}
				g.Nodes = tc.budget
				r, err := g.Restrict(context.Background(), &p, Limits{Sims: 10})
				if err != nil {
					t.Fatal(err)
				}
				if r.Depth != depth {
					t.Errorf("budget %d: deepest search %d turns, want %d", tc.budget, r.Depth, depth)
				}
				if !slices.Equal(r.Excluded, tc.want) {
					t.Errorf("budget %d: vetoes %v, want those of %d turns, %v", tc.budget, r.Excluded, depth, tc.want)
				}
				if g.ab.Nodes > tc.budget+1024 {
					t.Errorf("budget %d: %d nodes searched", tc.budget, g.ab.Nodes)
				}
			}
		})
	}
}

// TestVetoTested: a vetoes search that completes has tested every legal
// decision; one stopped within its first 1024 nodes has no best score yet
// (-1); and a larger budget never tests fewer (what BenchmarkGuardWaste
// reports).
func TestVetoTested(t *testing.T) {
	p := configs.MustVariant("dablot").Start()
	legal := len(p.Decisions(nil))
	tested := func(depth int, budget int64) int {
		g, err := NewGuard(depth, DefaultGuardMargin, 1)
		if err != nil {
			t.Fatal(err)
		}
		r, err := g.ab.vetoes(context.Background(), &p, vetoLimits{depth: depth, margin: g.Margin, maxNodes: budget})
		if budget == 0 && err != nil {
			t.Fatal(err)
		}
		if budget > 0 && !errors.Is(err, errGuardTime) && r.tested != legal {
			t.Fatalf("depth %d within %d nodes: error %v, tested %d of %d", depth, budget, err, r.tested, legal)
		}
		return r.tested
	}
	// The first depth whose search takes over 50,000 nodes (the budget is
	// checked every 1024), and its nodes.
	var depth int
	var total int64
	for depth = 3; ; depth++ {
		if depth > MaxGuardDepth {
			t.Fatal("no search of the start position takes over 50,000 nodes")
		}
		g, err := NewGuard(depth, DefaultGuardMargin, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.ab.vetoes(context.Background(), &p, vetoLimits{depth: depth, margin: g.Margin}); err != nil {
			t.Fatal(err)
		}
		if total = g.ab.Nodes; total > 50_000 {
			break
		}
	}
	if got := tested(depth, 0); got != legal {
		t.Errorf("a completed search tested %d decisions, want all %d", got, legal)
	}
	if got := tested(depth, 1); got != -1 {
		t.Errorf("a search stopped at once tested %d decisions, want -1 (no best score)", got)
	}
	// Budgets down from the search's nodes: the count never rises as the
	// budget falls. (From the start position the tests after the best
	// score cost under the 1024 nodes between checks, so no budget stops
	// among them there; BenchmarkGuardWaste counts how often it happens.)
	prev := legal
	for k := int64(16); k >= 1; k-- {
		budget := total * k / 16
		got := tested(depth, budget)
		if got > prev {
			t.Errorf("within %d nodes tested %d decisions, more than %d within more", budget, got, prev)
		}
		prev = got
	}
}

// TestGuardKingValue: a guard that counts the king at more than five
// soldiers vetoes the step that lets the enemy lure the king into a capture
// (a position of the ladder, dablot, South's king on k7 lost within four
// turns); at the alpha-beta players' five it lets the step pass.
func TestGuardKingValue(t *testing.T) {
	p := mustFEN(t, "dablot", "ssssss/sssss/s1ssss/sssss/s1ss1s/p4/ks1S1K/4P/S1SS1S/SSSS1/SSSSSS/SSSSS/SSSSSS s - 0 5")
	q := p
	_, ds, err := q.ParseTurn("d4-c5")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		king   int
		vetoed bool
	}{{5, false}, {20, true}} {
		g, err := NewGuard(4, DefaultGuardMargin, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.SetKingValue(tc.king); err != nil {
			t.Fatal(err)
		}
		if got := g.KingValue(); got != tc.king {
			t.Errorf("KingValue() = %d after SetKingValue(%d)", got, tc.king)
		}
		ex, err := g.Excluded(context.Background(), &p, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(ex, ds[0]); got != tc.vetoed {
			t.Errorf("king at %d soldiers: d4-c5 vetoed %v, want %v", tc.king, got, tc.vetoed)
		}
	}
	g, err := NewGuard(4, DefaultGuardMargin, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.KingValue(); got != DefaultGuardKingValue {
		t.Errorf("a new guard values the king at %d soldiers, want %d", got, DefaultGuardKingValue)
	}
	for _, bad := range []int{0, -1, MaxGuardKingValue + 1} {
		if err := g.SetKingValue(bad); err == nil {
			t.Errorf("SetKingValue(%d): no error", bad)
		}
	}
}

// TestGuardDeadline: the guard searches within its share of a time limit,
// or within the whole time in an endgame handed to it (the network's
// search will not run), and without a time limit has no deadline.
func TestGuardDeadline(t *testing.T) {
	g, err := NewGuard(4, 100, 0.25)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	lim := Limits{Time: 200 * time.Millisecond}
	if got, want := g.deadline(start, lim), start.Add(50*time.Millisecond); !got.Equal(want) {
		t.Errorf("share: %v, want %v", got, want)
	}
	if got := g.deadline(start, Limits{Sims: 100}); !got.IsZero() {
		t.Errorf("no time limit: %v", got)
	}
}

// TestGuardOrder: killers, history and null windows (Guard.Order, the spec
// key gorder=) reach the same depths in fewer nodes, from the openings of
// the ladder's books.
func TestGuardOrder(t *testing.T) {
	for _, v := range []string{"dablot", "winther"} {
		book := bookOf(t, v)
		var nodes [2]int64
		for _, p := range book[:8] {
			if len(p.Decisions(nil)) < 2 {
				continue // Restrict leaves a forced decision alone
			}
			for o, order := range []bool{false, true} {
				g, err := NewGuard(3, DefaultGuardMargin, 1)
				if err != nil {
					t.Fatal(err)
				}
				g.Order = order
				res, err := g.Restrict(context.Background(), &p, Limits{Sims: 10})
				if err != nil {
					t.Fatal(err)
				}
				if res.Depth != 3 {
					t.Fatalf("%s %s order %v: depth %d, want 3", v, p.FEN(), order, res.Depth)
				}
				nodes[o] += g.ab.Nodes
			}
		}
		if nodes[1] >= nodes[0] {
			t.Errorf("%s: %d nodes with Order, %d without: want fewer", v, nodes[1], nodes[0])
		}
		t.Logf("%s, 8 openings to 3 turns: %d nodes without Order, %d with", v, nodes[0], nodes[1])
	}
	f, err := ParseFactory("gumbel:eval=material,sims=8,guard=4,gorder=1", SpecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pl, err := f.New(1)
	if err != nil {
		t.Fatal(err)
	}
	if sp, ok := pl.(*SearchPlayer); !ok || sp.Guard == nil || !sp.Guard.Order {
		t.Errorf("gorder=1: player %T without an ordering guard", pl)
	}
}

// TestGuardSpec: a guard's Spec, given to a player spec, makes the same
// guard.
func TestGuardSpec(t *testing.T) {
	def, err := NewDefaultGuard(DefaultGuardDepth, Limits{Sims: 200})
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewGuard(5, 50, 0.25)
	if err != nil {
		t.Fatal(err)
	}
	other.Extend, other.Order, other.Nodes = false, false, 1000
	if err := other.SetKingValue(20); err != nil {
		t.Fatal(err)
	}
	for _, g := range []*Guard{def, other} {
		f, err := ParseFactory("gumbel:eval=material,sims=8,"+g.Spec(), SpecOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pl, err := f.New(1)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		sp, ok := pl.(*SearchPlayer)
		if !ok || sp.Guard == nil {
			t.Fatalf("%s: player %T without a guard", g.Spec(), pl)
		}
		if got := sp.Guard.Spec(); got != g.Spec() {
			t.Errorf("spec %s makes a guard of %s", g.Spec(), got)
		}
	}
	if def.Spec() == other.Spec() {
		t.Errorf("two guards, one spec: %s", def.Spec())
	}
}

// bookOf returns the opening book of variant v.
func bookOf(t *testing.T, v string) []game.Position {
	t.Helper()
	book, ok, err := configs.Book(configs.MustVariant(v))
	if err != nil || !ok {
		t.Fatalf("%s: no book (%v)", v, err)
	}
	return book
}
