package mcts

import (
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/dablot-zero/dablot/game"
)

// Request is one position of a batch sent to an Evaluator. Pos and Legal are
// the inputs; Priors, Value and WDL are the outputs.
type Request struct {
	// Pos is the position to evaluate; the game is not over.
	Pos game.Position
	// Legal is Pos.Decisions(): the decisions the priors are over, in this
	// order. It is never empty.
	Legal []game.Decision
	// Priors receives one probability per legal decision (non-negative,
	// summing to 1). The caller allocates it with len(Legal).
	Priors []float32
	// Value receives the expected result for Pos.SideToMove(), in [-1, 1]
	// (1 win, 0 draw, -1 loss), also in the middle of a capture chain.
	Value float32
	// WDL optionally receives the probabilities of win, draw and loss for
	// Pos.SideToMove(); an evaluator that has none leaves it zero. When it is
	// given, Value must equal WDL[0]-WDL[2].
	WDL [3]float32
}

// Evaluator evaluates batches of positions. Evaluate fills the outputs of
// every request of batch (see Request) or returns an error; it must give the
// same outputs for the same position whatever the rest of the batch is, so
// that searches are reproducible. An Evaluator is used by one goroutine at a
// time unless its documentation says it is safe for concurrent use; wrap it
// in a Batcher to share it between goroutines.
type Evaluator interface {
	Evaluate(batch []Request) error
}

