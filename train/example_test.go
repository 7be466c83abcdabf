package train_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/train"
)

// The statistics the arena prints for 60 wins, 20 draws and 20 losses.
func ExampleWDL() {
	r := train.WDL{W: 60, D: 20, L: 20}
	fmt.Println(r)
	test := train.SPRT{Elo0: 0, Elo1: 50, Alpha: 0.05, Beta: 0.05}
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
	res, err := train.RunArena(context.Background(), train.ArenaConfig{
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
	spec := train.EndgameSpec{Soldiers: 3, KingChance: 1, PrinceChance: 0}
	p, ok := train.RandomEndgame(r, rand.New(rand.NewPCG(1, 2)), spec)
	fmt.Println(ok, p.FEN())
	// Output:
	// true 1k4/5/6/5/6/5/1s3K/5/4S1/5/6/2s2/6 s
}

// A config with a misspelt key is refused, and the error names the key.
func ExampleParseConfig() {
	_, err := train.ParseConfig([]byte("name: mine\nselfplay:\n  gamez: 64\n"))
	fmt.Println(err)
	// Output:
	// training config: unmarshal errors:
	//   line 3: field gamez not found in type train.SelfPlayConfig
}

// Can South's king and one soldier catch North's lone king in keyland?
// Only by taking it at once: with North to move, never.
func ExampleSolveLoneKing() {
	r := configs.MustVariant("keyland")
	t, err := train.SolveLoneKing(context.Background(), r, 1, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	one := t.Results[1]
	fmt.Printf("South to move wins %d of %d, North to move loses %d of %d; longest win %d turn\n",
		one.Won[0], one.Positions[0], one.Won[1], one.Positions[1], one.Longest)
	p, _ := game.ParseFEN(r, one.LongestFEN)
	plies, _ := t.Plies(&p)
	fmt.Println(one.LongestFEN, "wins in", plies)
	// Output:
	// South to move wins 21804 of 357840, North to move loses 0 of 357840; longest win 1 turn
	// 6/5/6/5/6/5/6/5/6/5/6/5/Kk1S2 s wins in 1
}

func ExampleFormatEnds() {
	fmt.Println(train.FormatEnds(map[string]int{"no-capture": 1, "max-plies": 3}))
	// Output: max-plies 3, no-capture 1
}
