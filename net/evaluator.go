package net

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/net/internal/kernel"
)

// evalLayer is one graph convolution prepared for inference. The product
// gather(X)·W is computed as Z = X·Wcat followed by a gather-sum over the
// nine slots of Z, which keeps the matrix product wide (9*Cout columns) and
// avoids materialising the gathered 9*Cin rows.
type evalLayer struct {
	cin, cout int
	w         []float32 // [9*cin, cout] as stored
	wcat      []float32 // [cin, 9*cout]: wcat[c][s*cout+o] = W[s*cin+c][o]
	bias      []float32 // [cout]
}

func newEvalLayer(w, b *Tensor) evalLayer {
	cout := w.Shape[1]
	cin := w.Shape[0] / 9
	// Subnormal weights are flushed to zero: they change no output and slow
	// every multiply they meet (see flushSubnormal).
	l := evalLayer{cin: cin, cout: cout, w: kernel.FlushedCopy(w.Data), wcat: make([]float32, cin*9*cout), bias: kernel.FlushedCopy(b.Data)}
	for s := 0; s < 9; s++ {
		for c := 0; c < cin; c++ {
			copy(l.wcat[c*9*cout+s*cout:c*9*cout+(s+1)*cout], l.w[(s*cin+c)*cout:(s*cin+c+1)*cout])
		}
	}
	return l
}

// Evaluator is the pure-Go float32 inference path. It is immutable after
// NewEvaluator and may be shared by any number of goroutines, each with its
// own Workspace.
type Evaluator struct {
	cfg    Config
	points int
	tab    []int32 // [points*9] gather sources: self, then directions 0..7
	stem   evalLayer
	blocks [][2]evalLayer
	policy evalLayer
	stopW  []float32 // [C]
	stopB  float32
	v1W    []float32 // [C, H]
	v1B    []float32
	v2W    []float32 // [H, 3]
	v2B    []float32
	heads  []evalHead // the auxiliary heads (Config.Heads)
}

// evalHead is an auxiliary head prepared for inference.
type evalHead struct {
	Head
	w1, b1 []float32 // [C, H], [H]; per point: [Outputs, C] (transposed), [Outputs]
	w2, b2 []float32 // [H, Outputs], [Outputs]; per point: none
}

// NewEvaluator prepares w for inference on topo.
func NewEvaluator(topo *Topology, w *Weights) (*Evaluator, error) {
	if err := topo.Validate(); err != nil {
		return nil, err
	}
	if err := w.Check(); err != nil {
		return nil, err
	}
	e := &Evaluator{cfg: w.Config, points: topo.Points, tab: topo.GatherTable()}
	e.stem = newEvalLayer(w.Tensor("stem.w"), w.Tensor("stem.b"))
	for i := 0; i < w.Config.Blocks; i++ {
		p := fmt.Sprintf("block%d.", i)
		e.blocks = append(e.blocks, [2]evalLayer{
			newEvalLayer(w.Tensor(p+"conv1.w"), w.Tensor(p+"conv1.b")),
			newEvalLayer(w.Tensor(p+"conv2.w"), w.Tensor(p+"conv2.b")),
		})
	}
	e.policy = newEvalLayer(w.Tensor("policy.w"), w.Tensor("policy.b"))
	cp := func(name string) []float32 { return kernel.FlushedCopy(w.Tensor(name).Data) }
	e.stopW, e.stopB = cp("stop.w"), kernel.FlushSubnormal(w.Tensor("stop.b").Data[0])
	e.v1W, e.v1B, e.v2W, e.v2B = cp("value1.w"), cp("value1.b"), cp("value2.w"), cp("value2.b")
	for _, h := range w.Config.Heads() {
		eh := evalHead{Head: h}
		if h.PerPoint {
			eh.w1, eh.b1 = transpose(cp(h.Name+".w"), h.Outputs), cp(h.Name+".b")
		} else {
			eh.w1, eh.b1, eh.w2, eh.b2 = cp(h.Name+"1.w"), cp(h.Name+"1.b"), cp(h.Name+"2.w"), cp(h.Name+"2.b")
		}
		e.heads = append(e.heads, eh)
	}
	return e, nil
}

// Config returns the architecture.
func (e *Evaluator) Config() Config { return e.cfg }

// Points returns the number of board points.
func (e *Evaluator) Points() int { return e.points }

// InputSize is the number of input floats per position: Points*InputPlanes,
// laid out [point][plane].
func (e *Evaluator) InputSize() int { return e.points * e.cfg.InputPlanes }

