package net

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/net/internal/nettest"
)

func TestForwardErrors(t *testing.T) {
	topo := smallBoard()
	cfg := Config{Blocks: 1, Channels: 8, InputPlanes: 3, ValueHidden: 4}
	e, err := NewEvaluator(topo, perturbed(cfg, 1, 1))
	if err != nil {
		t.Fatal(err)
	}
	ws := e.NewWorkspace(4, 1)
	r := rand.New(rand.NewPCG(1, 1))
	in := nettest.RandomInputs(r, 2*e.InputSize())
	_, wdl, err := ws.Forward(in, 2)
	if err != nil {
		t.Fatal(err)
	}
	for q := 0; q < 2; q++ {
		if s := float64(wdl[q*3] + wdl[q*3+1] + wdl[q*3+2]); math.Abs(s-1) > 1e-5 {
			t.Fatalf("win/draw/loss probabilities sum to %v", s)
		}
	}
	for _, c := range []struct {
		name  string
		in    []float32
		batch int
	}{{"batch 0", in, 0}, {"batch too big", in, 5}, {"short input", in[:10], 2}} {
		if _, _, err := ws.Forward(c.in, c.batch); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	bad := perturbed(cfg, 1, 1)
	bad.Tensors[0].Data = bad.Tensors[0].Data[:5]
	if _, err := NewEvaluator(topo, bad); err == nil {
		t.Error("truncated tensor accepted")
	}
}

func TestSoftmax(t *testing.T) {
	logits := []float32{1, 2, 3, float32(math.Log(2)) + 3, -100}
	for _, tc := range []struct {
		name string
		idx  []int32
		want []float64
	}{
		{"all", nil, nil},
		{"one", []int32{4}, []float64{1}},
		{"two", []int32{2, 3}, []float64{1.0 / 3, 2.0 / 3}},
		{"reordered", []int32{3, 2}, []float64{2.0 / 3, 1.0 / 3}},
		{"none", []int32{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := make([]float32, len(logits))
			for i := range dst {
				dst[i] = -1
			}
			Softmax(dst, logits, tc.idx)
			n := len(tc.idx)
			if tc.idx == nil {
				n = len(logits)
			}
			var sum float64
			for k := 0; k < n; k++ {
				sum += float64(dst[k])
			}
			if n > 0 && math.Abs(sum-1) > 1e-6 {
				t.Errorf("probabilities sum to %v: %v", sum, dst)
			}
			if tc.idx != nil {
				for k, w := range tc.want {
					if math.Abs(float64(dst[k])-w) > 1e-6 {
						t.Errorf("dst[%d] = %v, want %v", k, dst[k], w)
					}
				}
			}
			for k := n; k < len(dst); k++ {
				if dst[k] != -1 {
					t.Errorf("dst[%d] = %v written beyond the %d indices", k, dst[k], n)
				}
			}
		})
	}
	// The full softmax equals the one at every index.
	all := make([]float32, len(logits))
	Softmax(all, logits, nil)
	at := make([]float32, len(logits))
	Softmax(at, logits, []int32{0, 1, 2, 3, 4})
	for i := range all {
		if math.Abs(float64(all[i]-at[i])) > 1e-7 {
			t.Errorf("softmax of all: [%d] = %v, at every index %v", i, all[i], at[i])
		}
	}
}

func TestForwardAllocationFree(t *testing.T) {
	topo := largeBoard()
	e, err := NewEvaluator(topo, perturbed(Config{Blocks: 2, Channels: 32, InputPlanes: 6, ValueHidden: 16}, 2, 1))
	if err != nil {
		t.Fatal(err)
	}
	in := nettest.RandomInputs(rand.New(rand.NewPCG(2, 2)), 16*e.InputSize())
	mask := make([]float32, 16*e.PolicySize())
	for i := range mask {
		mask[i] = 1
	}
	for _, threads := range []int{1, 2} {
		ws := e.NewWorkspace(16, threads)
		ws.Forward(in, 16)
		allocs := testing.AllocsPerRun(20, func() {
			if _, _, err := ws.Forward(in, 16); err != nil {
				t.Fatal(err)
			}
		})
		ws.Close()
		if allocs != 0 {
			t.Errorf("threads=%d: %v allocations per Forward", threads, allocs)
		}
	}
}

// perturbed returns weights of cfg with every tensor filled with random
// values (nettest.Perturb).
func perturbed(cfg Config, seed uint64, scale float64) *Weights {
	w, err := NewWeights(cfg, seed)
	if err != nil {
		panic(err)
	}
	nettest.Perturb(w.Tensors, seed, scale)
	return w
}

// TestGrow: a network grows the heads and blocks it lacks, with the fresh
// weights of NewWeights and its own everywhere else, computes exactly what
// it did before, and refuses to change its width or lose a head or block.
func TestGrow(t *testing.T) {
	base := Config{Blocks: 1, Channels: 8, InputPlanes: 42, ValueHidden: 8}
	w := perturbed(base, 3, 0.5)
	for _, grow := range []Config{
		{Blocks: 1, Channels: 8, InputPlanes: 42, ValueHidden: 8, OwnershipHead: true},
		{Blocks: 1, Channels: 8, InputPlanes: 42, ValueHidden: 8, ScoreHead: true, ShortTermHeads: 2},
		{Blocks: 3, Channels: 8, InputPlanes: 42, ValueHidden: 8},
		{Blocks: 2, Channels: 8, InputPlanes: 42, ValueHidden: 8, OwnershipHead: true},
	} {
		g, err := w.Grow(grow, 9)
		if err != nil {
			t.Fatalf("%+v: %v", grow, err)
		}
		if g.Config != grow {
			t.Errorf("grown config %+v, want %+v", g.Config, grow)
		}
		fresh, _ := NewWeights(grow, 9)
		for _, tn := range g.Tensors {
			want := w.Tensor(tn.Name)
			if want == nil {
				want = fresh.Tensor(tn.Name)
			}
			if !slices.Equal(tn.Data, want.Data) {
				t.Errorf("%+v: tensor %s is neither the network's nor fresh", grow, tn.Name)
			}
		}
		if len(g.Tensors) <= len(w.Tensors) {
			t.Errorf("%+v: %d tensors, no more than the %d it had", grow, len(g.Tensors), len(w.Tensors))
		}
		// The policy and value of the grown network are the network's own.
		topo := largeBoard()
		r := rand.New(rand.NewPCG(4, 4))
		in := nettest.RandomInputs(r, 4*topo.Points*42)
		var outs [2][2][]float32
		for i, weights := range []*Weights{w, g} {
			e, err := NewEvaluator(topo, weights)
			if err != nil {
				t.Fatal(err)
			}
			ws := e.NewWorkspace(4, 1)
			pol, wdl, err := ws.Forward(in, 4)
			if err != nil {
				t.Fatal(err)
			}
			outs[i] = [2][]float32{slices.Clone(pol), slices.Clone(wdl)}
			ws.Close()
		}
		for k, name := range []string{"policy", "value"} {
			if !slices.Equal(outs[0][k], outs[1][k]) {
				t.Errorf("%+v: the grown network's %s differs from the network's", grow, name)
			}
		}
	}
	withOwn, _ := w.Grow(Config{Blocks: 1, Channels: 8, InputPlanes: 42, ValueHidden: 8, OwnershipHead: true}, 9)
	deeper, _ := w.Grow(Config{Blocks: 2, Channels: 8, InputPlanes: 42, ValueHidden: 8}, 9)
	for _, tc := range []struct {
		from *Weights
		to   Config
		want string
	}{
		{w, Config{Blocks: 1, Channels: 16, InputPlanes: 42, ValueHidden: 8}, "only heads and blocks can be added"},
		{w, Config{Blocks: 1, Channels: 8, InputPlanes: 42, ValueHidden: 8, TacticalPlanes: true}, "only heads and blocks can be added"},
		{withOwn, base, "cannot lose a head"},
		{deeper, base, "cannot lose blocks: it has 2, not 1"},
	} {
		if _, err := tc.from.Grow(tc.to, 9); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v to %+v: %v, want an error with %q", tc.from.Config, tc.to, err, tc.want)
		}
	}
}
