package study_test

import (
	"context"
	"fmt"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/research/study"
)

// Can South's king and one soldier catch North's lone king in keyland?
// Only by taking it at once: with North to move, never.
func ExampleSolveLoneKing() {
	r := configs.MustVariant("keyland")
	t, err := study.SolveLoneKing(context.Background(), r, 1, nil)
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
