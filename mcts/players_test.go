package mcts

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// Tactical positions, written as FEN (rows from 13 down to 1).
const (
	// keyland, South to move: the soldier on a1 can take all five North
	// soldiers in one chain, a1xa5xe5xe9xg11xk11, and win at once; chains
	// may stop after any jump, and every earlier stop leaves North pieces.
	fenLongChain = "6/5/4s1/2s2/6/5/2s3/5/1s4/5/s5/5/S5 s"
	// keyland, South to move: the chain may stop on a5, where the soldier
	// is safe, but if it goes on to e5 (a1xa5xe5) it cannot go further (i5
	// is taken) and g5 then captures South's last piece: where the chain
	// stops decides the game.
	fenStopPoint = "6/5/6/5/6/5/6/5/1s1ss1/5/s5/5/S5 s"
	// dablot (captures compulsory), South to move, no capture now: e5-e7
	// forces e9xe5, and c5xg5 then takes North's last piece (a5 stops the
	// North chain from going on over c5). A win in two turns.
	fenWinInTwo = "6/5/6/5/2s3/5/6/5/SSS3/5/6/5/6 s"
)

func mustFEN(t testing.TB, variant, fen string) game.Position {
	t.Helper()
	p, err := game.ParseFEN(configs.MustVariant(variant), fen)
	if err != nil {
		t.Fatalf("%s %q: %v", variant, fen, err)
	}
	return p
}

// turnText plays pl's turn in p and returns it in notation.
func turnText(t *testing.T, pl Player, p game.Position) string {
	t.Helper()
	before := p
	ds, err := PlayTurn(context.Background(), pl, &p)
	if err != nil {
		t.Fatal(err)
	}
	turn, _, complete := before.DecisionsToTurn(ds)
	if !complete {
		t.Fatalf("unfinished turn %v", ds)
	}
	return turn.Format(before.Board())
}

type playerCase struct {
	name   string
	make   func(seed uint64) (Player, error)
	winIn2 bool // can see two turns ahead
}

func testPlayers() []playerCase {
	ab := func(depth int) func(uint64) (Player, error) {
		return func(uint64) (Player, error) {
			c := DefaultAlphaBetaConfig()
			c.Depth = depth
			return NewAlphaBetaPlayer(c)
		}
	}
	search := func(ev func(seed uint64) Evaluator, gumbel bool, sims int) func(uint64) (Player, error) {
		return func(seed uint64) (Player, error) {
			c := DefaultConfig()
			c.Gumbel, c.Seed = gumbel, seed
			c.GumbelM = 32 // consider every root decision
			return NewSearchPlayer(ev(seed), c, Limits{Sims: sims})
		}
	}
	material := func(uint64) Evaluator { return &MaterialEvaluator{} }
	rollouts := func(seed uint64) Evaluator { return &RolloutEvaluator{Rollouts: 2, Seed: seed} }
	return []playerCase{
		{"greedy", func(seed uint64) (Player, error) { return NewGreedyPlayer(seed), nil }, false},
		{"uct", func(seed uint64) (Player, error) { return NewUCTPlayer(UCTConfig{Playouts: 2000, Seed: seed}) }, true},
		{"alphabeta-2", ab(2), true},
		{"alphabeta-4", ab(4), true},
		{"mcts-material", search(material, false, 400), true},
		{"mcts-rollout", search(rollouts, false, 400), true},
		{"gumbel-material", search(material, true, 400), true},
	}
}

func TestPlayersFindWins(t *testing.T) {
	for _, pc := range testPlayers() {
		t.Run(pc.name, func(t *testing.T) {
			for seed := range uint64(3) {
				pl, err := pc.make(seed)
				if err != nil {
					t.Fatal(err)
				}
				if got := turnText(t, pl, mustFEN(t, "keyland", fenLongChain)); got != "a1xa5xe5xe9xg11xk11" {
					t.Errorf("seed %d, long chain: played %s, want a1xa5xe5xe9xg11xk11", seed, got)
				}
				if !pc.winIn2 {
					continue
				}
				if got := turnText(t, pl, mustFEN(t, "dablot", fenWinInTwo)); got != "e5-e7" {
					t.Errorf("seed %d, win in two: played %s, want e5-e7", seed, got)
				}
				if got := turnText(t, pl, mustFEN(t, "keyland", fenStopPoint)); got == "a1xa5xe5" {
					t.Errorf("seed %d, stop point: played the losing %s", seed, got)
				}
			}
		})
	}
}

