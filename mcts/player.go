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

// Player chooses turns. Turn returns the decisions of one complete turn for
// the side to move in p: every decision up to the end of the turn, that is
// until the position is no longer inside a capture chain (the other side is
// to move, or the game is over). p is not over and is not changed. A Player
// belongs to one game and one goroutine; a Factory makes one per game.
type Player interface {
	Turn(ctx context.Context, p *game.Position) ([]game.Decision, error)
}

// Factory makes the players of one kind, one per game, each seeded for its
// game so that a run of games is reproducible.
type Factory struct {
	// Name describes the players, such as the spec they were made from.
	Name  string
	new   func(seed uint64) (Player, error)
	close func()
}

// NewFactory returns a factory named name that makes players with fn.
func NewFactory(name string, fn func(seed uint64) (Player, error)) *Factory {
	return &Factory{Name: name, new: fn}
}

// New makes a player seeded with seed.
func (f *Factory) New(seed uint64) (Player, error) { return f.new(seed) }

// Close releases what the factory's players share (such as a model).
func (f *Factory) Close() {
	if f.close != nil {
		f.close()
	}
}

// errOver is returned when a player is asked to move in a finished game.
var errOver = errors.New("mcts: the game is over")

// PlayTurn asks pl for a turn in p, checks that every decision is legal and
// that they make exactly one complete turn, and plays them on p. It returns
// the decisions played.
func PlayTurn(ctx context.Context, pl Player, p *game.Position) ([]game.Decision, error) {
	var buf [2 * game.MaxPoints]game.Decision
	if len(p.Decisions(buf[:0])) == 0 {
		return nil, errOver
	}
	ds, err := pl.Turn(ctx, p)
	if err != nil {
		return nil, err
	}
	q := *p
	for i, d := range ds {
		legal := q.Decisions(buf[:0])
		if !containsDecision(legal, d) {
			return nil, fmt.Errorf("mcts: decision %d of the turn (%s) is not legal", i+1, q.DecisionString(d))
		}
		q.Apply(d)
		if q.Chain() < 0 {
			if i != len(ds)-1 {
				return nil, fmt.Errorf("mcts: the turn ended after %d of %d decisions", i+1, len(ds))
			}
			*p = q
			return ds, nil
		}
	}
	return nil, fmt.Errorf("mcts: the player returned an unfinished turn (%d decisions)", len(ds))
}

func containsDecision(ds []game.Decision, d game.Decision) bool {
	for _, x := range ds {
		if x == d {
			return true
		}
	}
	return false
}

// RandomPlayer plays a uniformly random legal decision at every step of its
// turn (game.Position's RandomDecision).
type RandomPlayer struct {
	rng     *rand.Rand
	scratch game.MoveScratch
}

// NewRandomPlayer returns a random player seeded with seed.
func NewRandomPlayer(seed uint64) *RandomPlayer {
	return &RandomPlayer{rng: rand.New(rand.NewPCG(seed, 0x72616e64))}
}

// Turn implements Player.
func (rp *RandomPlayer) Turn(_ context.Context, p *game.Position) ([]game.Decision, error) {
	if rp.rng == nil {
		return nil, errors.New("mcts: RandomPlayer not made by NewRandomPlayer")
	}
	q := *p
	var ds []game.Decision
	for {
		d, ok := q.RandomDecision(rp.rng, &rp.scratch)
		if !ok {
			if len(ds) == 0 {
				return nil, errOver
			}
			return ds, nil
		}
		ds = append(ds, d)
		q.Apply(d)
		if q.Chain() < 0 {
			return ds, nil
		}
	}
}

// forEachTurn calls fn with the decisions and the resulting position of
// every complete turn from p (in the middle of a chain: every way to finish
// it). fn must not keep ds or after.
func forEachTurn(p *game.Position, fn func(ds []game.Decision, after *game.Position)) {
	var path []game.Decision
	var walk func(q *game.Position)
	walk = func(q *game.Position) {
		for _, d := range q.Decisions(nil) {
			r := *q
			r.Apply(d)
			path = append(path, d)
			if r.Chain() >= 0 {
				walk(&r)
			} else {
				fn(path, &r)
			}
			path = path[:len(path)-1]
		}
	}
	walk(p)
}

// GreedyPlayer plays the complete turn that gains the most material this
// turn (a win counts above any gain), breaking ties at random.
type GreedyPlayer struct {
	// Weights are the values of soldier, prince and king (DefaultWeights).
	Weights [game.NumRanks]float64
	rng     *rand.Rand
}

// NewGreedyPlayer returns a greedy player seeded with seed.
func NewGreedyPlayer(seed uint64) *GreedyPlayer {
	return &GreedyPlayer{Weights: DefaultWeights, rng: rand.New(rand.NewPCG(seed, 0x67726565))}
}

