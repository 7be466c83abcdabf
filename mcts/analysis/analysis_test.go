package analysis_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/mcts/analysis"
	"github.com/dablot-zero/dablot/net/model"
)

// fiveCaptures is a keyland position where South's soldier on a1 wins at
// once by capturing all five of North's pieces in one chain.
const fiveCaptures = "6/5/4s1/2s2/6/5/2s3/5/1s4/5/s5/5/S5 s"

// loadModel loads a shipped model and returns its evaluator, closed when
// the test ends.
func loadModel(t *testing.T, name string) (*model.Model, *model.NetEvaluator) {
	t.Helper()
	m, err := model.LoadModel("../../models/" + name + ".dbm")
	if err != nil {
		t.Fatal(err)
	}
	ev := m.NewEvaluator(16, 1)
	t.Cleanup(ev.Close)
	return m, ev
}

// checkTurns checks what holds of every analysis of p: each turn is a
// legal complete turn of p, given by its decisions, and reported once;
// its chances are probabilities whose win minus loss is its value; the
// principal variation starts with the best turn and replays from p.
func checkTurns(t *testing.T, p game.Position, an *analysis.Analysis) {
	t.Helper()
	if an.Side != p.SideToMove() {
		t.Errorf("side %v, want %v", an.Side, p.SideToMove())
	}
	var texts []string
	for i, tt := range an.Top {
		turn, ds, err := p.ParseTurn(tt.Text)
		if err != nil {
			t.Errorf("turn %d %q: %v", i+1, tt.Text, err)
			continue
		}
		if turn.Format(p.Board()) != tt.Text || !slices.Equal(ds, tt.Decisions) {
			t.Errorf("turn %d %q: decisions %v, want %v", i+1, tt.Text, tt.Decisions, ds)
		}
		if slices.Contains(texts, tt.Text) {
			t.Errorf("turn %q reported twice", tt.Text)
		}
		texts = append(texts, tt.Text)
		w := tt.WDL
		if sum := w[0] + w[1] + w[2]; math.Abs(float64(sum-1)) > 1e-5 || min(w[0], w[1], w[2]) < 0 || math.Abs(float64(w[0]-w[2]-tt.Value)) > 1e-5 {
			t.Errorf("turn %q: value %v, W/D/L %v: want probabilities with W-L = value", tt.Text, tt.Value, w)
		}
		if i > 0 && tt.Visits < 1 {
			t.Errorf("turn %q: %d visits", tt.Text, tt.Visits)
		}
	}
	if len(an.PV) == 0 || an.PV[0] != an.Best().Text {
		t.Fatalf("pv %v does not start with the best turn %s", an.PV, an.Best().Text)
	}
	q := p
	for _, turn := range an.PV {
		if err := q.ApplyTurn(turn); err != nil {
			t.Errorf("pv %v: %s: %v", an.PV, turn, err)
			break
		}
	}
}

