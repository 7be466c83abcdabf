package trainer

import (
	"fmt"
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

// randomTarget is a target of TestTrainerAuxHeads: random, from -0.8 to
// 0.8.
func randomTarget(r *rand.Rand, _ []float32, _, _ int) float32 { return float32(r.Float64()*1.6 - 0.8) }

// occupancyTarget is a toy ownership target of TestTrainerAuxHeads for
// the i-th point of the inputs in of planes planes: its first plane minus
// its second, -1, 0 or 1, as the occupancy of a point is its own piece
// planes' minus the enemy's.
func occupancyTarget(_ *rand.Rand, in []float32, planes, i int) float32 {
	return in[i*planes] - in[i*planes+1]
}

// TestTrainerAuxHeads trains a network with an auxiliary head (the score
// head, the short-term value head of three outputs, the ownership head) on
// fixed random positions with targets (the ownership head's a toy
// occupancy of every point): its squared error must fall to nearly 0 and
// the evaluator's outputs must then give the targets. An entry whose mask
// is 0 has no target: it adds nothing to the loss. A weight for a network
// without the head is refused.
func TestTrainerAuxHeads(t *testing.T) {
	for _, tc := range []struct {
		head   string
		arch   func(*net.Config)
		setW   func(*TrainConfig, float64)
		set    func(b *Batch, target, mask []float32)
		target func(r *rand.Rand, in []float32, planes, i int) float32
		noHead string
	}{
		{net.ScoreHeadName, func(c *net.Config) { c.ScoreHead = true }, func(c *TrainConfig, w float64) { c.ScoreWeight = w },
			func(b *Batch, tg, m []float32) { b.Score, b.ScoreMask = tg, m }, randomTarget, "without the score head"},
		{net.ShortTermHeadName, func(c *net.Config) { c.ShortTermHeads = 3 }, func(c *TrainConfig, w float64) { c.ShortTermWeight = w },
			func(b *Batch, tg, m []float32) { b.ShortTerm, b.ShortTermMask = tg, m }, randomTarget, "without the short-term value head"},
		{net.OwnershipHeadName, func(c *net.Config) { c.OwnershipHead = true }, func(c *TrainConfig, w float64) { c.OwnershipWeight = w },
			func(b *Batch, tg, m []float32) { b.Ownership, b.OwnershipMask = tg, m }, occupancyTarget, "without the ownership head"},
	} {
		t.Run(tc.head, func(t *testing.T) {
			topo := smallBoard()
			noHead := net.Config{Blocks: 1, Channels: 16, InputPlanes: 4, ValueHidden: 16}
			cfg := noHead
			tc.arch(&cfg)
			head := cfg.Heads()[0]
			// k targets a position; the loss sums over sum of them, and
			// averages over the rest (a per-point head's points).
			k, sum := head.Size(topo.Points), head.Outputs
			w, err := net.NewWeights(cfg, 2)
			if err != nil {
				t.Fatal(err)
			}
			c := DefaultTrainConfig()
			c.BatchSize, c.LearningRate, c.Schedule, c.WarmupSteps, c.WeightDecay = 8, 1e-2, "constant", 0, 0
			tc.setW(&c, 2)
			if _, err := NewTrainer(topo, perturbed(noHead, 1, 1), c); err == nil || !strings.Contains(err.Error(), tc.noHead) {
				t.Errorf("a weight without the head: %v", err)
			}
			tr, err := NewTrainer(topo, w, c)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			r := rand.New(rand.NewPCG(3, 4))
			b := memorisationSet(r, topo, cfg.InputPlanes, 8)
			target, mask := make([]float32, 8*k), make([]float32, 8*k)
			for i := range target {
				target[i] = tc.target(r, b.Input, cfg.InputPlanes, i)
				mask[i] = 1
			}
			for o := range k { // no target: its (far) values must not be learnt
				mask[7*k+o], target[7*k+o] = 0, 0.99
			}
			tc.set(&b, target, mask)
			first, last := trainSteps(t, tr, b, 400)
			lossOf := auxHeadNamed(tc.head).loss
			f, l := *lossOf(&first), *lossOf(&last)
			t.Logf("%s loss %.4f -> %.5f", tc.head, f, l)
			if !(f > 0.05*float64(sum)) || !(l < 0.005*float64(sum)) {
				t.Fatalf("%s loss %.4f -> %.5f: did not memorise the targets", tc.head, f, l)
			}
			if want := last.Policy + c.ValueWeight*last.Value + 2*l + last.L2; math.Abs(last.Total-want) > 1e-6 {
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
			for i, v := range ws.HeadOutputs(tc.head)[:7*k] {
				if math.Abs(float64(v-target[i])) > 0.1 {
					t.Errorf("position %d, output %d: %v, target %v", i/k, i%k, v, target[i])
				}
			}
			// Without any target the loss is 0 (every mask 0).
			clear(mask)
			if l, err := tr.Step(b); err != nil || *lossOf(&l) != 0 {
				t.Errorf("no targets: loss %v, %v", *lossOf(&l), err)
			}
			// A target without its mask is an error, not a silent zero weight.
			tc.set(&b, target, nil)
			if _, err := tr.Step(b); err == nil || !strings.Contains(err.Error(), "mask") {
				t.Errorf("a target without a mask: %v", err)
			}
			// So is a target of the wrong size.
			tc.set(&b, target[:8*k-1], mask[:8*k-1])
			if _, err := tr.Step(b); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("want %d", 8*k)) {
				t.Errorf("a target of the wrong size: %v", err)
			}
		})
	}
}

// TestSquaredLossGradient checks the gradient of the auxiliary heads'
// loss against finite differences of its value, entries of weight 0
// included (no gradient), for one output a row (the score head) and for
// two (the loss sums a row's outputs and averages over rows).
func TestSquaredLossGradient(t *testing.T) {
	z := []float32{-1.2, -0.3, 0, 0.4, 2, 0.7}
	target := []float32{0.5, -0.2, 0.9, 0.4, -1, 0.1}
	weight := []float32{1, 1, 0, 1, 1, 1}
	for _, outputs := range []int{1, 2} {
		op := mseTanhOp{scale: 1.5, outputs: outputs}
		dz := make([]float32, len(z))
		loss := op.rows(z, target, weight, dz)
		var want float64
		for i, v := range z {
			d := math.Tanh(float64(v)) - float64(target[i])
			want += float64(weight[i]) * d * d
		}
		want *= 1.5 / float64(len(z)/outputs)
		if math.Abs(loss-want) > 1e-5 {
			t.Errorf("%d outputs: loss %v, want %v", outputs, loss, want)
		}
		const h = 1e-3
		for i := range z {
			zz := append([]float32(nil), z...)
			zz[i] = z[i] + h
			up := op.rows(zz, target, weight, nil)
			zz[i] = z[i] - h
			down := op.rows(zz, target, weight, nil)
			num := (up - down) / (2 * h)
			if math.Abs(num-float64(dz[i])) > 1e-3 {
				t.Errorf("%d outputs: z[%d]: gradient %v, finite difference %v", outputs, i, dz[i], num)
			}
		}
		if dz[2] != 0 {
			t.Errorf("%d outputs: an entry of weight 0 has the gradient %v", outputs, dz[2])
		}
	}
}

// TestOwnershipGradient checks the training graph's gradient of the
// ownership head's loss, with respect to the head's weights and to a
// trunk layer's, against finite differences of the loss computed from the
// evaluator's outputs: weight/(points·n) · sum mask·(output - target)^2.
// The other losses are switched off (no legal policy entry, value weight
// 0); the last position has no targets.
func TestOwnershipGradient(t *testing.T) {
	topo := smallBoard()
	cfg := net.Config{Blocks: 1, Channels: 4, InputPlanes: 3, ValueHidden: 4, OwnershipHead: true}
	const n, weight = 3, 1.5
	w := perturbed(cfg, 6, 1)
	c := DefaultTrainConfig()
	c.BatchSize, c.ValueWeight, c.OwnershipWeight = n, 0, weight
	tr, err := NewTrainer(topo, w, c)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	P, A := topo.Points, game.PolicySize(topo.Points)
	r := rand.New(rand.NewPCG(8, 8))
	b := Batch{N: n, Input: nettest.RandomInputs(r, n*P*cfg.InputPlanes), Policy: make([]float32, n*A), Mask: make([]float32, n*A),
		Value: make([]float32, n*3), Ownership: make([]float32, n*P), OwnershipMask: make([]float32, n*P)}
	for i := range b.Ownership {
		b.Ownership[i] = float32(r.IntN(3) - 1)
		if i < (n-1)*P {
			b.OwnershipMask[i] = 1
		}
	}
	loss := func(w *net.Weights) float64 {
		e, err := net.NewEvaluator(topo, w)
		if err != nil {
			t.Fatal(err)
		}
		ws := e.NewWorkspace(n, 1)
		defer ws.Close()
		if _, _, err := ws.Forward(b.Input, n); err != nil {
			t.Fatal(err)
		}
		var s float64
		for i, v := range ws.HeadOutputs(net.OwnershipHeadName) {
			d := float64(v) - float64(b.Ownership[i])
			s += float64(b.OwnershipMask[i]) * d * d
		}
		return weight * s / float64(P*n)
	}
	if err := tr.load(b); err != nil {
		t.Fatal(err)
	}
	if err := tr.vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	graphLoss, err := scalarValue(tr.heads[0].loss.Value())
	if err != nil {
		t.Fatal(err)
	}
	if want := loss(w); math.Abs(float64(graphLoss)-want) > 1e-5 {
		t.Fatalf("graph's ownership loss %v, evaluator's %v", graphLoss, want)
	}
	grads := map[string][]float32{}
	for _, p := range tr.params {
		gv, err := p.node.Grad()
		if err != nil {
			t.Fatal(err)
		}
		g, err := f32s(gv)
		if err != nil {
			t.Fatal(err)
		}
		grads[p.name+".w"], grads[p.name+".b"] = append([]float32(nil), g[:p.rows*p.cols]...), append([]float32(nil), g[p.rows*p.cols:]...)
	}
	tr.vm.Reset()
	const h = 1e-2
	worst, largest := 0.0, 0.0
	for _, name := range []string{"ownership.w", "ownership.b", "block0.conv2.w", "stem.b"} {
		for i := range w.Tensor(name).Data {
			if name == "block0.conv2.w" && i%7 != 0 {
				continue // a sample of the trunk's weights
			}
			up, down := w.Clone(), w.Clone()
			up.Tensor(name).Data[i] += h
			down.Tensor(name).Data[i] -= h
			fd := (loss(up) - loss(down)) / (2 * h)
			g := float64(grads[name][i])
			worst, largest = math.Max(worst, math.Abs(fd-g)), math.Max(largest, math.Abs(g))
			if math.Abs(fd-g) > 1e-3 {
				t.Errorf("%s[%d]: gradient %v, finite difference %v", name, i, g, fd)
			}
		}
	}
	t.Logf("largest gradient %.3g, worst difference from finite differences %.2g", largest, worst)
	if largest < 0.01 {
		t.Fatalf("the gradients are all near 0 (largest %v): the test checks nothing", largest)
	}
}
