package diagnose

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/game/endgame"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/net/model/modeltest"
	"github.com/dablot-zero/dablot/train"
)

// TestScoreDecision: without a table, extensions or ordering, alpha-beta
// is exact negamax, so the root's score is the best of its decisions'
// scores by scoreDecision (up to a ply in the distance of a forced win).
func TestScoreDecision(t *testing.T) {
	r := configs.MustVariant("dablot")
	cfg := DeepConfig(2)
	cfg.TTBits, cfg.Extend, cfg.Order = 0, false, false
	ctx := context.Background()
	for i, p := range modeltest.RandomPositions(r, 8, 5) {
		root, err := deepSearch(ctx, cfg, &p, 0)
		if err != nil {
			t.Fatal(err)
		}
		best := math.MinInt
		for _, d := range p.Decisions(nil) {
			s, err := scoreDecision(ctx, cfg, &p, d, 0)
			if err != nil {
				t.Fatal(err)
			}
			best = max(best, s)
			if d == root.Best && !near(float64(s), float64(root.Score), 1) {
				t.Errorf("position %d (%s): the root's best %s scores %d, the root %d", i, p.FEN(), p.DecisionString(d), s, root.Score)
			}
		}
		if !near(float64(best), float64(root.Score), 1) {
			t.Errorf("position %d (%s): best decision scores %d, the root %d", i, p.FEN(), best, root.Score)
		}
	}
}

