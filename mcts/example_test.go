package mcts_test

import (
	"context"
	"fmt"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
)

// A PUCT search with the material heuristic finds the five-capture chain
// that wins at once, one decision (one jump) at a time.
func ExampleSearch() {
	r := configs.MustVariant("keyland")
	p, err := game.ParseFEN(r, "6/5/4s1/2s2/6/5/2s3/5/1s4/5/s5/5/S5 s")
	if err != nil {
		panic(err)
	}
	s, err := mcts.NewSearch(&mcts.MaterialEvaluator{}, mcts.DefaultConfig())
	if err != nil {
		panic(err)
	}
	s.SetPosition(p)
	for !p.Status().Over() {
		res, err := s.Run(context.Background(), mcts.Limits{Sims: 200})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s to move: %s\n", p.SideToMove(), p.DecisionString(res.Best))
		p.Apply(res.Best)
		s.Advance(res.Best)
	}
	fmt.Println(p.Status())
	// Output:
	// south to move: a1xa5
	// south to move: a5xe5
	// south to move: e5xe9
	// south to move: e9xg11
	// south to move: g11xk11
	// south wins: no pieces left
}

// Players are made from spec strings, as the arena does.
func ExampleParseFactory() {
	f, err := mcts.ParseFactory("alphabeta:depth=2", mcts.SpecOptions{})
	if err != nil {
		panic(err)
	}
	pl, err := f.New(1)
	if err != nil {
		panic(err)
	}
	p, _ := game.ParseFEN(configs.MustVariant("dablot"), "6/5/6/5/2s3/5/6/5/SSS3/5/6/5/6 s")
	before := p
	ds, err := mcts.PlayTurn(context.Background(), pl, &p)
	if err != nil {
		panic(err)
	}
	t, _, _ := before.DecisionsToTurn(ds)
	fmt.Println(t.Format(p.Board()))
	_, err = mcts.ParseFactory("uct:playout=10", mcts.SpecOptions{})
	fmt.Println(err)
	// Output:
	// e5-e7
	// player "uct:playout=10": unknown key "playout" for uct (keys: c, ms, playouts, rollout)
}

// Alpha-beta sees the same five-capture win as a forced one: its score is
// within a few plies of WinScore. Each decision is one jump, so the win
// lies five plies deep.
func ExampleAlphaBetaPlayer_Search() {
	r := configs.MustVariant("keyland")
	p, err := game.ParseFEN(r, "6/5/4s1/2s2/6/5/2s3/5/1s4/5/s5/5/S5 s")
	if err != nil {
		panic(err)
	}
	cfg := mcts.DefaultAlphaBetaConfig()
	cfg.Depth = 6
	ab, err := mcts.NewAlphaBetaPlayer(cfg)
	if err != nil {
		panic(err)
	}
	res, err := ab.Search(context.Background(), &p)
	if err != nil {
		panic(err)
	}
	fmt.Println(p.DecisionString(res.Best), "wins in", mcts.WinScore-res.Score, "plies")
	// Output:
	// a1xa5 wins in 5 plies
}

// CheckSpec judges a player spec without building the player, as config
// files are checked when they load.
func ExampleCheckSpec() {
	for _, s := range []string{"alphabeta:depth=2", "alphabeta:depth=abc", "minimax:depth=2"} {
		fmt.Println(s, "->", mcts.CheckSpec(s))
	}
	// Output:
	// alphabeta:depth=2 -> <nil>
	// alphabeta:depth=abc -> player "alphabeta:depth=abc": depth=abc: want a whole number from 1 to 64
	// minimax:depth=2 -> player "minimax:depth=2": unknown kind "minimax" (want one of alphabeta, classical, greedy, gumbel, mcts, random, uct)
}

// A spec is the shipped player but for what it sets; String names it in
// full.
func ExampleParsePlayerConfig() {
	c, err := mcts.ParsePlayerConfig("gumbel:model=models/dablot.dbm,ms=100", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c)
	c, _ = mcts.ParsePlayerConfig("gumbel:model=models/dablot.dbm,sims=200,guard=0,eg=0", nil)
	fmt.Println(c)
	// Output:
	// gumbel:model=models/dablot.dbm,ms=100,batch=8,solve=1,forced=1,m=16,cvisit=50,cscale=0.1,gscale=0,cache=65536,guard=16,gmargin=50,gshare=0.5,gnodes=0,gext=1,gorder=1,gking=10,eg=3
	// gumbel:model=models/dablot.dbm,sims=200,batch=8,solve=1,forced=1,m=16,cvisit=50,cscale=0.1,gscale=0,cache=65536,guard=0,eg=0
}
