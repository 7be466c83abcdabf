package net

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dablot-zero/dablot/net/safetensors"
)

// Config is the network architecture.
type Config struct {
	Blocks      int `json:"blocks"`       // residual blocks (two graph-conv layers each)
	Channels    int `json:"channels"`     // feature width C of the trunk
	InputPlanes int `json:"input_planes"` // input features per point
	ValueHidden int `json:"value_hidden"` // hidden width of the value head (and of the auxiliary heads)
	// ScoreHead adds a score head beside the value head: from the pooled
	// features, a hidden layer of ValueHidden units and one tanh output,
	// the side to move's future material lead, squashed to [-1, 1]
	// (KataGo's score head). Absent in the model files of networks without
	// it, which read and play as before.
	ScoreHead bool `json:"score_head,omitempty"`
	// ShortTermHeads is the number of outputs of the short-term value
	// head (0: none): from the pooled features, a hidden layer of
	// ValueHidden units and ShortTermHeads tanh outputs, each an
	// exponentially weighted average of the search's future root values at
	// one horizon (KataGo's short-term value targets). A training aid: the
	// search does not use them. Absent in the model files of networks
	// without them, which read and play as before.
	ShortTermHeads int `json:"short_term_heads,omitempty"`
	// OwnershipHead adds an ownership head: at every point, one linear
	// layer of the trunk's features and a tanh, who holds the point at the
	// end of the game from the side to move's view (+1 its own piece, -1
	// an enemy piece, 0 empty; KataGo's ownership). A training aid: the
	// search does not use it. Absent in the model files of networks
	// without it, which read and play as before.
	OwnershipHead bool `json:"ownership_head,omitempty"`
	// TacticalPlanes says that the input holds the tactical planes after
	// the base planes (the capture facts of the position, package
	// net/encode, encoding version 2); InputPlanes counts both. The
	// network itself sees only InputPlanes. Absent in the model files of
	// networks without them, which read and play as before; a program
	// that does not know the field refuses the file.
	TacticalPlanes bool `json:"tactical_planes,omitempty"`
}

// MaxShortTermHeads bounds Config.ShortTermHeads.
const MaxShortTermHeads = 8

// Head is an auxiliary head of a network: from the pooled features, a
// hidden layer of ValueHidden ReLU units (tensors Name+"1.w", Name+"1.b")
// and Outputs tanh outputs (Name+"2.w", Name+"2.b"); or, PerPoint, at
// every point one linear layer of the trunk's features (tensors Name+".w",
// Name+".b") and Outputs tanh outputs.
type Head struct {
	Name     string
	Outputs  int
	PerPoint bool
}

// Size returns the number of outputs of the head for one position on a
// board of points points: Outputs, or Outputs at every point.
func (h Head) Size(points int) int {
	if h.PerPoint {
		return h.Outputs * points
	}
	return h.Outputs
}

// outputWeights is the name of the tensor of the weights of the head's
// outputs, which start small.
func (h Head) outputWeights() string {
	if h.PerPoint {
		return h.Name + ".w"
	}
	return h.Name + "2.w"
}

// The names of the auxiliary heads (Head.Name).
const (
	ScoreHeadName     = "score"
	ShortTermHeadName = "short_term"
	OwnershipHeadName = "ownership"
)

// Heads returns the auxiliary heads of the architecture, in the order of
// their tensors.
func (c Config) Heads() []Head {
	var hs []Head
	if c.ScoreHead {
		hs = append(hs, Head{ScoreHeadName, 1, false})
	}
	if c.ShortTermHeads > 0 {
		hs = append(hs, Head{ShortTermHeadName, c.ShortTermHeads, false})
	}
	if c.OwnershipHead {
		hs = append(hs, Head{OwnershipHeadName, 1, true})
	}
	return hs
}

// DefaultConfig is the proposed default architecture for inputPlanes input
// features per point: 4 blocks of 32 channels, 11.6 MFLOP per position on
// the 72-point board (8 planes). Measured on the 2-core development machine
// (GOEXPERIMENT=simd): ~6,000 positions/s inference at batch 64 while
// another job used about one core; training at batch 256 does 1,100 to
// 1,700 positions per CPU-second depending on the load of the machine
// (BenchmarkTraining's pos/CPU-s), so ~2,000 positions/s needs both cores.
func DefaultConfig(inputPlanes int) Config {
	return Config{Blocks: 4, Channels: 32, InputPlanes: inputPlanes, ValueHidden: 64}
}

// MaxWeightBytes bounds the weights of a network (4 bytes a parameter), so
// that its model file, and the trainer checkpoint with its two Adam moments
// besides, stay within what a machine reads back (MaxModelBytes,
// MaxCheckpointBytes).
const MaxWeightBytes = 1 << 30

// WeightBytes is the size of the network's weights: 4 bytes a parameter.
func (c Config) WeightBytes() int64 {
	var n int64
	for _, s := range c.TensorSpecs() {
		n += int64(numel(s.Shape))
	}
	return 4 * n
}