// TestAnalyse analyses positions with the material heuristic and with
// shipped models, PUCT and Gumbel, with and without the solver.
func TestAnalyse(t *testing.T) {
	keyland := configs.MustVariant("keyland")
	material := func(*testing.T) (*game.Rules, mcts.Evaluator) { return keyland, &mcts.MaterialEvaluator{} }
	drawIn2 := func(*testing.T) (*game.Rules, mcts.Evaluator) {
		return configs.MustVariant("keyland,max_plies=2"), &mcts.MaterialEvaluator{}
	}
	win := [3]float32{1, 0, 0}
	shipped := func(name string) func(*testing.T) (*game.Rules, mcts.Evaluator) {
		return func(t *testing.T) (*game.Rules, mcts.Evaluator) {
			m, ev := loadModel(t, name)
			return m.Rules, ev
		}
	}
	for _, tc := range []struct {
		name      string
		eval      func(*testing.T) (*game.Rules, mcts.Evaluator)
		fen       string   // "": the start
		moves     []string // turns played from the FEN
		gumbel    bool
		noSolver  bool
		q         analysis.Query
		top       int      // turns reported (-1: one per legal decision)
		pv        [2]int   // the fewest and the most turns of principal variation
		best      []string // the best turn is one of these (nil: any)
		proof     *analysis.Proof
		exact     [3]float32 // the best turn's exact chances, if known (a proven result)
		chainLate bool       // a turn other than the best is a capture chain, completed
	}{
		{name: "start, PUCT", eval: material, q: analysis.Query{Limits: mcts.Limits{Sims: 200}, Top: 3, PV: 4},
			top: 3, pv: [2]int{2, 5}},
		{name: "start, Gumbel: no principal variation", eval: material, gumbel: true,
			q: analysis.Query{Limits: mcts.Limits{Sims: 64}, Top: 3, PV: 4}, top: 3, pv: [2]int{1, 1}},
		{name: "top 0 counts as 1", eval: material, q: analysis.Query{Limits: mcts.Limits{Sims: 50}},
			top: 1, pv: [2]int{1, 1}},
		{name: "a winning chain, proven", eval: material, fen: fiveCaptures,
			q: analysis.Query{Limits: mcts.Limits{Sims: 200}, Top: 2, PV: 3}, top: 2, pv: [2]int{1, 1},
			best: []string{"a1xa5xe5xe9xg11xk11"}, proof: &analysis.Proof{Result: "win", Decisions: 5}, exact: win},
		{name: "a winning chain without the solver: the game's end is exact", eval: material, fen: fiveCaptures, noSolver: true,
			q: analysis.Query{Limits: mcts.Limits{Sims: 200}, Top: 9}, top: -1, pv: [2]int{1, 1},
			best: []string{"a1xa5xe5xe9xg11xk11"}, exact: win},
		// Every turn of South's and North's first turns ends at the ply
		// limit in a draw, which the solver proves: the best turn's draw is
		// exact, not the heuristic's guess (it has none).
		{name: "a proven draw", eval: drawIn2, q: analysis.Query{Limits: mcts.Limits{Sims: 3000}, Top: 2}, top: 2, pv: [2]int{1, 1},
			proof: &analysis.Proof{Result: "draw", Decisions: 2}, exact: [3]float32{0, 1, 0}},
		{name: "other turns complete their chains", eval: material,
			fen: "ssssss/sssss/ssssss/1ss1s/ss3s/p1ss1/S2sK1/kSS1P/S1sSSS/SS1SS/SS1SSS/SSSSS/SSSSSS s - 2 14",
			q:   analysis.Query{Limits: mcts.Limits{Sims: 64}, Top: 4}, top: 4, pv: [2]int{1, 1}, chainLate: true},
		// A lure of the shipped model (as in the engine's and the server's
		// tests): g5-g7 or g5-f6 sacrifices a piece whose forced recapture
		// opens a double capture of North's king.
		{name: "a model's lure, proven", eval: shipped("winther-all-must-capture"), gumbel: true,
			moves: []string{"e5-d6", "c9-d8", "c5-b6", "a7xc5xe7"}, q: analysis.Query{Limits: mcts.Limits{Sims: 400}, Top: 3}, top: 3, pv: [2]int{1, 1},
			best: []string{"g5-g7", "g5-f6"}, proof: &analysis.Proof{Result: "win", Decisions: 5}, exact: win},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ev := tc.eval(t)
			p := r.Start()
			if tc.fen != "" {
				var err error
				if p, err = game.ParseFEN(r, tc.fen); err != nil {
					t.Fatal(err)
				}
			}
			for _, turn := range tc.moves {
				if err := p.ApplyTurn(turn); err != nil {
					t.Fatal(err)
				}
			}
			cfg := mcts.DefaultConfig()
			cfg.Gumbel, cfg.Solver = tc.gumbel, !tc.noSolver
			a, err := analysis.New(ev, cfg)
			if err != nil {
				t.Fatal(err)
			}
			an, err := a.Analyse(context.Background(), p, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			checkTurns(t, p, an)
			want := tc.top
			if want < 0 {
				want = len(p.Decisions(nil))
			}
			if len(an.Top) != want {
				t.Errorf("%d turns, want %d", len(an.Top), want)
			}
			if n := len(an.PV) - 1; n < tc.pv[0]-1 || n > tc.pv[1]-1 {
				t.Errorf("pv %v: want %d to %d turns", an.PV, tc.pv[0], tc.pv[1])
			}
			if best := an.Best().Text; tc.best != nil && !slices.Contains(tc.best, best) {
				t.Errorf("best %s, want one of %v", best, tc.best)
			}
			if (an.Proof == nil) != (tc.proof == nil) || an.Proof != nil && *an.Proof != *tc.proof {
				t.Errorf("proof %v, want %v", an.Proof, tc.proof)
			}
			if b := an.Best(); tc.exact != ([3]float32{}) && (b.Value != tc.exact[0]-tc.exact[2] || b.WDL != tc.exact) {
				t.Errorf("best %s: value %v, W/D/L %v; want exactly W/D/L %v", b.Text, b.Value, b.WDL, tc.exact)
			}
			chained := slices.ContainsFunc(an.Top[1:], func(tt analysis.Turn) bool { return len(tt.Decisions) > 1 })
			if tc.chainLate && !chained {
				t.Errorf("no turn after the best is a capture chain: %+v", an.Top)
			}
			if an.Sims < 1 || an.Nodes < 1 {
				t.Errorf("%d simulations, %d nodes", an.Sims, an.Nodes)
			}
		})
	}
}

