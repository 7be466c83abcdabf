package model

import (
	"fmt"
	"runtime"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/cputime"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/net"
)

// NetEvaluator is the network's fast path as an mcts.Evaluator: it encodes
// the positions of a batch, runs the pure-Go forward pass, and turns the
// logits of the legal decisions into priors and the win/draw/loss output into
// a value. With a score head and a score utility u (the model's
// ScoreUtility unless SetScoreUtility changes it), the value is
// value + u·score, clipped to [-1, 1], and the WDL moves with it
// (mcts.Request.SetValue): KataGo's score utility, which makes every
// soldier of the predicted lead count in the search. It is not safe for
// concurrent use: put an mcts.Batcher in front to share it between
// searches.
type NetEvaluator struct {
	m        *Model
	ws       *net.Workspace
	maxBatch int
	input    []float32
	idx      []int32
	// Positions counts the positions evaluated; Batches the forward passes;
	// NetTime is the time spent in the forward pass (the network's own
	// arithmetic, without encoding and priors): CPU time of the calling
	// thread with one thread on Linux, wall time otherwise.
	Positions, Batches int64
	NetTime            time.Duration
	threads            int
	scoreUtility       float64
}

// NewEvaluator returns an evaluator of m that runs up to maxBatch positions
// per forward pass, split over threads goroutines. Close it when done.
func (m *Model) NewEvaluator(maxBatch, threads int) *NetEvaluator {
	maxBatch = max(maxBatch, 1)
	return &NetEvaluator{m: m, ws: m.Net.NewWorkspace(maxBatch, threads), maxBatch: maxBatch, threads: threads,
		input: make([]float32, maxBatch*m.Encoder.InputSize()), scoreUtility: m.ScoreUtility}
}

// SetScoreUtility sets the weight u of the score head in the value (see
// NetEvaluator); 0 turns it off. A u above 0 for a network without a
// score head, or out of range, is an error.
func (e *NetEvaluator) SetScoreUtility(u float64) error {
	if err := CheckScoreUtility(u, e.m.Weights.Config.ScoreHead); err != nil {
		return err
	}
	e.scoreUtility = u
	return nil
}

// ScoreUtility returns the weight of the score head in the value.
func (e *NetEvaluator) ScoreUtility() float64 { return e.scoreUtility }

// Clone returns a new evaluator of the same model and batch size with
// buffers of its own and one thread: a search that owns it evaluates on its
// own goroutine (mcts.SpecOptions.OwnEvaluators).
func (e *NetEvaluator) Clone() mcts.Evaluator {
	c := e.m.NewEvaluator(e.maxBatch, 1)
	c.scoreUtility = e.scoreUtility
	return c
}

// Close stops the evaluator's worker goroutines.
func (e *NetEvaluator) Close() { e.ws.Close() }

// Evaluate implements mcts.Evaluator.
func (e *NetEvaluator) Evaluate(batch []mcts.Request) error {
	for len(batch) > 0 {
		n := min(len(batch), e.maxBatch)
		if err := e.evaluate(batch[:n]); err != nil {
			return err
		}
		batch = batch[n:]
	}
	return nil
}

func (e *NetEvaluator) evaluate(batch []mcts.Request) error {
	enc := e.m.Encoder
	size := enc.InputSize()
	for i := range batch {
		enc.Encode(&batch[i].Pos, e.input[i*size:(i+1)*size])
	}
	var logits, wdl []float32
	var err error
	e.NetTime += e.timed(func() { logits, wdl, err = e.ws.Forward(e.input[:len(batch)*size], len(batch)) })
	if err != nil {
		return fmt.Errorf("network: %w", err)
	}
	e.Batches++
	e.Positions += int64(len(batch))
	var score []float32
	if e.scoreUtility != 0 {
		score = e.ws.Score()
	}
	ps := enc.PolicySize()
	for i := range batch {
		r := &batch[i]
		if len(r.Priors) != len(r.Legal) {
			return fmt.Errorf("network: request %d has %d priors for %d legal decisions", i, len(r.Priors), len(r.Legal))
		}
		e.idx = enc.LegalIndices(&r.Pos, r.Legal, e.idx[:0])
		net.Softmax(r.Priors, logits[i*ps:(i+1)*ps], e.idx)
		w := wdl[i*3 : i*3+3]
		r.WDL = [3]float32{w[0], w[1], w[2]}
		r.Value = w[0] - w[2]
		if score != nil {
			r.SetValue(float64(r.Value) + e.scoreUtility*float64(score[i]))
		}
	}
	return nil
}

// timed runs f and returns its CPU time when the forward pass runs in the
// calling thread (and the platform measures it), else its wall time.
func (e *NetEvaluator) timed(f func()) time.Duration {
	if e.threads <= 1 {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if t0, ok := cputime.Thread(); ok {
			f()
			t1, _ := cputime.Thread()
			return t1 - t0
		}
	}
	began := time.Now()
	f()
	return time.Since(began)
}

// SpecOptions returns the options under which player specs such as
// "gumbel:model=models/keyland.dbm,sims=16" load their model files for
// variant r: a model of other rules is refused, and every model is
// evaluated in batches of up to 256 positions over threads goroutines.
func SpecOptions(r *game.Rules, threads int) mcts.SpecOptions {
	return mcts.SpecOptions{LoadModel: func(path string) (mcts.Evaluator, error) {
		m, err := LoadModel(path)
		if err != nil {
			return nil, err
		}
		if err := m.CheckRules(r); err != nil {
			return nil, fmt.Errorf("model %s: %w", path, err)
		}
		return m.NewEvaluator(256, threads), nil
	}, Rules: r}
}

// OwnSpecOptions is SpecOptions for matches of one search per core: each
// player gets a single-threaded evaluator of its own (NetEvaluator.Clone),
// so a match of N games at once uses N cores, one per game, and a player
// with a network thinks on one core like a classical search.
func OwnSpecOptions(r *game.Rules) mcts.SpecOptions {
	o := SpecOptions(r, 1)
	o.OwnEvaluators = true
	return o
}

// CheckRules returns an error unless the model was trained on rules r.
func (m *Model) CheckRules(r *game.Rules) error {
	if m.Rules.Fingerprint() == r.Fingerprint() {
		return nil
	}
	if m.Rules.Name != r.Name {
		return fmt.Errorf("the model plays %s, not %s", m.Rules.Name, r.Name)
	}
	return fmt.Errorf("the model plays %s with other rules (%s) than these (%s)", m.Rules.Name, m.Rules.Canonical(), r.Canonical())
}
