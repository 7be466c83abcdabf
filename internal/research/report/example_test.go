package report_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/dablot-zero/dablot/internal/research/ladder"
	"github.com/dablot-zero/dablot/internal/research/report"
	"github.com/dablot-zero/dablot/mcts/match"
	"github.com/dablot-zero/dablot/train/runlog"
)

// The report of a run directory of two generations, each rated against
// random and greedy: the plots and the summary, and the fitted ratings.
func Example() {
	dir, err := os.MkdirTemp("", "report-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	for g := 1; g <= 2; g++ {
		gen := runlog.Generation{Generation: g, Hours: 0.1 * float64(g), Games: 64 * g, MeanLength: 90, DrawRate: 0.2,
			PolicyLoss: 3 - 0.5*float64(g), ValueLoss: 0.9, Promoted: true, Best: g}
		if err := runlog.Append(filepath.Join(dir, runlog.MetricsFile), gen); err != nil {
			panic(err)
		}
		for _, m := range []runlog.Match{
			{Generation: g, Hours: gen.Hours, Player: fmt.Sprintf("gen%d", g), Opponent: "random", Wins: 8 + g, Draws: 1, Losses: 3 - g},
			{Generation: g, Hours: gen.Hours, Player: fmt.Sprintf("gen%d", g), Opponent: "greedy", Wins: 4 + 2*g, Draws: 2, Losses: 6 - 2*g},
		} {
			if err := runlog.Append(filepath.Join(dir, runlog.RatingsFile), m); err != nil {
				panic(err)
			}
		}
	}

	paths, err := report.Write(dir, report.Options{})
	if err != nil {
		panic(err)
	}
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		fmt.Println(rel)
	}
	run, err := report.Load(dir)
	if err != nil {
		panic(err)
	}
	table, anchor, err := run.Ratings("")
	if err != nil {
		panic(err)
	}
	fmt.Println("anchor:", anchor)
	for _, row := range table {
		fmt.Printf("%s %+.0f\n", row.Name, row.Elo)
	}
	// Output:
	// report/rating.png
	// report/loss.png
	// report/length.png
	// report/draws.png
	// report/summary.md
	// anchor: random
	// gen2 +307
	// gen1 +201
	// greedy +141
	// random +0
}

// The curve of two snapshots: each against alpha-beta, and the second
// against the first, which puts it 191 Elo over the first.
func ExampleCurves() {
	row := func(hours, opponent string, w, d, l int) ladder.Row {
		model := "runs/d/snapshots/dablot-" + hours + "h.dbm"
		return ladder.Row{Model: model, Variant: "dablot", Player: "gumbel:model=" + model + ",ms=100", Opponent: opponent,
			MS: 100, WDL: match.WDL{W: w, D: d, L: l}}
	}
	curves, err := report.Curves([]ladder.Row{
		row("1", "alphabeta:ms=100", 10, 0, 30),
		row("2", "gumbel:model=runs/d/snapshots/dablot-1h.dbm,ms=100", 30, 0, 10),
		row("2", "alphabeta:ms=100", 20, 0, 20),
	})
	if err != nil {
		panic(err)
	}
	fmt.Print(curves[0].Table())
	// Output:
	// curve: dablot at 100 ms, the snapshots of runs/d/snapshots, as gumbel:model=SNAPSHOT,ms=100
	// alphabeta: alphabeta:ms=100
	// classical: -
	// hours  vs alphabeta W/D/L, Elo   vs classical  vs the one before             Elo over 1h
	// 1h     10/0/30 -191 [-353, -82]  -             -                             0 [0, 0]
	// 2h     20/0/20 0 [-111, +111]    -             1h: 30/0/10 +191 [+82, +353]  +191 [+82, +353]
}
