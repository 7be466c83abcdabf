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
	// Nodes, if more than 0, bounds the alpha-beta nodes of one root's
	// deepening, all its searches together: the guard deepens no further
	// once they are spent, and vetoes by the deepest search completed
	// within them. Unlike a time share it gives the same vetoes on any
	// machine, and it lets a search bounded by simulations deepen as far
	// as a position allows: few turns in a crowded middle game, more in an
	// endgame of a few pieces, where the network misses captures
	// (docs/experiments/2026-11-strength.md §9 measures the depths).
	Nodes int64
	// Extend makes the guard's searches extend single replies
	// (AlphaBetaConfig.Extend): where capture is compulsory, an offered
	// soldier forces its capture, and the sacrifices that set a king up
	// to be taken are seen a turn or two sooner (docs/experiments/2026-11-strength.md §10).
	Extend bool
	// Order makes the guard's searches order quiet decisions by killers
	// and history and search with null windows
	// (AlphaBetaConfig.Order): fewer nodes a depth, so a node budget or a
	// time share reaches deeper.
	Order bool
	ab    *AlphaBetaPlayer
}

// MaxGuardDepth bounds Guard.Depth, MaxGuardNodes the spec key gnodes=.
const (
	MaxGuardDepth = 16
	MaxGuardNodes = 1 << 30
	// MaxGuardKingValue bounds SetKingValue, well below the alpha-beta's
	// win score.
	MaxGuardKingValue = 1000
)

// The guard's usual settings, those of the shipped players ("dablot play",
// "engine", "serve", "ladder", "analyse balance"): a margin of half a soldier,
// single replies extended, killers, history and null windows, and up to
// MaxGuardDepth turns, within half of a time limit or, for a search
// bounded by simulations, within DefaultGuardNodes alpha-beta nodes. That budget costs a few milliseconds
// a decision, less than 200 simulations of the network; it buys few turns
// where many pieces give many decisions, and many in an endgame of few
// pieces, where the network misses the captures that win it
// (docs/experiments/2026-11-strength.md §9). The extensions cost no depth within the budget
// and stop the king combinations of the variants where soldiers must
// capture (§10).
const (
	// DefaultGuardMargin is Guard.Margin's default: half a soldier. With
	// a margin of a soldier the models lost games by concessions inside
	// it (docs/experiments/2026-11-strength.md §21); half a soldier took dablot.dbm from
	// 71.0 % to 87.0 % (100 ms, 100 games, +16.0 ± 6.5 points game by
	// game) and the winther chain from 45.0 % to 63.7 % at 1 s (40 games,
	// +18.8 ± 13.0), and was level on winther.dbm at 100 ms (+2.0 ± 8.2;
	// §17, §22).
	DefaultGuardMargin = 50
	DefaultGuardShare  = 0.5
	DefaultGuardDepth  = MaxGuardDepth
	DefaultGuardNodes  = 50_000
	DefaultGuardExtend = true
	// DefaultGuardOrder is Guard.Order's default: killers, history and
	// null windows in the guard's searches. On the winther ladder (100 ms,
	// 100 games from the book) they took winther.dbm from 44.5 % to
	// 56.0 %, +11.5 ± 8.6 points game by game (docs/experiments/2026-11-strength.md §16).
	DefaultGuardOrder = true
	// DefaultGuardKingValue is the king's value in the guard's evaluation,
	// in soldiers (the alpha-beta players' weights say 5). Where a king is
	// taken only by a king (dablot, keyland), the side left with the only
	// king cannot lose its last piece. On the dablot ladder (100 ms,
	// 100 games each) the model lost its king first in 36 games with 5,
	// 17 with 10 and 22 with 20, and scored 70.0 %, 74.5 % and 70.0 %
	// (docs/experiments/2026-11-strength.md §11). Where taking the king ends the game
	// (winther, frostviken) both kings stand in every position the
	// evaluation sees, and the value changes nothing.
	DefaultGuardKingValue = 10
)

