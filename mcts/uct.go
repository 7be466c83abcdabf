package mcts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/dablot-zero/dablot/game"
)

// UCTConfig sets up a UCTPlayer.
type UCTConfig struct {
	// Playouts is the number of playouts per decision, at most MaxSims;
	// Time (if > 0) bounds the search of one decision too. At least one
	// must be set. Each playout adds a node to the tree, so a search
	// bounded by time alone stops at MaxNodes playouts.
	Playouts int
	Time     time.Duration
	// C is the UCB1 exploration constant for results scaled to [0, 1]
	// (0 means √2).
	C float64
	// MaxRollout cuts a playout after that many decisions and scores it by
	// material, as RolloutEvaluator does; 0 plays every playout to the end.
	MaxRollout int
	// Seed seeds the playouts and the expansion order.
	Seed uint64
}

// UCTPlayer is plain UCT: UCB1 selection, one node added per playout,
// uniformly random playouts, and the most visited decision played. It
// searches decision by decision; every node knows its side to move, so a
// capture chain (the same side deciding again) is handled like any decision.
type UCTPlayer struct {
	cfg     UCTConfig
	rng     *rand.Rand
	scratch game.MoveScratch
	mat     MaterialEvaluator
	// Playouts counts the playouts run so far.
	Playouts int64
	// Elapsed is the time spent searching so far.
	Elapsed time.Duration
}

// NewUCTPlayer returns a UCT player.
func NewUCTPlayer(cfg UCTConfig) (*UCTPlayer, error) {
	switch {
	case cfg.Playouts <= 0 && cfg.Time <= 0:
		return nil, errors.New("mcts: UCT needs a number of playouts or a time")
	case cfg.Playouts > MaxSims:
		return nil, fmt.Errorf("mcts: UCT playouts %d: want at most %d (mcts.MaxSims), so that the tree fits in memory", cfg.Playouts, MaxSims)
	case cfg.C < 0 || math.IsNaN(cfg.C) || math.IsInf(cfg.C, 0):
		return nil, fmt.Errorf("mcts: UCT constant %g: want a number ≥ 0", cfg.C)
	case cfg.MaxRollout < 0:
		return nil, fmt.Errorf("mcts: UCT rollout limit %d: want ≥ 0", cfg.MaxRollout)
	}
	if cfg.C == 0 {
		cfg.C = math.Sqrt2
	}
	return &UCTPlayer{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x75637421))}, nil
}

type uctNode struct {
	pos      game.Position
	move     game.Decision // the decision that led here
	side     game.Side
	over     bool
	n        float64
	w        float64 // sum of results for side, in [-1, 1]
	untried  []game.Decision
	children []*uctNode
}

func (u *UCTPlayer) newNode(p game.Position) *uctNode {
	n := &uctNode{pos: p, side: p.SideToMove()}
	n.untried = p.Decisions(nil)
	n.over = len(n.untried) == 0
	return n
}

// Decide searches p and returns the most visited decision.
func (u *UCTPlayer) Decide(ctx context.Context, p *game.Position) (game.Decision, error) {
	if u.rng == nil {
		return 0, errors.New("mcts: UCTPlayer not made by NewUCTPlayer")
	}
	start := time.Now()
	defer func() { u.Elapsed += time.Since(start) }()
	root := u.newNode(*p)
	if root.over {
		return 0, errOver
	}
	if len(root.untried) == 1 {
		return root.untried[0], nil
	}
	path := make([]*uctNode, 0, 64)
	for i := 0; (u.cfg.Playouts <= 0 || i < u.cfg.Playouts) && i < MaxNodes; i++ {
		if i&63 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			if u.cfg.Time > 0 && time.Since(start) >= u.cfg.Time {
				break
			}
		}
		n := root
		path = append(path[:0], n)
		for !n.over && len(n.untried) == 0 {
			n = u.selectChild(n)
			path = append(path, n)
		}
		if !n.over {
			k := u.rng.IntN(len(n.untried))
			d := n.untried[k]
			n.untried[k] = n.untried[len(n.untried)-1]
			n.untried = n.untried[:len(n.untried)-1]
			q := n.pos
			q.Apply(d)
			c := u.newNode(q)
			c.move = d
			n.children = append(n.children, c)
			n = c
			path = append(path, n)
		}
		var v float64
		if n.over {
			v = outcomeValue(n.pos.Status().Outcome, n.side)
		} else {
			q := n.pos
			v = rollout(&q, n.side, u.rng, &u.scratch, u.cfg.MaxRollout, &u.mat)
		}
		u.Playouts++
		for _, m := range path {
			m.n++
			if m.side == n.side {
				m.w += v
			} else {
				m.w -= v
			}
		}
	}
	var best *uctNode
	for _, c := range root.children {
		if best == nil || c.n > best.n {
			best = c
		}
	}
	if best == nil {
		return root.untried[0], nil // no playout had time to run
	}
	return best.move, nil
}

// selectChild returns the child with the highest UCB1 score for n's side.
func (u *UCTPlayer) selectChild(n *uctNode) *uctNode {
	logN := math.Log(n.n)
	var best *uctNode
	bestScore := math.Inf(-1)
	for _, c := range n.children {
		q := c.w / c.n
		if c.side != n.side {
			q = -q
		}
		score := (q+1)/2 + u.cfg.C*math.Sqrt(logN/c.n)
		if score > bestScore {
			best, bestScore = c, score
		}
	}
	return best
}

// Turn implements Player.
func (u *UCTPlayer) Turn(ctx context.Context, p *game.Position) ([]game.Decision, error) {
	q := *p
	var ds []game.Decision
	for {
		d, err := u.Decide(ctx, &q)
		if err != nil {
			return nil, err
		}
		ds = append(ds, d)
		q.Apply(d)
		if q.Chain() < 0 {
			return ds, nil
		}
	}
}
