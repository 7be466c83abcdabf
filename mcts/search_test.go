package mcts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// sideEvaluator is a stub: uniform priors, and a value that depends only
// on the side to move (South is always better by v).
type sideEvaluator struct{ v float32 }

func (e sideEvaluator) Evaluate(batch []Request) error {
	for i := range batch {
		uniform(&batch[i])
		batch[i].Value = e.v
		if batch[i].Pos.SideToMove() == game.North {
			batch[i].Value = -e.v
		}
	}
	return nil
}

func newSearch(t testing.TB, ev Evaluator, cfg Config, p game.Position) *Search {
	t.Helper()
	s, err := NewSearch(ev, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.SetPosition(p)
	return s
}

func TestBackupSignsFollowSides(t *testing.T) {
	// South jumps, South jumps again (a chain), then North is to move.
	path := []*node{{side: game.South, vl: 1}, {side: game.South, vl: 1}, {side: game.North, vl: 1}}
	backup(path, 0.5, game.North)
	for i, want := range []float64{-0.5, -0.5, 0.5} {
		if path[i].w != want || path[i].n != 1 || path[i].vl != 0 {
			t.Errorf("node %d: w %g n %d vl %d, want w %g n 1 vl 0", i, path[i].w, path[i].n, path[i].vl, want)
		}
	}
}

// TestChainValuesDoNotFlip searches the long-chain win. Every decision of
// the chain is South's, so every node on the chain is worth about +1 to
// South; a search that flipped signs by depth would see the win as a loss
// every other jump.
func TestChainValuesDoNotFlip(t *testing.T) {
	for _, gumbel := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.Gumbel = gumbel
		cfg.Solver, cfg.SkipForced = false, false // the means themselves, not proofs
		p := mustFEN(t, "keyland", fenLongChain)
		s := newSearch(t, &MaterialEvaluator{}, cfg, p)
		res, err := s.Run(context.Background(), Limits{Sims: 300})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.DecisionString(res.Best); got != "a1xa5" {
			t.Fatalf("gumbel %v: best %s, want a1xa5", gumbel, got)
		}
		// Follow the most visited path down the chain: all South nodes.
		n := s.root
		for depth := 0; n.state == expanded && n.side == game.South; depth++ {
			if q := n.q(); depth > 0 && q < 0.5 {
				t.Errorf("gumbel %v: chain node at depth %d (%s) has value %.3f for South, want > 0.5", gumbel, depth, n.pos.FEN(), q)
			}
			var next *node
			for _, c := range n.children {
				if c != nil && (next == nil || c.n > next.n) {
					next = c
				}
			}
			if next == nil {
				break
			}
			n = next
		}
		if n.state != terminal || n.value != 1 || n.side != game.South {
			t.Errorf("gumbel %v: the chain ends in state %d, value %g for %s; want South's win", gumbel, n.state, n.value, n.side)
		}
	}
}

// TestValuesPerNodeSide runs PUCT with an evaluator that always favours
// South and checks every evaluated node's value from its own side's view,
// including the nodes inside capture chains.
func TestValuesPerNodeSide(t *testing.T) {
	p := mustFEN(t, "keyland", fenStopPoint)
	s := newSearch(t, sideEvaluator{0.5}, DefaultConfig(), p)
	if _, err := s.Run(context.Background(), Limits{Sims: 300}); err != nil {
		t.Fatal(err)
	}
	checked, chainEdges := 0, 0
	var walk func(n *node)
	walk = func(n *node) {
		if n.state != expanded {
			return
		}
		want := float32(0.5)
		if n.side == game.North {
			want = -0.5
		}
		if n.value != want {
			t.Errorf("%s: value %g for %s, want %g", n.pos.FEN(), n.value, n.side, want)
		}
		checked++
		for _, c := range n.children {
			if c == nil {
				continue
			}
			if c.side == n.side && c.state == expanded {
				chainEdges++
			}
			walk(c)
		}
	}
	walk(s.root)
	if checked < 20 || chainEdges == 0 {
		t.Errorf("%d nodes checked, %d inside chains", checked, chainEdges)
	}
}

