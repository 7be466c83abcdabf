package game_test

import (
	"slices"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// forcedWin reports whether side wins p by force within plies complete
// turns, searching every turn of the other side. The side's own turns are
// tried fewest replies first, so that lures (a piece offered to a
// compulsory capture) are tried before quiet turns.
func forcedWin(p *game.Position, side game.Side, plies int) bool {
	if st := p.Status(); st.Over() {
		w, ok := st.Outcome.Winner()
		return ok && w == side
	}
	if plies == 0 {
		return false
	}
	var next []game.Position
	p.TurnEnds(func(after *game.Position) { next = append(next, *after) })
	if p.SideToMove() != side {
		for i := range next {
			if !forcedWin(&next[i], side, plies-1) {
				return false
			}
		}
		return true
	}
	slices.SortStableFunc(next, func(a, b game.Position) int { return a.CountTurns() - b.CountTurns() })
	for i := range next {
		if forcedWin(&next[i], side, plies-1) {
			return true
		}
	}
	return false
}

// TestWintherAllMustCaptureIsAForcedWin: the source's claim, that with
// compulsory capture for prince and king as well the first player wins
// from the start, holds. South takes North's king by force within seven
// complete turns (four of its own), every North reply searched, and not
// within five: c5-b6 a7xc5 g5-h6 c5xg5 d4-c5 g5xi7 k7xg7 is one such line
// (after g5-h6 North may also take on to i7, and k7xg7 follows).
func TestWintherAllMustCaptureIsAForcedWin(t *testing.T) {
	r := configs.MustVariant("winther-all-must-capture")
	p := r.Start()
	if !forcedWin(&p, r.First, 7) {
		t.Errorf("the first player (%v) has no forced win within 7 turns", r.First)
	}
	if forcedWin(&p, r.First, 5) {
		t.Errorf("the first player (%v) wins by force within 5 turns; the shortest win was 7", r.First)
	}
	// The claim is the capture rule's: where only soldiers must capture,
	// the same lure is refused.
	w := configs.MustVariant("winther")
	q := w.Start()
	if forcedWin(&q, w.First, 7) {
		t.Errorf("winther: the first player (%v) wins by force within 7 turns", w.First)
	}
}
