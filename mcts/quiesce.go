package mcts

import (
	"context"
	"math"
	"slices"

	"github.com/dablot-zero/dablot/game"
)

// QuiescenceEvaluator puts a capture search in front of another evaluator.
// A tree search with a few hundred simulations misses exchanges that a
// full-width search with quiescence sees at once: a network's value of a
// leaf where a capture is pending is a guess about a position that is not
// quiet. For each leaf, QuiescenceEvaluator searches the captures that are
// pending (alpha-beta over captures and chain continuations only, on
// material) and shifts the inner evaluator's value by the material that
// search wins or loses:
//
//	value = tanh(atanh(inner) + Scale · swing)
//
// where swing is the material the capture search gains for the side to
// move, in soldiers. Quiet leaves (swing 0) keep the inner value; the
// priors are the inner evaluator's.
//
// A QuiescenceEvaluator holds search scratch: give each goroutine its own
// (they may share the inner evaluator if it is safe for concurrent use,
// such as a Batcher).
type QuiescenceEvaluator struct {
	// Inner gives the priors and the value of the quiet position.
	Inner Evaluator
	// Scale is the shift of the value's logit per soldier won (0: 0.5).
	Scale float64

	ab *AlphaBetaPlayer
}

// NewQuiescenceEvaluator returns a QuiescenceEvaluator in front of inner.
func NewQuiescenceEvaluator(inner Evaluator, scale float64) *QuiescenceEvaluator {
	return &QuiescenceEvaluator{Inner: inner, Scale: scale}
}

// maxSwing bounds the swing (in soldiers) so that a forced win found by
// the capture search saturates the value instead of overflowing it.
const maxSwing = 20

// Evaluate implements Evaluator.
func (e *QuiescenceEvaluator) Evaluate(batch []Request) error {
	if err := e.Inner.Evaluate(batch); err != nil {
		return err
	}
	scale := e.Scale
	if scale == 0 {
		scale = 0.5
	}
	for i := range batch {
		r := &batch[i]
		if swing := e.swing(&r.Pos, r.Legal); swing != 0 {
			r.shiftValue(scale * swing)
		}
	}
	return nil
}

// shiftValue adds x to the logit (atanh) of r's value, and moves its WDL,
// if it has one, to match.
func (r *Request) shiftValue(x float64) {
	v := math.Max(-0.999, math.Min(0.999, float64(r.Value)))
	r.SetValue(math.Tanh(math.Atanh(v) + x))
}

// SetValue replaces r's value by v, clipped to [-1, 1], and moves its WDL,
// if it has one, to match: the draw share is kept as far as it fits
// (an evaluator that adjusts another's value, such as a network's score
// utility, keeps Value equal to WDL[0]-WDL[2]).
func (r *Request) SetValue(v float64) {
	nv := float32(math.Max(-1, math.Min(1, v)))
	r.Value = nv
	if r.WDL != ([3]float32{}) {
		r.WDL = SplitWDL(nv, r.WDL[1])
	}
}

// Swing returns the material (in soldiers, at most maxSwing either way)
// that the capture search wins for p's side to move over the material on
// the board now: 0 in a quiet position.
func (e *QuiescenceEvaluator) Swing(p *game.Position) float64 {
	return e.swing(p, p.Decisions(nil))
}

// swing is Swing given p's legal decisions (which it does not reorder).
func (e *QuiescenceEvaluator) swing(p *game.Position, decisions []game.Decision) float64 {
	if p.Chain() < 0 && !slices.ContainsFunc(decisions, game.Decision.IsJump) {
		return 0 // nothing to capture: the position is quiet
	}
	if e.ab == nil {
		// The capture search values material as the alpha-beta baseline does.
		e.ab = &AlphaBetaPlayer{cfg: AlphaBetaConfig{Depth: 1, Quiescence: true, Weights: DefaultAlphaBetaConfig().Weights}}
		e.ab.ctx = context.Background()
	}
	ab := e.ab
	ab.setSteps(p.Rules())
	ab.stop, ab.nodes = false, 0
	// The search orders its decisions in place: give it a copy.
	legal := append(ab.bufs[0][:0], decisions...)
	if len(legal) == 0 {
		return 0
	}
	static := ab.Evaluate(p)
	q := ab.quiesce(p, legal, -infScore, infScore, 0)
	return math.Max(-maxSwing, math.Min(maxSwing, float64(q-static)/100))
}
