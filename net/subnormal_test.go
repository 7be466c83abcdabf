package net

import (
	"math/rand/v2"
	"testing"

	"github.com/dablot-zero/dablot/net/internal/kernel"
	"github.com/dablot-zero/dablot/net/internal/nettest"
)

// TestEvaluatorFlushesSubnormals checks that a network with subnormal weights
// keeps none of them for inference and gives the outputs of the same network
// with those weights zeroed.
func TestEvaluatorFlushesSubnormals(t *testing.T) {
	topo, cfg, w := subnormalNetwork(t, 3)
	e, err := NewEvaluator(topo, w)
	if err != nil {
		t.Fatal(err)
	}
	layers := []evalLayer{e.stem, e.policy}
	for _, b := range e.blocks {
		layers = append(layers, b[0], b[1])
	}
	for _, l := range layers {
		if n := nettest.CountSubnormals(l.w, l.wcat, l.bias); n > 0 {
			t.Errorf("an inference layer keeps %d subnormal values", n)
		}
	}
	if n := nettest.CountSubnormals(e.stopW, e.v1W, e.v1B, e.v2W, e.v2B); n > 0 {
		t.Errorf("the value and stop heads keep %d subnormal values", n)
	}
	zeroed := &Weights{Config: w.Config}
	for _, t := range w.Tensors {
		zeroed.Tensors = append(zeroed.Tensors, Tensor{Name: t.Name, Shape: t.Shape, Data: kernel.FlushedCopy(t.Data)})
	}
	ez, err := NewEvaluator(topo, zeroed)
	if err != nil {
		t.Fatal(err)
	}
	in := nettest.RandomInputs(rand.New(rand.NewPCG(5, 6)), 2*topo.Points*cfg.InputPlanes)
	p1, v1, err := e.NewWorkspace(2, 1).Forward(in, 2)
	if err != nil {
		t.Fatal(err)
	}
	p2, v2, err := ez.NewWorkspace(2, 1).Forward(in, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p1 {
		if p1[i] != p2[i] {
			t.Fatalf("policy[%d] = %g, with the subnormals zeroed %g", i, p1[i], p2[i])
		}
	}
	for i := range v1 {
		if v1[i] != v2[i] {
			t.Fatalf("value[%d] = %g, with the subnormals zeroed %g", i, v1[i], v2[i])
		}
	}
}

// subnormalNetwork returns a small network on the large board with every
// third weight of every tensor set to a subnormal value (or zero).
func subnormalNetwork(t *testing.T, seed uint64) (*Topology, Config, *Weights) {
	t.Helper()
	cfg := Config{Blocks: 1, Channels: 8, InputPlanes: 3, ValueHidden: 8}
	w, err := NewWeights(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	nettest.SeedSubnormals(t, w.Tensors)
	return largeBoard(), cfg, w
}