func TestMeasurePositions(t *testing.T) {
	r := configs.MustVariant("dablot")
	m := modeltest.NewModel(t, "dablot", 4)
	ps := modeltest.RandomPositions(r, 3, 9)
	// A king against a soldier: a draw, one piece never catches another.
	lone, err := game.ParseFEN(r, "6/5/6/5/6/5/2K3/5/6/5/6/5/s5 s")
	if err != nil {
		t.Fatal(err)
	}
	ps = append(ps, lone)
	ctx := context.Background()
	tables, err := endgame.Solve(ctx, r, []endgame.Material{endgame.MaterialOf(&lone)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pc, err := train.LoadPreset("hour")
	if err != nil {
		t.Fatal(err)
	}
	opt := PositionOptions{Depths: []int{2, 2, 2, 2, 3}, SelfPlay: pc.SelfPlay, Sims: []int{8, 4}, Tables: tables, Seed: 1, Threads: 2}
	var seen []int
	rows, err := MeasurePositions(ctx, m, ps, opt, func(i int) bool { return i == 1 }, func(r *PositionRow) error {
		seen = append(seen, r.Index)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(seen)
	if len(rows) != 3 || !slices.Equal(seen, []int{0, 2, 3}) {
		t.Fatalf("rows of %v (%d), want 0, 2 and 3: 1 is skipped", seen, len(rows))
	}
	for _, row := range rows {
		p := ps[row.Index]
		legal := map[string]bool{}
		for _, d := range p.Decisions(nil) {
			legal[p.DecisionString(d)] = true
		}
		switch {
		case row.FEN != p.FEN() || row.Legal != len(legal):
			t.Errorf("row %d: FEN %s, %d legal; want %s, %d", row.Index, row.FEN, row.Legal, p.FEN(), len(legal))
		case row.DeepDepth != opt.Depths[row.Phase] && math.Abs(float64(row.Deep)) < mcts.WinScore/2 || !legal[row.DeepBest] || !legal[row.PriorTop]:
			t.Errorf("row %d: deep depth %d, best %q, prior's top %q", row.Index, row.DeepDepth, row.DeepBest, row.PriorTop)
		case row.Legal == 1 && len(row.Searches) != 0:
			t.Errorf("row %d: a forced decision searched: %+v", row.Index, row.Searches)
		case row.Legal > 1 && (len(row.Searches) != 2 || row.Searches[0].Sims != 8 || !legal[row.Searches[0].Choice] || !legal[row.Searches[1].PlainChoice]):
			t.Errorf("row %d: searches %+v", row.Index, row.Searches)
		}
		// The blend moves the value towards the side ahead, and only then.
		switch {
		case row.Balance == 0 && row.Blend != row.Net,
			row.Balance > 0 && row.Blend <= row.Net,
			row.Balance < 0 && row.Blend >= row.Net:
			t.Errorf("row %d: balance %g, value %g, blended %g", row.Index, row.Balance, row.Net, row.Blend)
		}
		if len(row.Scores) > 0 && len(row.Searches) == 2 {
			for _, d := range []string{row.DeepBest, row.PriorTop, row.Searches[0].Choice, row.Searches[1].Choice} {
				if _, ok := row.Scores[d]; !ok {
					t.Errorf("row %d: no deep score for %s among %v", row.Index, d, row.Scores)
				}
			}
		}
		if want := row.Index == 3; row.HasExact != want || want && row.Exact != 0 {
			t.Errorf("row %d: exact %v %d", row.Index, row.HasExact, row.Exact)
		}
	}
	// The searches again: the same choices, and the policy's numbers.
	again := slices.Clone(rows)
	for i := range again {
		again[i].Searches = slices.Clone(again[i].Searches)
		for k := range again[i].Searches {
			again[i].Searches[k].PolicyBest = -1
		}
	}
	if err := MeasureSearches(ctx, m, ps, again, opt, nil); err != nil {
		t.Fatal(err)
	}
	for i := range again {
		for k, s := range again[i].Searches {
			if s != rows[i].Searches[k] || !(s.PolicyBest >= 0 && s.PolicyBest <= 1) || s.Surprise < 0 {
				t.Errorf("row %d, search %d again: %+v, first %+v", rows[i].Index, k, s, rows[i].Searches[k])
			}
		}
		if !(again[i].PriorBest > 0 && again[i].PriorBest <= 1) || again[i].PriorBest != rows[i].PriorBest {
			t.Errorf("row %d: prior of the deep best %g, first %g", rows[i].Index, again[i].PriorBest, rows[i].PriorBest)
		}
	}
	vs := SummariseValues(rows, 1)
	if all := vs[len(vs)-1]; all.Phase != "all" || all.Positions != 3 || all.Exact != 1 {
		t.Errorf("summary of all: %+v", all)
	}
	if ss := SummariseSearches(rows, 1); len(ss) == 0 || ss[0].Sims != 8 || ss[len(ss)-1].Sims != 4 {
		t.Errorf("search summaries: %+v", ss)
	}
}

// TestSummaries checks the summaries' arithmetic on rows made up by hand.
func TestSummaries(t *testing.T) {
	rows := []PositionRow{
		// Material says nothing; the network and the deep search agree.
		{Phase: 0, Net: 0.5, Blend: 0.5, Material: 0, Deep: 300, DeepBest: "a", PriorTop: "a",
			Searches: []SearchRow{{Sims: 64, Choice: "b", Value: 0.6, PlainChoice: "b", PlainValue: 0.6}},
			Scores:   map[string]int{"a": 300, "b": 250}},
		// The network is wrong, material right; the search finds the best.
		{Phase: 0, Net: 0.2, Blend: -0.1, Material: -0.3, Deep: -400, DeepBest: "c", PriorTop: "d",
			Searches: []SearchRow{{Sims: 64, Choice: "c", Value: -0.2, PlainChoice: "d", PlainValue: 0.1}},
			Scores:   map[string]int{"c": -400, "d": -5000}},
		// A drawn ending the network calls won.
		{Phase: 4, Net: 0.6, Blend: 0.7, Material: 0.76, WDL: [3]float32{0.7, 0.2, 0.1}, HasExact: true, Exact: 0, Deep: 20, DeepBest: "e", PriorTop: "e",
			Searches: []SearchRow{{Sims: 64, Choice: "e", Value: 0.5, PlainChoice: "e", PlainValue: 0.4}}},
	}
	vs := SummariseValues(rows, 1)
	if len(vs) != 3 || vs[0].Phase != Phases[0].Name || vs[1].Phase != Phases[4].Name {
		t.Fatalf("phases %+v", vs)
	}
	first := vs[0]
	if first.Decisive != 2 || first.NetSign.Rate() != 0.5 || first.MaterialSign.Rate() != 0.75 || first.MaterialWrong.N != 1 || first.MaterialWrong.Rate() != 1 {
		t.Errorf("signs: %+v", first)
	}
	end := vs[1]
	js := end.ExactJudges
	if end.Exact != 1 || end.Draws != 1 || js["network value"].Draws.Rate() != 0 || js["network WDL"].Draws.Rate() != 0 || js["deep alpha-beta"].Draws.Rate() != 1 {
		t.Errorf("exact: %+v", end)
	}
	if e, _, _ := js["material count"].Err.Value(); !near(e, 0.76, 1e-9) {
		t.Errorf("material's error %g, want 0.76", e)
	}
	if _, ok := js["self-play's game result"]; ok {
		t.Errorf("a judge of samples without a sample: %+v", js)
	}
	ss := SummariseSearches(rows, 1)
	s := ss[0]
	if s.Phase != Phases[0].Name || s.Positions != 2 || s.Differ.Rate() != 1 || s.Better.Rate() != 0.5 || s.Worse.Rate() != 0.5 {
		t.Errorf("search differs: %+v", s)
	}
	// Regrets: the search 50 and 0, the prior 0 and 1600 (capped at 2000).
	if c, _, _ := s.ChoiceRegret.Value(); c != 25 {
		t.Errorf("search regret %g, want 25", c)
	}
	if p, _, _ := s.PriorRegret.Value(); p != 800 {
		t.Errorf("prior regret %g, want 800", p)
	}
	if s.BlendChoice.Rate() != 0.5 {
		t.Errorf("blend changed %g of choices, want 0.5", s.BlendChoice.Rate())
	}
	if all := ss[len(ss)-1]; all.Phase != "all" || all.Positions != 3 || all.ChoiceBest.Rate() != 2.0/3 {
		t.Errorf("all: %+v", all)
	}
}

func TestGuard(t *testing.T) {
	r := configs.MustVariant("dablot")
	m := modeltest.NewModel(t, "dablot", 4)
	// A game record: the guarded player is South ("gumbel"); every
	// decision of its turns is a position, a capture chain's each one.
	p := r.Start()
	rec := game.NewRecord(r, &p)
	rec.South, rec.North = "gumbel:model=x", "alphabeta:ms=100"
	var scratch game.MoveScratch
	rng := modeltest.NewRand(3)
	want := 0
	for len(rec.Turns) < 40 && !p.Status().Over() {
		side := p.SideToMove()
		var ds []game.Decision
		for !p.Status().Over() && p.SideToMove() == side {
			d, _ := p.RandomDecision(rng, &scratch)
			if side == game.South && len(rec.Turns)%4 == 0 {
				want++
			}
			ds = append(ds, d)
			p.Apply(d)
			if p.Chain() < 0 {
				break
			}
		}
		rec.Turns = append(rec.Turns, turnText(t, rec, r, ds))
	}
	ps, err := PlayerPositions([]*game.Record{rec}, r, "gumbel", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != want {
		t.Fatalf("%d positions of South's every other turn, want %d", len(ps), want)
	}
	for _, q := range ps {
		if q.Position.SideToMove() != game.South || q.Record != 0 {
			t.Fatalf("a position of North's or of another record: %d, %s", q.Record, q.Position.FEN())
		}
	}
	ps = append(ps[:6], PlayerPosition{Position: lonePosition(t, r)})
	rows, err := MeasureGuard(context.Background(), m, ps, GuardOptions{Depth: 4, Margin: 50, Nodes: 3000, Sims: 8, Tables: 3, Threads: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range rows {
		switch {
		case row.Index != i:
			t.Errorf("row %d has index %d", i, row.Index)
		case row.Allowed < 1 || row.Allowed > row.Legal:
			t.Errorf("row %d: %d of %d decisions let through", i, row.Allowed, row.Legal)
		case row.NetVetoed && row.Played == row.NetChoice:
			t.Errorf("row %d: plays %s, which the guard vetoed", i, row.Played)
		case row.Allowed == row.Legal && (row.NetVetoed || row.PriorVetoed):
			t.Errorf("row %d: a veto with every decision let through", i)
		}
	}
	if !rows[len(rows)-1].Tables {
		t.Errorf("the lone king's decision is not from the tables: %+v", rows[len(rows)-1])
	}
	for _, s := range SummariseGuard(rows) {
		if sum := s.Forced.Rate() + s.Tables.Rate() + s.Guarded.Rate() + s.Choice.Rate(); !near(sum, 1, 1e-9) {
			t.Errorf("%s: the shares sum to %g", s.Phase, sum)
		}
	}
}

// lonePosition is a king against a soldier.
func lonePosition(t *testing.T, r *game.Rules) game.Position {
	p, err := game.ParseFEN(r, "6/5/6/5/6/5/2K3/5/6/5/6/5/s5 s")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// turnText is the text of the turn of decisions ds that ends the record
// rec so far.
func turnText(t *testing.T, rec *game.Record, r *game.Rules, ds []game.Decision) string {
	t.Helper()
	p, err := rec.Replay(r)
	if err != nil {
		t.Fatal(err)
	}
	turn, _, ok := p.DecisionsToTurn(ds)
	if !ok {
		t.Fatalf("decisions %v are not a turn in %s", ds, p.FEN())
	}
	return turn.Format(r.Board)
}
