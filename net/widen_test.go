package net

import (
	"math"
	"slices"
	"testing"
)

// TestWiden: a network widened by Net2WiderNet computes what it did, up to
// rounding without noise and nearly with WidenNoise; the copies of a
// channel differ from it once there is noise; Grow widens and deepens at
// once; and the same seed widens the same way.
func TestWiden(t *testing.T) {
	base := Config{Blocks: 2, Channels: 8, InputPlanes: 42, ValueHidden: 8, ScoreHead: true, OwnershipHead: true}
	w := perturbed(base, 5, 0.5)
	before := forwardOf(t, w, 4)
	for _, tc := range []struct {
		channels int
		noise    float64
		tol      float64
	}{
		{9, 0, 1e-4},
		{16, 0, 1e-4},
		{13, WidenNoise, 0.05},
	} {
		wide, err := w.widen(tc.channels, 7, tc.noise)
		if err != nil {
			t.Fatalf("%d channels: %v", tc.channels, err)
		}
		if wide.Config.Channels != tc.channels || wide.Config.Blocks != base.Blocks {
			t.Errorf("%d channels: config %+v", tc.channels, wide.Config)
		}
		after := forwardOf(t, wide, 4)
		for k, name := range []string{"policy", "value"} {
			if d := maxAbsDiff(before[k], after[k]); d > tc.tol {
				t.Errorf("%d channels, noise %g: the %s moved by %g, more than %g", tc.channels, tc.noise, name, d, tc.tol)
			}
		}
		// A copied channel's incoming weights (the stem's column) are its
		// source's, exactly without noise and not with it.
		stem, from := wide.Tensor("stem.w"), w.Tensor("stem.w")
		copies := 0
		for j := base.Channels; j < tc.channels; j++ {
			for s := range base.Channels {
				if slices.Equal(column(stem, j), column(from, s)) {
					copies++
				}
			}
		}
		if want := map[bool]int{true: tc.channels - base.Channels, false: 0}[tc.noise == 0]; copies != want {
			t.Errorf("%d channels, noise %g: %d added stem columns equal one of the network's, want %d", tc.channels, tc.noise, copies, want)
		}
	}
	a, _ := w.widen(12, 3, WidenNoise)
	b, _ := w.widen(12, 3, WidenNoise)
	c, _ := w.widen(12, 4, WidenNoise)
	if !slices.Equal(a.Tensor("block1.conv2.w").Data, b.Tensor("block1.conv2.w").Data) {
		t.Error("the same seed widened two ways")
	}
	if slices.Equal(a.Tensor("block1.conv2.w").Data, c.Tensor("block1.conv2.w").Data) {
		t.Error("two seeds widened the same way")
	}

	grow := base
	grow.Channels, grow.Blocks = 12, 3
	g, err := w.Grow(grow, 9)
	if err != nil {
		t.Fatal(err)
	}
	if g.Config != grow {
		t.Errorf("grown config %+v, want %+v", g.Config, grow)
	}
	after := forwardOf(t, g, 4)
	if d := maxAbsDiff(before[1], after[1]); d > 0.05 {
		t.Errorf("wider and deeper: the value moved by %g", d)
	}
	if _, err := w.widen(8, 1, 0); err == nil {
		t.Error("widened to its own width")
	}
}

// column returns column j of a 2-D tensor.
func column(t *Tensor, j int) []float32 {
	col := make([]float32, t.Shape[0])
	for i := range col {
		col[i] = t.Data[i*t.Shape[1]+j]
	}
	return col
}

func maxAbsDiff(a, b []float32) float64 {
	var d float64
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}
