package analysis_test

import (
	"context"
	"fmt"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/mcts/analysis"
)

// An analysis with the material heuristic (a model's evaluator works the
// same way): South's soldier on a1 can capture five pieces in one chain
// and win. The best turn is the whole chain, searched jump by jump; the
// solver proves the win, so its chances are exact.
func ExampleAnalyst_Analyse() {
	p, err := game.ParseFEN(configs.MustVariant("keyland"), "6/5/4s1/2s2/6/5/2s3/5/1s4/5/s5/5/S5 s")
	if err != nil {
		panic(err)
	}
	a, err := analysis.New(&mcts.MaterialEvaluator{}, mcts.DefaultConfig())
	if err != nil {
		panic(err)
	}
	an, err := a.Analyse(context.Background(), p, analysis.Query{Limits: mcts.Limits{Sims: 200}, Top: 2, PV: 3})
	if err != nil {
		panic(err)
	}
	for _, t := range an.Top {
		fmt.Printf("%s: value %+.2f, W/D/L %.2f\n", t.Text, t.Value, t.WDL)
	}
	fmt.Println("pv:", an.PV)
	fmt.Println("proven:", an.Proof)
	// Output:
	// a1xa5xe5xe9xg11xk11: value +1.00, W/D/L [1.00 0.00 0.00]
	// a1-c1: value -0.76, W/D/L [0.12 0.00 0.88]
	// pv: [a1xa5xe5xe9xg11xk11]
	// proven: win 5
}
