package mcts

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// minimax is plain minimax by the alpha-beta player's own rules: depth in
// turns, the sign of a child's score by comparing sides, static evaluation
// at depth 0 (no quiescence), and with Extend a turn more at a single
// reply above the extension limit of the player's last search.
func minimax(ab *AlphaBetaPlayer, p *game.Position, depth, ply int) int {
	legal := p.Decisions(nil)
	if len(legal) == 0 {
		return terminalScore(p, ply)
	}
	if ab.cfg.Extend && len(legal) == 1 && p.Chain() < 0 && ply > 0 && ply < ab.extLimit {
		depth++
	}
	if depth <= 0 && p.Chain() < 0 {
		return ab.Evaluate(p)
	}
	best := -infScore
	for _, d := range legal {
		q := *p
		q.Apply(d)
		nd := depth
		if q.Chain() < 0 {
			nd--
		}
		v := minimax(ab, &q, nd, ply+1)
		if q.SideToMove() != p.SideToMove() {
			v = -v
		}
		best = max(best, v)
	}
	return best
}

// smallPositions returns positions with few pieces, from play-outs of
// small fixtures, so that minimax stays cheap.
func smallPositions(t *testing.T) []game.Position {
	fixtures := []struct{ variant, fen string }{
		{"keyland", fenLongChain},
		{"keyland", fenStopPoint},
		{"dablot", fenWinInTwo},
		{"keyland", "6/5/6/5/2s3/1s3/k5/5/2S3/1S3/K5/5/6 s"},
		{"dablot", "6/5/6/2s2/2s3/5/1S2s1/5/2S3/2S2/6/5/6 n"},
		{"winther", "6/5/6/5/2k3/1s3/3p2/5/2S3/1P3/3K2/5/6 s"},
	}
	var out []game.Position
	rng := rand.New(rand.NewPCG(5, 6))
	var scratch game.MoveScratch
	for _, f := range fixtures {
		p := mustFEN(t, f.variant, f.fen)
		out = append(out, p)
		// A few random decisions on: positions inside chains too.
		for range 4 {
			d, ok := p.RandomDecision(rng, &scratch)
			if !ok {
				break
			}
			p.Apply(d)
			if len(p.Decisions(nil)) > 0 {
				out = append(out, p)
			}
		}
	}
	return out
}

func TestAlphaBetaEqualsMinimax(t *testing.T) {
	positions := smallPositions(t)
	for _, tc := range []struct {
		tt            int
		extend, order bool
	}{{0, false, false}, {16, false, false}, {0, true, false}, {16, true, false}, {0, false, true}, {16, true, true}} {
		tt := tc.tt
		for depth := 1; depth <= 3; depth++ {
			for i, p := range positions {
				c := DefaultAlphaBetaConfig()
				c.Depth, c.TTBits, c.Quiescence, c.Extend, c.Order = depth, tt, false, tc.extend, tc.order
				ab, err := NewAlphaBetaPlayer(c)
				if err != nil {
					t.Fatal(err)
				}
				r, err := ab.Search(context.Background(), &p)
				if err != nil {
					t.Fatal(err)
				}
				want := minimax(ab, &p, depth, 0)
				if r.Score != want && !(r.Score >= winBound && want >= winBound) && !(r.Score <= -winBound && want <= -winBound) {
					t.Errorf("tt %d extend %v order %v depth %d position %d (%s): alpha-beta %d, minimax %d", tt, tc.extend, tc.order, depth, i, p.FEN(), r.Score, want)
				}
				// The chosen decision must achieve the value.
				q := p
				q.Apply(r.Best)
				nd := depth
				if q.Chain() < 0 {
					nd--
				}
				v := minimax(ab, &q, nd, 1)
				if q.SideToMove() != p.SideToMove() {
					v = -v
				}
				if v != want && !(v >= winBound && want >= winBound) {
					t.Errorf("tt %d extend %v depth %d position %d: best %s scores %d, not %d", tt, tc.extend, depth, i, p.DecisionString(r.Best), v, want)
				}
			}
		}
	}
}

