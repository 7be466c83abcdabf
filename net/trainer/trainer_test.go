package trainer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/internal/nettest"
)

// memorisationSet makes n random positions with random legal masks, a
// one-hot policy target on a legal move and a one-hot WDL target.
func memorisationSet(r *rand.Rand, topo *net.Topology, planes, n int) Batch {
	A := game.PolicySize(topo.Points)
	b := Batch{N: n, Input: nettest.RandomInputs(r, n*topo.Points*planes),
		Policy: make([]float32, n*A), Mask: make([]float32, n*A), Value: make([]float32, n*3)}
	for q := 0; q < n; q++ {
		var legal []int
		for len(legal) < 8 {
			i := r.IntN(A)
			if b.Mask[q*A+i] == 0 {
				b.Mask[q*A+i] = 1
				legal = append(legal, i)
			}
		}
		b.Policy[q*A+legal[r.IntN(len(legal))]] = 1
		b.Value[q*3+r.IntN(3)] = 1
	}
	return b
}

// TestTrainerMemorises trains a small network on 16 fixed random positions.
// Start: policy loss ~ln 8 = 2.08, value ~ln 3 = 1.10. After 150 Adam steps
// both must be below 0.1 nats (memorised).
func TestTrainerMemorises(t *testing.T) {
	topo := largeBoard()
	cfg := net.Config{Blocks: 2, Channels: 16, InputPlanes: 4, ValueHidden: 16}
	w, err := net.NewWeights(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	tc := DefaultTrainConfig()
	tc.BatchSize, tc.LearningRate, tc.Schedule, tc.WarmupSteps, tc.WeightDecay = 16, 1e-2, "constant", 0, 0
	tr, err := NewTrainer(topo, w, tc)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	b := memorisationSet(rand.New(rand.NewPCG(11, 12)), topo, cfg.InputPlanes, 16)
	var first, last Losses
	for i := 0; i < 150; i++ {
		l, err := tr.Step(b)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = l
		}
		last = l
	}
	t.Logf("policy %.3f -> %.4f, value %.3f -> %.4f", first.Policy, last.Policy, first.Value, last.Value)
	if math.Abs(first.Policy-math.Log(8)) > 0.3 || math.Abs(first.Value-math.Log(3)) > 0.3 {
		t.Errorf("initial losses %.3f / %.3f far from ln 8 / ln 3", first.Policy, first.Value)
	}
	if last.Policy > 0.1 || last.Value > 0.1 {
		t.Fatalf("did not memorise: policy %.4f value %.4f", last.Policy, last.Value)
	}
	// The trained weights reproduce the training graph in the evaluator.
	e, err := net.NewEvaluator(topo, tr.Weights())
	if err != nil {
		t.Fatal(err)
	}
	ws := e.NewWorkspace(16, 1)
	pol, _, err := ws.Forward(b.Input, 16)
	if err != nil {
		t.Fatal(err)
	}
	A := e.PolicySize()
	for q := 0; q < 16; q++ {
		maskedSoftmax(pol[q*A:(q+1)*A], pol[q*A:(q+1)*A], b.Mask[q*A:(q+1)*A])
	}
	for q := 0; q < 16; q++ {
		for i := 0; i < A; i++ {
			if b.Policy[q*A+i] == 1 && pol[q*A+i] < 0.9 {
				t.Fatalf("position %d: target move has probability %.3f", q, pol[q*A+i])
			}
		}
	}
}

func TestTrainerErrors(t *testing.T) {
	topo := smallBoard()
	cfg := net.Config{Blocks: 1, Channels: 4, InputPlanes: 2, ValueHidden: 4}
	w, _ := net.NewWeights(cfg, 1)
	tc := DefaultTrainConfig()
	tc.BatchSize = 2
	tr, err := NewTrainer(topo, w, tc)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	good := memorisationSet(rand.New(rand.NewPCG(1, 1)), topo, 2, 2)
	for _, c := range []struct {
		name string
		mod  func(b *Batch)
	}{
		{"wrong N", func(b *Batch) { b.N = 3 }},
		{"short input", func(b *Batch) { b.Input = b.Input[1:] }},
		{"short policy", func(b *Batch) { b.Policy = b.Policy[1:] }},
		{"short mask", func(b *Batch) { b.Mask = b.Mask[1:] }},
		{"short value", func(b *Batch) { b.Value = b.Value[1:] }},
	} {
		b := good
		c.mod(&b)
		if _, err := tr.Step(b); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	if _, err := tr.Step(good); err != nil {
		t.Fatalf("good batch after bad ones: %v", err)
	}
	bad := []TrainConfig{{}, func() TrainConfig { c := DefaultTrainConfig(); c.Schedule = "wiggle"; return c }()}
	for i, c := range bad {
		if _, err := NewTrainer(topo, w, c); err == nil {
			t.Errorf("bad config %d accepted", i)
		}
	}
}

func TestLearningRateSchedules(t *testing.T) {
	c := DefaultTrainConfig()
	c.LearningRate, c.WarmupSteps, c.TotalSteps, c.MinLRFraction = 1, 10, 110, 0.1
	for _, tc := range []struct {
		schedule string
		step     int
		want     float64
	}{
		{"cosine", 0, 0.1}, {"cosine", 9, 1}, {"cosine", 10, 1}, {"cosine", 60, 0.55}, {"cosine", 110, 0.1}, {"cosine", 500, 0.1},
		{"constant", 5, 0.6}, {"constant", 1000, 1},
		{"step", 10, 1}, {"step", 10 + 20000, 0.3}, {"step", 10 + 40000, 0.09},
	} {
		c.Schedule = tc.schedule
		if got := c.LearningRateAt(tc.step); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s step %d: %v want %v", tc.schedule, tc.step, got, tc.want)
		}
	}
}
