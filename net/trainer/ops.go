package trainer

import (
	"fmt"
	"hash"
	"hash/fnv"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/dablot-zero/dablot/net/internal/kernel"
)

// This file holds the custom gorgonia operations of the training graph:
// the mean pool, a bias column and the masked softmax cross-entropy (the
// graph convolutions are in convops.go).

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
			kernel.VecAdd(row[:op.c], x[(q*op.points+p)*op.c:(q*op.points+p+1)*op.c])
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
	lossShape // grad: the gradient op, inputs logits, target, mask, dLoss -> dLogits
	scale     float32
	cache     *bufCache
	st        *xentState
}

// xentState carries dLoss/dLogits from the forward op to the gradient op.
type xentState struct {
	grad  []float32
	valid bool
}

// lossShape gives the shape methods of a loss op of three [n, k] inputs
// (output, target, mask or weight) and a scalar result, and, with grad,
// of its gradient op: the same inputs and dLoss -> the gradient of the
// output ([n, k]).
type lossShape struct{ grad bool }

func (op lossShape) Arity() int {
	if op.grad {
		return 4
	}
	return 3
}
func (op lossShape) Type() hm.Type {
	t := matType()
	if op.grad {
		return hm.NewFnType(t, t, t, hm.TypeVariable('a'), t)
	}
	return hm.NewFnType(t, t, t, hm.TypeVariable('a'))
}
func (op lossShape) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapeOf(in[0])
	if err != nil {
		return nil, err
	}
	if op.grad {
		return s.Clone(), nil
	}
	return tensor.ScalarShape(), nil
}
func (op lossShape) DiffWRT(inputs int) []bool {
	if op.grad {
		return make([]bool, inputs)
	}
	return []bool{true, false, false}
}

func (op xentOp) String() string { return fmt.Sprintf("dablotXent(%v,%v)", op.scale, op.grad) }
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
			maskedSoftmax(or, zr, mr)
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
				e := kernel.ExpNeg(v - float32(maxv))
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
func (op xentOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if op.grad {
		return nil, fmt.Errorf("net: xent gradient is not differentiable")
	}
	dz, err := G.ApplyOp(xentOp{scale: op.scale, lossShape: lossShape{grad: true}, cache: &bufCache{}, st: op.st}, inputs[0], inputs[1], inputs[2], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dz, nil, nil}, nil
}

// maskedSoftmax writes to dst the softmax of the logits whose mask entry is
// nonzero, and 0 elsewhere (all zero if no entry is allowed).
func maskedSoftmax(dst, logits, mask []float32) {
	idx := make([]int32, 0, len(mask))
	for i, v := range mask {
		if v != 0 {
			idx = append(idx, int32(i))
		}
	}
	p := make([]float32, len(idx))
	kernel.Softmax(p, logits, idx)
	clear(dst)
	for k, i := range idx {
		dst[i] = p[k]
	}
}

// mseTanhOp is the weighted squared error of tanh outputs, summed over the
// outputs of a row, averaged over rows and scaled: inputs z, target,
// weight ([n, outputs] each) -> scalar
// scale/n * sum weight * (tanh(z) - target)^2. An entry of weight 0 (a
// position without a target) adds nothing and gets no gradient.
//
// With st set, the forward pass also stores the gradient of the loss with
// respect to z, which the gradient op (sharing st) then only scales.
type mseTanhOp struct {
	pureOp
	lossShape // grad: the gradient op, inputs z, target, weight, dLoss -> dz
	scale     float32
	outputs   int // per row; 0 means 1
	cache     *bufCache
	st        *xentState
}

func (op mseTanhOp) String() string {
	return fmt.Sprintf("dablotMSETanh(%v,%d,%v)", op.scale, op.outputs, op.grad)
}

// rows returns the loss of every row's term, and its gradient into dz
// (scaled by scale/n) when dz is not nil.
func (op mseTanhOp) rows(z, t, w, dz []float32) float64 {
	scale := op.scale * float32(max(1, op.outputs)) / float32(len(z))
	var loss float64
	for i, v := range z {
		y := float32(math.Tanh(float64(v)))
		d := y - t[i]
		loss += float64(w[i] * d * d)
		if dz != nil {
			dz[i] = scale * w[i] * 2 * d * (1 - y*y)
		}
	}
	return loss * float64(scale)
}

func (op mseTanhOp) Do(in ...G.Value) (G.Value, error) {
	var xs [3][]float32
	for k := range xs {
		v, err := f32s(in[k])
		if err != nil {
			return nil, err
		}
		xs[k] = v
	}
	z, t, w := xs[0], xs[1], xs[2]
	n := len(z)
	if len(t) != n || len(w) != n {
		return nil, fmt.Errorf("net: squared-error loss: target/weight sizes %d/%d, want %d", len(t), len(w), n)
	}
	if op.grad {
		dl, err := scalarValue(in[3])
		if err != nil {
			return nil, err
		}
		out, o := op.cache.get(n/max(1, op.outputs), max(1, op.outputs), false)
		if op.st != nil && op.st.valid && len(op.st.grad) == n {
			op.st.valid = false
			copy(o, op.st.grad)
		} else {
			op.rows(z, t, w, o)
		}
		for i := range o {
			o[i] *= dl
		}
		return out, nil
	}
	var gr []float32
	if op.st != nil {
		if cap(op.st.grad) < n {
			op.st.grad = make([]float32, n)
		}
		op.st.grad = op.st.grad[:n]
		gr = op.st.grad
	}
	loss := op.rows(z, t, w, gr)
	if op.st != nil {
		op.st.valid = true
	}
	return G.NewF32(float32(loss)), nil
}
func (op mseTanhOp) WriteHash(h hash.Hash) { h.Write([]byte(op.String())) }
func (op mseTanhOp) Hashcode() uint32      { return opHash(op) }
func (op mseTanhOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if op.grad {
		return nil, fmt.Errorf("net: squared-error loss gradient is not differentiable")
	}
	dz, err := G.ApplyOp(mseTanhOp{scale: op.scale, outputs: op.outputs, lossShape: lossShape{grad: true}, cache: &bufCache{}, st: op.st}, inputs[0], inputs[1], inputs[2], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dz, nil, nil}, nil
}
