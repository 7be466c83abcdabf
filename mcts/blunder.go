package mcts

import (
	"math"

	"github.com/dablot-zero/dablot/game"
)

// TurnJudge judges complete turns by the material they keep two plies
// deep: what the turn itself captures, less what the opponent's best
// capture sequence after it wins (the capture search of
// QuiescenceEvaluator, on material only). A turn that ends the game counts
// as ±20 soldiers for a win or a loss and 0 for a draw, the bound of the
// capture search, which counts the opponent's winning capture the same.
//
// Loss compares a turn with the best turn of the same position, so a
// blunder in this sense is a turn that keeps a soldier's worth (or more)
// less material than another turn would have. It is a fast, crude judge of
// tactics, for comparing players on the same positions: it sees no quiet
// threat, and calls a sacrifice for a later gain a blunder too (the
// alpha-beta baseline itself "blunders" on some turns by it).
//
// A TurnJudge holds search scratch: give each goroutine its own.
type TurnJudge struct {
	q QuiescenceEvaluator
}

// judgedWin is what a won game counts, in soldiers.
const judgedWin = maxSwing

// score is the material that the turn from p to after keeps, in soldiers,
// for p's side to move.
func (j *TurnJudge) score(p, after *game.Position) float64 {
	me := p.SideToMove()
	if st := after.Status(); st.Over() {
		return judgedWin * (2*st.Outcome.ScoreFor(me) - 1)
	}
	w := &DefaultWeights
	gain := (sideMaterial(p, me.Other(), w) - sideMaterial(after, me.Other(), w)) -
		(sideMaterial(p, me, w) - sideMaterial(after, me, w))
	return gain - j.q.Swing(after)
}

// Loss returns how much material (in soldiers, 0 or more) the turn from p
// (at the start of a turn) to after keeps less than the best complete turn
// of p, by the judgement above.
func (j *TurnJudge) Loss(p, after *game.Position) float64 {
	best := math.Inf(-1)
	forEachTurn(p, func(_ []game.Decision, a *game.Position) {
		best = max(best, j.score(p, a))
	})
	if math.IsInf(best, -1) {
		return 0 // no turn: nothing to compare
	}
	return max(0, best-j.score(p, after))
}
