package net

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestFlushSubnormal(t *testing.T) {
	tiny := math.Float32frombits(1) // the smallest positive subnormal
	for _, tc := range []struct{ in, want float32 }{
		{0, 0},
		{1, 1},
		{-2.5, -2.5},
		{minNormal32, minNormal32},
		{-minNormal32, -minNormal32},
		{minNormal32 / 2, 0},
		{-minNormal32 / 2, 0},
		{tiny, 0},
		{-tiny, 0},
		{math.Float32frombits(0x007fffff), 0}, // the largest subnormal
	} {
		if got := flushSubnormal(tc.in); got != tc.want || math.Signbit(float64(got)) && tc.want == 0 {
			t.Errorf("flushSubnormal(%g) = %g, want %g", tc.in, got, tc.want)
		}
	}
	x := []float32{1, minNormal32 / 4, -3, -tiny}
	if n := flushSubnormals(x); n != 2 || x[0] != 1 || x[1] != 0 || x[2] != -3 || x[3] != 0 {
		t.Errorf("flushSubnormals: %d changed, %v", n, x)
	}
}

// countSubnormals counts the subnormal values among xs.
func countSubnormals(xs ...[]float32) int {
	n := 0
	for _, x := range xs {
		for _, v := range x {
			if v != 0 && flushSubnormal(v) == 0 {
				n++
			}
		}
	}
	return n
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
	n := 0
	for _, t := range w.Tensors {
		for i := 0; i < len(t.Data); i += 3 {
			t.Data[i] = float32(i%7-3) * 1e-40
			if t.Data[i] != 0 {
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no subnormal weights seeded")
	}
	return largeBoard(), cfg, w
}

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
		if n := countSubnormals(l.w, l.wcat, l.bias); n > 0 {
			t.Errorf("an inference layer keeps %d subnormal values", n)
		}
	}
	if n := countSubnormals(e.stopW, e.v1W, e.v1B, e.v2W, e.v2B); n > 0 {
		t.Errorf("the value and stop heads keep %d subnormal values", n)
	}
	zeroed := &Weights{Config: w.Config}
	for _, t := range w.Tensors {
		zeroed.Tensors = append(zeroed.Tensors, Tensor{Name: t.Name, Shape: t.Shape, Data: flushedCopy(t.Data)})
	}
	ez, err := NewEvaluator(topo, zeroed)
	if err != nil {
		t.Fatal(err)
	}
	in := randomInputs(rand.New(rand.NewPCG(5, 6)), 2*topo.Points*cfg.InputPlanes)
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
		if n := countSubnormals(p.value.Data().([]float32), p.m, p.v); n > 0 {
			t.Errorf("%s: %d subnormal values in weights and moments after a step", p.name, n)
		}
	}
}
