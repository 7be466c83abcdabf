package trainer

import (
	"fmt"
	"hash"
	"sync"
	"sync/atomic"

	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/internal/kernel"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// This file holds the coarse operations of the training graph: a whole
// graph convolution (gather, matrix product, bias, optional ReLU) is one
// gorgonia node, and so are its two gradients. They run on row chunks of
// a few positions, whose gathered rows stay in L2, spread over goroutines.
//
// Gradients of a layer Y = act(gather(X)·W + b), with dZ = dY ⊙ act'(Y):
//
//	[dW; db] = [gather(X), 1]ᵀ·dZ: per chunk into a partial buffer, summed
//	  over the chunks in a fixed order (deterministic whatever the number
//	  of threads);
//	dX = rgather(dZ)·Wflip, where rgather gathers, for every point q and
//	  slot s, the row of the point p whose slot s reads q, and
//	  Wflip[s*Cout+o][c] = W[s*Cin+c][o]. A topology whose gather is not
//	  invertible that way uses dX = scatter(dZ·Wᵀ) instead.

// chunkPositions is how many positions one work item of the training ops
// covers: about 512 rows, so that its gathered rows (~0.6 MB) stay in L2.
func chunkPositions(points int) int { return max(1, 512/points) }

// trainPool runs work items on up to SetGemmThreads goroutines, each with
// its own scratch.
type trainPool struct {
	mu      sync.Mutex
	scratch []*trainScratch
}

// trainScratch is one worker's buffers.
type trainScratch struct {
	g    []float32 // gathered rows
	gemm kernel.Scratch
}

func (s *trainScratch) buf(n int) []float32 {
	if cap(s.g) < n {
		s.g = make([]float32, n)
	}
	return s.g[:n]
}

// run calls f(scratch, i) for i in [0, n), in parallel. Every i must write
// disjoint outputs.
func (tp *trainPool) run(n int, f func(s *trainScratch, i int)) {
	threads := max(1, min(kernel.Threads(), n))
	tp.mu.Lock()
	defer tp.mu.Unlock()
	for len(tp.scratch) < threads {
		tp.scratch = append(tp.scratch, new(trainScratch))
	}
	if threads == 1 {
		for i := 0; i < n; i++ {
			f(tp.scratch[0], i)
		}
		return
	}
	var next atomic.Int32
	var wg sync.WaitGroup
	work := func(s *trainScratch) {
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			f(s, i)
		}
	}
	for t := 1; t < threads; t++ {
		wg.Add(1)
		go func(s *trainScratch) {
			defer wg.Done()
			work(s)
		}(tp.scratch[t])
	}
	work(tp.scratch[0])
	wg.Wait()
}

// convSpec is one graph convolution of the training graph. The weight
// input is [9*cin+1, cout], the bias being the last row.
type convSpec struct {
	points, cin, cout int
	tab, rev          []int32 // gather table and its inverse (nil if none)
	relu              bool    // ReLU after the bias
	needDX            bool    // the input needs a gradient (not the stem)
	key               string
	pool              *trainPool
}

func newConvSpec(topo *net.Topology, cin, cout int, relu, needDX bool, pool *trainPool) *convSpec {
	tab := topo.GatherTable()
	return &convSpec{points: topo.Points, cin: cin, cout: cout, tab: tab, rev: reverseGather(tab, topo.Points),
		relu: relu, needDX: needDX, pool: pool,
		key: fmt.Sprintf("%s/%d/%d/%d/%v/%v", topo.Hash()[:16], topo.Points, cin, cout, relu, needDX)}
}

// reverseGather returns rev with rev[q*9+s] = p where tab[p*9+s] = q (or
// -1), or nil when some slot reads one point from two places.
func reverseGather(tab []int32, points int) []int32 {
	rev := make([]int32, len(tab))
	for i := range rev {
		rev[i] = -1
	}
	for p := 0; p < points; p++ {
		for s := 0; s < 9; s++ {
			q := tab[p*9+s]
			if q < 0 {
				continue
			}
			if rev[int(q)*9+s] >= 0 {
				return nil
			}
			rev[int(q)*9+s] = int32(p)
		}
	}
	return rev
}

// chunks returns the number of work items for rows rows and the row range
// of item i.
func (c *convSpec) chunks(rows int) int {
	per := chunkPositions(c.points) * c.points
	return (rows + per - 1) / per
}