// PolicySize is the policy length per position.
func (e *Evaluator) PolicySize() int { return game.PolicySize(e.points) }

// maxChunkRows bounds the rows (positions x points) that one worker pushes
// through the whole network at a time, so that its activations stay in L2.
const maxChunkRows = 512

// chunkScratch is one worker's activation buffers.
type chunkScratch struct {
	x, h, t []float32 // [rows, C]
	z       []float32 // [rows, 9*max(C, 16)]
	pool    []float32 // [positions, C]
	hid     []float32 // [positions, H]
	gemm    kernel.Scratch
}

type chunkJob struct{ pos0, n int }

// Workspace holds the buffers of one caller of Forward. It is not safe for
// concurrent use; give each goroutine its own. With threads > 1 it owns
// worker goroutines: call Close when done.
type Workspace struct {
	e        *Evaluator
	maxBatch int
	chunkCap int
	threads  int
	scratch  []*chunkScratch
	policy   []float32
	wdl      []float32
	heads    [][]float32 // the outputs of each auxiliary head, [maxBatch, Size(points)]
	jobs     chan chunkJob
	wg       sync.WaitGroup
	closed   bool

	// Arguments of the current call, read by the workers.
	in        []float32
	batch     int
	lastBatch int // the batch of the last Forward call, for HeadOutputs
}

// NewWorkspace allocates buffers for batches of up to maxBatch positions,
// split over threads goroutines (threads <= 1 runs in the caller).
func (e *Evaluator) NewWorkspace(maxBatch, threads int) *Workspace {
	maxBatch = max(1, maxBatch)
	threads = max(1, min(threads, maxBatch))
	ws := &Workspace{e: e, maxBatch: maxBatch, threads: threads}
	ws.chunkCap = max(1, min(maxBatch, maxChunkRows/e.points))
	rows := ws.chunkCap * e.points
	C, H := e.cfg.Channels, e.cfg.ValueHidden
	zw := 9 * max(C, MovesPerPoint, e.cfg.InputPlanes)
	for i := 0; i < threads; i++ {
		ws.scratch = append(ws.scratch, &chunkScratch{
			x: make([]float32, rows*C), h: make([]float32, rows*C), t: make([]float32, rows*max(C, MovesPerPoint)),
			z: make([]float32, rows*zw), pool: make([]float32, ws.chunkCap*C), hid: make([]float32, ws.chunkCap*H),
		})
	}
	ws.policy = make([]float32, maxBatch*e.PolicySize())
	ws.wdl = make([]float32, maxBatch*3)
	for _, h := range e.heads {
		ws.heads = append(ws.heads, make([]float32, maxBatch*h.Size(e.points)))
	}
	if threads > 1 {
		ws.jobs = make(chan chunkJob)
		for i := 0; i < threads; i++ {
			cs := ws.scratch[i]
			go func() {
				for j := range ws.jobs {
					ws.runChunk(cs, j)
					ws.wg.Done()
				}
			}()
		}
	}
	return ws
}

// Close stops the workspace's worker goroutines. The workspace cannot be
// used afterwards.
func (ws *Workspace) Close() {
	if !ws.closed && ws.jobs != nil {
		close(ws.jobs)
	}
	ws.closed = true
}

// Forward evaluates batch positions. input holds batch*InputSize floats.
// It returns the policy logits (batch*PolicySize) and the win/draw/loss
// probabilities (batch*3) of the side to move. The slices belong to the
// workspace and are overwritten by the next call; so are the outputs of
// the auxiliary heads, which HeadOutputs returns.
func (ws *Workspace) Forward(input []float32, batch int) (policy, wdl []float32, err error) {
	return ws.forward(input, batch)
}

// Score returns the score head's outputs of the last Forward call, one
// per position in [-1, 1] (the side to move's future material lead,
// squashed), or nil for a network without a score head.
func (ws *Workspace) Score() []float32 { return ws.HeadOutputs(ScoreHeadName) }

// HeadOutputs returns the outputs of the auxiliary head named name (a
// Head.Name) of the last Forward call, Head.Size(Points()) per position
// (a per-point head's point by point, in the order of the input's
// points), each in [-1, 1], or nil for a network without that head.
func (ws *Workspace) HeadOutputs(name string) []float32 {
	for i, h := range ws.e.heads {
		if h.Name == name {
			return ws.heads[i][:ws.lastBatch*h.Size(ws.e.points)]
		}
	}
	return nil
}