// Validate rejects sizes that cannot build a network (or absurd ones), and
// networks whose weights take more than MaxWeightBytes.
func (c Config) Validate() error {
	switch {
	case c.Blocks < 0 || c.Blocks > 256:
		return fmt.Errorf("net: config: blocks %d out of range 0..256", c.Blocks)
	case c.Channels < 1 || c.Channels > 4096:
		return fmt.Errorf("net: config: channels %d out of range 1..4096", c.Channels)
	case c.InputPlanes < 1 || c.InputPlanes > 4096:
		return fmt.Errorf("net: config: input planes %d out of range 1..4096", c.InputPlanes)
	case c.ValueHidden < 1 || c.ValueHidden > 4096:
		return fmt.Errorf("net: config: value hidden %d out of range 1..4096", c.ValueHidden)
	case c.ShortTermHeads < 0 || c.ShortTermHeads > MaxShortTermHeads:
		return fmt.Errorf("net: config: short-term heads %d out of range 0..%d", c.ShortTermHeads, MaxShortTermHeads)
	}
	if n := c.WeightBytes(); n > MaxWeightBytes {
		return fmt.Errorf("net: config: %d blocks of %d channels take %.1f GiB of weights, more than a model file may hold (%d GiB)",
			c.Blocks, c.Channels, float64(n)/(1<<30), MaxWeightBytes>>30)
	}
	return nil
}

// FLOPsPerPosition counts the multiply-adds (x2) of one forward pass on a
// board of points points: the graph convolutions, the pooled heads and the
// gather-sums, i.e. the network arithmetic the benchmarks report.
func (c Config) FLOPsPerPosition(points int) float64 {
	conv := func(cin, cout int) float64 { return 2 * float64(points) * 9 * float64(cin) * float64(cout) }
	f := conv(c.InputPlanes, c.Channels)
	f += float64(2*c.Blocks) * conv(c.Channels, c.Channels)
	f += conv(c.Channels, MovesPerPoint)
	f += 2 * float64(c.Channels) * float64(1+c.ValueHidden)
	f += 2 * float64(c.ValueHidden) * 3
	for _, h := range c.Heads() {
		if h.PerPoint {
			f += 2 * float64(points) * float64(c.Channels) * float64(h.Outputs)
			continue
		}
		f += 2 * float64(c.Channels) * float64(c.ValueHidden)
		f += 2 * float64(c.ValueHidden) * float64(h.Outputs)
	}
	return f
}

// Tensor is one named float32 array of the model.
type Tensor = safetensors.Tensor

// Weights are the parameters of a network in a fixed order (see
// TensorSpecs). Graph-convolution weights have shape [9*Cin, Cout]: row
// slot*Cin+c multiplies channel c of the point itself (slot 0) or of its
// neighbour in direction slot-1.
type Weights struct {
	Config  Config
	Tensors []Tensor
}

// TensorSpec is the name and shape of one parameter tensor.
type TensorSpec struct {
	Name  string
	Shape []int
}

// TensorSpecs lists every parameter tensor of the architecture, in order.
func (c Config) TensorSpecs() []TensorSpec {
	C, I, H := c.Channels, c.InputPlanes, c.ValueHidden
	s := []TensorSpec{{"stem.w", []int{9 * I, C}}, {"stem.b", []int{C}}}
	for i := 0; i < c.Blocks; i++ {
		p := fmt.Sprintf("block%d.", i)
		s = append(s,
			TensorSpec{p + "conv1.w", []int{9 * C, C}}, TensorSpec{p + "conv1.b", []int{C}},
			TensorSpec{p + "conv2.w", []int{9 * C, C}}, TensorSpec{p + "conv2.b", []int{C}})
	}
	s = append(s,
		TensorSpec{"policy.w", []int{9 * C, MovesPerPoint}}, TensorSpec{"policy.b", []int{MovesPerPoint}},
		TensorSpec{"stop.w", []int{C, 1}}, TensorSpec{"stop.b", []int{1}},
		TensorSpec{"value1.w", []int{C, H}}, TensorSpec{"value1.b", []int{H}},
		TensorSpec{"value2.w", []int{H, 3}}, TensorSpec{"value2.b", []int{3}})
	for _, h := range c.Heads() {
		if h.PerPoint {
			s = append(s, TensorSpec{h.Name + ".w", []int{C, h.Outputs}}, TensorSpec{h.Name + ".b", []int{h.Outputs}})
			continue
		}
		s = append(s,
			TensorSpec{h.Name + "1.w", []int{C, H}}, TensorSpec{h.Name + "1.b", []int{H}},
			TensorSpec{h.Name + "2.w", []int{H, h.Outputs}}, TensorSpec{h.Name + "2.b", []int{h.Outputs}})
	}
	return s
}

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// NewWeights initialises a network: He-normal weights, the first layer of
// each residual block scaled by 1/sqrt(Blocks) and the second set to zero
// (Fixup-style, so every block starts as the identity and training is
// stable without batch normalisation), small policy weights, zero biases.
func NewWeights(c Config, seed uint64) (*Weights, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	small := map[string]bool{"policy.w": true, "stop.w": true, "value2.w": true}
	for _, h := range c.Heads() {
		small[h.outputWeights()] = true
	}
	w := &Weights{Config: c}
	for _, s := range c.TensorSpecs() {
		t := Tensor{Name: s.Name, Shape: append([]int(nil), s.Shape...), Data: make([]float32, numel(s.Shape))}
		if len(s.Shape) == 2 {
			fanIn := s.Shape[0]
			std := math.Sqrt(2 / float64(fanIn))
			switch {
			case hasSuffix(s.Name, "conv1.w"):
				std /= math.Sqrt(float64(max(1, c.Blocks)))
			case hasSuffix(s.Name, "conv2.w"):
				std = 0
			case small[s.Name]:
				std = 0.1 / math.Sqrt(float64(fanIn))
			}
			for i := range t.Data {
				t.Data[i] = float32(r.NormFloat64() * std)
			}
		}
		w.Tensors = append(w.Tensors, t)
	}
	return w, nil
}

