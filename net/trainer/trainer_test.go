package trainer

import (
	"math"
	"math/rand/v2"
	"strings"
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

// trainSteps takes n steps on b and returns the losses of the first and
// the last.
func trainSteps(t *testing.T, tr *Trainer, b Batch, n int) (first, last Losses) {
	t.Helper()
	for i := 0; i < n; i++ {
		l, err := tr.Step(b)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = l
		}
		last = l
	}
	return first, last
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
	first, last := trainSteps(t, tr, b, 150)
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

// TestTrainerScoreHead trains a network with a score head on fixed random
// positions with score targets: its squared error must fall to nearly 0
// and the evaluator's Score must then give the targets. A row whose mask
// is 0 has no target: it adds nothing to the loss. A score weight for a
// network without the head is refused.
func TestTrainerScoreHead(t *testing.T) {
	topo := smallBoard()
	cfg := net.Config{Blocks: 1, Channels: 16, InputPlanes: 4, ValueHidden: 16, ScoreHead: true}
	w, err := net.NewWeights(cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	tc := DefaultTrainConfig()
	tc.BatchSize, tc.LearningRate, tc.Schedule, tc.WarmupSteps, tc.WeightDecay, tc.ScoreWeight = 8, 1e-2, "constant", 0, 0, 2
	noHead := cfg
	noHead.ScoreHead = false
	if _, err := NewTrainer(topo, perturbed(noHead, 1, 1), tc); err == nil || !strings.Contains(err.Error(), "without a score head") {
		t.Errorf("score weight without a score head: %v", err)
	}
	tr, err := NewTrainer(topo, w, tc)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	r := rand.New(rand.NewPCG(3, 4))
	b := memorisationSet(r, topo, cfg.InputPlanes, 8)
	b.Score, b.ScoreMask = make([]float32, 8), make([]float32, 8)
	for i := range b.Score {
		b.Score[i] = float32(r.Float64()*1.6 - 0.8)
		b.ScoreMask[i] = 1
	}
	b.ScoreMask[7] = 0 // no target: its (far) score must not be learnt
	b.Score[7] = 0.99
	first, last := trainSteps(t, tr, b, 400)
	t.Logf("score loss %.4f -> %.5f", first.Score, last.Score)
	if !(first.Score > 0.05) || !(last.Score < 0.005) {
		t.Fatalf("score loss %.4f -> %.5f: did not memorise the targets", first.Score, last.Score)
	}
	if want := last.Policy + tc.ValueWeight*last.Value + tc.ScoreWeight*last.Score + last.L2; math.Abs(last.Total-want) > 1e-6 {
		t.Errorf("total %v, want %v", last.Total, want)
	}
	e, err := net.NewEvaluator(topo, tr.Weights())
	if err != nil {
		t.Fatal(err)
	}
	ws := e.NewWorkspace(8, 1)
	defer ws.Close()
	if _, _, err := ws.Forward(b.Input, 8); err != nil {
		t.Fatal(err)
	}
	for i, s := range ws.Score()[:7] {
		if math.Abs(float64(s-b.Score[i])) > 0.1 {
			t.Errorf("position %d: score %v, target %v", i, s, b.Score[i])
		}
	}
	// Without any target the score loss is 0 (every mask 0).
	clear(b.ScoreMask)
	if l, err := tr.Step(b); err != nil || l.Score != 0 {
		t.Errorf("no score targets: score loss %v, %v", l.Score, err)
	}
	// A target without its mask is an error, not a silent zero weight.
	b.ScoreMask = nil
	if _, err := tr.Step(b); err == nil || !strings.Contains(err.Error(), "mask") {
		t.Errorf("score target without a mask: %v", err)
	}
}

// TestScoreLossGradient checks the score loss's gradient against finite
// differences of its value, rows of weight 0 included (no gradient).
func TestScoreLossGradient(t *testing.T) {
	op := mseTanhOp{scale: 1.5}
	z := []float32{-1.2, -0.3, 0, 0.4, 2}
	target := []float32{0.5, -0.2, 0.9, 0.4, -1}
	weight := []float32{1, 1, 0, 1, 1}
	dz := make([]float32, len(z))
	op.rows(z, target, weight, dz)
	const h = 1e-3
	for i := range z {
		zz := append([]float32(nil), z...)
		zz[i] = z[i] + h
		up := op.rows(zz, target, weight, nil)
		zz[i] = z[i] - h
		down := op.rows(zz, target, weight, nil)
		num := (up - down) / (2 * h)
		if math.Abs(num-float64(dz[i])) > 1e-3 {
			t.Errorf("z[%d]: gradient %v, finite difference %v", i, dz[i], num)
		}
	}
	if dz[2] != 0 {
		t.Errorf("a row of weight 0 has the gradient %v", dz[2])
	}
}
