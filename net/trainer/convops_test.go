package trainer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/internal/kernel"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// convGrads builds a residual block on n positions of topo, either with the
// fused ops (convOp, addReluOp) or with plain gorgonia (gatherOp, Mul,
// Rectify, Add), and returns the gradients of sum(out ⊙ proj) with respect
// to the input and both weight matrices, plus the output.
func convGrads(t *testing.T, topo *net.Topology, fused bool, n, c int, xs, w1s, w2s, proj []float32) (out []float32, grads [3][]float32) {
	t.Helper()
	R := n * topo.Points
	graphMu.Lock()
	g := G.NewGraph()
	mat := func(name string, r, k int, data []float32) *G.Node {
		v := tensor.New(tensor.WithShape(r, k), tensor.WithBacking(append([]float32(nil), data...)))
		return G.NewMatrix(g, tensor.Float32, G.WithShape(r, k), G.WithName(name), G.WithValue(v))
	}
	x := mat("x", R, c, xs)
	w1 := mat("w1", 9*c+1, c, w1s)
	w2 := mat("w2", 9*c+1, c, w2s)
	p := mat("proj", R, c, proj)
	var y *G.Node
	if fused {
		pool := &trainPool{}
		h := G.Must(G.ApplyOp(convOp{binaryOp{}, newConvSpec(topo, c, c, true, true, pool), &bufCache{}}, x, w1))
		z := G.Must(G.ApplyOp(convOp{binaryOp{}, newConvSpec(topo, c, c, false, true, pool), &bufCache{}}, h, w2))
		y = G.Must(G.ApplyOp(addReluOp{pairOp{cache: &bufCache{}}}, x, z))
	} else {
		spec := newGatherSpec(topo, c, true)
		h := G.Must(G.Rectify(G.Must(G.Mul(G.Must(G.ApplyOp(gatherOp{pureOp{}, spec, nil}, x)), w1))))
		z := G.Must(G.Mul(G.Must(G.ApplyOp(gatherOp{pureOp{}, spec, nil}, h)), w2))
		y = G.Must(G.Rectify(G.Must(G.Add(x, z))))
	}
	cost := G.Must(G.Sum(G.Must(G.HadamardProd(y, p))))
	_, err := G.Grad(cost, x, w1, w2)
	graphMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(g, G.BindDualValues(x, w1, w2))
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	out = append([]float32(nil), y.Value().Data().([]float32)...)
	for i, nd := range []*G.Node{x, w1, w2} {
		gv, err := nd.Grad()
		if err != nil {
			t.Fatal(err)
		}
		grads[i] = append([]float32(nil), gv.Data().([]float32)...)
	}
	return out, grads
}

// TestConvOpsMatchGorgonia checks the fused graph-convolution ops and their
// gradients against the plain gorgonia construction (whose gather gradient
// TestGatherGradientFiniteDifference checks against finite differences),
// on a board with an invertible gather and on one without (the scatter
// fallback), with one and two threads, which must agree bit for bit.
func TestConvOpsMatchGorgonia(t *testing.T) {
	// A 3-point graph where two points read the same neighbour in the
	// same direction, so that the gather has no inverse.
	odd := &net.Topology{Points: 3, Neighbors: [][8]int32{
		{2, -1, 1, -1, -1, -1, -1, -1},
		{2, -1, -1, -1, -1, -1, 0, -1},
		{-1, -1, -1, -1, 0, -1, -1, -1},
	}}
	if reverseGather(odd.GatherTable(), odd.Points) != nil {
		t.Fatal("test topology has an invertible gather")
	}
	if reverseGather(largeBoard().GatherTable(), 72) == nil || reverseGather(smallBoard().GatherTable(), 41) == nil {
		t.Fatal("board gathers are not invertible")
	}
	defer net.SetGemmThreads(kernel.Threads())
	for _, tc := range []struct {
		name string
		topo *net.Topology
		n, c int
	}{{"large", largeBoard(), 9, 16}, {"small", smallBoard(), 13, 5}, {"no inverse", odd, 7, 16}} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(6, 6))
			R, c := tc.n*tc.topo.Points, tc.c
			normal := func(n int, s float64) []float32 {
				v := make([]float32, n)
				for i := range v {
					v[i] = float32(r.NormFloat64() * s)
				}
				return v
			}
			xs, proj := normal(R*c, 1), normal(R*c, 1)
			w1, w2 := normal((9*c+1)*c, 0.3), normal((9*c+1)*c, 0.3)
			wantOut, want := convGrads(t, tc.topo, false, tc.n, c, xs, w1, w2, proj)
			var first [3][]float32
			for _, threads := range []int{1, 2} {
				net.SetGemmThreads(threads)
				out, got := convGrads(t, tc.topo, true, tc.n, c, xs, w1, w2, proj)
				worst := 0.0
				for i := range out {
					worst = math.Max(worst, math.Abs(float64(out[i]-wantOut[i])))
				}
				if worst > 1e-4 {
					t.Fatalf("threads=%d: output differs by %g", threads, worst)
				}
				for k, name := range []string{"input", "w1", "w2"} {
					scale, d := 0.0, 0.0
					for i := range got[k] {
						scale = math.Max(scale, math.Abs(float64(want[k][i])))
						d = math.Max(d, math.Abs(float64(got[k][i]-want[k][i])))
					}
					t.Logf("threads=%d: gradient of %s: max |fused - gorgonia| = %.2g (scale %.2g)", threads, name, d, scale)
					if d > 1e-4*math.Max(1, scale) {
						t.Fatalf("threads=%d: gradient of %s differs by %g", threads, name, d)
					}
					if threads == 1 {
						first[k] = got[k]
						continue
					}
					for i := range got[k] {
						if math.Float32bits(got[k][i]) != math.Float32bits(first[k][i]) {
							t.Fatalf("gradient of %s depends on the thread count", name)
						}
					}
				}
			}
		})
	}
}