func TestAlphaBetaConfig(t *testing.T) {
	for _, c := range []AlphaBetaConfig{{}, {Depth: -1}, {Depth: 100}, {Depth: 2, TTBits: 40}} {
		if _, err := NewAlphaBetaPlayer(c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

func TestSpecs(t *testing.T) {
	for _, tc := range []struct{ spec, err string }{
		{"random", ""},
		{"greedy", ""},
		{"uct:playouts=1000", ""},
		{"uct:ms=100", ""},
		{"alphabeta:depth=4", ""},
		{"alphabeta:ms=1000", ""},
		{"alphabeta:depth=3,tt=0,q=false,mobility=0,hunt=0", ""},
		{"mcts:eval=rollout,sims=200", ""},
		{"mcts:eval=material,sims=50,cpuct=2,noise=0.25,temp=1,batch=4,reuse=false", ""},
		{"mcts:eval=material,sims=50,temp=1,tempplies=10", `unknown key "tempplies"`},
		{"alphabeta:ms=100,order=1,ext=1,king=10,eg=3", ""},
		{"alphabeta:depth=2,king=0", "king=0"},
		{"alphabeta:depth=2,eg=1", "eg=1"},
		{"gumbel:eval=material,sims=16,m=8,cscale=1", ""},
		{"MCTS:eval=material", ""},
		{"gumbel:eval=material,ms=20", ""},
		{"gumbel:eval=material,nodes=100", ""},
		{"gumbel:eval=material,sims=64,ms=1000", ""},
		{"mcts:eval=material,sims=0", "sims=0"},
		{"alphabeta:depth=2,mat=1", `unknown key "mat"`},
		{"", `unknown kind ""`},
		{"minimax", `unknown kind "minimax"`},
		{"uct:playout=10", `unknown key "playout"`},
		{"uct:playouts=0", "playouts=0"},
		{"uct:playouts=many", "playouts=many"},
		{"alphabeta:depth", `want key=value`},
		{"alphabeta:depth=4,depth=5", `given twice`},
		{"alphabeta:depth=0", "depth=0"},
		{"random:x=1", `unknown key "x"`},
		{"mcts:sims=10", "needs model=FILE or eval="},
		{"mcts:eval=net", "eval=net"},
		{"mcts:model=models/x.dbm,sims=200", "model files are not supported yet"},
		{"gumbel:model=models/x.dbm,sims=16", "model files are not supported yet"},
		{"mcts:model=a,eval=material", "not both"},
		{"gumbel:eval=material,sims=0", "sims=0"},
		{"mcts:eval=material,cpuct=-1", "cpuct=-1"},
		{"gumbel:eval=material,cpuct=2", `unknown key "cpuct"`},
		{"gumbel:eval=rollout,sims=8,policy=uniform,value=material", ""},
		{"mcts:eval=rollout,sims=8,policy=net,value=net", ""},
		{"gumbel:eval=material,sims=8,guard=2", ""},
		{"mcts:eval=material,sims=8,guard=1,gmargin=0", ""},
		{"gumbel:eval=material,sims=8,guard=17", "guard=17: want a whole number from 0 to 16"},
		{"gumbel:eval=material,ms=50,guard=16,gshare=0.3", ""},
		{"gumbel:eval=material,ms=50,gshare=0.3,guard=0", "set the guard: they need guard=1 or more"},
		{"gumbel:eval=material,ms=50,guard=4,gshare=0", "gshare=0"},
		{"gumbel:eval=material,sims=8,gmargin=50,guard=0", "set the guard: they need guard=1 or more"},
		{"gumbel:eval=material,sims=8,gnodes=5000,guard=0", "set the guard: they need guard=1 or more"},
		{"gumbel:eval=material,sims=8,gext=1,guard=0", "set the guard: they need guard=1 or more"},
		{"gumbel:eval=material,sims=8,eg=3", ""},
		{"mcts:eval=material,sims=8,eg=2", ""},
		{"gumbel:eval=material,sims=8,eg=1", "eg=1"},
		{"gumbel:eval=material,sims=8,eg=4", "eg=4"},
		{"gumbel:eval=material,sims=8,gking=20,guard=0", "set the guard: they need guard=1 or more"},
		{"gumbel:eval=material,sims=8,guard=16,gnodes=5000,gking=20", ""},
		{"gumbel:eval=material,sims=8,guard=16,gking=0", "gking=0: want a whole number from 1 to 1000"},
		{"gumbel:eval=material,sims=8,guard=16,gking=1001", "gking=1001"},
		{"gumbel:eval=material,sims=8,guard=16,gnodes=5000,gext=1", ""},
		{"gumbel:eval=material,sims=8,guard=16,gext=2", "gext=2"},
		{"alphabeta:depth=3,ext=1", ""},
		{"alphabeta:depth=3,order=1", ""},
		{"alphabeta:depth=3,order=yes", "order=yes"},
		{"gumbel:eval=material,sims=8,gorder=1,guard=0", "set the guard: they need guard=1 or more"},
		{"gumbel:eval=material,sims=8,guard=16,gnodes=5000,gorder=1", ""},
		{"gumbel:eval=material,sims=8,guard=16,gnodes=5000", ""},
		{"gumbel:eval=material,sims=8,guard=16,gnodes=-1", "gnodes=-1"},
		{"mcts:eval=material,sims=8,guard=2,gmargin=-1", "gmargin=-1"},
		{"alphabeta:depth=2,guard=2", `unknown key "guard"`},
		{"gumbel:eval=material,sims=8,mat=0.3", `unknown key "mat"`}, // a setting that lost
		{"gumbel:eval=material,sims=8,guard=16,greduce=1", `unknown key "greduce"`},
		{"gumbel:eval=material,sims=8,rollout=10", "it needs eval=rollout"},
		{"gumbel:eval=rollout,sims=8,policy=flat", "policy=flat"},
		{"mcts:eval=rollout,sims=8,value=nn", "value=nn"},
		// Settings that size memory are bounded by what a tree or table holds.
		{"mcts:eval=material,sims=1000001", "sims=1000001: want a whole number from 0 to 1000000"},
		{"gumbel:eval=material,sims=1073741824", "sims=1073741824: want a whole number from 0 to 1000000"},
		{"gumbel:eval=material,nodes=2000001", "nodes=2000001: want a whole number from 0 to 2000000"},
		{"uct:playouts=1073741824", "playouts=1073741824: want a whole number from 1 to 1000000"},
		{"alphabeta:depth=2,tt=25", "tt=25: want a whole number from 0 to 24"},
		{"alphabeta:depth=65", "depth=65: want a whole number from 1 to 64"},
		{"uct:ms=3600001", "ms=3600001: want a whole number from 0 to 3600000"},
	} {
		// CheckSpec agrees with building the player, but for model files,
		// which it does not open.
		if cerr := CheckSpec(tc.spec); strings.Contains(tc.err, "model files") {
			if cerr != nil {
				t.Errorf("CheckSpec(%q): %v, want nil", tc.spec, cerr)
			}
		} else if (cerr == nil) != (tc.err == "") || (cerr != nil && !strings.Contains(cerr.Error(), tc.err)) {
			t.Errorf("CheckSpec(%q): %v, want an error containing %q", tc.spec, cerr, tc.err)
		}
		f, err := ParseFactory(tc.spec, SpecOptions{})
		if tc.err == "" {
			if err != nil {
				t.Errorf("%q: %v", tc.spec, err)
				continue
			}
			pl, err := f.New(1)
			if err != nil {
				t.Errorf("%q: New: %v", tc.spec, err)
				continue
			}
			p := configs.MustVariant("dablot").Start()
			if _, err := PlayTurn(context.Background(), pl, &p); err != nil && !strings.HasPrefix(tc.spec, "uct:ms") {
				t.Errorf("%q: %v", tc.spec, err)
			}
			f.Close()
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: error %v, want one containing %q", tc.spec, err, tc.err)
		}
	}
	// A model loader is used when given.
	loaded := ""
	f, err := ParseFactory("mcts:model=m.dbm,sims=10", SpecOptions{LoadModel: func(path string) (Evaluator, error) {
		loaded = path
		return &MaterialEvaluator{}, nil
	}})
	if err != nil || loaded != "m.dbm" {
		t.Fatalf("loader: %v, loaded %q", err, loaded)
	}
	if _, err := f.New(1); err != nil {
		t.Error(err)
	}
}

// TestMobility: the step tables count what a walk over each piece's
// neighbours counts, in every variant, for both sides.
func TestMobility(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var scratch game.MoveScratch
	for _, v := range configs.VariantNames() {
		r := configs.MustVariant(v)
		ab, err := NewAlphaBetaPlayer(DefaultAlphaBetaConfig())
		if err != nil {
			t.Fatal(err)
		}
		p := r.Start()
		for ply := 0; ply < 300 && !p.Status().Over(); ply++ {
			ab.setSteps(r)
			for _, s := range []game.Side{game.South, game.North} {
				if got, want := ab.mobility(&p, s), naiveMobility(&p, s); got != want {
					t.Fatalf("%s %s side %v: mobility %d, want %d", v, p.FEN(), s, got, want)
				}
			}
			d, ok := p.RandomDecision(rng, &scratch)
			if !ok {
				break
			}
			p.Apply(d)
		}
	}
}

// naiveMobility counts the empty neighbours of side s's pieces in the
// directions their rank steps in (North's forward is South's backward).
func naiveMobility(p *game.Position, s game.Side) int {
	b := p.Board()
	occ := p.Occupied(game.South).Or(p.Occupied(game.North))
	n := 0
	for r := range game.Rank(game.NumRanks) {
		dirs := p.Rules().Ranks[r].Step
		if s == game.North {
			dirs = dirs<<4 | dirs>>4
		}
		for pcs := p.Pieces(s, r); !pcs.Empty(); {
			q := pcs.PopFirst()
			for d := range game.Direction(game.NumDirections) {
				if nb := b.Neighbor[q][d]; dirs>>d&1 != 0 && nb >= 0 && !occ.Has(int(nb)) {
					n++
				}
			}
		}
	}
	return n
}
