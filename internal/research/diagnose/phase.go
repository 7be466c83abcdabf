package diagnose

import (
	"fmt"

	"github.com/dablot-zero/dablot/game"
)

// Phase is a phase of the game by the pieces left on the board, both
// sides together: Min to Max.
type Phase struct {
	Name     string
	Min, Max int
}

// Phases are the phases the measurements are split by, from the opening
// to the endings the exact tables hold (mcts.MaxEndgamePieces).
var Phases = []Phase{
	{"≥ 20 pieces", 20, 1 << 20},
	{"12–19", 12, 19},
	{"6–11", 6, 11},
	{"4–5", 4, 5},
	{"≤ 3", 0, 3},
}

// PhaseOf returns the index in Phases of the phase of a position with
// pieces pieces.
func PhaseOf(pieces int) int {
	for i, ph := range Phases {
		if pieces >= ph.Min && pieces <= ph.Max {
			return i
		}
	}
	panic(fmt.Sprintf("diagnose: no phase holds %d pieces", pieces))
}

// phaseOf is PhaseOf of p's pieces.
func phaseOf(p *game.Position) int { return PhaseOf(p.PieceCount()) }
