// Package modeltest provides small models, positions and evaluations for
// the tests of packages that use net/model, as net/http/httptest does for
// net/http.
package modeltest

import (
	"math/rand/v2"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/encode"
	"github.com/dablot-zero/dablot/net/model"
)

// TinyNet is a small architecture that keeps tests fast.
var TinyNet = net.Config{Blocks: 1, Channels: 8, ValueHidden: 8}

// NewModel returns a TinyNet model of the variant spec (a name with
// optional overrides, as configs.Variant reads it) whose weights are small
// pseudo-random values drawn from seed, so that its outputs are not
// trivially uniform.
func NewModel(t testing.TB, spec string, seed uint64) *model.Model {
	t.Helper()
	return NewModelOf(t, spec, TinyNet, seed)
}

// NewModelOf is NewModel with the architecture cfg (such as TinyNet with a
// score head).
func NewModelOf(t testing.TB, spec string, cfg net.Config, seed uint64) *model.Model {
	t.Helper()
	r, err := configs.Variant(spec)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := model.NewNetwork(r, cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	randomise(fresh.Weights, seed)
	m, err := model.NewModel(fresh.Rules, fresh.Weights, fresh.Training)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// randomise gives every weight a small pseudo-random value.
func randomise(w *net.Weights, seed uint64) {
	x := seed*0x9e3779b97f4a7c15 + 1
	for _, t := range w.Tensors {
		for i := range t.Data {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			t.Data[i] = (float32(x%2001)/1000 - 1) * 0.3
		}
	}
}

// NewRand returns a generator seeded with seed.
func NewRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

// RandomPositions plays random games of r and returns n positions along
// them (including positions inside capture chains when there are any).
func RandomPositions(r *game.Rules, n int, seed uint64) []game.Position {
	var out []game.Position
	var scratch game.MoveScratch
	rng := NewRand(seed)
	for len(out) < n {
		p := r.Start()
		for !p.Status().Over() && len(out) < n {
			if rng.IntN(3) == 0 {
				out = append(out, p)
			}
			d, _ := p.RandomDecision(rng, &scratch)
			p.Apply(d)
		}
	}
	return out
}

// EvalAll evaluates positions ps with m's network in one batch and returns
// the requests with their priors, values and WDL filled in.
func EvalAll(t testing.TB, m *model.Model, ps []game.Position) []mcts.Request {
	t.Helper()
	ev := m.NewEvaluator(len(ps), 1)
	defer ev.Close()
	return Evaluate(t, ev, ps)
}

// Evaluate evaluates positions ps with ev in one batch and returns the
// requests with their priors, values and WDL filled in.
func Evaluate(t testing.TB, ev mcts.Evaluator, ps []game.Position) []mcts.Request {
	t.Helper()
	reqs := make([]mcts.Request, len(ps))
	for i, p := range ps {
		reqs[i].Pos = p
		reqs[i].Legal = p.Decisions(nil)
		reqs[i].Priors = make([]float32, len(reqs[i].Legal))
	}
	if err := ev.Evaluate(reqs); err != nil {
		t.Fatal(err)
	}
	return reqs
}

// Occupancy returns the occupancy of every point of x, the input of a
// position by the encoder e, point by point in the input's order: its own
// piece planes (the first three: soldier, prince, king) minus its enemy
// piece planes (the next three), 1, -1 or 0, as the ownership target counts
// the pieces of a game's end (encode.Encoder.Ownership).
func Occupancy(e *encode.Encoder, x []float32) []int8 {
	out := make([]int8, e.Points())
	for q := range out {
		for k := range 3 {
			out[q] += int8(x[q*e.Planes()+k] - x[q*e.Planes()+3+k])
		}
	}
	return out
}