func hasSuffix(s, suf string) bool { return len(s) >= len(suf) && s[len(s)-len(suf):] == suf }

// Tensor returns the named tensor or nil.
func (w *Weights) Tensor(name string) *Tensor {
	for i := range w.Tensors {
		if w.Tensors[i].Name == name {
			return &w.Tensors[i]
		}
	}
	return nil
}

// Check verifies that w holds exactly the tensors of its Config with the
// right shapes and sizes, and only finite values.
func (w *Weights) Check() error {
	if w == nil {
		return fmt.Errorf("net: nil weights")
	}
	if err := w.Config.Validate(); err != nil {
		return err
	}
	specs := w.Config.TensorSpecs()
	if len(w.Tensors) != len(specs) {
		return fmt.Errorf("net: weights have %d tensors, architecture needs %d", len(w.Tensors), len(specs))
	}
	for _, s := range specs {
		t := w.Tensor(s.Name)
		if t == nil {
			return fmt.Errorf("net: missing tensor %q", s.Name)
		}
		if !slices.Equal(t.Shape, s.Shape) {
			return fmt.Errorf("net: tensor %q has shape %v, want %v", s.Name, t.Shape, s.Shape)
		}
		if len(t.Data) != numel(s.Shape) {
			return fmt.Errorf("net: tensor %q has %d values, want %d", s.Name, len(t.Data), numel(s.Shape))
		}
		if err := checkFinite(s.Name, t.Data); err != nil {
			return fmt.Errorf("net: %w", err)
		}
	}
	return nil
}

// Clone returns a deep copy.
func (w *Weights) Clone() *Weights {
	c := &Weights{Config: w.Config, Tensors: make([]Tensor, len(w.Tensors))}
	for i, t := range w.Tensors {
		c.Tensors[i] = Tensor{Name: t.Name, Shape: append([]int(nil), t.Shape...), Data: append([]float32(nil), t.Data...)}
	}
	return c
}

// Grow returns w grown to the architecture c, which may differ from w's
// by auxiliary heads that w lacks (score, short-term and ownership heads)
// and by more residual blocks, appended after w's own. The added tensors
// get the fresh weights of NewWeights(c, seed), and every other tensor is
// a copy of w's. A fresh block's second layer is zero, so it starts as
// the identity (x ↦ relu(x + 0) = x, its input being a ReLU's output),
// and the grown network computes exactly what w did: a warm start then
// trains heads and depth its model did not have, on the model's trunk.
func (w *Weights) Grow(c Config, seed uint64) (*Weights, error) {
	has := w.Config
	trunk := c
	trunk.Blocks = has.Blocks
	trunk.ScoreHead, trunk.ShortTermHeads, trunk.OwnershipHead = has.ScoreHead, has.ShortTermHeads, has.OwnershipHead
	switch {
	case trunk != has:
		return nil, fmt.Errorf("net: only heads and blocks can be added to a network: its channels, value head and input planes (%+v) differ from %+v", has, c)
	case c.Blocks < has.Blocks:
		return nil, fmt.Errorf("net: a network cannot lose blocks: it has %d, not %d", has.Blocks, c.Blocks)
	case has.ScoreHead && !c.ScoreHead, has.OwnershipHead && !c.OwnershipHead,
		has.ShortTermHeads > 0 && has.ShortTermHeads != c.ShortTermHeads:
		return nil, fmt.Errorf("net: a network cannot lose a head: it has %+v, not %+v", has, c)
	}
	grown, err := NewWeights(c, seed)
	if err != nil {
		return nil, err
	}
	for i := range grown.Tensors {
		t := &grown.Tensors[i]
		if old := w.Tensor(t.Name); old != nil {
			t.Data = append(t.Data[:0], old.Data...)
		}
	}
	return grown, grown.Check()
}
