package trainer

import (
	"crypto/sha256"
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/internal/kernel"
)

// The plain gorgonia form of the neighbour gather, the reference against
// which the tests check the fused convolution ops and the gather's
// gradient.

// gatherSpec is a kernel.Gather with the key that names it in a graph.
type gatherSpec struct {
	kernel.Gather
	key string
}

func newGatherSpec(topo *net.Topology, c int, appendOne bool) gatherSpec {
	h := sha256.Sum256([]byte(topo.Hash()))
	return gatherSpec{Gather: kernel.Gather{Tab: topo.GatherTable(), Points: topo.Points, C: c, AppendOne: appendOne},
		key: fmt.Sprintf("%x/%d/%d/%v", h[:8], topo.Points, c, appendOne)}
}

// gatherOp is the differentiable neighbour gather: [rows, C] -> [rows, 9C(+1)].
type gatherOp struct {
	pureOp
	gatherSpec
	cache *bufCache
}

func (op gatherOp) Arity() int     { return 1 }
func (op gatherOp) Type() hm.Type  { return hm.NewFnType(matType(), matType()) }
func (op gatherOp) String() string { return "dablotGather(" + op.key + ")" }
func (op gatherOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapeOf(in[0])
	if err != nil {
		return nil, err
	}
	if s[1] != op.C || s[0]%op.Points != 0 {
		return nil, fmt.Errorf("net: gather: input shape %v, want [k*%d, %d]", s, op.Points, op.C)
	}
	return tensor.Shape{s[0], op.Width()}, nil
}
func (op gatherOp) Do(in ...G.Value) (G.Value, error) {
	x, err := f32s(in[0])
	if err != nil {
		return nil, err
	}
	rows := in[0].Shape()[0]
	out, o := op.cache.get(rows, op.Width(), false)
	op.Forward(x, o, rows)
	return out, nil
}
func (op gatherOp) WriteHash(h hash.Hash)     { h.Write([]byte(op.String())) }
func (op gatherOp) Hashcode() uint32          { return opHash(op) }
func (op gatherOp) DiffWRT(inputs int) []bool { return []bool{true} }
func (op gatherOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	dx, err := G.ApplyOp(gatherBackOp{pureOp{}, op.gatherSpec, &bufCache{}}, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx}, nil
}

// gatherBackOp is the scatter-add adjoint of gatherOp: [rows, 9C(+1)] -> [rows, C].
type gatherBackOp struct {
	pureOp
	gatherSpec
	cache *bufCache
}

func (op gatherBackOp) Arity() int     { return 1 }
func (op gatherBackOp) Type() hm.Type  { return hm.NewFnType(matType(), matType()) }
func (op gatherBackOp) String() string { return "dablotGatherBack(" + op.key + ")" }
func (op gatherBackOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapeOf(in[0])
	if err != nil {
		return nil, err
	}
	if s[1] != op.Width() {
		return nil, fmt.Errorf("net: gather backward: input shape %v, want [rows, %d]", s, op.Width())
	}
	return tensor.Shape{s[0], op.C}, nil
}
func (op gatherBackOp) Do(in ...G.Value) (G.Value, error) {
	g, err := f32s(in[0])
	if err != nil {
		return nil, err
	}
	rows := in[0].Shape()[0]
	out, o := op.cache.get(rows, op.C, true)
	op.Backward(g, o, rows)
	return out, nil
}
func (op gatherBackOp) WriteHash(h hash.Hash)     { h.Write([]byte(op.String())) }
func (op gatherBackOp) Hashcode() uint32          { return opHash(op) }
func (op gatherBackOp) DiffWRT(inputs int) []bool { return []bool{false} }
func (op gatherBackOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("net: gather backward is not differentiable")
}
