package mcts

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// TestPlayerConfigResolves: a spec is the shipped player but for what it
// sets, and String writes every setting so that it reads back the same.
func TestPlayerConfigResolves(t *testing.T) {
	dablot, promoting := configs.MustVariant("dablot"), configs.MustVariant("winther-promotion")
	for _, tc := range []struct {
		spec string
		want func(c *PlayerConfig) // from ShippedPlayer("m.dbm") or the eval's
		full string                // String, if given
	}{
		{"mcts:model=m.dbm", func(c *PlayerConfig) {}, "mcts:model=m.dbm,ms=1000,batch=8,solve=1,forced=1,cpuct=1.25,fpu=0.25,noise=0,temp=0,reuse=1," +
			"cache=65536,guard=16,gmargin=50,gshare=0.5,gnodes=0,gext=1,gorder=1,gking=10,eg=3"},
		{"m.dbm", func(c *PlayerConfig) {}, ""}, // a model file alone
		{"gumbel:model=m.dbm", func(c *PlayerConfig) { c.Gumbel = true }, "gumbel:model=m.dbm,ms=1000,batch=8,solve=1,forced=1,m=16,cvisit=50,cscale=0.1,gscale=0," +
			"cache=65536,guard=16,gmargin=50,gshare=0.5,gnodes=0,gext=1,gorder=1,gking=10,eg=3"},
		{"mcts:model=m.dbm,ms=100", func(c *PlayerConfig) { c.Limits.Time = 100 * time.Millisecond }, ""},
		{"mcts:model=m.dbm,sims=200", func(c *PlayerConfig) { c.Limits = Limits{Sims: 200}; c.Guard.Nodes = DefaultGuardNodes }, ""},
		{"gumbel:model=m.dbm,sims=200,gnodes=1000", func(c *PlayerConfig) { c.Gumbel, c.Limits, c.Guard.Nodes = true, Limits{Sims: 200}, 1000 }, ""},
		{"mcts:model=m.dbm,guard=0,eg=0", func(c *PlayerConfig) { c.Guard, c.Endgames = GuardConfig{}, 0 },
			"mcts:model=m.dbm,ms=1000,batch=8,solve=1,forced=1,cpuct=1.25,fpu=0.25,noise=0,temp=0,reuse=1,cache=65536,guard=0,eg=0"},
		{"mcts:model=m.dbm,sims=50,cpuct=2", func(c *PlayerConfig) {
			c.Limits, c.Search.CPuct = Limits{Sims: 50}, 2
			c.Guard.Nodes = DefaultGuardNodes
		}, ""},
		{"mcts:eval=material,ms=100,policy=uniform", func(c *PlayerConfig) {
			c.Model, c.Eval, c.Cache, c.Limits.Time, c.UniformPolicy = "", "material", 0, 100*time.Millisecond, true
		}, ""},
		{"mcts:model=m.dbm,su=0.2,gking=5,gmargin=0", func(c *PlayerConfig) {
			u := 0.2
			c.ScoreUtility, c.Guard.KingValue, c.Guard.Margin = &u, 5, 0
		}, ""},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			got, err := ParsePlayerConfig(tc.spec, dablot)
			if err != nil {
				t.Fatal(err)
			}
			want := ShippedPlayer("m.dbm")
			want.Gumbel = strings.HasPrefix(tc.spec, "gumbel:") || !strings.Contains(tc.spec, ":") && ShippedGumbel
			tc.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
			if tc.full != "" && got.String() != tc.full {
				t.Errorf("String:\n got %s\nwant %s", got.String(), tc.full)
			}
			back, err := ParsePlayerConfig(got.String(), dablot)
			if err != nil || !reflect.DeepEqual(back, got) {
				t.Errorf("%s reads back as %+v, %v", got.String(), back, err)
			}
		})
	}
	// Where the rules refuse the tables the default leaves them out and
	// eg= is an error.
	if c, err := ParsePlayerConfig("gumbel:model=m.dbm", promoting); err != nil || c.Endgames != 0 {
		t.Errorf("on %s: tables %d, %v; want 0", promoting.Name, c.Endgames, err)
	}
	if _, err := ParsePlayerConfig("gumbel:model=m.dbm,eg=3", promoting); err == nil || !strings.Contains(err.Error(), "eg=3") {
		t.Errorf("eg=3 on %s: %v", promoting.Name, err)
	}
	if _, err := ParsePlayerConfig("alphabeta:depth=2", dablot); err == nil || !strings.Contains(err.Error(), "not a search player") {
		t.Errorf("alphabeta: %v", err)
	}
}