var errClosed = errors.New("net: forward: workspace is closed")

func (ws *Workspace) forward(input []float32, batch int) ([]float32, []float32, error) {
	e := ws.e
	switch {
	case ws.closed:
		return nil, nil, errClosed
	case batch < 1 || batch > ws.maxBatch:
		return nil, nil, fmt.Errorf("net: forward: batch %d out of range 1..%d", batch, ws.maxBatch)
	case len(input) < batch*e.InputSize():
		return nil, nil, fmt.Errorf("net: forward: input has %d values, need %d", len(input), batch*e.InputSize())
	}
	ws.in, ws.batch = input, batch
	nChunks := max((batch+ws.chunkCap-1)/ws.chunkCap, min(ws.threads, batch))
	per := (batch + nChunks - 1) / nChunks
	if ws.threads == 1 || nChunks == 1 {
		for p := 0; p < batch; p += per {
			ws.runChunk(ws.scratch[0], chunkJob{p, min(per, batch-p)})
		}
	} else {
		for p := 0; p < batch; p += per {
			ws.wg.Add(1)
			ws.jobs <- chunkJob{p, min(per, batch-p)}
		}
		ws.wg.Wait()
	}
	ws.in, ws.lastBatch = nil, batch
	return ws.policy[:batch*e.PolicySize()], ws.wdl[:batch*3], nil
}

// im2colMaxCout is the widest layer computed as gather-then-multiply; wider
// layers multiply first (Z = X·Wcat) and gather-sum afterwards. Narrow
// layers favour the former: Z would have few products per element.
var im2colMaxCout = 128

// conv applies one graph convolution to the rows of n positions:
// out = gather(x)·W + b, optionally followed by ReLU.
func (e *Evaluator) conv(cs *chunkScratch, l *evalLayer, x []float32, n int, out []float32, relu bool) {
	if l.cout <= im2colMaxCout {
		e.convIm2col(cs, l, x, n, out, relu)
		return
	}
	P := e.points
	rows := n * P
	zw := 9 * l.cout
	z := cs.z[:rows*zw]
	// Sizes are consistent by construction, so sgemm cannot fail here.
	_ = kernel.Gemm(false, false, rows, zw, l.cin, 1, x[:rows*l.cin], l.cin, l.wcat, zw, 0, z, zw, 1, &cs.gemm)
	cout := l.cout
	for q := 0; q < n; q++ {
		zq := z[q*P*zw : (q+1)*P*zw]
		for p := 0; p < P; p++ {
			dst := out[(q*P+p)*cout : (q*P+p+1)*cout]
			copy(dst, l.bias)
			for s, src := range e.tab[p*9 : p*9+9] {
				if src >= 0 {
					o := int(src)*zw + s*cout
					kernel.VecAdd(dst, zq[o:o+cout])
				}
			}
		}
	}
	if relu {
		kernel.VecRelu(out[:rows*cout])
	}
}

// convIm2col gathers the 9*cin rows into the scratch and multiplies by W.
func (e *Evaluator) convIm2col(cs *chunkScratch, l *evalLayer, x []float32, n int, out []float32, relu bool) {
	rows := n * e.points
	o := out[:rows*l.cout]
	for r := 0; r < rows; r++ {
		copy(o[r*l.cout:(r+1)*l.cout], l.bias)
	}
	if !kernel.ConvGatherFast(rows, e.points, e.tab, x[:rows*l.cin], l.cin, l.w, l.cout, o, &cs.gemm) {
		k := 9 * l.cin
		g := cs.z[:rows*k]
		spec := kernel.Gather{Tab: e.tab, Points: e.points, C: l.cin}
		spec.Forward(x, g, rows)
		// Sizes are consistent by construction, so sgemm cannot fail here.
		_ = kernel.Gemm(false, false, rows, l.cout, k, 1, g, k, l.w, l.cout, 1, o, l.cout, 1, &cs.gemm)
	}
	if relu {
		kernel.VecRelu(o)
	}
}

