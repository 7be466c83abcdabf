package trainer

import (
	"fmt"
	"math"
	"sync"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/internal/kernel"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// graphMu serialises gorgonia graph construction, which is not safe for
// concurrent use.
var graphMu sync.Mutex

// TrainConfig holds the optimiser settings.
type TrainConfig struct {
	BatchSize     int     // positions per step (the graph is built for this size)
	LearningRate  float64 // peak Adam learning rate
	Schedule      string  // "constant", "cosine" (to MinLRFraction at TotalSteps) or "step"
	WarmupSteps   int     // linear warm-up from 0 (all schedules)
	TotalSteps    int     // cosine: length of the decay
	StepEvery     int     // step: multiply the rate by StepGamma every StepEvery steps
	StepGamma     float64 // step: factor per stage
	MinLRFraction float64 // cosine: final rate as a fraction of the peak
	WeightDecay   float64 // L2 coefficient c: the loss gains c/2 * sum(w^2) over all parameters
	ValueWeight   float64 // weight of the value loss relative to the policy loss
	// ScoreWeight is the weight of the score head's loss (the squared
	// error of its output, net.Config.ScoreHead); 0 without the head, and
	// left out of the JSON of checkpoints then, which read as before.
	ScoreWeight float64 `json:",omitempty"`
	// ShortTermWeight is the weight of the short-term value head's loss
	// (the squared errors of its outputs, summed over them,
	// net.Config.ShortTermHeads); 0 without the head, and left out of the
	// JSON of checkpoints then, which read as before.
	ShortTermWeight float64 `json:",omitempty"`
	// OwnershipWeight is the weight of the ownership head's loss (the
	// squared errors of its outputs, averaged over the points,
	// net.Config.OwnershipHead); 0 without the head, and left out of the
	// JSON of checkpoints then, which read as before.
	OwnershipWeight float64 `json:",omitempty"`
	Beta1, Beta2    float64 // Adam moment decay rates
	Epsilon         float64 // Adam denominator guard
}

// DefaultTrainConfig returns settings that train the default network well
// on self-play data.
func DefaultTrainConfig() TrainConfig {
	return TrainConfig{
		BatchSize: 256, LearningRate: 1e-3, Schedule: "cosine", WarmupSteps: 100,
		TotalSteps: 100000, StepEvery: 20000, StepGamma: 0.3, MinLRFraction: 0.05,
		WeightDecay: 1e-4, ValueWeight: 1, Beta1: 0.9, Beta2: 0.999, Epsilon: 1e-8,
	}
}

// Validate checks the settings.
func (c TrainConfig) Validate() error {
	switch {
	case c.BatchSize < 1 || c.BatchSize > 1<<16:
		return fmt.Errorf("net: train config: batch size %d out of range", c.BatchSize)
	case !(c.LearningRate > 0) || c.LearningRate > 10:
		return fmt.Errorf("net: train config: learning rate %v out of range", c.LearningRate)
	case c.Schedule != "constant" && c.Schedule != "cosine" && c.Schedule != "step":
		return fmt.Errorf("net: train config: unknown schedule %q (constant, cosine, step)", c.Schedule)
	case c.Schedule == "cosine" && c.TotalSteps < 1:
		return fmt.Errorf("net: train config: cosine schedule needs TotalSteps > 0")
	case c.Schedule == "step" && (c.StepEvery < 1 || !(c.StepGamma > 0)):
		return fmt.Errorf("net: train config: step schedule needs StepEvery > 0 and StepGamma > 0")
	case c.WarmupSteps < 0 || c.WeightDecay < 0 || c.ValueWeight < 0 || c.ScoreWeight < 0 || c.ShortTermWeight < 0 || c.OwnershipWeight < 0:
		return fmt.Errorf("net: train config: negative warm-up, weight decay, value weight, score weight, short-term weight or ownership weight")
	case !(c.Beta1 >= 0 && c.Beta1 < 1) || !(c.Beta2 >= 0 && c.Beta2 < 1) || !(c.Epsilon > 0):
		return fmt.Errorf("net: train config: Adam betas must be in [0,1) and epsilon > 0")
	}
	return nil
}

// LearningRateAt returns the scheduled learning rate for step (0-based).
func (c TrainConfig) LearningRateAt(step int) float64 {
	lr := c.LearningRate
	if step < c.WarmupSteps {
		return lr * float64(step+1) / float64(c.WarmupSteps)
	}
	switch c.Schedule {
	case "cosine":
		t := math.Min(1, float64(step-c.WarmupSteps)/float64(max(1, c.TotalSteps-c.WarmupSteps)))
		f := c.MinLRFraction + (1-c.MinLRFraction)*0.5*(1+math.Cos(math.Pi*t))
		return lr * f
	case "step":
		return lr * math.Pow(c.StepGamma, float64((step-c.WarmupSteps)/c.StepEvery))
	}
	return lr
}

// Batch is one training batch.
type Batch struct {
	N      int       // positions; must equal TrainConfig.BatchSize
	Input  []float32 // N * Points * InputPlanes, [position][point][plane]
	Policy []float32 // N * game.PolicySize(points) target distributions
	Mask   []float32 // N * game.PolicySize(points), nonzero = legal; nil means all legal
	Value  []float32 // N * 3 win/draw/loss target distributions
	// Score holds the score head's targets (N values in [-1, 1]) and
	// ScoreMask their weights (N values, 0 for a position without a
	// target); nil means no targets. Networks without a score head ignore
	// them.
	Score     []float32
	ScoreMask []float32
	// ShortTerm holds the short-term value head's targets
	// (N*ShortTermHeads values in [-1, 1], position by position) and
	// ShortTermMask their weights (0 for a position without targets); nil
	// means no targets. Networks without the head ignore them.
	ShortTerm     []float32
	ShortTermMask []float32
	// Ownership holds the ownership head's targets (N*Points values in
	// [-1, 1], position by position, each position's in the order of its
	// input's points) and OwnershipMask their weights (0 for a position
	// without targets); nil means no targets. Networks without the head
	// ignore them.
	Ownership     []float32
	OwnershipMask []float32
}

// auxHead binds an auxiliary head of a network (net.Head, by its name) to
// its loss weight, its targets in a batch and its loss in Losses.
type auxHead struct {
	name, label string // net.Head.Name; what messages call the head
	weight      func(*TrainConfig) float64
	targets     func(*Batch) (target, mask []float32)
	loss        func(*Losses) *float64
}

// auxHeads lists the auxiliary heads the trainer knows.
var auxHeads = []auxHead{
	{net.ScoreHeadName, "score", func(c *TrainConfig) float64 { return c.ScoreWeight },
		func(b *Batch) ([]float32, []float32) { return b.Score, b.ScoreMask }, func(l *Losses) *float64 { return &l.Score }},
	{net.ShortTermHeadName, "short-term value", func(c *TrainConfig) float64 { return c.ShortTermWeight },
		func(b *Batch) ([]float32, []float32) { return b.ShortTerm, b.ShortTermMask }, func(l *Losses) *float64 { return &l.ShortTerm }},
	{net.OwnershipHeadName, "ownership", func(c *TrainConfig) float64 { return c.OwnershipWeight },
		func(b *Batch) ([]float32, []float32) { return b.Ownership, b.OwnershipMask }, func(l *Losses) *float64 { return &l.Ownership }},
}

// auxHeadNamed returns the entry of auxHeads of the head named name.
func auxHeadNamed(name string) auxHead {
	for _, a := range auxHeads {
		if a.name == name {
			return a
		}
	}
	panic("net: train: no auxiliary head " + name)
}

// hasHead reports whether the architecture c has the auxiliary head named
// name.
func hasHead(c net.Config, name string) bool {
	for _, h := range c.Heads() {
		if h.Name == name {
			return true
		}
	}
	return false
}

// Losses reports one training step.
type Losses struct {
	Policy       float64 // masked policy cross-entropy, mean over the batch
	Value        float64 // WDL cross-entropy, mean over the batch (unweighted)
	Score        float64 // squared error of the score head, mean over the batch (unweighted; 0 without the head)
	ShortTerm    float64 // squared errors of the short-term value head, summed over its outputs, mean over the batch (unweighted; 0 without the head)
	Ownership    float64 // squared errors of the ownership head, mean over the points and the batch (unweighted; 0 without the head)
	L2           float64 // WeightDecay/2 * sum(w^2) before the update
	Total        float64 // Policy + ValueWeight*Value + the auxiliary heads' weighted losses + L2
	LearningRate float64 // rate used for this step
}

// param is one trainable matrix. Graph-convolution and dense layers keep
// their bias as the last row, matching the constant-1 column of their input.
type param struct {
	name   string // weight tensor name; bias tensor is the same with ".b"
	rows   int    // input rows without the bias row
	cols   int
	node   *G.Node
	value  *tensor.Dense
	m, v   []float32
	hasRow bool
}

// Trainer trains a network with gorgonia: a graph built once for
// TrainConfig.BatchSize, Adam with the configured schedule, L2 decay.
// A Trainer is not safe for concurrent use.
type Trainer struct {
	cfg    net.Config
	tc     TrainConfig
	topo   *net.Topology
	g      *G.ExprGraph
	vm     G.VM
	params []*param
	step   int
	pool   *trainPool // workers of the graph-convolution ops

	x, tp, mask, tv *G.Node
	xT, tpT, maskT  *tensor.Dense
	tvT, onesT      *tensor.Dense
	lp, lv          *G.Node
	logits, vlog    *G.Node
	heads           []headGraph // the auxiliary heads, in the order of net.Config.Heads
}

// headGraph is the part of the training graph of one auxiliary head: its
// targets and their weights ([BatchSize, outputs] each), its loss and its
// outputs before the tanh.
type headGraph struct {
	auxHead
	outputs        int // per position (net.Head.Size)
	target, mask   *G.Node
	targetT, maskT *tensor.Dense
	loss, out      *G.Node
}

// NewTrainer builds the training graph for topo starting from w (which is
// copied; use NewWeights for a fresh network). It installs the package BLAS
// in gorgonia (UseInGorgonia).
func NewTrainer(topo *net.Topology, w *net.Weights, tc TrainConfig) (*Trainer, error) {
	if err := topo.Validate(); err != nil {
		return nil, err
	}
	if err := w.Check(); err != nil {
		return nil, err
	}
	if err := tc.Validate(); err != nil {
		return nil, err
	}
	for _, a := range auxHeads {
		if wt := a.weight(&tc); wt > 0 && !hasHead(w.Config, a.name) {
			return nil, fmt.Errorf("net: train config: %s weight %g for a network without the %s head", a.label, wt, a.label)
		}
	}
	UseInGorgonia()
	graphMu.Lock()
	defer graphMu.Unlock()
	t := &Trainer{cfg: w.Config, tc: tc, topo: topo}
	if err := t.build(w); err != nil {
		return nil, fmt.Errorf("net: building training graph: %w", err)
	}
	return t, nil
}

func (t *Trainer) addParam(name string, rows, cols int, bias bool, w *net.Weights) *G.Node {
	total := rows
	if bias {
		total++
	}
	data := make([]float32, total*cols)
	copy(data, w.Tensor(name+".w").Data)
	if bias {
		copy(data[rows*cols:], w.Tensor(name+".b").Data)
	}
	val := tensor.New(tensor.WithShape(total, cols), tensor.WithBacking(data))
	n := G.NewMatrix(t.g, tensor.Float32, G.WithShape(total, cols), G.WithName(name), G.WithValue(val))
	t.params = append(t.params, &param{name: name, rows: rows, cols: cols, node: n, value: val,
		m: make([]float32, total*cols), v: make([]float32, total*cols), hasRow: bias})
	return n
}

func (t *Trainer) build(w *net.Weights) error {
	c := t.cfg
	P, B := t.topo.Points, t.tc.BatchSize
	R, C, I, H, A := B*P, c.Channels, c.InputPlanes, c.ValueHidden, game.PolicySize(P)
	t.g = G.NewGraph()
	g := t.g
	mat := func(name string, r, k int) (*G.Node, *tensor.Dense) {
		v := newMat(r, k)
		return G.NewMatrix(g, tensor.Float32, G.WithShape(r, k), G.WithName(name), G.WithValue(v)), v
	}
	t.x, t.xT = mat("input", R, I)
	t.tp, t.tpT = mat("target_policy", B, A)
	t.mask, t.maskT = mat("mask", B, A)
	t.tv, t.tvT = mat("target_value", B, 3)
	ones, onesT := mat("value_mask", B, 3)
	t.onesT = onesT
	for i := range onesT.Data().([]float32) {
		onesT.Data().([]float32)[i] = 1
	}

	var err error
	must := func(n *G.Node, e error) *G.Node {
		if e != nil && err == nil {
			err = e
		}
		return n
	}
	t.pool = &trainPool{}
	conv := func(in *G.Node, cin, cout int, wn *G.Node, relu, needDX bool) *G.Node {
		if err != nil {
			return nil
		}
		return must(G.ApplyOp(convOp{binaryOp{}, newConvSpec(t.topo, cin, cout, relu, needDX, t.pool), &bufCache{}}, in, wn))
	}
	stem := t.addParam("stem", 9*I, C, true, w)
	a := conv(t.x, I, C, stem, true, false)
	for b := 0; b < c.Blocks; b++ {
		p := fmt.Sprintf("block%d.", b)
		w1 := t.addParam(p+"conv1", 9*C, C, true, w)
		w2 := t.addParam(p+"conv2", 9*C, C, true, w)
		h := conv(a, C, C, w1, true, true)
		y := conv(h, C, C, w2, false, true)
		if err != nil {
			return err
		}
		a = must(G.ApplyOp(addReluOp{pairOp{cache: &bufCache{}}}, a, y))
	}
	wp := t.addParam("policy", 9*C, net.MovesPerPoint, true, w)
	ws := t.addParam("stop", C, 1, true, w)
	wv1 := t.addParam("value1", C, H, true, w)
	wv2 := t.addParam("value2", H, 3, true, w)
	if err != nil {
		return err
	}
	pl := must(G.Reshape(conv(a, C, net.MovesPerPoint, wp, false, true), tensor.Shape{B, P * net.MovesPerPoint}))
	pool := must(G.ApplyOp(poolOp{points: P, c: C, cache: &bufCache{}}, a))
	stop := must(G.Mul(pool, ws))
	t.logits = must(G.Concat(1, pl, stop))
	v1 := must(G.Rectify(must(G.Mul(pool, wv1))))
	t.vlog = must(G.Mul(must(G.ApplyOp(onesOp{k: H, cache: &bufCache{}}, v1)), wv2))
	if err != nil {
		return err
	}
	t.lp = must(G.ApplyOp(xentOp{scale: 1, st: &xentState{}}, t.logits, t.tp, t.mask))
	t.lv = must(G.ApplyOp(xentOp{scale: float32(t.tc.ValueWeight), st: &xentState{}}, t.vlog, t.tv, ones))
	cost := must(G.Add(t.lp, t.lv))
	for _, h := range c.Heads() {
		size := h.Size(P)
		hg := headGraph{auxHead: auxHeadNamed(h.Name), outputs: size}
		hg.target, hg.targetT = mat("target_"+h.Name, B, size)
		hg.mask, hg.maskT = mat(h.Name+"_mask", B, size)
		scale := hg.weight(&t.tc)
		if h.PerPoint {
			// The trunk's features at every point, a bias column, one
			// linear layer; the loss averages over the points.
			wo := t.addParam(h.Name, C, h.Outputs, true, w)
			y := must(G.Mul(must(G.ApplyOp(onesOp{k: C, cache: &bufCache{}}, a)), wo))
			if err != nil {
				return err
			}
			hg.out = must(G.Reshape(y, tensor.Shape{B, size}))
			scale /= float64(P)
		} else {
			w1 := t.addParam(h.Name+"1", C, H, true, w)
			w2 := t.addParam(h.Name+"2", H, h.Outputs, true, w)
			hid := must(G.Rectify(must(G.Mul(pool, w1))))
			hg.out = must(G.Mul(must(G.ApplyOp(onesOp{k: H, cache: &bufCache{}}, hid)), w2))
		}
		op := mseTanhOp{scale: float32(scale), outputs: size, st: &xentState{}}
		hg.loss = must(G.ApplyOp(op, hg.out, hg.target, hg.mask))
		cost = must(G.Add(cost, hg.loss))
		t.heads = append(t.heads, hg)
	}
	if err != nil {
		return err
	}
	nodes := make(G.Nodes, len(t.params))
	for i, p := range t.params {
		nodes[i] = p.node
	}
	if _, err := G.Grad(cost, nodes...); err != nil {
		return err
	}
	t.vm = G.NewTapeMachine(g, G.BindDualValues(nodes...))
	return nil
}

// Close releases the gorgonia machine.
func (t *Trainer) Close() error { return t.vm.Close() }

// Steps returns the number of steps taken.
func (t *Trainer) Steps() int { return t.step }

// Config returns the architecture being trained.
func (t *Trainer) Config() net.Config { return t.cfg }

func (t *Trainer) load(b Batch) error {
	P, A := t.topo.Points, game.PolicySize(t.topo.Points)
	n := t.tc.BatchSize
	switch {
	case b.N != n:
		return fmt.Errorf("net: train: batch has %d positions, trainer was built for %d", b.N, n)
	case len(b.Input) != n*P*t.cfg.InputPlanes:
		return fmt.Errorf("net: train: input has %d values, want %d", len(b.Input), n*P*t.cfg.InputPlanes)
	case b.Policy != nil && len(b.Policy) != n*A:
		return fmt.Errorf("net: train: policy target has %d values, want %d", len(b.Policy), n*A)
	case b.Mask != nil && len(b.Mask) != n*A:
		return fmt.Errorf("net: train: mask has %d values, want %d", len(b.Mask), n*A)
	case b.Value != nil && len(b.Value) != n*3:
		return fmt.Errorf("net: train: value target has %d values, want %d", len(b.Value), n*3)
	}
	for _, h := range t.heads {
		tg, mk := h.targets(&b)
		switch {
		case tg != nil && len(tg) != n*h.outputs, mk != nil && len(mk) != n*h.outputs:
			return fmt.Errorf("net: train: %s target and mask have %d and %d values, want %d", h.label, len(tg), len(mk), n*h.outputs)
		case (tg == nil) != (mk == nil):
			return fmt.Errorf("net: train: a %s target needs its mask, and a mask its target", h.label)
		}
	}
	copy(t.xT.Data().([]float32), b.Input)
	fill := func(dst *tensor.Dense, src []float32, def float32) {
		d := dst.Data().([]float32)
		if src == nil {
			for i := range d {
				d[i] = def
			}
			return
		}
		copy(d, src)
	}
	fill(t.tpT, b.Policy, 0)
	fill(t.maskT, b.Mask, 1)
	fill(t.tvT, b.Value, 0)
	type input struct {
		n *G.Node
		v *tensor.Dense
	}
	lets := []input{{t.x, t.xT}, {t.tp, t.tpT}, {t.mask, t.maskT}, {t.tv, t.tvT}}
	for _, h := range t.heads {
		tg, mk := h.targets(&b)
		fill(h.targetT, tg, 0)
		fill(h.maskT, mk, 0)
		lets = append(lets, input{h.target, h.targetT}, input{h.mask, h.maskT})
	}
	for _, p := range lets {
		if err := G.Let(p.n, p.v); err != nil {
			return err
		}
	}
	return nil
}

// Step runs one Adam step on b and returns the losses measured before the
// update.
func (t *Trainer) Step(b Batch) (Losses, error) {
	if err := t.load(b); err != nil {
		return Losses{}, err
	}
	defer t.vm.Reset()
	if err := t.vm.RunAll(); err != nil {
		return Losses{}, fmt.Errorf("net: train: %w", err)
	}
	lp, err := scalarValue(t.lp.Value())
	if err != nil {
		return Losses{}, err
	}
	lv, err := scalarValue(t.lv.Value())
	if err != nil {
		return Losses{}, err
	}
	if math.IsNaN(float64(lp)) || math.IsNaN(float64(lv)) || math.IsInf(float64(lp+lv), 0) {
		return Losses{}, fmt.Errorf("net: train: loss is not finite (policy %v, value %v)", lp, lv)
	}
	out := Losses{Policy: float64(lp), LearningRate: t.tc.LearningRateAt(t.step)}
	if t.tc.ValueWeight > 0 {
		out.Value = float64(lv) / t.tc.ValueWeight
	}
	out.Total = out.Policy + t.tc.ValueWeight*out.Value
	for _, h := range t.heads {
		wt := h.weight(&t.tc)
		if !(wt > 0) {
			continue
		}
		ls, err := scalarValue(h.loss.Value())
		if err != nil {
			return Losses{}, err
		}
		if math.IsNaN(float64(ls)) || math.IsInf(float64(ls), 0) {
			return Losses{}, fmt.Errorf("net: train: %s loss is not finite (%v)", h.label, ls)
		}
		l := h.auxHead.loss(&out)
		*l = float64(ls) / wt
		out.Total += wt * *l
	}
	l2, err := t.adam(out.LearningRate)
	if err != nil {
		return Losses{}, err
	}
	out.L2 = l2
	out.Total += out.L2
	return out, nil
}

// adam applies one Adam update with L2 decay folded into the gradient and
// returns the L2 penalty of the weights before the update.
func (t *Trainer) adam(lr float64) (float64, error) {
	t.step++
	b1, b2 := t.tc.Beta1, t.tc.Beta2
	c1 := 1 - math.Pow(b1, float64(t.step))
	c2 := 1 - math.Pow(b2, float64(t.step))
	step := float32(lr / c1)
	fb1, fb2 := float32(b1), float32(b2)
	wd := float32(t.tc.WeightDecay)
	eps := float32(t.tc.Epsilon)
	inv2 := float32(1 / math.Sqrt(c2))
	var l2 float64
	for _, p := range t.params {
		gv, err := p.node.Grad()
		if err != nil {
			return 0, fmt.Errorf("net: train: gradient of %s: %w", p.name, err)
		}
		gr, err := f32s(gv)
		if err != nil {
			return 0, err
		}
		w := p.value.Data().([]float32)
		if len(gr) != len(w) {
			return 0, fmt.Errorf("net: train: gradient of %s has %d values, want %d", p.name, len(gr), len(w))
		}
		var ss float64
		for i, wi := range w {
			ss += float64(wi) * float64(wi)
			gi := gr[i] + wd*wi
			// Weights and moments that underflow are flushed to zero
			// (see flushSubnormal): subnormals slow training and search.
			p.m[i] = kernel.FlushSubnormal(fb1*p.m[i] + (1-fb1)*gi)
			p.v[i] = kernel.FlushSubnormal(fb2*p.v[i] + (1-fb2)*gi*gi)
			w[i] = kernel.FlushSubnormal(wi - step*p.m[i]/(float32(math.Sqrt(float64(p.v[i])))*inv2+eps))
			gr[i] = 0
		}
		l2 += 0.5 * float64(wd) * ss
	}
	return l2, nil
}

// Weights returns a copy of the current weights.
func (t *Trainer) Weights() *net.Weights {
	return &net.Weights{Config: t.cfg, Tensors: t.exportTensors(stateWeights, "")}
}

// Per-parameter state selected by exportTensors and importTensors.
const (
	stateWeights = iota
	stateAdamM
	stateAdamV
)

func (p *param) state(which int) []float32 {
	switch which {
	case stateAdamM:
		return p.m
	case stateAdamV:
		return p.v
	}
	return p.value.Data().([]float32)
}

// exportTensors copies one kind of per-parameter state into tensors named
// and shaped as in TensorSpecs, with prefix prepended to the names.
func (t *Trainer) exportTensors(which int, prefix string) []net.Tensor {
	byName := map[string]*param{}
	for _, p := range t.params {
		byName[p.name] = p
	}
	var out []net.Tensor
	for _, s := range t.cfg.TensorSpecs() {
		base, isBias := s.Name[:len(s.Name)-2], s.Name[len(s.Name)-2:] == ".b"
		p := byName[base]
		d := p.state(which)
		var data []float32
		if isBias {
			data = append([]float32(nil), d[p.rows*p.cols:]...)
		} else {
			data = append([]float32(nil), d[:p.rows*p.cols]...)
		}
		out = append(out, net.Tensor{Name: prefix + s.Name, Shape: append([]int(nil), s.Shape...), Data: data})
	}
	return out
}

// importTensors is the inverse of exportTensors (without prefix); the
// tensors have been checked against TensorSpecs.
func (t *Trainer) importTensors(which int, ts []net.Tensor) {
	byName := map[string]*param{}
	for _, p := range t.params {
		byName[p.name] = p
	}
	for _, tt := range ts {
		base, isBias := tt.Name[:len(tt.Name)-2], tt.Name[len(tt.Name)-2:] == ".b"
		p := byName[base]
		d := p.state(which)
		if isBias {
			copy(d[p.rows*p.cols:], tt.Data)
		} else {
			copy(d[:p.rows*p.cols], tt.Data)
		}
	}
}

// forwardGraph runs the gorgonia graph on input (BatchSize positions) and
// returns the policy logits, the value logits and the outputs of every
// auxiliary head before the tanh, in the order of net.Config.Heads (for
// tests).
func (t *Trainer) forwardGraph(input []float32) (policy, value []float32, heads [][]float32, err error) {
	n := t.tc.BatchSize
	if err := t.load(Batch{N: n, Input: input}); err != nil {
		return nil, nil, nil, err
	}
	defer t.vm.Reset()
	if err := t.vm.RunAll(); err != nil {
		return nil, nil, nil, err
	}
	pl, err := f32s(t.logits.Value())
	if err != nil {
		return nil, nil, nil, err
	}
	vl, err := f32s(t.vlog.Value())
	if err != nil {
		return nil, nil, nil, err
	}
	for _, h := range t.heads {
		hl, err := f32s(h.out.Value())
		if err != nil {
			return nil, nil, nil, err
		}
		heads = append(heads, append([]float32(nil), hl...))
	}
	for _, p := range t.params {
		if gv, err := p.node.Grad(); err == nil {
			if gr, err := f32s(gv); err == nil {
				clear(gr)
			}
		}
	}
	return append([]float32(nil), pl...), append([]float32(nil), vl...), heads, nil
}
