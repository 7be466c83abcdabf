package mcts

// DrawScale shrinks another evaluator's value towards a draw as the
// position's no-capture counter nears the rules' limit, as chess engines
// scale their evaluation by the fifty-move counter:
//
//	value · (1 − Rate · quiet / limit)
//
// where quiet is the plies since the last capture and limit the rules'
// no-capture limit (no scaling without one). A side ahead then values the
// same position more just after a capture than many quiet turns later, so
// it has a reason to capture before the limit draws the game. The priors
// are the inner evaluator's; a WDL keeps its draw share as far as it fits
// (Request.SetValue). It is safe for concurrent use if Inner is.
type DrawScale struct {
	Inner Evaluator
	Rate  float64 // 0 to 1: the share of the value gone at the limit
}

// Evaluate implements Evaluator.
func (e *DrawScale) Evaluate(batch []Request) error {
	if err := e.Inner.Evaluate(batch); err != nil {
		return err
	}
	for i := range batch {
		r := &batch[i]
		if f := drawFactor(r.Pos.Quiet(), r.Pos.Rules().NoCaptureLimit, e.Rate); f != 1 {
			r.SetValue(float64(r.Value) * f)
		}
	}
	return nil
}

// drawFactor is DrawScale's multiplier for quiet plies of a limit.
func drawFactor(quiet, limit int, rate float64) float64 {
	if limit <= 0 || rate <= 0 || quiet <= 0 {
		return 1
	}
	return 1 - rate*float64(min(quiet, limit))/float64(limit)
}