// Turn implements Player.
func (g *GreedyPlayer) Turn(_ context.Context, p *game.Position) ([]game.Decision, error) {
	if g.rng == nil {
		return nil, errors.New("mcts: GreedyPlayer not made by NewGreedyPlayer")
	}
	me := p.SideToMove()
	before := sideMaterial(p, me.Other(), &g.Weights)
	var best []game.Decision
	bestGain, ties := math.Inf(-1), 0
	forEachTurn(p, func(ds []game.Decision, after *game.Position) {
		gain := before - sideMaterial(after, me.Other(), &g.Weights)
		if st := after.Status(); st.Over() {
			switch st.Outcome.ScoreFor(me) {
			case 1:
				gain = math.Inf(1)
			case 0:
				gain -= 1e6
			}
		}
		switch {
		case gain > bestGain:
			best, bestGain, ties = append(best[:0], ds...), gain, 1
		case gain == bestGain:
			// Reservoir sampling: each tied turn is kept with equal chance.
			ties++
			if g.rng.IntN(ties) == 0 {
				best = append(best[:0], ds...)
			}
		}
	})
	if best == nil {
		return nil, errOver
	}
	return best, nil
}

// Material is side s's material in p at DefaultWeights: soldier 1,
// prince 3, king 5.
func Material(p *game.Position, s game.Side) float64 {
	return sideMaterial(p, s, &DefaultWeights)
}

// sideMaterial is the weighted material of side s.
func sideMaterial(p *game.Position, s game.Side, w *[game.NumRanks]float64) float64 {
	var v float64
	for r := range game.Rank(game.NumRanks) {
		v += w[r] * float64(p.Pieces(s, r).Count())
	}
	return v
}

// SearchPlayer plays with a Search (PUCT or Gumbel): one search per
// decision, keeping the tree between them when the config allows.
type SearchPlayer struct {
	search *Search
	limits Limits
	rng    *rand.Rand
	// OnResult, if set, sees the result of every search.
	OnResult func(p *game.Position, r *Result)
	// Guard, if set, vetoes root decisions before every search; its time
	// counts against a time limit. A decision it leaves alone is played
	// without a search.
	Guard *Guard
	// Endgames, if set, plays the endings it holds in place of the search
	// (and the guard).
	Endgames *EndgameTables
	// Simulations counts the simulations run so far; Elapsed the time
	// spent searching.
	Simulations int64
	Elapsed     time.Duration
}

// NewSearchPlayer returns a player that searches with ev under cfg, each
// decision within lim.
func NewSearchPlayer(ev Evaluator, cfg Config, lim Limits) (*SearchPlayer, error) {
	if err := lim.validate(); err != nil {
		return nil, err
	}
	s, err := NewSearch(ev, cfg)
	if err != nil {
		return nil, err
	}
	return &SearchPlayer{search: s, limits: lim, rng: rand.New(rand.NewPCG(cfg.Seed, 0x74656d70))}, nil
}

// Turn implements Player.
func (sp *SearchPlayer) Turn(ctx context.Context, p *game.Position) ([]game.Decision, error) {
	if sp.search == nil {
		return nil, errors.New("mcts: SearchPlayer not made by NewSearchPlayer")
	}
	if sp.Endgames != nil {
		ds, ok, err := sp.Endgames.Turn(ctx, p)
		if err != nil || ok {
			return ds, err
		}
	}
	sp.search.SetPosition(*p)
	q := *p
	cfg := sp.search.Config()
	var ds []game.Decision
	for {
		guarded, err := sp.guard(ctx)
		if err != nil {
			return nil, err
		}
		d := guarded.Only
		if !guarded.Guarded {
			res, err := sp.search.Run(ctx, guarded.Limits)
			if err != nil {
				return nil, err
			}
			sp.Simulations += int64(res.Simulations)
			sp.Elapsed += res.Elapsed
			if sp.OnResult != nil {
				sp.OnResult(&q, res)
			}
			d = res.Choose(cfg.TemperatureAt(q.Ply()), sp.rng)
		}
		ds = append(ds, d)
		if err := sp.search.Advance(d); err != nil {
			return nil, err
		}
		q.Apply(d)
		if q.Chain() < 0 {
			return ds, nil
		}
	}
}

// guard runs the player's Guard, if any, on the search's root
// (Search.GuardRoot) and counts its time as the player's.
func (sp *SearchPlayer) guard(ctx context.Context) (Restriction, error) {
	r, err := sp.search.GuardRoot(ctx, sp.Guard, sp.limits)
	sp.Elapsed += r.Took
	return r, err
}