func (c *convSpec) chunk(rows, i int) (r0, r1 int) {
	per := chunkPositions(c.points) * c.points
	return i * per, min(rows, (i+1)*per)
}

func checkRows(s G.DimSizer, points, cols int, what string) (tensor.Shape, error) {
	sh, err := shapeOf(s)
	if err != nil {
		return nil, err
	}
	if sh[0]%points != 0 || sh[1] != cols {
		return nil, fmt.Errorf("net: %s: input shape %v, want [k*%d, %d]", what, sh, points, cols)
	}
	return sh, nil
}

// binaryOp gives the Op methods common to the ops of this file: two
// matrices in, one out.
type binaryOp struct{ pureOp }

func (binaryOp) Arity() int    { return 2 }
func (binaryOp) Type() hm.Type { return hm.NewFnType(matType(), matType(), matType()) }

// gradientOp is a binaryOp that computes a gradient, which is never itself
// differentiated.
type gradientOp struct{ binaryOp }

func (gradientOp) DiffWRT(inputs int) []bool { return []bool{false, false} }
func (gradientOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("net: a gradient op is not differentiable")
}

// twoF32s returns the data of the two inputs of a binaryOp.
func twoF32s(in []G.Value) (a, b []float32, err error) {
	if a, err = f32s(in[0]); err != nil {
		return nil, nil, err
	}
	if b, err = f32s(in[1]); err != nil {
		return nil, nil, err
	}
	return a, b, nil
}

// inferWithWeights is the shape of an op whose inputs are rows of cols
// values and the weights [9*cin+1, cout]: rows of outCols values.
func (c *convSpec) inferWithWeights(in []G.DimSizer, cols, outCols int, what string) (tensor.Shape, error) {
	s, err := checkRows(in[0], c.points, cols, what)
	if err != nil {
		return nil, err
	}
	if _, err := checkRows(in[1], 1, c.cout, what+" weights"); err != nil {
		return nil, err
	}
	return tensor.Shape{s[0], outCols}, nil
}

// withWeights returns the data of an op's inputs (rows, then the weights
// [9*cin+1, cout]) and the number of rows.
func (c *convSpec) withWeights(in []G.Value, what string) (x, w []float32, rows int, err error) {
	if x, w, err = twoF32s(in); err != nil {
		return nil, nil, 0, err
	}
	if want := (9*c.cin + 1) * c.cout; len(w) != want {
		return nil, nil, 0, fmt.Errorf("net: %s: weights have %d values, want %d", what, len(w), want)
	}
	return x, w, in[0].Shape()[0], nil
}

// convOp computes act(gather(x)·W + b): inputs x [rows, cin] and W
// [9*cin+1, cout], output [rows, cout].
type convOp struct {
	binaryOp
	*convSpec
	cache *bufCache
}

func (op convOp) String() string {
	return "dablotConv(" + op.key + ")"
}
func (op convOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return op.inferWithWeights(in, op.cin, op.cout, "conv")
}
func (op convOp) Do(in ...G.Value) (G.Value, error) {
	x, w, rows, err := op.withWeights(in, "conv")
	if err != nil {
		return nil, err
	}
	K := 9*op.cin + 1
	out, o := op.cache.get(rows, op.cout, false)
	spec := kernel.Gather{Tab: op.tab, Points: op.points, C: op.cin, AppendOne: true}
	op.pool.run(op.chunks(rows), func(s *trainScratch, i int) {
		r0, r1 := op.chunk(rows, i)
		n := r1 - r0
		oc := o[r0*op.cout : r1*op.cout]
		// The last row of w is the bias (the gathered rows end in a 1).
		nw := 9 * op.cin * op.cout
		for r := range n {
			copy(oc[r*op.cout:(r+1)*op.cout], w[nw:])
		}
		if !kernel.ConvGatherFast(n, op.points, op.tab, x[r0*op.cin:r1*op.cin], op.cin, w[:nw], op.cout, oc, &s.gemm) {
			g := s.buf(n * K)
			spec.Forward(x[r0*op.cin:r1*op.cin], g, n)
			// Sizes are consistent by construction, so sgemm cannot fail.
			_ = kernel.Gemm(false, false, n, op.cout, K, 1, g, K, w, op.cout, 0, oc, op.cout, 1, &s.gemm)
		}
		if op.relu {
			kernel.VecRelu(oc)
		}
	})
	return out, nil
}
func (op convOp) WriteHash(h hash.Hash) { h.Write([]byte(op.String())) }
func (op convOp) Hashcode() uint32      { return opHash(op) }
func (op convOp) DiffWRT(inputs int) []bool {
	return []bool{op.needDX, true}
}
func (op convOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	dz := grad
	if op.relu {
		var err error
		if dz, err = G.ApplyOp(reluMaskOp{pairOp{cache: &bufCache{}}}, grad, output); err != nil {
			return nil, err
		}
	}
	dw, err := G.ApplyOp(convWeightGradOp{gradientOp{}, op.convSpec, &bufCache{}, &bufCache{}}, inputs[0], dz)
	if err != nil {
		return nil, err
	}
	if !op.needDX {
		return G.Nodes{nil, dw}, nil
	}
	dx, err := G.ApplyOp(convDataGradOp{gradientOp{}, op.convSpec, &bufCache{}, &bufCache{}}, dz, inputs[1])
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx, dw}, nil
}