// TestAnalyseErrors: a finished game, a query without a limit and a
// cancelled context each give their error.
func TestAnalyseErrors(t *testing.T) {
	r := configs.MustVariant("keyland")
	p, err := game.ParseFEN(r, fiveCaptures)
	if err != nil {
		t.Fatal(err)
	}
	over := p
	if err := over.ApplyTurn("a1xa5xe5xe9xg11xk11"); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		p    game.Position
		lim  mcts.Limits
		want error
	}{
		{"game over", context.Background(), over, mcts.Limits{Sims: 10}, analysis.ErrGameOver},
		{"no limit", context.Background(), p, mcts.Limits{}, mcts.ErrNoLimit},
		{"cancelled", cancelled, p, mcts.Limits{Sims: 10}, context.Canceled},
	} {
		a, err := analysis.New(&mcts.MaterialEvaluator{}, mcts.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		an, err := a.Analyse(tc.ctx, tc.p, analysis.Query{Limits: tc.lim})
		if !errors.Is(err, tc.want) || an != nil {
			t.Errorf("%s: %v, %v; want %v", tc.name, an, err, tc.want)
		}
	}
	if err := analysis.GameOverError(&over); err.Error() != "the game is over: "+over.Status().String() {
		t.Errorf("game over: %q", err)
	}
}