// TestGumbelPicksBestRootAction runs each search bounded by simulations,
// halving once, and by simulations and a time that never binds, halving in
// passes of doubling budgets (the dablot win: 80, 160 and the 160 left).
func TestGumbelPicksBestRootAction(t *testing.T) {
	for _, tc := range []struct {
		variant, fen, want string
		sims               int
	}{
		{"keyland", fenLongChain, "a1xa5", 32},
		{"dablot", fenWinInTwo, "e5-e7", 400},
	} {
		p := mustFEN(t, tc.variant, tc.fen)
		for seed := range uint64(5) {
			for _, lim := range []Limits{{Sims: tc.sims}, {Sims: tc.sims, Time: time.Hour}} {
				cfg := DefaultConfig()
				cfg.Gumbel, cfg.GumbelM, cfg.Seed = true, 32, seed
				// The solver plays the same turn, sooner (a proven root
				// stops the search); the halving itself is checked without.
				cfg.Solver, cfg.SkipForced = true, true
				s := newSearch(t, &MaterialEvaluator{}, cfg, p)
				res, err := s.Run(context.Background(), lim)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("%s seed %d time %v", tc.variant, seed, lim.Time)
				if got := p.DecisionString(res.Best); got != tc.want || !res.Solved || res.Simulations > tc.sims {
					t.Errorf("%s with the solver: best %s (solved %v, %d simulations), want %s, proven within %d",
						name, got, res.Solved, res.Simulations, tc.want, tc.sims)
				}
				cfg.Solver, cfg.SkipForced = false, false
				s = newSearch(t, &MaterialEvaluator{}, cfg, p)
				if res, err = s.Run(context.Background(), lim); err != nil {
					t.Fatal(err)
				}
				if got := p.DecisionString(res.Best); got != tc.want {
					t.Errorf("%s: best %s, want %s (visits %v)", name, got, tc.want, res.Visits)
				}
				i := slices.Index(res.Legal, res.Best)
				if j := argmax(res.Policy); j != i {
					t.Errorf("%s: improved policy peaks at %s, not the best", name, p.DecisionString(res.Legal[j]))
				}
				if res.Simulations != tc.sims {
					t.Errorf("%s: %d simulations, want %d", name, res.Simulations, tc.sims)
				}
			}
		}
	}
}

