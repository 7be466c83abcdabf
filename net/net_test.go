package net

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// perturbed returns weights with every tensor (including the zero-initialised
// ones) filled with random values, so that tests exercise every path.
func perturbed(cfg Config, seed uint64, scale float64) *Weights {
	w, err := NewWeights(cfg, seed)
	if err != nil {
		panic(err)
	}
	r := rand.New(rand.NewPCG(seed, 7))
	for _, t := range w.Tensors {
		std := scale / math.Sqrt(float64(t.Shape[0]))
		for i := range t.Data {
			t.Data[i] = float32(r.NormFloat64() * std)
		}
	}
	return w
}

func randomInputs(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		if r.IntN(3) == 0 {
			x[i] = 1
		}
	}
	return x
}

func TestEvaluatorMatchesGorgonia(t *testing.T) {
	for _, tc := range []struct {
		name string
		topo *Topology
		cfg  Config
		n    int
	}{
		{"small", smallBoard(), Config{Blocks: 2, Channels: 8, InputPlanes: 5, ValueHidden: 8}, 3},
		{"large", largeBoard(), Config{Blocks: 1, Channels: 40, InputPlanes: 7, ValueHidden: 16}, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := perturbed(tc.cfg, 5, 1.5)
			tc2 := DefaultTrainConfig()
			tc2.BatchSize = tc.n
			tr, err := NewTrainer(tc.topo, w, tc2)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			e, err := NewEvaluator(tc.topo, w)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(9, 9))
			in := randomInputs(r, tc.n*e.InputSize())
			gp, gv, err := tr.forwardGraph(in)
			if err != nil {
				t.Fatal(err)
			}
			for _, threads := range []int{1, 2} {
				ws := e.NewWorkspace(tc.n, threads)
				pol, wdl, err := ws.Forward(in, tc.n)
				if err != nil {
					t.Fatal(err)
				}
				maxDiff := 0.0
				for i := range pol {
					maxDiff = math.Max(maxDiff, math.Abs(float64(pol[i]-gp[i])))
				}
				for q := 0; q < tc.n; q++ {
					want := make([]float32, 3)
					softmaxInto(want, gv[q*3:q*3+3], nil)
					for k := 0; k < 3; k++ {
						maxDiff = math.Max(maxDiff, math.Abs(float64(wdl[q*3+k]-want[k])))
					}
				}
				t.Logf("threads=%d max |evaluator - gorgonia| = %.2g", threads, maxDiff)
				if maxDiff > 1e-4 {
					t.Fatalf("evaluator differs from gorgonia by %g", maxDiff)
				}
				ws.Close()
			}
		})
	}
}