// TestStopPointDecides checks the fixture: going on to e5 loses at once,
// stopping on a5 does not lose within the next turns.
func TestStopPointDecides(t *testing.T) {
	p := mustFEN(t, "keyland", fenStopPoint)
	c := DefaultAlphaBetaConfig()
	c.Depth = 3
	ab, err := NewAlphaBetaPlayer(c)
	if err != nil {
		t.Fatal(err)
	}
	for turn, lost := range map[string]bool{"a1xa5xe5": true, "a1xa5": false} {
		q := p
		if err := q.ApplyTurn(turn); err != nil {
			t.Fatal(err)
		}
		r, err := ab.Search(context.Background(), &q)
		if err != nil {
			t.Fatal(err)
		}
		// r.Score is for North, to move.
		if got := r.Score >= winBound; got != lost {
			t.Errorf("after %s: North score %d, want lost for South = %v", turn, r.Score, lost)
		}
	}
	r, err := ab.Search(context.Background(), &p)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.DecisionString(r.Best); got != "a1xa5" {
		t.Errorf("best first decision %s, want a1xa5", got)
	}
}

func TestRandomPlayerPlaysWholeGames(t *testing.T) {
	for _, v := range []string{"keyland", "dablot", "winther", "daablot"} {
		r := configs.MustVariant(v)
		p := r.Start()
		pl := NewRandomPlayer(7)
		turns := 0
		for {
			if _, err := PlayTurn(context.Background(), pl, &p); err != nil {
				if err == errOver {
					break
				}
				t.Fatalf("%s: %v", v, err)
			}
			turns++
			if turns > r.MaxPlies+1 {
				t.Fatalf("%s: game did not end", v)
			}
		}
		if !p.Status().Over() {
			t.Errorf("%s: stopped before the end", v)
		}
	}
}

// cheat plays a turn that is not one.
type cheat struct{ ds []game.Decision }

func (c cheat) Turn(context.Context, *game.Position) ([]game.Decision, error) { return c.ds, nil }

func TestPlayTurnRejectsBadTurns(t *testing.T) {
	p := mustFEN(t, "keyland", fenLongChain)
	legal := p.Decisions(nil)
	var jump, step game.Decision
	for _, d := range legal {
		if d.IsJump() {
			jump = d
		} else {
			step = d
		}
	}
	for name, ds := range map[string][]game.Decision{
		"empty":      nil,
		"illegal":    {game.Pass},
		"unfinished": {jump},
		"too long":   {step, step},
	} {
		q := p
		if _, err := PlayTurn(context.Background(), cheat{ds}, &q); err == nil {
			t.Errorf("%s: no error", name)
		} else if q != p {
			t.Errorf("%s: position changed", name)
		}
	}
}

func TestAlphaBetaTimeLimit(t *testing.T) {
	c := DefaultAlphaBetaConfig()
	c.Depth, c.Time = 0, 50*time.Millisecond
	ab, err := NewAlphaBetaPlayer(c)
	if err != nil {
		t.Fatal(err)
	}
	p := configs.MustVariant("keyland").Start()
	start := time.Now()
	r, err := ab.Search(context.Background(), &p)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("took %v for a 50 ms limit", el)
	}
	if r.Depth < 1 || !strings.Contains(strings.Join(turnStrings(&p), " "), p.DecisionString(r.Best)[:2]) {
		t.Errorf("depth %d, best %s", r.Depth, p.DecisionString(r.Best))
	}
}

func turnStrings(p *game.Position) []string {
	var out []string
	for _, t := range p.Turns() {
		out = append(out, t.Format(p.Board()))
	}
	return out
}