// TestGumbelAnytimeHalves checks that a run without a fixed budget still
// concentrates its visits. With 16 decisions considered, passes of 64, 128
// and 256 simulations end exactly at 448; the last pass alone gives its
// survivor 4+8+16+32 = 60 visits, where one schedule planned for a huge
// budget would still be spreading 28 visits over each of the 16.
func TestGumbelAnytimeHalves(t *testing.T) {
	p := configs.MustVariant("keyland").Start()
	cfg := DefaultConfig()
	cfg.Gumbel, cfg.GumbelM, cfg.BatchSize, cfg.Seed = true, 16, 1, 7
	s := newSearch(t, &RolloutEvaluator{Seed: 3, MaxDecisions: 50}, cfg, p)
	res, err := s.Run(context.Background(), Limits{Sims: 448, Time: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	total, most, atMost := 0, 0, 0
	for _, v := range res.Visits {
		total += v
		most = max(most, v)
	}
	for _, v := range res.Visits {
		if v == most {
			atMost++
		}
	}
	if total != 448 || most < 60 || atMost != 1 {
		t.Errorf("visits %v: total %d, most %d (by %d decisions); want 448, at least 60, by one", res.Visits, total, most, atMost)
	}
	if i := slices.Index(res.Legal, res.Best); res.Visits[i] != most {
		t.Errorf("best %s has %d visits, not the most (%d)", p.DecisionString(res.Best), res.Visits[i], most)
	}

	// Bounded by time alone, it searches and answers: however short the
	// time (or slow the machine), its first batch of simulations runs.
	s = newSearch(t, &MaterialEvaluator{}, cfg, p)
	res, err = s.Run(context.Background(), Limits{Time: time.Nanosecond})
	if err != nil || res.Simulations == 0 {
		t.Fatalf("time-bounded run: %v, %+v", err, res)
	}
}

func argmax(x []float32) int {
	best := 0
	for i := range x {
		if x[i] > x[best] {
			best = i
		}
	}
	return best
}

// referenceConsideredVisits is mctx's get_sequence_of_considered_visits as
// written there, one entry per simulation: the halving schedule must give
// the same sequence.
func referenceConsideredVisits(m, n int) []int {
	seq := make([]int, 0, n)
	if m <= 1 {
		for i := range n {
			seq = append(seq, i)
		}
		return seq
	}
	log2m := int(math.Ceil(math.Log2(float64(m))))
	visits := make([]int, m)
	considered := m
	for len(seq) < n {
		extra := max(1, n/(log2m*considered))
		for range extra {
			seq = append(seq, visits[:considered]...)
			for i := range considered {
				visits[i]++
			}
		}
		considered = max(2, considered/2)
	}
	return seq[:n]
}

// scheduleOf lists the halving schedule of n simulations over m decisions.
func scheduleOf(m, n int) []int {
	var h halving
	h.plan(m, n)
	seq := make([]int, n)
	for i := range seq {
		seq[i] = h.at(i)
	}
	return seq
}

func TestHalvingSchedule(t *testing.T) {
	ms := []int{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 100, 1024}
	ns := []int{0, 1, 2, 3, 5, 7, 8, 15, 16, 17, 31, 32, 63, 64, 65, 100, 200, 255, 256, 257, 800, 1000, 4097, 20000}
	for _, m := range ms {
		for _, n := range ns {
			want := referenceConsideredVisits(m, n)
			if got := scheduleOf(m, n); !slices.Equal(got, want) {
				t.Fatalf("m %d n %d: schedule %v, want %v", m, n, got, want)
			}
			// Lookups in any order (a pass restarts, collisions step back).
			var h halving
			h.plan(m, n)
			for i := n - 1; i >= 0; i -= 3 {
				if got := h.at(i); got != want[i] {
					t.Fatalf("m %d n %d: at(%d) = %d after later lookups, want %d", m, n, i, got, want[i])
				}
			}
		}
	}
	// mctx's own example: 4 actions, 16 simulations.
	want := []int{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}
	if got := scheduleOf(4, 16); !slices.Equal(got, want) {
		t.Errorf("schedule of 4 decisions, 16 simulations = %v, want %v", got, want)
	}
	// The plan of the largest budget holds its phases, not its simulations.
	var h halving
	h.plan(16, MaxSims)
	if len(h.phases) > 64 {
		t.Errorf("the plan of %d simulations over 16 decisions has %d phases", MaxSims, len(h.phases))
	}
	if got, want := h.at(MaxSims-1), referenceConsideredVisits(16, MaxSims)[MaxSims-1]; got != want {
		t.Errorf("the last of %d simulations wants %d visits, reference %d", MaxSims, got, want)
	}
}

// TestGumbelBudgetMemory: a Gumbel run that may take MaxSims simulations
// but stops after its first batch allocates what it ran, not a schedule
// entry per simulation of its budget (which took 8 MB, and a budget of
// 10^12 simulations ended the process out of memory).
func TestGumbelBudgetMemory(t *testing.T) {
	p := configs.MustVariant("keyland").Start()
	cfg := DefaultConfig()
	cfg.Gumbel = true
	s := newSearch(t, &MaterialEvaluator{}, cfg, p)
	stop := make(chan struct{})
	close(stop)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := s.Run(context.Background(), Limits{Sims: MaxSims, Stop: stop})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("a run of %d simulations stopped at once allocated %d bytes", res.Simulations, got)
	}
}

func TestLimitsBounded(t *testing.T) {
	p := configs.MustVariant("keyland").Start()
	for _, tc := range []struct {
		lim  Limits
		want string
	}{
		{Limits{}, "no limit"},
		{Limits{Sims: MaxSims + 1}, fmt.Sprintf("%d simulations: want at most %d", MaxSims+1, MaxSims)},
		{Limits{Sims: 1_000_000_000_000}, fmt.Sprintf("want at most %d", MaxSims)},
		{Limits{Nodes: MaxNodes + 1}, fmt.Sprintf("%d nodes: want at most %d", MaxNodes+1, MaxNodes)},
		{Limits{Time: time.Second, Nodes: 1 << 30}, "nodes: want at most"},
	} {
		s := newSearch(t, &MaterialEvaluator{}, DefaultConfig(), p)
		if _, err := s.Run(context.Background(), tc.lim); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run(%+v): %v, want an error containing %q", tc.lim, err, tc.want)
		}
		if _, err := NewSearchPlayer(&MaterialEvaluator{}, DefaultConfig(), tc.lim); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewSearchPlayer(%+v): %v, want an error containing %q", tc.lim, err, tc.want)
		}
	}
	// A run bounded by time alone, or by simulations alone, may grow its
	// tree to MaxNodes and no further.
	for _, lim := range []Limits{{Time: time.Hour}, {Sims: MaxSims}, {Nodes: 10, Time: time.Hour}} {
		want := MaxNodes
		if lim.Nodes > 0 {
			want = lim.Nodes
		}
		if got := lim.nodeCap(); got != want {
			t.Errorf("%+v: the tree may hold %d nodes, want %d", lim, got, want)
		}
	}
	if _, err := NewUCTPlayer(UCTConfig{Playouts: MaxSims + 1}); err == nil || !strings.Contains(err.Error(), fmt.Sprint(MaxSims)) {
		t.Errorf("UCT with %d playouts: %v, want an error naming %d", MaxSims+1, err, MaxSims)
	}
}

