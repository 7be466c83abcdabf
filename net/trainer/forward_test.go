package trainer

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/encode"
	"github.com/dablot-zero/dablot/net/internal/nettest"
)

func largeBoard() *net.Topology { return net.GridBoard(6, 7) }
func smallBoard() *net.Topology { return net.GridBoard(5, 5) }

// perturbed returns weights of cfg with every tensor filled with random
// values (nettest.Perturb).
func perturbed(cfg net.Config, seed uint64, scale float64) *net.Weights {
	w, err := net.NewWeights(cfg, seed)
	if err != nil {
		panic(err)
	}
	nettest.Perturb(w.Tensors, seed, scale)
	return w
}

// tacticalDablot returns the encoder of dablot with the tactical planes,
// and its board's topology.
func tacticalDablot() (*encode.Encoder, *net.Topology) {
	e := encode.New(configs.MustVariant("dablot"), encode.Options{Tactical: true})
	return e, &net.Topology{Points: e.Points(), Neighbors: e.Neighbors()}
}

// encodedInputs returns the inputs of n positions of a seeded random game
// of e's variant, one every third decision (chains included).
func encodedInputs(e *encode.Encoder, n int) []float32 {
	in := make([]float32, n*e.InputSize())
	rng := rand.New(rand.NewPCG(3, 3))
	p := e.Rules().Start()
	for i := 0; i < n; {
		ds := p.Decisions(nil)
		if len(ds) == 0 {
			p = e.Rules().Start()
			continue
		}
		if rng.IntN(3) == 0 {
			e.Encode(&p, in[i*e.InputSize():(i+1)*e.InputSize()])
			i++
		}
		p.Apply(ds[rng.IntN(len(ds))])
	}
	return in
}

func TestEvaluatorMatchesGorgonia(t *testing.T) {
	tactical, dablotTopo := tacticalDablot()
	for _, tc := range []struct {
		name string
		topo *net.Topology
		cfg  net.Config
		n    int
		enc  *encode.Encoder // if not nil, the inputs are its encodings of positions, else random
	}{
		{"small", smallBoard(), net.Config{Blocks: 2, Channels: 8, InputPlanes: 5, ValueHidden: 8}, 3, nil},
		{"large", largeBoard(), net.Config{Blocks: 1, Channels: 40, InputPlanes: 7, ValueHidden: 16}, 9, nil},
		{"score head", smallBoard(), net.Config{Blocks: 1, Channels: 8, InputPlanes: 5, ValueHidden: 8, ScoreHead: true}, 4, nil},
		{"short-term heads", smallBoard(), net.Config{Blocks: 1, Channels: 8, InputPlanes: 5, ValueHidden: 8, ShortTermHeads: 3}, 4, nil},
		{"both", largeBoard(), net.Config{Blocks: 1, Channels: 8, InputPlanes: 5, ValueHidden: 8, ScoreHead: true, ShortTermHeads: 2}, 3, nil},
		{"ownership head", smallBoard(), net.Config{Blocks: 2, Channels: 8, InputPlanes: 5, ValueHidden: 8, OwnershipHead: true}, 4, nil},
		{"all heads", dablotTopo, net.Config{Blocks: 1, Channels: 8, InputPlanes: tactical.Planes(), ValueHidden: 8,
			ScoreHead: true, ShortTermHeads: 2, OwnershipHead: true, TacticalPlanes: true}, 5, tactical},
		{"tactical planes", dablotTopo, net.Config{Blocks: 2, Channels: 8, InputPlanes: tactical.Planes(), ValueHidden: 8, TacticalPlanes: true}, 6, tactical},
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
			e, err := net.NewEvaluator(tc.topo, w)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(9, 9))
			in := nettest.RandomInputs(r, tc.n*e.InputSize())
			if tc.enc != nil {
				in = encodedInputs(tc.enc, tc.n)
			}
			gp, gv, gh, err := tr.forwardGraph(in)
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
					net.Softmax(want, gv[q*3:q*3+3], nil)
					for k := 0; k < 3; k++ {
						maxDiff = math.Max(maxDiff, math.Abs(float64(wdl[q*3+k]-want[k])))
					}
				}
				heads := tc.cfg.Heads()
				if len(gh) != len(heads) {
					t.Fatalf("gorgonia gives %d auxiliary heads, want %d", len(gh), len(heads))
				}
				if tc.cfg.ScoreHead != (ws.Score() != nil) {
					t.Fatalf("score head %v, evaluator's scores %v", tc.cfg.ScoreHead, ws.Score())
				}
				for i, h := range heads {
					out := ws.HeadOutputs(h.Name)
					if size := tc.n * h.Size(tc.topo.Points); len(out) != size || len(gh[i]) != len(out) {
						t.Fatalf("head %s: evaluator gives %d outputs, gorgonia %d, want %d", h.Name, len(out), len(gh[i]), size)
					}
					spread := 0.0
					for q := range out {
						maxDiff = math.Max(maxDiff, math.Abs(float64(out[q])-math.Tanh(float64(gh[i][q]))))
						spread = math.Max(spread, math.Abs(float64(out[q]-out[0])))
					}
					if spread < 1e-3 {
						t.Fatalf("head %s gives the same output %v for different inputs: %v", h.Name, out[0], out)
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
		gx := make([]float32, R*spec.Width())
		spec.Forward(x, gx, R)
		var s float64
		for row := 0; row < R; row++ {
			for o := 0; o < cout; o++ {
				var y float64
				for k := 0; k < spec.Width(); k++ {
					y += float64(gx[row*spec.Width()+k]) * float64(ws[k*cout+o])
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
	yv := make([]float32, R*spec.Width())
	for i := range yv {
		yv[i] = float32(r.NormFloat64())
	}
	gxv := make([]float32, R*spec.Width())
	spec.Forward(xs, gxv, R)
	gty := make([]float32, R*C)
	spec.Backward(yv, gty, R)
	var lhs, rhs float64
	for i := range gxv {
		if i%spec.Width() != 9*C { // skip the constant column
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