// SplitWDL turns a value v (the expected result, in [-1, 1]) and a draw
// chance into win, draw and loss chances with w - l = v and w + d + l = 1.
// The draw chance is kept as far as it fits: it is at most 1 - |v| (a
// value of ±1 leaves no room for a draw), and a negative or NaN one counts
// as 0. A v outside [-1, 1] is clamped.
func SplitWDL(v, draw float32) [3]float32 {
	v = max(-1, min(1, v))
	if math.IsNaN(float64(draw)) || draw < 0 {
		draw = 0
	}
	d := min(draw, 1-abs32(v))
	w := max(0, (1-d+v)/2)
	l := max(0, (1-d-v)/2)
	return [3]float32{w, d, l}
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// uniform sets equal priors.
func uniform(r *Request) {
	p := 1 / float32(len(r.Legal))
	for i := range r.Priors {
		r.Priors[i] = p
	}
}

// splitmix64 is a 64-bit mixing function, for deriving seeds.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// Mix derives a seed from a seed and a stream number, so that every game,
// player and search of a run draws from its own reproducible sequence.
func Mix(seed, stream uint64) uint64 { return splitmix64(seed ^ splitmix64(stream)) }

// RolloutEvaluator values a position by random playouts (game.Position's
// RandomDecision) and gives uniform priors. Its result is a function of the
// position and Seed only, so it is safe for concurrent use and searches with
// it are reproducible.
type RolloutEvaluator struct {
	// Rollouts is the number of playouts per position (0 means 1).
	Rollouts int
	// MaxDecisions cuts a playout after that many decisions and scores it by
	// material (MaterialEvaluator's value); 0 plays to the end of the game.
	MaxDecisions int
	// Seed varies the playouts.
	Seed uint64
}

// Evaluate implements Evaluator.
func (e *RolloutEvaluator) Evaluate(batch []Request) error {
	n := max(e.Rollouts, 1)
	var scratch game.MoveScratch
	var mat MaterialEvaluator
	for i := range batch {
		r := &batch[i]
		uniform(r)
		side := r.Pos.SideToMove()
		rng := rand.New(rand.NewPCG(Mix(e.Seed, r.Pos.Hash()), uint64(r.Pos.Ply())))
		var sum float64
		for range n {
			q := r.Pos
			sum += rollout(&q, side, rng, &scratch, e.MaxDecisions, &mat)
		}
		r.Value = float32(sum / float64(n))
		r.WDL = [3]float32{}
	}
	return nil
}

// rollout plays random decisions from p and returns the result for side in
// [-1, 1]; a playout cut after limit decisions (limit > 0) is scored by
// material.
func rollout(p *game.Position, side game.Side, rng *rand.Rand, scratch *game.MoveScratch, limit int, mat *MaterialEvaluator) float64 {
	for n := 0; limit <= 0 || n < limit; n++ {
		d, ok := p.RandomDecision(rng, scratch)
		if !ok {
			return outcomeValue(p.Status().Outcome, side)
		}
		p.Apply(d)
	}
	v := mat.value(p)
	if p.SideToMove() != side {
		v = -v
	}
	return v
}

// outcomeValue is the result o for side s in [-1, 1].
func outcomeValue(o game.Outcome, s game.Side) float64 {
	return 2*o.ScoreFor(s) - 1
}

// DefaultWeights are the material values of soldier, prince and king used by
// the heuristic players.
var DefaultWeights = [game.NumRanks]float64{1, 3, 5}

// MaterialBlend puts the material balance on the board into another
// evaluator's value:
//
//	value = tanh(atanh(inner) + PerSoldier · b)
//
// where b is the side to move's material minus the opponent's, in soldiers
// (DefaultWeights). A network trained on game results can learn that
// material hardly decides a game between its own weak players, and a
// search on its value then gives soldiers away to a player that counts
// them; the blend makes every soldier count at search time. The priors are
// the inner evaluator's. With PlainRaces, positions with one king on the
// board (OneKing) keep the inner value. It is safe for concurrent use if
// Inner is.
type MaterialBlend struct {
	Inner      Evaluator
	PerSoldier float64
	PlainRaces bool
}

// Evaluate implements Evaluator.
func (e *MaterialBlend) Evaluate(batch []Request) error {
	if err := e.Inner.Evaluate(batch); err != nil {
		return err
	}
	for i := range batch {
		r := &batch[i]
		if e.PlainRaces && OneKing(&r.Pos) {
			continue
		}
		me := r.Pos.SideToMove()
		b := sideMaterial(&r.Pos, me, &DefaultWeights) - sideMaterial(&r.Pos, me.Other(), &DefaultWeights)
		if b != 0 {
			r.shiftValue(e.PerSoldier * b)
		}
	}
	return nil
}

// OneKing reports whether p has exactly one king on the board: in a
// variant where a king falls only to a king, the side that has it holds
// the only king and cannot lose.
func OneKing(p *game.Position) bool {
	return p.Pieces(game.South, game.King).Count()+p.Pieces(game.North, game.King).Count() == 1
}

// Ablated takes apart another evaluator for diagnosis: with UniformPolicy
// it replaces the inner priors by equal ones, and with MaterialValue it
// replaces the inner value by MaterialEvaluator's (and drops the WDL), so
// that a network's policy and value can be judged one at a time against the
// plain material count. It is safe for concurrent use if Inner is.
type Ablated struct {
	Inner         Evaluator
	UniformPolicy bool
	MaterialValue bool
	material      MaterialEvaluator
}

// Evaluate implements Evaluator.
func (e *Ablated) Evaluate(batch []Request) error {
	if err := e.Inner.Evaluate(batch); err != nil {
		return err
	}
	for i := range batch {
		r := &batch[i]
		if e.UniformPolicy {
			uniform(r)
		}
		if e.MaterialValue {
			r.Value, r.WDL = float32(e.material.value(&r.Pos)), [3]float32{}
		}
	}
	return nil
}

// MaterialEvaluator values a position by its material balance and gives
// uniform or capture-biased priors. It has no state and is safe for
// concurrent use.
type MaterialEvaluator struct {
	// Weights are the values of soldier, prince and king (zero: DefaultWeights).
	Weights [game.NumRanks]float64
	// Scale maps the balance b (own material minus the opponent's) to a value
	// tanh(Scale·b) (0 means 0.25).
	Scale float64
	// CaptureBias multiplies the prior of every jump before normalising
	// (0 or 1: uniform priors).
	CaptureBias float64
}

// Evaluate implements Evaluator.
func (e *MaterialEvaluator) Evaluate(batch []Request) error {
	for i := range batch {
		r := &batch[i]
		r.Value = float32(e.value(&r.Pos))
		r.WDL = [3]float32{}
		bias := float32(e.CaptureBias)
		if bias <= 0 {
			bias = 1
		}
		var sum float32
		for j, d := range r.Legal {
			w := float32(1)
			if d.IsJump() {
				w = bias
			}
			r.Priors[j] = w
			sum += w
		}
		for j := range r.Priors {
			r.Priors[j] /= sum
		}
	}
	return nil
}

// value is the heuristic value of p for its side to move.
func (e *MaterialEvaluator) value(p *game.Position) float64 {
	w := e.Weights
	if w == ([game.NumRanks]float64{}) {
		w = DefaultWeights
	}
	scale := e.Scale
	if scale == 0 {
		scale = 0.25
	}
	if st := p.Status(); st.Over() {
		return outcomeValue(st.Outcome, p.SideToMove())
	}
	me := p.SideToMove()
	m := material(p, me, &w)
	// Break the ties of equal material by the hunt: the side ahead wants to
	// close in on the other's last pieces.
	if m > 0 {
		m -= 0.02 * float64(huntDistance(p, me))
	} else if m < 0 {
		m += 0.02 * float64(huntDistance(p, me.Other()))
	}
	return math.Tanh(scale * m)
}

// maxHunted is the largest number of pieces of the side behind for which
// huntDistance is computed.
const maxHunted = 8

// huntDistance returns the sum, over the pieces of the opponent of leader,
// of the distance (steps along lines) to the nearest piece of leader; 0 if
// the opponent has more than maxHunted pieces. The side ahead in material
// wants it small, so that it makes progress instead of shuffling.
func huntDistance(p *game.Position, leader game.Side) int {
	prey := p.Occupied(leader.Other())
	if prey.Count() > maxHunted {
		return 0
	}
	b := p.Board()
	hunters := p.Occupied(leader)
	sum := 0
	for !prey.Empty() {
		q := prey.PopFirst()
		best := math.MaxInt
		for h := hunters; !h.Empty(); {
			best = min(best, b.Distance(q, h.PopFirst()))
		}
		if best != math.MaxInt {
			sum += best
		}
	}
	return sum
}

// material is the weighted material of side s minus that of its opponent.
func material(p *game.Position, s game.Side, w *[game.NumRanks]float64) float64 {
	var v float64
	for r := range game.Rank(game.NumRanks) {
		v += w[r] * float64(p.Pieces(s, r).Count()-p.Pieces(s.Other(), r).Count())
	}
	return v
}

// Batcher shares one Evaluator between goroutines: each Evaluate call waits
// while the batcher gathers the requests of all callers into one batch,
// evaluates it with one call of the inner evaluator, and hands each caller
// its results. This is the search's batching boundary: game workers call
// Evaluate as if they were alone, and while the inner evaluator works on
// one batch the next one fills up. A Batcher is safe for concurrent use.
type Batcher struct {
	inner    Evaluator
	maxBatch int
	maxWait  time.Duration
	calls    chan *batchCall
	done     chan struct{}
	once     sync.Once

	mu      sync.Mutex
	batches int64
	items   int64
}

type batchCall struct {
	reqs []Request
	err  chan error
}

// NewBatcher starts a batcher in front of inner. A batch holds every call
// waiting when the evaluator is free, up to maxBatch requests (≤ 0: 256;
// one call is never split); with maxWait > 0 the batcher also waits up to
// maxWait after the first call for the batch to fill. Close it when done.
func NewBatcher(inner Evaluator, maxBatch int, maxWait time.Duration) *Batcher {
	if maxBatch <= 0 {
		maxBatch = 256
	}
	b := &Batcher{inner: inner, maxBatch: maxBatch, maxWait: maxWait,
		calls: make(chan *batchCall, 1024), done: make(chan struct{})}
	go b.serve()
	return b
}

// ErrClosed is returned by a Batcher's Evaluate after Close.
var ErrClosed = errors.New("mcts: batcher is closed")

// Evaluate implements Evaluator; it blocks until the batch that holds these
// requests has been evaluated.
func (b *Batcher) Evaluate(batch []Request) error {
	if len(batch) == 0 {
		return nil
	}
	c := &batchCall{reqs: batch, err: make(chan error, 1)}
	select {
	case b.calls <- c:
	case <-b.done:
		return ErrClosed
	}
	select {
	case err := <-c.err:
		return err
	case <-b.done:
		return ErrClosed
	}
}

// Stats returns the number of batches evaluated and the requests in them.
func (b *Batcher) Stats() (batches, requests int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.batches, b.items
}

// Close stops the batcher; waiting and later calls return ErrClosed.
func (b *Batcher) Close() { b.once.Do(func() { close(b.done) }) }

func (b *Batcher) serve() {
	var merged []Request
	var pending []*batchCall
	for {
		var first *batchCall
		select {
		case first = <-b.calls:
		case <-b.done:
			return
		}
		pending = append(pending[:0], first)
		n := len(first.reqs)
	drain:
		for n < b.maxBatch {
			select {
			case c := <-b.calls:
				pending = append(pending, c)
				n += len(c.reqs)
			default:
				break drain
			}
		}
		if b.maxWait > 0 && n < b.maxBatch {
			timer := time.NewTimer(b.maxWait)
		gather:
			for n < b.maxBatch {
				select {
				case c := <-b.calls:
					pending = append(pending, c)
					n += len(c.reqs)
				case <-timer.C:
					break gather
				case <-b.done:
					timer.Stop()
					return
				}
			}
			timer.Stop()
		}
		merged = merged[:0]
		for _, c := range pending {
			merged = append(merged, c.reqs...)
		}
		err := b.inner.Evaluate(merged)
		b.mu.Lock()
		b.batches++
		b.items += int64(len(merged))
		b.mu.Unlock()
		k := 0
		for _, c := range pending {
			for i := range c.reqs {
				// Priors share their backing array; copy the scalars back.
				c.reqs[i].Value, c.reqs[i].WDL = merged[k].Value, merged[k].WDL
				if len(c.reqs[i].Priors) != len(merged[k].Priors) {
					c.reqs[i].Priors = merged[k].Priors
				}
				k++
			}
			c.err <- err
		}
	}
}