// TestAnalyseForcedChain: in this dablot position South's only turn is a
// capture chain of three forced jumps. The analysis searches the first
// (forced) decision for its value, and the forced jumps after it, which
// are returned unsearched, keep that value rather than the network's
// guess at the position in mid-chain.
func TestAnalyseForcedChain(t *testing.T) {
	m, ev := loadModel(t, "dablot")
	cfg := mcts.DefaultConfig()
	cfg.Gumbel = true
	a, err := analysis.New(ev, cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := game.ParseFEN(m.Rules, "sss2s/sssss/s4s/1s3/sss2P/p4/2K3/k4/S2S1s/S4/S2SS1/SSSSS/SS1S1S s - 13 30")
	if err != nil {
		t.Fatal(err)
	}
	an, err := a.Analyse(context.Background(), p, analysis.Query{Limits: mcts.Limits{Sims: 64}, Top: 1})
	if err != nil {
		t.Fatal(err)
	}
	if an.Top[0].Text != "e7xe11xg13xi11" || an.Sims < 64 {
		t.Fatalf("best %s after %d simulations; want the forced e7xe11xg13xi11, searched", an.Top[0].Text, an.Sims)
	}

	// The reference: the same search of the forced root, and the network
	// alone after the first jump.
	run := func(q game.Position, lim mcts.Limits) *mcts.Result {
		s, err := mcts.NewSearch(ev, cfg)
		if err != nil {
			t.Fatal(err)
		}
		s.SetPosition(q)
		res, err := s.Run(context.Background(), lim)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	searched := run(p, mcts.Limits{Sims: 64, Forced: true}).Q[0]
	mid := p
	mid.Apply(p.Decisions(nil)[0])
	guess := run(mid, mcts.Limits{Sims: 64}).Value
	if math.Abs(float64(searched-guess)) < 1e-3 {
		t.Fatalf("searched %.4f, network in mid-chain %.4f: the position does not tell them apart", searched, guess)
	}
	if math.Abs(float64(an.Top[0].Value-searched)) > 1e-4 {
		t.Errorf("value %.4f; want the forced root's searched %.4f (the network in mid-chain says %.4f)", an.Top[0].Value, searched, guess)
	}
}

// TestAnalyseKept: the visits of the turns are this search's simulations
// and those its tree kept from the search before it, which Kept counts:
// none in a fresh tree or with Gumbel, some after the turn the last
// search chose (PUCT keeps that subtree).
func TestAnalyseKept(t *testing.T) {
	const sims = 200
	r := configs.MustVariant("keyland")
	for _, gumbel := range []bool{false, true} {
		cfg := mcts.DefaultConfig()
		cfg.Gumbel = gumbel
		a, err := analysis.New(&mcts.MaterialEvaluator{}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		p := r.Start()
		for i := range 2 {
			an, err := a.Analyse(context.Background(), p, analysis.Query{Limits: mcts.Limits{Sims: sims}, Top: 100})
			if err != nil {
				t.Fatal(err)
			}
			visits := 0
			for _, tt := range an.Top {
				visits += tt.Visits
			}
			kept := i > 0 && !gumbel
			if (an.Kept > 0) != kept || visits != an.Kept+sims {
				t.Errorf("gumbel %v, search %d: %d visits of %d turns, %d kept; want %d simulations and kept %v",
					gumbel, i+1, visits, len(an.Top), an.Kept, sims, kept)
			}
			if err := p.ApplyTurn(an.Best().Text); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestWDLFor: the best turn's chances turn round for the other side.
func TestWDLFor(t *testing.T) {
	an := &analysis.Analysis{Side: game.North, Top: []analysis.Turn{{WDL: [3]float32{0.5, 0.3, 0.2}}}}
	for _, tc := range []struct {
		side game.Side
		want [3]float32
	}{
		{game.North, [3]float32{0.5, 0.3, 0.2}},
		{game.South, [3]float32{0.2, 0.3, 0.5}},
	} {
		if got := an.WDLFor(tc.side); got != tc.want {
			t.Errorf("WDLFor(%v) = %v, want %v", tc.side, got, tc.want)
		}
	}
}

// TestProofString: a proof reads as the engine's info line writes it.
func TestProofString(t *testing.T) {
	for _, tc := range []struct {
		p    analysis.Proof
		want string
	}{
		{analysis.Proof{Result: "win", Decisions: 5}, "win 5"},
		{analysis.Proof{Result: "loss", Decisions: 4}, "loss 4"},
		{analysis.Proof{Result: "draw", Decisions: 0}, "draw 0"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
}

// TestAnalyseGuard: with a guard, the first decisions it vetoes are neither
// played nor reported, Vetoed counts them, and a chain's later decisions
// are guarded too (the turn stays legal).
func TestAnalyseGuard(t *testing.T) {
	vetoed := 0
	for _, f := range []struct{ variant, fen string }{
		{"dablot", "6/5/6/2s2/2s3/5/1S2s1/5/2S3/2S2/6/5/6 n"},
		{"winther", "6/5/6/5/2k3/1s3/3p2/5/2S3/1P3/3K2/5/6 s"},
		{"keyland", "6/5/6/5/2s3/1s3/k5/5/2S3/1S3/K5/5/6 s"},
		{"dablot", "ssssss/sssss/ssssss/1ss1s/ss3s/p1ss1/S2sK1/kSS1P/S1sSSS/SS1SS/SS1SSS/SSSSS/SSSSSS s - 2 14"},
	} {
		p, err := game.ParseFEN(configs.MustVariant(f.variant), f.fen)
		if err != nil {
			t.Fatal(err)
		}
		check, err := mcts.NewGuard(2, mcts.DefaultGuardMargin, 1)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := check.Excluded(context.Background(), &p, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		an, err := analysis.New(&mcts.MaterialEvaluator{}, mcts.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		if an.Guard, err = mcts.NewGuard(2, mcts.DefaultGuardMargin, 1); err != nil {
			t.Fatal(err)
		}
		res, err := an.Analyse(context.Background(), p, analysis.Query{Limits: mcts.Limits{Sims: 64}, Top: 100})
		if err != nil {
			t.Fatal(err)
		}
		checkTurns(t, p, res)
		if res.Vetoed != len(ex) {
			t.Errorf("%s: %d decisions vetoed, the guard vetoes %d", f.fen, res.Vetoed, len(ex))
		}
		for _, tt := range res.Top {
			if slices.Contains(ex, tt.Decisions[0]) {
				t.Errorf("%s: the vetoed turn %s is reported", f.fen, tt.Text)
			}
		}
		vetoed += len(ex)
	}
	if vetoed == 0 {
		t.Fatal("the guard vetoed nothing: the test proves nothing")
	}
}