func TestZeroPlayersDoNotPanic(t *testing.T) {
	p := configs.MustVariant("keyland").Start()
	for name, pl := range map[string]Player{
		"random": &RandomPlayer{}, "greedy": &GreedyPlayer{}, "uct": &UCTPlayer{},
		"alphabeta": &AlphaBetaPlayer{}, "search": &SearchPlayer{},
	} {
		if _, err := pl.Turn(context.Background(), &p); err == nil {
			t.Errorf("zero %s player: no error", name)
		}
	}
}

// TestGumbelSpecPlaysItsBest: a gumbel player made from a spec plays the
// winner of its search, whatever its seed, unless gscale asks for the
// Gumbel noise of self-play (which samples, so seeds then disagree).
func TestGumbelSpecPlaysItsBest(t *testing.T) {
	r := configs.MustVariant("dablot")
	var positions []game.Position
	p := r.Start()
	rp := NewRandomPlayer(3)
	for len(positions) < 12 && !p.Status().Over() {
		if _, err := PlayTurn(context.Background(), rp, &p); err != nil {
			t.Fatal(err)
		}
		if len(p.Decisions(nil)) > 4 {
			positions = append(positions, p)
		}
	}
	differ := func(spec string) int {
		f, err := ParseFactory(spec, SpecOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		n := 0
		for _, pos := range positions {
			var first string
			for seed := range uint64(4) {
				pl, err := f.New(seed)
				if err != nil {
					t.Fatal(err)
				}
				if got := turnText(t, pl, pos); seed == 0 {
					first = got
				} else if got != first {
					n++
					break
				}
			}
		}
		return n
	}
	if n := differ("gumbel:eval=material,sims=32"); n != 0 {
		t.Errorf("default gumbel player: the seed changed the turn in %d of %d positions", n, len(positions))
	}
	if n := differ("gumbel:eval=material,sims=32,gscale=1"); n == 0 {
		t.Errorf("gscale=1: the seed never changed the turn in %d positions", len(positions))
	}
}

// cloningEvaluator is a material evaluator that counts its evaluations,
// its clones and whether it was closed.
type cloningEvaluator struct {
	MaterialEvaluator
	evals  int
	clones *[]*cloningEvaluator
	closed bool
}

func (c *cloningEvaluator) Evaluate(batch []Request) error {
	c.evals++
	return c.MaterialEvaluator.Evaluate(batch)
}

func (c *cloningEvaluator) Clone() Evaluator {
	k := &cloningEvaluator{clones: c.clones}
	*c.clones = append(*c.clones, k)
	return k
}

func (c *cloningEvaluator) Close() { c.closed = true }

// TestOwnEvaluators: with SpecOptions.OwnEvaluators every player of a
// model spec searches with a clone of its own, not the loaded evaluator
// behind a shared batcher; without it none is cloned. Either way the
// factory closes the loaded evaluator.
func TestOwnEvaluators(t *testing.T) {
	for _, own := range []bool{false, true} {
		var clones []*cloningEvaluator
		loaded := &cloningEvaluator{clones: &clones}
		f, err := ParseFactory("gumbel:model=m.dbm,sims=8,guard=0", SpecOptions{OwnEvaluators: own,
			LoadModel: func(string) (Evaluator, error) { return loaded, nil }})
		if err != nil {
			t.Fatal(err)
		}
		for seed := range uint64(2) {
			pl, err := f.New(seed)
			if err != nil {
				t.Fatal(err)
			}
			p := configs.MustVariant("dablot").Start()
			if _, err := PlayTurn(context.Background(), pl, &p); err != nil {
				t.Fatal(err)
			}
		}
		f.Close()
		wantClones := 0
		if own {
			wantClones = 2
		}
		if len(clones) != wantClones {
			t.Errorf("own %v: %d clones, want %d", own, len(clones), wantClones)
		}
		for i, c := range clones {
			if c.evals == 0 {
				t.Errorf("own %v: player %d did not search with its clone", own, i)
			}
		}
		if (loaded.evals == 0) != own {
			t.Errorf("own %v: the loaded evaluator evaluated %d batches", own, loaded.evals)
		}
		if !loaded.closed {
			t.Errorf("own %v: the loaded evaluator was not closed", own)
		}
	}
}
