package balance_test

import (
	"context"
	"fmt"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/internal/research/balance"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
)

// A study of frostviken with a tiny untrained network: four games at each
// of two strengths, with a guard of one turn (the shipped 16 are most of the
// time), without the anchor check (so the figures are flagged).
// A real study loads a trained model (model.LoadModel) and keeps the
// defaults: 100 games at 50, 200 and 800 simulations and 20 games against
// alphabeta:depth=4.
func ExampleStudy() {
	m, err := model.NewNetwork(configs.MustVariant("frostviken"), net.Config{Blocks: 1, Channels: 8, ValueHidden: 8}, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	opts := balance.DefaultOptions()
	opts.Games, opts.Sims, opts.MainSims = 4, []int{4, 8}, 8
	opts.CheckGames, opts.Guard = 0, 1
	res, err := balance.Study(context.Background(), m, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range res.PerSims {
		// The first player's wins, draws and losses depend on the network.
		fmt.Printf("%d sims: %d games counted for the first player (%s)\n", s.Sims, s.First.Games(), res.FirstName)
	}
	fmt.Printf("main strength %d sims; reliable: %v (%s)\n", res.MainSims, res.Reliable, res.Reason)
	// The report: balance.Markdown([]*balance.VariantResult{res}) and
	// balance.WriteCharts(dir, []*balance.VariantResult{res}).

	// Output:
	// 4 sims: 4 games counted for the first player (south)
	// 8 sims: 4 games counted for the first player (south)
	// main strength 8 sims; reliable: false (strength not checked against alphabeta:depth=4)
}