// DefaultGuardNodesFor returns the usual node budget (Guard.Nodes) of a
// guard for searches within lim: none with a time limit (its share of the
// time bounds it), else DefaultGuardNodes.
func DefaultGuardNodesFor(lim Limits) int64 {
	if lim.Time > 0 {
		return 0
	}
	return DefaultGuardNodes
}

// NewDefaultGuard returns a guard of up to depth turns with the usual
// settings for searches within lim: DefaultGuardMargin, DefaultGuardShare
// of a time limit, DefaultGuardNodesFor(lim) nodes.
func NewDefaultGuard(depth int, lim Limits) (*Guard, error) {
	g, err := NewGuard(depth, DefaultGuardMargin, DefaultGuardShare)
	if err != nil {
		return nil, err
	}
	g.Nodes = DefaultGuardNodesFor(lim)
	return g, nil
}

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
	g := &Guard{Depth: depth, Margin: margin, Share: share, Extend: DefaultGuardExtend, Order: DefaultGuardOrder, ab: ab}
	if err := g.SetKingValue(DefaultGuardKingValue); err != nil {
		return nil, err
	}
	return g, nil
}

// Excluded returns the legal decisions of p that the guard vetoes: those
// that the deepest search completed before deadline (zero: none; Depth
// then bounds it) scores more than Margin below the best. It never vetoes
// them all, and vetoes none if not even a search of one turn completes
// (the deadline is checked every 1024 nodes, so one turn nearly always
// does).
func (g *Guard) Excluded(ctx context.Context, p *game.Position, deadline time.Time) ([]game.Decision, error) {
	ex, _, err := g.excluded(ctx, p, deadline, Limits{})
	return ex, err
} // excluded is Excluded that also stops deepening once lim.Stop (nil:
// never) is closed, and returns the turns of the deepest search completed.
func (g *Guard) excluded(ctx context.Context, p *game.Position, deadline time.Time, lim Limits) ([]game.Decision, int, error) {
	if g.ab == nil {
		return nil, 0, errors.New("mcts: Guard not made by NewGuard")
	}
	search := ctx
	if lim.Stop != nil {
		var cancel context.CancelFunc
		search, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-lim.Stop:
				cancel()
			case <-search.Done():
			}
		}()
	}
	g.ready()
	var out []game.Decision
	var used int64
	reached := 0
	for d := 1; d <= g.Depth && !lim.stopped(); d++ {
		budget := int64(0)
		if g.Nodes > 0 {
			if budget = g.Nodes - used; budget <= 0 {
				break
			}
		}
		before := g.ab.Nodes
		r, err := g.ab.vetoes(search, p, vetoLimits{depth: d, margin: g.Margin, deadline: deadline, maxNodes: budget})
		used += g.ab.Nodes - before
		if errors.Is(err, errGuardTime) || err != nil && ctx.Err() == nil && search.Err() != nil {
			break // out of time or nodes, or stopped
		}
		if err != nil {
			return nil, 0, err
		}
		out, reached = r.excluded, d
		if !deadline.IsZero() && time.Now().After(deadline) {
			break
		}
	}
	return out, reached, nil
}

// ready gives the guard's alpha-beta its settings (Extend, Order) and
// clears its killers and history, before a root's deepening.
func (g *Guard) ready() {
	g.ab.cfg.Extend, g.ab.cfg.Order = g.Extend, g.Order
	g.ab.clearOrder()
}

// Restriction is what Guard.Restrict did to a search's root.
type Restriction struct {
	// Excluded are the vetoed decisions, to exclude from the search.
	Excluded []game.Decision
	// Only is the one decision the guard left, when Guarded is set: the
	// search need not run.
	Only    game.Decision
	Guarded bool
	// Limits are the search's limits less the guard's time.
	Limits Limits
	// Took is the guard's time, and Depth the turns of its deepest search
	// completed (0: none, or no guard was needed).
	Took  time.Duration
	Depth int
}