func TestSearchDeterministic(t *testing.T) {
	p := configs.MustVariant("keyland").Start()
	for _, gumbel := range []bool{false, true} {
		run := func() *Result {
			cfg := selfPlayConfig()
			cfg.Gumbel, cfg.Seed = gumbel, 42
			s := newSearch(t, &RolloutEvaluator{Seed: 3, MaxDecisions: 100}, cfg, p)
			res, err := s.Run(context.Background(), Limits{Sims: 64})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		a, b := run(), run()
		if !slices.Equal(a.Visits, b.Visits) || !slices.Equal(a.Policy, b.Policy) || a.Best != b.Best || a.Value != b.Value {
			t.Errorf("gumbel %v: two runs differ: %v %v vs %v %v", gumbel, a.Visits, a.Best, b.Visits, b.Best)
		}
	}
	for _, name := range []string{"uct", "mcts-rollout", "greedy"} {
		var texts []string
		for range 2 {
			for _, pc := range testPlayers() {
				if pc.name == name {
					pl, err := pc.make(9)
					if err != nil {
						t.Fatal(err)
					}
					texts = append(texts, turnText(t, pl, p))
				}
			}
		}
		if texts[0] != texts[1] {
			t.Errorf("%s: same seed, different turns %v", name, texts)
		}
	}
}

func TestTreeReuse(t *testing.T) {
	p := configs.MustVariant("keyland").Start()
	s := newSearch(t, &MaterialEvaluator{}, DefaultConfig(), p)
	res, err := s.Run(context.Background(), Limits{Sims: 200})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.Index(res.Legal, res.Best)
	kept := res.Visits[i]
	if err := s.Advance(res.Best); err != nil {
		t.Fatal(err)
	}
	if got := int(s.root.n); got != kept {
		t.Errorf("after Advance the root has %d visits, want the %d kept", got, kept)
	}
	q := p
	q.Apply(res.Best)
	// Opponent's reply: SetPosition finds it in the tree.
	r2, err := s.Run(context.Background(), Limits{Sims: 100})
	if err != nil {
		t.Fatal(err)
	}
	q.Apply(r2.Best)
	before := s.root.children[slices.Index(s.root.legal, r2.Best)]
	s.SetPosition(q)
	if s.root != before {
		t.Error("SetPosition did not reuse the subtree")
	}
	if err := s.Advance(game.Pass); err == nil {
		t.Error("Advance with an illegal decision: no error")
	}
}

func TestNoiseAndTemperature(t *testing.T) {
	p := configs.MustVariant("keyland").Start()
	cfg := selfPlayConfig()
	s := newSearch(t, &MaterialEvaluator{}, cfg, p)
	res, err := s.Run(context.Background(), Limits{Sims: 100})
	if err != nil {
		t.Fatal(err)
	}
	var sum float32
	for i, x := range s.rootPrior {
		sum += x
		if x == res.Prior[i] {
			t.Errorf("noise left prior %d unchanged", i)
		}
	}
	if math.Abs(float64(sum)-1) > 1e-4 {
		t.Errorf("noisy priors sum to %g", sum)
	}
	// Temperature 1 samples by visits; 0 takes the best.
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[game.Decision]bool{}
	for range 200 {
		seen[res.Choose(1, rng)] = true
	}
	if len(seen) < 2 {
		t.Errorf("temperature 1 always chose the same decision")
	}
	if d := res.Choose(0, rng); d != res.Best {
		t.Errorf("temperature 0 chose %v, not Best", d)
	}
	if got := cfg.TemperatureAt(0); got != 1 {
		t.Errorf("TemperatureAt(0) = %g", got)
	}
	if got := cfg.TemperatureAt(cfg.TemperaturePlies); got != 0 {
		t.Errorf("TemperatureAt(%d) = %g", cfg.TemperaturePlies, got)
	}
}

// closeAfter is an evaluator that closes stop at its calls-th batch.
type closeAfter struct {
	Evaluator
	calls int
	stop  chan struct{}
}

func (c *closeAfter) Evaluate(batch []Request) error {
	if c.calls--; c.calls == 0 {
		close(c.stop)
	}
	return c.Evaluator.Evaluate(batch)
}

func TestSearchLimitsAndErrors(t *testing.T) {
	p := configs.MustVariant("keyland").Start()
	s := newSearch(t, &MaterialEvaluator{}, DefaultConfig(), p)
	if _, err := s.Run(context.Background(), Limits{}); !errors.Is(err, ErrNoLimit) {
		t.Errorf("no limits: %v", err)
	}
	res, err := s.Run(context.Background(), Limits{Nodes: 50})
	if err != nil {
		t.Fatal(err)
	}
	if res.Nodes < 50 || res.Nodes > 50+DefaultConfig().BatchSize+1 {
		t.Errorf("node limit 50: %d nodes", res.Nodes)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Run(ctx, Limits{Sims: 10}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// However short the time (or slow the machine), a time-bounded run
	// searches: its first batch of simulations runs.
	s.SetPosition(p)
	if res, err := s.Run(context.Background(), Limits{Time: time.Nanosecond}); err != nil {
		t.Errorf("1 ns: %v", err)
	} else if res.Simulations == 0 {
		t.Error("1 ns: no simulation")
	}
	// A closed Stop ends the run without an error, with a result.
	closed := make(chan struct{})
	close(closed)
	s.SetPosition(p)
	res, err = s.Run(context.Background(), Limits{Sims: 1000, Stop: closed})
	if err != nil || res.Simulations != 0 || !slices.Contains(res.Legal, res.Best) {
		t.Errorf("stopped before the run: %d simulations, best %v, error %v", res.Simulations, res.Best, err)
	}
	// Stop closed during a run that would last an hour: by the evaluator,
	// at its third batch, so that the test does not depend on the clock.
	stop := make(chan struct{})
	during := newSearch(t, &closeAfter{Evaluator: &MaterialEvaluator{}, calls: 3, stop: stop}, DefaultConfig(), p)
	res, err = during.Run(context.Background(), Limits{Time: time.Hour, Stop: stop})
	if err != nil || res.Simulations == 0 {
		t.Errorf("stopped during the run: %d simulations, error %v", res.Simulations, err)
	}
	over := mustFEN(t, "keyland", "6/5/6/5/6/5/6/5/6/5/6/5/S5 n")
	s.SetPosition(over)
	if _, err := s.Run(context.Background(), Limits{Sims: 10}); err == nil {
		t.Error("finished game: no error")
	}
	bad := DefaultConfig()
	bad.CPuct = -1
	if _, err := NewSearch(&MaterialEvaluator{}, bad); err == nil {
		t.Error("CPuct -1: no error")
	}
	if _, err := NewSearch(nil, DefaultConfig()); err == nil {
		t.Error("nil evaluator: no error")
	}
	// An evaluator that fails leaves the tree usable.
	s2 := newSearch(t, failing{}, DefaultConfig(), p)
	if _, err := s2.Run(context.Background(), Limits{Sims: 10}); err == nil {
		t.Error("failing evaluator: no error")
	}
	if s2.root.state != unexpanded || s2.root.vl != 0 {
		t.Errorf("after a failure the root is in state %d with %d in flight", s2.root.state, s2.root.vl)
	}
	// A batch that fails mid-run: its leaves go back to unexpanded, and the
	// node count still matches the tree when the search runs on.
	flaky := &failOn{Evaluator: &MaterialEvaluator{}, call: 3}
	s3 := newSearch(t, flaky, DefaultConfig(), p)
	if _, err := s3.Run(context.Background(), Limits{Sims: 100}); err == nil {
		t.Error("evaluator failing at its third batch: no error")
	}
	if s3.nodes != countNodes(s3.root) {
		t.Errorf("after a failed batch: %d nodes counted, %d in the tree", s3.nodes, countNodes(s3.root))
	}
	res, err = s3.Run(context.Background(), Limits{Sims: 100})
	if err != nil || res.Nodes != countNodes(s3.root) {
		t.Errorf("the run after a failed batch: %d nodes counted, %d in the tree, error %v", res.Nodes, countNodes(s3.root), err)
	}
}

type failing struct{}

// failOn is an evaluator that fails at its call'th batch (counting from 1).
type failOn struct {
	Evaluator
	call, calls int
}

func (f *failOn) Evaluate(batch []Request) error {
	if f.calls++; f.calls == f.call {
		return errors.New("lost the network")
	}
	return f.Evaluator.Evaluate(batch)
}

func (failing) Evaluate([]Request) error { return errors.New("no network") }

func TestEvaluators(t *testing.T) {
	p := configs.MustVariant("dablot").Start()
	legal := p.Decisions(nil)
	for name, ev := range map[string]Evaluator{
		"rollout":  &RolloutEvaluator{Rollouts: 4, Seed: 1},
		"material": &MaterialEvaluator{CaptureBias: 3},
	} {
		reqs := []Request{{Pos: p, Legal: legal, Priors: make([]float32, len(legal))}}
		if err := ev.Evaluate(reqs); err != nil {
			t.Fatal(err)
		}
		if err := checkRequest(&reqs[0]); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		again := []Request{{Pos: p, Legal: legal, Priors: make([]float32, len(legal))}}
		ev.Evaluate(again)
		if again[0].Value != reqs[0].Value {
			t.Errorf("%s: not a function of the position: %g then %g", name, reqs[0].Value, again[0].Value)
		}
	}
	// Material: a side a prince up is better, and says so from both sides.
	up := mustFEN(t, "keyland", "6/5/6/5/6/5/2s3/5/1SP3/5/6/5/6 s")
	down := mustFEN(t, "keyland", "6/5/6/5/6/5/2s3/5/1SP3/5/6/5/6 n")
	var m MaterialEvaluator
	if a, b := m.value(&up), m.value(&down); !(a > 0 && b < 0 && math.Abs(a+b) < 1e-12) {
		t.Errorf("material values %g (south to move) and %g (north to move)", a, b)
	}
	// Capture bias: jumps get more prior.
	cp := mustFEN(t, "keyland", fenLongChain)
	defer checkAblated(t, cp)
	cl := cp.Decisions(nil)
	req := []Request{{Pos: cp, Legal: cl, Priors: make([]float32, len(cl))}}
	(&MaterialEvaluator{CaptureBias: 4}).Evaluate(req)
	for i, d := range cl {
		if d.IsJump() && req[0].Priors[i] <= 1/float32(len(cl)) {
			t.Errorf("jump %s prior %g not raised", cp.DecisionString(d), req[0].Priors[i])
		}
	}
}

func sum32(x []float32) float32 {
	var s float32
	for _, v := range x {
		s += v
	}
	return s
}

func TestBatcher(t *testing.T) {
	inner := &countingEvaluator{}
	b := NewBatcher(inner, 64, 0)
	defer b.Close()
	p := configs.MustVariant("keyland").Start()
	var wg sync.WaitGroup
	results := make([][]Result, 8)
	for g := range 8 {
		wg.Go(func() {
			cfg := DefaultConfig()
			cfg.Seed = uint64(g)
			s, err := NewSearch(b, cfg)
			if err != nil {
				t.Error(err)
				return
			}
			s.SetPosition(p)
			res, err := s.Run(context.Background(), Limits{Sims: 100})
			if err != nil {
				t.Error(err)
				return
			}
			results[g] = []Result{*res}
		})
	}
	wg.Wait()
	// Alone, the same search gives the same result.
	s := newSearch(t, &MaterialEvaluator{}, DefaultConfig(), p)
	alone, err := s.Run(context.Background(), Limits{Sims: 100})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(results[0][0].Visits, alone.Visits) {
		t.Errorf("batched search differs from a lone one: %v vs %v", results[0][0].Visits, alone.Visits)
	}
	batches, reqs := b.Stats()
	if batches == 0 || reqs/batches < 2 {
		t.Logf("batches %d, requests %d", batches, reqs)
	}
	b.Close()
	if err := b.Evaluate([]Request{{Pos: p}}); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

type countingEvaluator struct {
	mu sync.Mutex
	n  int
	MaterialEvaluator
}

func (c *countingEvaluator) Evaluate(batch []Request) error {
	c.mu.Lock()
	c.n += len(batch)
	c.mu.Unlock()
	return c.MaterialEvaluator.Evaluate(batch)
}

// checkAblated: Ablated replaces the priors by equal ones, or the value by
// the material count's, and leaves the other alone.
func checkAblated(t *testing.T, p game.Position) {
	t.Helper()
	legal := p.Decisions(nil)
	eval := func(ev Evaluator) Request {
		req := []Request{{Pos: p, Legal: legal, Priors: make([]float32, len(legal))}}
		if err := ev.Evaluate(req); err != nil {
			t.Fatal(err)
		}
		return req[0]
	}
	inner := &RolloutEvaluator{Rollouts: 8, Seed: 3}
	biased := &MaterialEvaluator{CaptureBias: 4}
	var m MaterialEvaluator
	want := eval(inner)
	matValue := eval(&m).Value
	if got := eval(&Ablated{Inner: &RolloutEvaluator{Rollouts: 8, Seed: 3}, MaterialValue: true}); got.Value != matValue || !slices.Equal(got.Priors, want.Priors) {
		t.Errorf("MaterialValue: value %g priors %v, want %g and the inner priors %v", got.Value, got.Priors, matValue, want.Priors)
	}
	b := eval(biased)
	got := eval(&Ablated{Inner: biased, UniformPolicy: true})
	if got.Value != b.Value {
		t.Errorf("UniformPolicy changed the value: %g, want %g", got.Value, b.Value)
	}
	for i, pr := range got.Priors {
		if math.Abs(float64(pr)-1/float64(len(legal))) > 1e-6 {
			t.Errorf("UniformPolicy: prior %d is %g, want %g", i, pr, 1/float64(len(legal)))
		}
	}
}

// selfPlayConfig is DefaultConfig with the exploration of self-play:
// Dirichlet noise (ε = 0.25) and temperature 1 for the first 20 turns.
func selfPlayConfig() Config {
	c := DefaultConfig()
	c.NoiseEpsilon = 0.25
	c.Temperature, c.TemperaturePlies = 1, 20
	return c
}

// TestPolicySurprise: the surprise is KL(policy target ‖ prior), in nats,
// and a search's result has one for its own prior and target.
func TestPolicySurprise(t *testing.T) {
	for _, tc := range []struct {
		name          string
		policy, prior []float32
		want          float64
	}{
		{"target is the prior", []float32{0.5, 0.25, 0.25}, []float32{0.5, 0.25, 0.25}, 0},
		{"all on one of four", []float32{0, 1, 0, 0}, []float32{0.25, 0.25, 0.25, 0.25}, math.Log(4)},
		{"half on each of two", []float32{0.5, 0.5, 0}, []float32{0.8, 0.1, 0.1}, 0.5*math.Log(0.5/0.8) + 0.5*math.Log(0.5/0.1)},
		{"target not normalised", []float32{0, 2, 0, 0}, []float32{0.25, 0.25, 0.25, 0.25}, math.Log(4)},
		{"a prior of 0 counts 1e-100", []float32{1, 0}, []float32{0, 1}, 100 * math.Log(10)},
		{"no target", []float32{0, 0}, []float32{0.5, 0.5}, 0},
		{"lengths differ", []float32{1}, []float32{0.5, 0.5}, 0},
		{"empty", nil, nil, 0},
	} {
		r := Result{Policy: tc.policy, Prior: tc.prior}
		if got := r.PolicySurprise(); math.Abs(got-tc.want) > 1e-6 {
			t.Errorf("%s: surprise %v, want %v", tc.name, got, tc.want)
		}
	}
	p := configs.MustVariant("keyland").Start()
	s := newSearch(t, sideEvaluator{0.1}, DefaultConfig(), p)
	res, err := s.Run(context.Background(), Limits{Sims: 64})
	if err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for i, q := range res.Policy {
		if q > 0 {
			want += float64(q) * math.Log(float64(q)/float64(res.Prior[i]))
		}
	}
	if got := res.PolicySurprise(); !(got > 0) || math.Abs(got-want) > 1e-5 {
		t.Errorf("a search of 64 simulations from uniform priors: surprise %v, want %v (above 0)", got, want)
	}
}