func (ws *Workspace) runChunk(cs *chunkScratch, j chunkJob) {
	e := ws.e
	P, C, I, H := e.points, e.cfg.Channels, e.cfg.InputPlanes, e.cfg.ValueHidden
	rows := j.n * P
	in := ws.in[j.pos0*P*I : (j.pos0+j.n)*P*I]
	x, h, t := cs.x[:rows*C], cs.h[:rows*C], cs.t
	e.conv(cs, &e.stem, in, j.n, x, true)
	for i := range e.blocks {
		e.conv(cs, &e.blocks[i][0], x, j.n, h, true)
		e.conv(cs, &e.blocks[i][1], h, j.n, t, false)
		kernel.VecAddRelu(x, t[:rows*C])
	}
	PS := e.PolicySize()
	e.conv(cs, &e.policy, x, j.n, t, false)
	for q := 0; q < j.n; q++ {
		pos := j.pos0 + q
		copy(ws.policy[pos*PS:pos*PS+P*MovesPerPoint], t[q*P*MovesPerPoint:(q+1)*P*MovesPerPoint])
	}
	// Mean pool, stop logit and value head.
	inv := 1 / float32(P)
	for q := 0; q < j.n; q++ {
		pool := cs.pool[q*C : (q+1)*C]
		clear(pool)
		for p := 0; p < P; p++ {
			kernel.VecAdd(pool, x[(q*P+p)*C:(q*P+p+1)*C])
		}
		for c := range pool {
			pool[c] *= inv
		}
		pos := j.pos0 + q
		stop := e.stopB
		for c, v := range pool {
			stop += v * e.stopW[c]
		}
		ws.policy[pos*PS+PS-1] = stop
		hid := cs.hid[q*H : (q+1)*H]
		dense(hid, pool, e.v1W, e.v1B)
		var logit [3]float32
		copy(logit[:], e.v2B)
		for k, v := range hid {
			if v <= 0 {
				continue
			}
			logit[0] += v * e.v2W[k*3]
			logit[1] += v * e.v2W[k*3+1]
			logit[2] += v * e.v2W[k*3+2]
		}
		Softmax(ws.wdl[pos*3:pos*3+3], logit[:], nil)
		for i := range e.heads {
			h := &e.heads[i]
			k := h.Size(P)
			out := ws.heads[i][pos*k : (pos+1)*k]
			if h.PerPoint {
				h.applyPoints(out, x[q*P*C:(q+1)*P*C])
			} else {
				h.apply(out, pool, hid)
			}
		}
	}
}

// dense sets out = in·w + b, with w of shape [len(in), len(out)].
func dense(out, in, w, b []float32) {
	H := len(out)
	copy(out, b)
	for c, v := range in {
		row := w[c*H : (c+1)*H]
		for k := range out {
			out[k] += v * row[k]
		}
	}
}

// apply sets out to the head's outputs on the pooled features pool, with
// hid (of ValueHidden values) as scratch: tanh(relu(pool·w1 + b1)·w2 + b2).
func (h *evalHead) apply(out, pool, hid []float32) {
	dense(hid, pool, h.w1, h.b1)
	k := h.Outputs
	copy(out, h.b2)
	for j, v := range hid {
		if v > 0 {
			for o := range out {
				out[o] += v * h.w2[j*k+o]
			}
		}
	}
	tanh(out)
}

// applyPoints sets out to the per-point head's outputs on the trunk's
// features x ([points, C]): tanh(x·w + b), point by point, with w1 = wᵀ.
func (h *evalHead) applyPoints(out, x []float32) {
	k, c := h.Outputs, len(h.w1)/h.Outputs
	for p := range len(out) / k {
		xp := x[p*c : (p+1)*c]
		for o := range k {
			out[p*k+o] = h.b1[o] + dot(xp, h.w1[o*c:(o+1)*c])
		}
	}
	tanh(out)
}

// dot returns the dot product of a and b (of a's length).
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// transpose returns the transpose of w, a matrix of cols columns.
func transpose(w []float32, cols int) []float32 {
	rows := len(w) / cols
	t := make([]float32, len(w))
	for r := range rows {
		for c := range cols {
			t[c*rows+r] = w[r*cols+c]
		}
	}
	return t
}

// tanh replaces every x by tanh(x).
func tanh(xs []float32) {
	for i, z := range xs {
		xs[i] = float32(math.Tanh(float64(z)))
	}
}

// Softmax writes to dst the softmax of the logits at the indices idx:
// dst[k] is the probability of logits[idx[k]] among them. With idx nil it
// is the softmax of all the logits, dst[i] that of logits[i]. dst may alias
// logits when idx is nil. With no index at all dst is left as it is.
func Softmax(dst, logits []float32, idx []int32) { kernel.Softmax(dst, logits, idx) }
