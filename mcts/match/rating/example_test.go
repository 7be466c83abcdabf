package rating_test

import (
	"fmt"

	"github.com/dablot-zero/dablot/mcts/match/rating"
)

// Ratings of two models and a baseline, relative to the random player.
func ExampleFit() {
	results := []rating.Result{
		{A: "greedy", B: "random", Wins: 70, Draws: 20, Losses: 10},
		{A: "gen3", B: "greedy", Wins: 55, Draws: 30, Losses: 15},
		{A: "gen3", B: "random", Wins: 95, Draws: 5, Losses: 0},
		{A: "gen4", B: "gen3", Wins: 40, Draws: 30, Losses: 30},
	}
	table, err := rating.Fit(results, rating.DefaultAnchor)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(table.Markdown())
	// Output:
	// | # | player | Elo | ±95 % | games | score |
	// |---:|---|---:|---:|---:|---:|
	// | 1 | gen4 | +492 | 112 | 100 | 55.0 % |
	// | 2 | gen3 | +458 | 90 | 300 | 70.8 % |
	// | 3 | greedy | +281 | 79 | 200 | 55.0 % |
	// | 4 | random | 0 | anchor | 200 | 11.2 % |
}