// TestNewPlayerAssembles: the one constructor puts the parts together:
// the guard and tables of the config, and the evaluator's wrappers in
// their order.
func TestNewPlayerAssembles(t *testing.T) {
	c := ShippedPlayer("")
	c.Model, c.Eval, c.Cache, c.MaterialBlend, c.MaterialValue, c.PlainRaces = "", "material", 16, 0.3, true, true
	pl, err := c.NewPlayer(&MaterialEvaluator{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if pl.Guard == nil || pl.Guard.Spec() != "guard=16,gmargin=50,gshare=0.5,gnodes=0,gext=1,gorder=1,gking=10" || pl.Endgames == nil {
		t.Errorf("guard %v, tables %v", pl.Guard, pl.Endgames)
	}
	blend, ok := c.Evaluator(&MaterialEvaluator{}).(*MaterialBlend)
	if !ok || blend.PerSoldier != 0.3 || !blend.PlainRaces {
		t.Fatalf("outermost evaluator %#v, want the material blend, 0.3 a soldier, races plain", c.Evaluator(&MaterialEvaluator{}))
	}
	ab, ok := blend.Inner.(*Ablated)
	if !ok {
		t.Fatalf("under the blend %T, want the ablation", blend.Inner)
	}
	if _, ok := ab.Inner.(*EvalCache); !ok {
		t.Fatalf("under the ablation %T, want the cache", ab.Inner)
	}
	c.Guard.Depth, c.Endgames = 0, 0
	if pl, err := c.NewPlayer(&MaterialEvaluator{}, 1); err != nil || pl.Guard != nil || pl.Endgames != nil {
		t.Errorf("without guard and tables: %v, %v, %v", pl.Guard, pl.Endgames, err)
	}
}

// TestAlphaBetaTables: alphabeta with eg= plays a three-piece ending from
// the tables (the same turn as the tables), and king= weighs the king.
func TestAlphaBetaTables(t *testing.T) {
	r := configs.MustVariant("dablot")
	p := mustFEN(t, "dablot", "6/5/6/5/6/5/k5/5/6/5/S5/5/5K s")
	f, err := ParseFactory("alphabeta:depth=1,eg=3,king=10", SpecOptions{Rules: r})
	if err != nil {
		t.Fatal(err)
	}
	pl, err := f.New(1)
	if err != nil {
		t.Fatal(err)
	}
	tp, ok := pl.(*tabledPlayer)
	if !ok {
		t.Fatalf("player %T, want one with tables", pl)
	}
	if w := tp.Player.(*AlphaBetaPlayer).cfg.Weights; w[game.King] != 10*w[game.Soldier] {
		t.Errorf("king weight %d, want 10 soldiers", w[game.King])
	}
	want, ok, err := tp.tables.Turn(context.Background(), &p)
	if err != nil || !ok {
		t.Fatalf("the tables do not play %s: %v", p.FEN(), err)
	}
	got, err := pl.Turn(context.Background(), &p)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("turn %v, %v; the tables' %v", got, err, want)
	}
}

// TestClassical: the classical kind is the shipped player with a material
// count, named in full.
func TestClassical(t *testing.T) {
	f, err := ParseFactory("classical:ms=100", SpecOptions{Rules: configs.MustVariant("dablot")})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := "mcts:eval=material,ms=100,batch=8,solve=1,forced=1,cpuct=1.25,fpu=0.25,noise=0,temp=0,reuse=1,cache=0,guard=16,gmargin=50,gshare=0.5,gnodes=0,gext=1,gorder=1,gking=10,eg=3"
	if ShippedGumbel {
		want = "gumbel:eval=material,ms=100,batch=8,solve=1,forced=1,m=16,cvisit=50,cscale=0.1,gscale=0,cache=0,guard=16,gmargin=50,gshare=0.5,gnodes=0,gext=1,gorder=1,gking=10,eg=3"
	}
	if f.Name != want {
		t.Errorf("classical:ms=100 is %s, want %s", f.Name, want)
	}
	if c := Classical(Limits{Sims: 200}); c.Guard.Nodes != DefaultGuardNodes || c.Limits.Time != 0 {
		t.Errorf("classical at 200 simulations: %+v", c)
	}
}

// TestSpecKeyCount: the player language stays small (issue 69: at most 40
// distinct keys; each has its line in docs/player.md or the spec's doc).
func TestSpecKeyCount(t *testing.T) {
	keys := map[string]bool{}
	for _, k := range SpecKinds() {
		for _, key := range SpecKeys(k) {
			keys[key] = true
		}
	}
	if len(keys) > 40 {
		t.Errorf("%d distinct player keys, want at most 40", len(keys))
	}
}
