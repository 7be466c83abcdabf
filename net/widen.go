package net

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// WidenNoise is the noise the copies of a widened network's channels get
// on their incoming weights, as a share of the root mean square of each
// tensor they come from. Without it the copies of a channel would get
// the same updates from Adam (its step is the same for gradients that
// differ only in scale) and stay copies for good.
const WidenNoise = 0.01

// widen returns w with channels trunk channels, more than w's own, by
// Net2WiderNet (Chen, Goodfellow and Shlens 2016): every added channel
// is a copy of one of w's, chosen at random from the seed, and every layer
// that reads the trunk (or a block's hidden layer, which widens the same
// way) shares a channel's weights out among the channel and its copies in
// random proportions that add up to one. The copies' incoming weights
// get noise of noise times each tensor's root mean square, so with noise
// 0 the widened network computes what w did (up to rounding), and with
// a small noise nearly so.
func (w *Weights) widen(channels int, seed uint64, noise float64) (*Weights, error) {
	old := w.Config
	if channels <= old.Channels {
		return nil, fmt.Errorf("net: widen to %d channels: the network has %d", channels, old.Channels)
	}
	c := old
	c.Channels = channels
	if err := c.Validate(); err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, seed^0x5bd1e995))
	src, share := widenMap(old.Channels, channels, r)
	wide := &Weights{Config: c}
	for _, s := range c.TensorSpecs() {
		o := w.Tensor(s.Name)
		if o == nil {
			return nil, fmt.Errorf("net: widen: missing tensor %q", s.Name)
		}
		t := Tensor{Name: s.Name, Shape: append([]int(nil), s.Shape...), Data: make([]float32, numel(s.Shape))}
		widenTensor(t, *o, old.Channels, src, share, noise, r)
		wide.Tensors = append(wide.Tensors, t)
	}
	return wide, wide.Check()
}

// widenMap chooses the channel each of n channels copies (each of the
// first from channels is itself) and the share of its source's outgoing weights
// each one takes: random in proportion, adding up to one over a source's
// copies.
func widenMap(from, n int, r *rand.Rand) (src []int, share []float64) {
	src, share = make([]int, n), make([]float64, n)
	sum := make([]float64, from)
	for j := range n {
		src[j] = j
		if j >= from {
			src[j] = r.IntN(from)
		}
		share[j] = 0.5 + r.Float64()
		sum[src[j]] += share[j]
	}
	for j := range n {
		share[j] /= sum[src[j]]
	}
	return src, share
}

// widenTensor fills t, a tensor of the widened network, from o, the same
// tensor of the network of from channels. A 2-D tensor whose rows grew
// reads the trunk (rows slot*C + c, one slot or nine): each row is its
// source channel's, times the channel's share. One whose columns grew
// writes the trunk: each column is its source's, with noise for a copy; a
// bias that grew is its source's.
func widenTensor(t, o Tensor, from int, src []int, share []float64, noise float64, r *rand.Rand) {
	if len(t.Shape) == 1 {
		if t.Shape[0] == o.Shape[0] {
			copy(t.Data, o.Data)
			return
		}
		for j := range t.Data {
			t.Data[j] = o.Data[src[j]]
		}
		return
	}
	rows, cols, oCols := t.Shape[0], t.Shape[1], o.Shape[1]
	readsTrunk, writesTrunk := rows != o.Shape[0], cols != oCols
	to := len(src)
	std := noise * rms(o.Data)
	for i := range rows {
		oi, scale := i, float32(1)
		if readsTrunk {
			slot, j := i/to, i%to
			oi, scale = slot*from+src[j], float32(share[j])
		}
		for k := range cols {
			ok := k
			if writesTrunk {
				ok = src[k]
			}
			v := o.Data[oi*oCols+ok] * scale
			if writesTrunk && k >= from && std > 0 {
				v += float32(r.NormFloat64() * std)
			}
			t.Data[i*cols+k] = v
		}
	}
}

// rms is the root mean square of v.
func rms(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s / float64(max(1, len(v))))
}
