package balance

import (
	"context"
	"testing"
	"time"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/train"
)

func TestProbe(t *testing.T) {
	for _, v := range []string{"frostviken", "daablot"} {
		m, err := train.NewNetwork(configs.MustVariant(v), net.Config{Blocks: 1, Channels: 8, ValueHidden: 8}, 1)
		if err != nil {
			t.Fatal(err)
		}
		o := DefaultOptions()
		o.Games, o.Sims, o.MainSims, o.CheckGames, o.CheckAnchor = 8, []int{4, 16}, 4, 4, "alphabeta:depth=1"
		t0 := time.Now()
		res, err := Study(context.Background(), m, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %v", v, time.Since(t0))
		for _, s := range res.PerSims {
			t.Logf("%+v", s)
		}
		t.Logf("%v %v %s", res.AnchorWDL, res.Reliable, res.Reason)
		t.Log(Markdown([]*VariantResult{res}))
	}
}