// Restrict runs the guard on q, the root of a search that will run within
// lim, and returns the decisions to exclude from it (Search.Exclude) with
// the limits left for it; when it leaves a single decision, that decision
// with Guarded set, and the search need not run. A position with one legal
// decision is left alone. The guard deepens no further once lim.Stop is
// closed, nor past its share of lim.Time.
func (g *Guard) Restrict(ctx context.Context, q *game.Position, lim Limits) (Restriction, error) {
	r := Restriction{Limits: lim}
	start := time.Now()
	legal := q.Decisions(nil)
	if len(legal) <= 1 {
		return r, nil
	}
	ex, depth, err := g.excluded(ctx, q, g.deadline(start, lim), lim)
	if err != nil {
		return r, err
	}
	r.Excluded, r.Depth = ex, depth
	r.Took = time.Since(start)
	if lim.Time > 0 {
		r.Limits.Time = max(lim.Time-r.Took, time.Millisecond)
	}
	if d, ok := onlyAllowed(legal, ex); ok {
		r.Only, r.Guarded = d, true
	}
	return r, nil
}

// Spec returns the guard's settings as the keys of a player spec
// (NewSpecFactory), every one of them, defaults included: "guard=16,
// gmargin=50,gshare=0.5,gnodes=50000,gext=1,gorder=1,gking=10".
// A record of games played with a guard names it so, and a guard made
// with other defaults names itself differently.
func (g *Guard) Spec() string {
	return fmt.Sprintf("guard=%d,gmargin=%d,gshare=%g,gnodes=%d,gext=%d,gorder=%d,gking=%d",
		g.Depth, g.Margin, g.Share, g.Nodes, b2i(g.Extend), b2i(g.Order), g.KingValue())
}

// b2i is 1 for true and 0 for false, as spec values are written.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// KingValue returns the value of a king in the guard's evaluation, in
// soldiers (DefaultGuardKingValue unless SetKingValue changed it).
func (g *Guard) KingValue() int {
	return g.ab.cfg.Weights[game.King] / g.ab.cfg.Weights[game.Soldier]
}

// SetKingValue sets the value of a king in the guard's evaluation to
// soldiers soldiers (1 to MaxGuardKingValue). In dablot a king can be
// taken only by a king, so the side that keeps the last king cannot lose
// its last piece: it is worth more than the five soldiers of the
// alpha-beta players' weights, and a guard that counts it so vetoes the
// sacrifices that lure a king into a capture (docs/experiments/2026-11-strength.md §11).
func (g *Guard) SetKingValue(soldiers int) error {
	if soldiers < 1 || soldiers > MaxGuardKingValue {
		return fmt.Errorf("mcts: guard king value %d: want 1 to %d soldiers", soldiers, MaxGuardKingValue)
	}
	g.ab.cfg.Weights[game.King] = soldiers * g.ab.cfg.Weights[game.Soldier]
	return nil
}

// GuardRoot runs guard g, if not nil, on the search's root (Restrict) and
// excludes the decisions it vetoes from the search's runs until the root
// moves on. It returns what the guard did, with the limits left for the
// search (lim, without a guard).
func (s *Search) GuardRoot(ctx context.Context, g *Guard, lim Limits) (r Restriction, err error) {
	if g == nil {
		return Restriction{Limits: lim}, nil
	}
	if s.root == nil {
		return Restriction{Limits: lim}, errors.New("mcts: GuardRoot before SetPosition")
	}
	r, err = g.Restrict(ctx, &s.root.pos, lim)
	if err != nil {
		return r, err
	}
	return r, s.Exclude(r.Excluded)
}

// onlyAllowed returns the one decision of legal not in excluded, and true,
// when exactly one is left.
func onlyAllowed(legal, excluded []game.Decision) (game.Decision, bool) {
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
// starts at start; zero without a time limit.
func (g *Guard) deadline(start time.Time, lim Limits) time.Time {
	if lim.Time <= 0 {
		return time.Time{}
	}
	return start.Add(time.Duration(g.Share * float64(lim.Time)))
}