// convWeightGradOp computes dW = [gather(x)ᵀ·dz; Σ_rows dz]: inputs x
// [rows, cin] and dz [rows, cout], output [9*cin+1, cout].
type convWeightGradOp struct {
	gradientOp
	*convSpec
	cache   *bufCache
	partial *bufCache // per-chunk partial sums of dW
}

func (op convWeightGradOp) String() string {
	return "dablotConvGradW(" + op.key + ")"
}
func (op convWeightGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if _, err := checkRows(in[0], op.points, op.cin, "conv weight gradient"); err != nil {
		return nil, err
	}
	if _, err := checkRows(in[1], op.points, op.cout, "conv weight gradient"); err != nil {
		return nil, err
	}
	return tensor.Shape{9*op.cin + 1, op.cout}, nil
}
func (op convWeightGradOp) Do(in ...G.Value) (G.Value, error) {
	x, dz, err := twoF32s(in)
	if err != nil {
		return nil, err
	}
	rows := in[0].Shape()[0]
	if in[1].Shape()[0] != rows {
		return nil, fmt.Errorf("net: conv weight gradient: %d input rows, %d gradient rows", rows, in[1].Shape()[0])
	}
	K, C := 9*op.cin+1, op.cout // the constant-1 column yields the bias row
	per := K * C
	n := op.chunks(rows)
	_, part := op.partial.get(n, per, false)
	spec := kernel.Gather{Tab: op.tab, Points: op.points, C: op.cin, AppendOne: true}
	op.pool.run(n, func(s *trainScratch, i int) {
		r0, r1 := op.chunk(rows, i)
		m := r1 - r0
		g := s.buf(m * K)
		spec.Forward(x[r0*op.cin:r1*op.cin], g, m)
		_ = kernel.Gemm(true, false, K, C, m, 1, g, K, dz[r0*C:r1*C], C, 0, part[i*per:(i+1)*per], C, 1, &s.gemm)
	})
	// Sum the chunks in order (deterministic whatever the thread count).
	out, o := op.cache.get(K, C, false)
	copy(o, part[:per])
	for i := 1; i < n; i++ {
		kernel.VecAdd(o, part[i*per:(i+1)*per])
	}
	return out, nil
}
func (op convWeightGradOp) WriteHash(h hash.Hash) { h.Write([]byte(op.String())) }
func (op convWeightGradOp) Hashcode() uint32      { return opHash(op) }

// convDataGradOp computes dx = gatherᵀ(dz·Wᵀ) (the bias row of W takes no
// part): inputs dz [rows, cout] and W [9*cin+1, cout], output [rows, cin].
type convDataGradOp struct {
	gradientOp
	*convSpec
	cache *bufCache
	wflip *bufCache
}

