package net

import (
	"crypto/sha256"
	"fmt"
	"hash"
	"hash/fnv"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// This file holds the custom gorgonia operations of the training graph:
// the neighbour gather (forward gather, backward scatter-add), the mean
// pool, a bias column and the masked softmax cross-entropy.

func matType() G.TensorType { return G.TensorType{Dims: 2, Of: hm.TypeVariable('a')} }

// pureOp gives the gorgonia Op methods that are the same for every op of
// this package: the result is a new value, computed in Go, and no input is
// overwritten.
type pureOp struct{}

func (pureOp) ReturnsPtr() bool     { return false }
func (pureOp) CallsExtern() bool    { return false }
func (pureOp) OverwritesInput() int { return -1 }

func opHash(op fmt.Stringer) uint32 {
	h := fnv.New32a()
	h.Write([]byte(op.String()))
	return h.Sum32()
}

func f32s(v G.Value) ([]float32, error) {
	d, ok := v.Data().([]float32)
	if !ok {
		return nil, fmt.Errorf("net: op expects float32 data, got %T", v.Data())
	}
	return d, nil
}

func scalarValue(v G.Value) (float32, error) {
	switch s := v.(type) {
	case *G.F32:
		return float32(*s), nil
	case tensor.Tensor:
		switch d := s.Data().(type) {
		case float32:
			return d, nil
		case []float32:
			if len(d) == 1 {
				return d[0], nil
			}
		}
	}
	return 0, fmt.Errorf("net: expected a float32 scalar, got %T", v)
}

func newMat(rows, cols int) *tensor.Dense {
	return tensor.New(tensor.WithShape(rows, cols), tensor.WithBacking(make([]float32, rows*cols)))
}

// bufCache lets one graph node reuse its output tensor from step to step
// (the training graph runs the same shapes every step), which spares the
// allocator and the garbage collector tens of megabytes per step.
type bufCache struct{ t *tensor.Dense }

// get returns a rows×cols tensor, zeroed if zero is set.
func (c *bufCache) get(rows, cols int, zero bool) (*tensor.Dense, []float32) {
	if c == nil {
		t := newMat(rows, cols)
		return t, t.Data().([]float32)
	}
	if c.t == nil || c.t.Shape()[0] != rows || c.t.Shape()[1] != cols {
		c.t = newMat(rows, cols)
		return c.t, c.t.Data().([]float32)
	}
	d := c.t.Data().([]float32)
	if zero {
		clear(d)
	}
	return c.t, d
}

func shapeOf(ds G.DimSizer) (tensor.Shape, error) {
	s, ok := ds.(tensor.Shape)
	if !ok || len(s) != 2 {
		return nil, fmt.Errorf("net: op expects a matrix shape, got %v", ds)
	}
	return s, nil
}

// gatherSpec describes the neighbour gather over rows laid out
// [position][point] with C channels.
type gatherSpec struct {
	tab       []int32 // [points*9]
	points    int
	c         int
	appendOne bool // add a constant-1 column (the bias input of the next matmul)
	key       string
}

func newGatherSpec(topo *Topology, c int, appendOne bool) gatherSpec {
	h := sha256.Sum256([]byte(topo.Hash()))
	return gatherSpec{tab: topo.gatherTable(), points: topo.Points, c: c, appendOne: appendOne,
		key: fmt.Sprintf("%x/%d/%d/%v", h[:8], topo.Points, c, appendOne)}
}

func (s gatherSpec) width() int {
	if s.appendOne {
		return 9*s.c + 1
	}
	return 9 * s.c
}

// gatherForward writes out[r] = [x[src(r,0)], ..., x[src(r,8)], (1)] for
// the rows of whole positions (rows is a multiple of points).
func (s gatherSpec) gatherForward(x, out []float32, rows int) {
	P, C, W := s.points, s.c, s.width()
	for base := 0; base+P <= rows; base += P {
		xb := x[base*C : (base+P)*C]
		ob := out[base*W : (base+P)*W]
		for p := 0; p < P; p++ {
			o := ob[p*W : (p+1)*W]
			gatherRow(o[:9*C], xb, s.tab[p*9:p*9+9], C)
			if s.appendOne {
				o[9*C] = 1
			}
		}
	}
}

// gatherBackward accumulates dx[src(r,k)] += dout[r][k] (the adjoint of
// gatherForward); dx must be zeroed by the caller.
func (s gatherSpec) gatherBackward(dout, dx []float32, rows int) {
	P, C, W := s.points, s.c, s.width()
	for r := 0; r < rows; r++ {
		base := r - r%P
		g := dout[r*W : (r+1)*W]
		for k, src := range s.tab[(r%P)*9 : (r%P)*9+9] {
			if src >= 0 {
				vecAdd(dx[(base+int(src))*C:(base+int(src)+1)*C], g[k*C:(k+1)*C])
			}
		}
	}
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
	if s[1] != op.c || s[0]%op.points != 0 {
		return nil, fmt.Errorf("net: gather: input shape %v, want [k*%d, %d]", s, op.points, op.c)
	}
	return tensor.Shape{s[0], op.width()}, nil
}
func (op gatherOp) Do(in ...G.Value) (G.Value, error) {
	x, err := f32s(in[0])
	if err != nil {
		return nil, err
	}
	rows := in[0].Shape()[0]
	out, o := op.cache.get(rows, op.width(), false)
	op.gatherForward(x, o, rows)
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
	if s[1] != op.width() {
		return nil, fmt.Errorf("net: gather backward: input shape %v, want [rows, %d]", s, op.width())
	}
	return tensor.Shape{s[0], op.c}, nil
}
func (op gatherBackOp) Do(in ...G.Value) (G.Value, error) {
	g, err := f32s(in[0])
	if err != nil {
		return nil, err
	}
	rows := in[0].Shape()[0]
	out, o := op.cache.get(rows, op.c, true)
	op.gatherBackward(g, o, rows)
	return out, nil
}
func (op gatherBackOp) WriteHash(h hash.Hash)     { h.Write([]byte(op.String())) }
func (op gatherBackOp) Hashcode() uint32          { return opHash(op) }
func (op gatherBackOp) DiffWRT(inputs int) []bool { return []bool{false} }
func (op gatherBackOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("net: gather backward is not differentiable")
}

// poolOp averages the points of every position and appends a 1 column:
// [positions*points, C] -> [positions, C+1].
type poolOp struct {
	pureOp
	points, c int
	cache     *bufCache
}

func (op poolOp) Arity() int     { return 1 }
func (op poolOp) Type() hm.Type  { return hm.NewFnType(matType(), matType()) }
func (op poolOp) String() string { return fmt.Sprintf("dablotPool(%d,%d)", op.points, op.c) }
func (op poolOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapeOf(in[0])
	if err != nil {
		return nil, err
	}
	if s[1] != op.c || s[0]%op.points != 0 {
		return nil, fmt.Errorf("net: pool: input shape %v, want [k*%d, %d]", s, op.points, op.c)
	}
	return tensor.Shape{s[0] / op.points, op.c + 1}, nil
}
func (op poolOp) Do(in ...G.Value) (G.Value, error) {
	x, err := f32s(in[0])
	if err != nil {
		return nil, err
	}
	n := in[0].Shape()[0] / op.points
	out, o := op.cache.get(n, op.c+1, true)
	inv := 1 / float32(op.points)
	for q := 0; q < n; q++ {
		row := o[q*(op.c+1) : (q+1)*(op.c+1)]
		for p := 0; p < op.points; p++ {
			vecAdd(row[:op.c], x[(q*op.points+p)*op.c:(q*op.points+p+1)*op.c])
		}
		for c := 0; c < op.c; c++ {
			row[c] *= inv
		}
		row[op.c] = 1
	}
	return out, nil
}
func (op poolOp) WriteHash(h hash.Hash)     { h.Write([]byte(op.String())) }
func (op poolOp) Hashcode() uint32          { return opHash(op) }
func (op poolOp) DiffWRT(inputs int) []bool { return []bool{true} }
func (op poolOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	dx, err := G.ApplyOp(poolBackOp{points: op.points, c: op.c, cache: &bufCache{}}, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx}, nil
}

// poolBackOp spreads the pooled gradient back over the points.
type poolBackOp poolOp

func (op poolBackOp) Arity() int     { return 1 }
func (op poolBackOp) Type() hm.Type  { return hm.NewFnType(matType(), matType()) }
func (op poolBackOp) String() string { return fmt.Sprintf("dablotPoolBack(%d,%d)", op.points, op.c) }
func (op poolBackOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapeOf(in[0])
	if err != nil {
		return nil, err
	}
	return tensor.Shape{s[0] * op.points, op.c}, nil
}
func (op poolBackOp) Do(in ...G.Value) (G.Value, error) {
	g, err := f32s(in[0])
	if err != nil {
		return nil, err
	}
	n := in[0].Shape()[0]
	out, o := op.cache.get(n*op.points, op.c, false)
	inv := 1 / float32(op.points)
	for q := 0; q < n; q++ {
		for p := 0; p < op.points; p++ {
			row := o[(q*op.points+p)*op.c : (q*op.points+p+1)*op.c]
			for c := range row {
				row[c] = g[q*(op.c+1)+c] * inv
			}
		}
	}
	return out, nil
}
func (op poolBackOp) WriteHash(h hash.Hash)     { h.Write([]byte(op.String())) }
func (op poolBackOp) Hashcode() uint32          { return opHash(op) }
func (op poolBackOp) DiffWRT(inputs int) []bool { return []bool{false} }
func (op poolBackOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("net: pool backward is not differentiable")
}

// onesOp appends a constant-1 column: [n, k] -> [n, k+1]. Its backward
// (back = true) drops the last column.
type onesOp struct {
	pureOp
	k     int
	back  bool
	cache *bufCache
}

func (op onesOp) Arity() int     { return 1 }
func (op onesOp) Type() hm.Type  { return hm.NewFnType(matType(), matType()) }
func (op onesOp) String() string { return fmt.Sprintf("dablotOnes(%d,%v)", op.k, op.back) }
func (op onesOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapeOf(in[0])
	if err != nil {
		return nil, err
	}
	if op.back {
		return tensor.Shape{s[0], op.k}, nil
	}
	return tensor.Shape{s[0], op.k + 1}, nil
}
func (op onesOp) Do(in ...G.Value) (G.Value, error) {
	x, err := f32s(in[0])
	if err != nil {
		return nil, err
	}
	n := in[0].Shape()[0]
	if op.back {
		out, o := op.cache.get(n, op.k, false)
		for r := 0; r < n; r++ {
			copy(o[r*op.k:(r+1)*op.k], x[r*(op.k+1):r*(op.k+1)+op.k])
		}
		return out, nil
	}
	out, o := op.cache.get(n, op.k+1, false)
	for r := 0; r < n; r++ {
		copy(o[r*(op.k+1):], x[r*op.k:(r+1)*op.k])
		o[r*(op.k+1)+op.k] = 1
	}
	return out, nil
}
func (op onesOp) WriteHash(h hash.Hash)     { h.Write([]byte(op.String())) }
func (op onesOp) Hashcode() uint32          { return opHash(op) }
func (op onesOp) DiffWRT(inputs int) []bool { return []bool{!op.back} }
func (op onesOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if op.back {
		return nil, fmt.Errorf("net: ones backward is not differentiable")
	}
	dx, err := G.ApplyOp(onesOp{k: op.k, back: true, cache: &bufCache{}}, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx}, nil
}

// xentOp is the masked softmax cross-entropy, averaged over rows and scaled:
// inputs logits, target, mask ([n, a] each) -> scalar
// scale/n * sum_rows -sum_{legal a} target[a] * log softmax_legal(logits)[a].
// Entries with mask 0 are left out of the softmax and of the sum.
//
// With st set, the forward pass also stores the gradient of the loss with
// respect to the logits, which the gradient op (sharing st) then only
// scales: the softmax is computed once per step.
type xentOp struct {
	pureOp
	scale float32
	grad  bool // the gradient op: inputs logits, target, mask, dLoss -> dLogits
	cache *bufCache
	st    *xentState
}

// xentState carries dLoss/dLogits from the forward op to the gradient op.
type xentState struct {
	grad  []float32
	valid bool
}

func (op xentOp) Arity() int {
	if op.grad {
		return 4
	}
	return 3
}
func (op xentOp) Type() hm.Type {
	t := matType()
	if op.grad {
		return hm.NewFnType(t, t, t, hm.TypeVariable('a'), t)
	}
	return hm.NewFnType(t, t, t, hm.TypeVariable('a'))
}
func (op xentOp) String() string { return fmt.Sprintf("dablotXent(%v,%v)", op.scale, op.grad) }
func (op xentOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapeOf(in[0])
	if err != nil {
		return nil, err
	}
	if op.grad {
		return s.Clone(), nil
	}
	return tensor.ScalarShape(), nil
}
func (op xentOp) Do(in ...G.Value) (G.Value, error) {
	z, err := f32s(in[0])
	if err != nil {
		return nil, err
	}
	t, err := f32s(in[1])
	if err != nil {
		return nil, err
	}
	m, err := f32s(in[2])
	if err != nil {
		return nil, err
	}
	n, a := in[0].Shape()[0], in[0].Shape()[1]
	if len(t) != n*a || len(m) != n*a {
		return nil, fmt.Errorf("net: xent: target/mask sizes %d/%d, want %d", len(t), len(m), n*a)
	}
	scale := op.scale / float32(n)
	if op.grad {
		dl, err := scalarValue(in[3])
		if err != nil {
			return nil, err
		}
		out, o := op.cache.get(n, a, false)
		if op.st != nil && op.st.valid && len(op.st.grad) == n*a {
			op.st.valid = false
			for i, v := range op.st.grad {
				o[i] = v * dl
			}
			return out, nil
		}
		for r := 0; r < n; r++ {
			zr, tr, mr, or := z[r*a:(r+1)*a], t[r*a:(r+1)*a], m[r*a:(r+1)*a], o[r*a:(r+1)*a]
			softmaxInto(or, zr, mr)
			var tsum float32
			for i, v := range tr {
				if mr[i] != 0 {
					tsum += v
				}
			}
			for i := range or {
				if mr[i] == 0 {
					continue
				}
				or[i] = (or[i]*tsum - tr[i]) * scale * dl
			}
		}
		return out, nil
	}
	var gr []float32
	if op.st != nil {
		if cap(op.st.grad) < n*a {
			op.st.grad = make([]float32, n*a)
		}
		gr = op.st.grad[:n*a]
		op.st.grad = gr
	}
	var loss float64
	for r := 0; r < n; r++ {
		zr, tr, mr := z[r*a:(r+1)*a], t[r*a:(r+1)*a], m[r*a:(r+1)*a]
		maxv := math.Inf(-1)
		for i, v := range zr {
			if mr[i] != 0 && float64(v) > maxv {
				maxv = float64(v)
			}
		}
		if math.IsInf(maxv, -1) {
			if gr != nil {
				clear(gr[r*a : (r+1)*a])
			}
			continue
		}
		var sum float64
		var gq []float32
		if gr != nil {
			gq = gr[r*a : (r+1)*a]
		}
		var tsum float32
		for i, v := range zr {
			if mr[i] != 0 {
				e := expNeg(v - float32(maxv))
				sum += float64(e)
				tsum += tr[i]
				if gq != nil {
					gq[i] = e
				}
			} else if gq != nil {
				gq[i] = 0
			}
		}
		lse := maxv + math.Log(sum)
		for i, v := range zr {
			if mr[i] != 0 && tr[i] != 0 {
				loss -= float64(tr[i]) * (float64(v) - lse)
			}
		}
		if gq != nil {
			inv := float32(1 / sum)
			for i := range gq {
				if mr[i] != 0 {
					gq[i] = (gq[i]*inv*tsum - tr[i]) * scale
				}
			}
		}
	}
	if op.st != nil {
		op.st.valid = true
	}
	return G.NewF32(float32(loss) * scale), nil
}
func (op xentOp) WriteHash(h hash.Hash) { h.Write([]byte(op.String())) }
func (op xentOp) Hashcode() uint32      { return opHash(op) }
func (op xentOp) DiffWRT(inputs int) []bool {
	if op.grad {
		return make([]bool, inputs)
	}
	return []bool{true, false, false}
}
func (op xentOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if op.grad {
		return nil, fmt.Errorf("net: xent gradient is not differentiable")
	}
	dz, err := G.ApplyOp(xentOp{scale: op.scale, grad: true, cache: &bufCache{}, st: op.st}, inputs[0], inputs[1], inputs[2], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dz, nil, nil}, nil
}
