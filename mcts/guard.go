package mcts

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/dablot-zero/dablot/game"
)

// Guard is a tactical safety net for a network search, in the spirit of the
// MCTS-minimax hybrids of Baier and Winands ("MCTS-Minimax Hybrids", 2015):
// before each search a shallow alpha-beta search (material, mobility and
// captures resolved by quiescence: AlphaBetaPlayer's evaluation) scores
// every root decision, and the decisions that score more than Margin below
// the best are excluded from the search (Search.Exclude). A network whose
// losses are tactics a few turns deep then cannot walk into them; the price
// is that a sacrifice deeper than Depth looks like a loss and is vetoed.
type Guard struct {
	// Depth is the alpha-beta depth in turns, the decision's own turn
	// included (1 to MaxGuardDepth).
	Depth int
	// Margin is how far below the best score, in evaluation units (a
	// soldier is 100), a decision may score and still be searched.
	Margin int
	ab     *AlphaBetaPlayer
}

// MaxGuardDepth bounds Guard.Depth: every root decision is searched to that
// depth, before the network search's own budget.
const MaxGuardDepth = 8

// guardTTBits is the size of a guard's transposition table (2^16 entries,
// 1 MB): its searches are shallow.
const guardTTBits = 16

// NewGuard returns a guard that searches depth turns and excludes what
// scores more than margin below the best.
func NewGuard(depth, margin int) (*Guard, error) {
	if depth < 1 || depth > MaxGuardDepth {
		return nil, fmt.Errorf("mcts: guard depth %d: want 1 to %d", depth, MaxGuardDepth)
	}
	if margin < 0 {
		return nil, fmt.Errorf("mcts: guard margin %d: want 0 or more", margin)
	}
	cfg := DefaultAlphaBetaConfig()
	cfg.Depth, cfg.TTBits = depth, guardTTBits
	ab, err := NewAlphaBetaPlayer(cfg)
	if err != nil {
		return nil, err
	}
	return &Guard{Depth: depth, Margin: margin, ab: ab}, nil
}

// Excluded returns the legal decisions of p that the guard vetoes: those
// that score more than Margin below the best. It never vetoes them all.
func (g *Guard) Excluded(ctx context.Context, p *game.Position) ([]game.Decision, error) {
	if g.ab == nil {
		return nil, errors.New("mcts: Guard not made by NewGuard")
	}
	legal, scores, err := g.ab.ScoreDecisions(ctx, p, g.Depth)
	if err != nil {
		return nil, err
	}
	best := slices.Max(scores)
	var out []game.Decision
	for i, v := range scores {
		if v < best-g.Margin {
			out = append(out, legal[i])
		}
	}
	return out, nil
}

// Nodes is the number of alpha-beta nodes the guard has searched.
func (g *Guard) Nodes() int64 { return g.ab.Nodes }