func (op convDataGradOp) String() string {
	return "dablotConvGradX(" + op.key + ")"
}
func (op convDataGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return op.inferWithWeights(in, op.cout, op.cin, "conv input gradient")
}
func (op convDataGradOp) Do(in ...G.Value) (G.Value, error) {
	dz, w, rows, err := op.withWeights(in, "conv input gradient")
	if err != nil {
		return nil, err
	}
	Ci, Co := op.cin, op.cout
	out, o := op.cache.get(rows, Ci, false)
	if op.rev == nil {
		// dx = scatter(dz·Wᵀ), within each chunk's positions.
		K := 9 * Ci
		spec := kernel.Gather{Tab: op.tab, Points: op.points, C: Ci}
		op.pool.run(op.chunks(rows), func(s *trainScratch, i int) {
			r0, r1 := op.chunk(rows, i)
			m := r1 - r0
			u := s.buf(m * K)
			_ = kernel.Gemm(false, true, m, K, Co, 1, dz[r0*Co:r1*Co], Co, w, Co, 0, u, K, 1, &s.gemm)
			oc := o[r0*Ci : r1*Ci]
			clear(oc)
			spec.Backward(u, oc, m)
		})
		return out, nil
	}
	// Wflip[s*Co+o][c] = W[s*Ci+c][o].
	_, wf := op.wflip.get(9*Co, Ci, false)
	for s := 0; s < 9; s++ {
		for c := 0; c < Ci; c++ {
			src := w[(s*Ci+c)*Co : (s*Ci+c+1)*Co]
			for k, v := range src {
				wf[(s*Co+k)*Ci+c] = v
			}
		}
	}
	K := 9 * Co
	spec := kernel.Gather{Tab: op.rev, Points: op.points, C: Co}
	op.pool.run(op.chunks(rows), func(s *trainScratch, i int) {
		r0, r1 := op.chunk(rows, i)
		m := r1 - r0
		g := s.buf(m * K)
		spec.Forward(dz[r0*Co:r1*Co], g, m)
		_ = kernel.Gemm(false, false, m, Ci, K, 1, g, K, wf, Ci, 0, o[r0*Ci:r1*Ci], Ci, 1, &s.gemm)
	})
	return out, nil
}
func (op convDataGradOp) WriteHash(h hash.Hash) { h.Write([]byte(op.String())) }
func (op convDataGradOp) Hashcode() uint32      { return opHash(op) }

// pairOp is the common part of the element-wise ops on two matrices of the
// same shape: the result has that shape too.
type pairOp struct {
	binaryOp
	cache *bufCache
}

func (pairOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapeOf(in[0])
	if err != nil {
		return nil, err
	}
	return s.Clone(), nil
}

// operands returns the data of the two inputs and a result buffer of their
// shape; what names the op in the error for mismatched sizes.
func (op pairOp) operands(in []G.Value, what string) (a, b []float32, out G.Value, o []float32, err error) {
	if a, b, err = twoF32s(in); err != nil {
		return
	}
	if len(a) != len(b) {
		err = fmt.Errorf("net: %s: inputs of %d and %d values", what, len(a), len(b))
		return
	}
	s := in[0].Shape()
	out, o = op.cache.get(s[0], s[1], false)
	return
}

// reluMaskOp passes the gradient where the ReLU output is positive:
// inputs grad and output (same shape), result grad ⊙ (output > 0).
type reluMaskOp struct{ pairOp }

func (reluMaskOp) DiffWRT(inputs int) []bool { return []bool{false, false} }
func (reluMaskOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("net: relu mask is not differentiable")
}

func (op reluMaskOp) String() string { return "dablotReluMask" }
func (op reluMaskOp) Do(in ...G.Value) (G.Value, error) {
	g, y, out, o, err := op.operands(in, "relu mask")
	if err != nil {
		return nil, err
	}
	kernel.VecReluMask(o, g, y)
	return out, nil
}
func (op reluMaskOp) WriteHash(h hash.Hash) { h.Write([]byte(op.String())) }
func (op reluMaskOp) Hashcode() uint32      { return opHash(op) }

// addReluOp is the residual join relu(a + y).
type addReluOp struct{ pairOp }

func (op addReluOp) String() string { return "dablotAddRelu" }
func (op addReluOp) Do(in ...G.Value) (G.Value, error) {
	a, y, out, o, err := op.operands(in, "residual")
	if err != nil {
		return nil, err
	}
	copy(o, a)
	kernel.VecAddRelu(o, y)
	return out, nil
}
func (op addReluOp) WriteHash(h hash.Hash)     { h.Write([]byte(op.String())) }
func (op addReluOp) Hashcode() uint32          { return opHash(op) }
func (op addReluOp) DiffWRT(inputs int) []bool { return []bool{true, true} }
func (op addReluOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	d, err := G.ApplyOp(reluMaskOp{pairOp{cache: &bufCache{}}}, grad, output)
	if err != nil {
		return nil, err
	}
	return G.Nodes{d, d}, nil
}
