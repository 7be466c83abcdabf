package trainer

import (
	"math/rand/v2"
	"testing"

	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/internal/nettest"
)

// TestAdamFlushesSubnormals trains from weights with subnormal values and
// checks that none remain in the weights or Adam's moments after one step.
func TestAdamFlushesSubnormals(t *testing.T) {
	topo, cfg, w := subnormalNetwork(t, 4)
	tc := DefaultTrainConfig()
	tc.BatchSize = 4
	tr, err := NewTrainer(topo, w, tc)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	b := memorisationSet(rand.New(rand.NewPCG(7, 8)), topo, cfg.InputPlanes, 4)
	if _, err := tr.Step(b); err != nil {
		t.Fatal(err)
	}
	for _, p := range tr.params {
		if n := nettest.CountSubnormals(p.value.Data().([]float32), p.m, p.v); n > 0 {
			t.Errorf("%s: %d subnormal values in weights and moments after a step", p.name, n)
		}
	}
}

// subnormalNetwork returns a small network on the large board with every
// third weight of every tensor set to a subnormal value (or zero).
func subnormalNetwork(t *testing.T, seed uint64) (*net.Topology, net.Config, *net.Weights) {
	t.Helper()
	cfg := net.Config{Blocks: 1, Channels: 8, InputPlanes: 3, ValueHidden: 8}
	w, err := net.NewWeights(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	nettest.SeedSubnormals(t, w.Tensors)
	return largeBoard(), cfg, w
}