func TestForwardMaskedAndErrors(t *testing.T) {
	topo := smallBoard()
	cfg := Config{Blocks: 1, Channels: 8, InputPlanes: 3, ValueHidden: 4}
	e, err := NewEvaluator(topo, perturbed(cfg, 1, 1))
	if err != nil {
		t.Fatal(err)
	}
	ws := e.NewWorkspace(4, 1)
	r := rand.New(rand.NewPCG(1, 1))
	in := randomInputs(r, 2*e.InputSize())
	mask := make([]float32, 2*e.PolicySize())
	for i := range mask {
		if r.IntN(5) == 0 {
			mask[i] = 1
		}
	}
	pol, wdl, err := ws.ForwardMasked(in, mask, 2)
	if err != nil {
		t.Fatal(err)
	}
	for q := 0; q < 2; q++ {
		var s float64
		for i, v := range pol[q*e.PolicySize() : (q+1)*e.PolicySize()] {
			if mask[q*e.PolicySize()+i] == 0 && v != 0 {
				t.Fatal("illegal move has probability")
			}
			s += float64(v)
		}
		if math.Abs(s-1) > 1e-5 || math.Abs(float64(wdl[q*3]+wdl[q*3+1]+wdl[q*3+2])-1) > 1e-5 {
			t.Fatalf("probabilities do not sum to 1: %v", s)
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
	if _, _, err := ws.ForwardMasked(in, mask[:3], 2); err == nil {
		t.Error("short mask: no error")
	}
	bad := perturbed(cfg, 1, 1)
	bad.Tensors[0].Data = bad.Tensors[0].Data[:5]
	if _, err := NewEvaluator(topo, bad); err == nil {
		t.Error("truncated tensor accepted")
	}
}

func TestForwardAllocationFree(t *testing.T) {
	topo := largeBoard()
	e, err := NewEvaluator(topo, perturbed(Config{Blocks: 2, Channels: 32, InputPlanes: 6, ValueHidden: 16}, 2, 1))
	if err != nil {
		t.Fatal(err)
	}
	in := randomInputs(rand.New(rand.NewPCG(2, 2)), 16*e.InputSize())
	mask := make([]float32, 16*e.PolicySize())
	for i := range mask {
		mask[i] = 1
	}
	for _, threads := range []int{1, 2} {
		ws := e.NewWorkspace(16, threads)
		ws.Forward(in, 16)
		allocs := testing.AllocsPerRun(20, func() {
			if _, _, err := ws.ForwardMasked(in, mask, 16); err != nil {
				t.Fatal(err)
			}
		})
		ws.Close()
		if allocs != 0 {
			t.Errorf("threads=%d: %v allocations per Forward", threads, allocs)
		}
	}
}

func TestGatherGradientFiniteDifference(t *testing.T) {
	topo := smallBoard()
	const C, cout, n = 3, 2, 2
	R := n * topo.Points
	r := rand.New(rand.NewPCG(4, 4))
	xs := make([]float32, R*C)
	for i := range xs {
		xs[i] = float32(r.NormFloat64())
	}
	ws := make([]float32, (9*C+1)*cout)
	for i := range ws {
		ws[i] = float32(r.NormFloat64() * 0.3)
	}
	spec := newGatherSpec(topo, C, true)
	// loss(x) = sum((gather(x)·W)^2) / 2, computed in float64 for the
	// finite differences.
	loss := func(x []float32) float64 {
		gx := make([]float32, R*spec.width())
		spec.gatherForward(x, gx, R)
		var s float64
		for row := 0; row < R; row++ {
			for o := 0; o < cout; o++ {
				var y float64
				for k := 0; k < spec.width(); k++ {
					y += float64(gx[row*spec.width()+k]) * float64(ws[k*cout+o])
				}
				s += y * y / 2
			}
		}
		return s
	}

	graphMu.Lock()
	g := G.NewGraph()
	xT := tensor.New(tensor.WithShape(R, C), tensor.WithBacking(append([]float32(nil), xs...)))
	x := G.NewMatrix(g, tensor.Float32, G.WithShape(R, C), G.WithName("x"), G.WithValue(xT))
	wn := G.NewMatrix(g, tensor.Float32, G.WithShape(9*C+1, cout), G.WithName("w"),
		G.WithValue(tensor.New(tensor.WithShape(9*C+1, cout), tensor.WithBacking(ws))))
	gx := G.Must(G.ApplyOp(gatherOp{pureOp{}, spec, nil}, x))
	y := G.Must(G.Mul(gx, wn))
	cost := G.Must(G.Div(G.Must(G.Sum(G.Must(G.Square(y)))), G.NewConstant(float32(2))))
	_, err := G.Grad(cost, x)
	graphMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(g, G.BindDualValues(x))
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	gv, err := x.Grad()
	if err != nil {
		t.Fatal(err)
	}
	grad := gv.Data().([]float32)
	const h = 1e-2
	worst := 0.0
	for i := range xs {
		xp := append([]float32(nil), xs...)
		xm := append([]float32(nil), xs...)
		xp[i] += h
		xm[i] -= h
		fd := (loss(xp) - loss(xm)) / (2 * h)
		d := math.Abs(fd-float64(grad[i])) / math.Max(1, math.Abs(fd))
		worst = math.Max(worst, d)
	}
	t.Logf("max relative error of the gather gradient: %.2g", worst)
	if worst > 2e-3 {
		t.Fatalf("gather gradient differs from finite differences by %g", worst)
	}
	// The backward pass is the exact adjoint: <G x, y> = <x, G^T y>.
	yv := make([]float32, R*spec.width())
	for i := range yv {
		yv[i] = float32(r.NormFloat64())
	}
	gxv := make([]float32, R*spec.width())
	spec.gatherForward(xs, gxv, R)
	gty := make([]float32, R*C)
	spec.gatherBackward(yv, gty, R)
	var lhs, rhs float64
	for i := range gxv {
		if i%spec.width() != 9*C { // skip the constant column
			lhs += float64(gxv[i]) * float64(yv[i])
		}
	}
	for i := range xs {
		rhs += float64(xs[i]) * float64(gty[i])
	}
	if math.Abs(lhs-rhs) > 1e-3*math.Max(1, math.Abs(lhs)) {
		t.Fatalf("adjoint mismatch %v vs %v", lhs, rhs)
	}
}
