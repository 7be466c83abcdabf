package match_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/mcts/match"
)

// The statistics the arena prints for 60 wins, 20 draws and 20 losses.
func ExampleWDL() {
	r := match.WDL{W: 60, D: 20, L: 20}
	fmt.Println(r)
	test := match.SPRT{Elo0: 0, Elo1: 50, Alpha: 0.05, Beta: 0.05}
	llr, verdict := test.Test(r)
	fmt.Printf("LLR %.2f: %s\n", llr, verdict)
	// Output:
	// +60 =20 -20  score 70.0% [62.2%, 77.8%]  Elo +147 [+86, +218]
	// LLR 5.96: H1 accepted
}

// A short match: greedy against random on keyland, from the variant's
// setup with two random opening turns per pair of games. The same seed
// plays the same games, however many threads play them.
func ExampleRunArena() {
	r := configs.MustVariant("keyland")
	greedy, err := mcts.ParseFactory("greedy", mcts.SpecOptions{})
	if err != nil {
		panic(err)
	}
	random, err := mcts.ParseFactory("random", mcts.SpecOptions{})
	if err != nil {
		panic(err)
	}
	res, err := match.RunArena(context.Background(), match.ArenaConfig{
		Rules: r, A: greedy, B: random, Games: 4, Threads: 2, Seed: 7, OpeningTurns: 2,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("greedy as South:", res.AsSouth.W, res.AsSouth.D, res.AsSouth.L)
	fmt.Println("greedy as North:", res.AsNorth.W, res.AsNorth.D, res.AsNorth.L)
	// Output:
	// greedy as South: 2 0 0
	// greedy as North: 2 0 0
}

// A curriculum endgame: kings always, princes never, up to three soldiers a
// side, drawn from a seeded generator.
func ExampleRandomEndgame() {
	r := configs.MustVariant("keyland")
	spec := match.EndgameSpec{Soldiers: 3, KingChance: 1, PrinceChance: 0}
	p, ok := match.RandomEndgame(r, rand.New(rand.NewPCG(1, 2)), spec)
	fmt.Println(ok, p.FEN())
	// Output:
	// true 1k4/5/6/5/6/5/1s3K/5/4S1/5/6/2s2/6 s
}

func ExampleFormatEnds() {
	fmt.Println(match.FormatEnds(map[string]int{"no-capture": 1, "max-plies": 3}))
	// Output: max-plies 3, no-capture 1
}
