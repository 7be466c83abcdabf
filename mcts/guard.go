package mcts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dablot-zero/dablot/game"
)

// Guard is a tactical safety net for a network search, in the spirit of the
// MCTS-minimax hybrids of Baier and Winands ("MCTS-Minimax Hybrids", 2015):
// before each search a shallow alpha-beta search (material, mobility and
// captures resolved by quiescence: AlphaBetaPlayer's evaluation) judges
// every root decision, and the decisions that score more than Margin below
// the best are excluded from the search (Search.Exclude). A network whose
// losses are tactics a few turns deep then cannot walk into them; the price
// is that a sacrifice deeper than the guard looks like a loss and is
// vetoed.
type Guard struct {
	// Depth is the deepest alpha-beta search in turns, the decision's own
	// turn included (1 to MaxGuardDepth). The guard deepens from 1 to Depth
	// and vetoes by the deepest search it completes.
	Depth int
	// Margin is how far below the best score, in evaluation units (a
	// soldier is 100), a decision may score and still be searched.
	Margin int
	// Share is the part of a time-limited search's time that the guard may
	// take (0 to 1): it deepens no further once that time has passed. A
	// search bounded only by simulations gives it no time limit.
	Share float64
	ab    *AlphaBetaPlayer
}

// MaxGuardDepth bounds Guard.Depth.
const MaxGuardDepth = 16

// guardTTBits is the size of a guard's transposition table (2^16 entries,
// 1 MB): self-play makes a guard for every game.
const guardTTBits = 16

// NewGuard returns a guard that searches up to depth turns, takes at most
// share of a time limit, and excludes what scores more than margin below
// the best.
func NewGuard(depth, margin int, share float64) (*Guard, error) {
	switch {
	case depth < 1 || depth > MaxGuardDepth:
		return nil, fmt.Errorf("mcts: guard depth %d: want 1 to %d", depth, MaxGuardDepth)
	case margin < 0:
		return nil, fmt.Errorf("mcts: guard margin %d: want 0 or more", margin)
	case !(share > 0 && share <= 1):
		return nil, fmt.Errorf("mcts: guard share %g: want more than 0, at most 1", share)
	}
	cfg := DefaultAlphaBetaConfig()
	cfg.Depth, cfg.TTBits = depth, guardTTBits
	ab, err := NewAlphaBetaPlayer(cfg)
	if err != nil {
		return nil, err
	}
	return &Guard{Depth: depth, Margin: margin, Share: share, ab: ab}, nil
}

// Excluded returns the legal decisions of p that the guard vetoes: those
// that the deepest search completed before deadline (zero: none; Depth
// then bounds it) scores more than Margin below the best. It never vetoes
// them all, and vetoes none if not even a search of one turn completes
// (the deadline is checked every 1024 nodes, so one turn nearly always
// does).
func (g *Guard) Excluded(ctx context.Context, p *game.Position, deadline time.Time) ([]game.Decision, error) {
	if g.ab == nil {
		return nil, errors.New("mcts: Guard not made by NewGuard")
	}
	var out []game.Decision
	for d := 1; d <= g.Depth; d++ {
		ex, err := g.ab.Vetoes(ctx, p, d, g.Margin, deadline)
		if errors.Is(err, errGuardTime) {
			break
		}
		if err != nil {
			return nil, err
		}
		out = ex
		if !deadline.IsZero() && time.Now().After(deadline) {
			break
		}
	}
	return out, nil
}

// OnlyAllowed returns the one decision of legal not in excluded, and true,
// when exactly one is left.
func OnlyAllowed(legal, excluded []game.Decision) (game.Decision, bool) {
	if len(legal)-len(excluded) != 1 {
		return 0, false
	}
	for _, d := range legal {
		if !slices.Contains(excluded, d) {
			return d, true
		}
	}
	return 0, false
}

// deadline is the end of the guard's share of a search of limits lim that
// starts at start (zero without a time limit).
func (g *Guard) deadline(start time.Time, lim Limits) time.Time {
	if lim.Time <= 0 {
		return time.Time{}
	}
	return start.Add(time.Duration(g.Share * float64(lim.Time)))
}
