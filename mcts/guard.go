package mcts

import (
	"cmp"
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
	// Handoff, if more than 0, hands the endgame to the guard: where the
	// opponent has at most Handoff pieces and the side to move is ahead on
	// material (by the alpha-beta evaluation's weights, by more than a
	// soldier), the best decision of the guard's deepest search is played
	// and the network's search does not run; under a time limit that search
	// has the whole time, not the guard's share. The alpha-beta evaluation
	// closes in on the last enemy pieces (AlphaBetaConfig.Hunt), which a
	// network trained on self-play does not learn to do within the
	// no-capture limit (docs/experiments/2026-11-strength.md §10).
	Handoff int
	// Order makes the guard's searches order quiet decisions by killers
	// and history and search with null windows
	// (AlphaBetaConfig.Order): fewer nodes a depth, so a node budget or a
	// time share reaches deeper.
	Order bool
	// Reduce, with Order, makes the guard's searches search late quiet
	// decisions a turn shallower first (AlphaBetaConfig.Reduce).
	Reduce bool
	// Candidates, if more than 0, bounds the decisions the guard lets
	// through: it tests the decisions in the order it is given (the
	// network's prior, by Search.GuardRoot), stops once Candidates of them
	// besides its search's best (which always passes) have passed, and
	// excludes those it did not test too. Proving that a decision
	// passes is most of the guard's work (every reply must be searched),
	// so fewer tests reach deeper within the same time or nodes.
	Candidates int
	// Stop makes the guard, under a deadline, deepen no further when the
	// next search is not expected to finish before it (nextSearchFits):
	// the time it would have spent on a search it abandons goes to the
	// network's search. Without it the guard starts every search its
	// time allows, and 42 to 49 % of its nodes go to the one it abandons
	// (docs/experiments/2026-11-strength.md §23).
	Stop bool
	// Keep makes the guard keep what a search it abandons had judged: when
	// a deeper search runs out of time or nodes after it has found its
	// best score, the decisions it had tested take its verdict, its best
	// decision passes, and the rest keep the verdict of the deepest search
	// completed. Each search then tests first the decisions that passed
	// the one before it. Without it the unfinished search's work is lost:
	// 42 to 49 % of the guard's nodes (docs/experiments/2026-11-strength.md §23).
	Keep bool
	ab   *AlphaBetaPlayer
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
	// §17, §22). Self-play keeps a soldier (train.SelfPlayGuardMargin).
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
	// DefaultGuardReduce is Guard.Reduce's default: no reductions.
	DefaultGuardReduce = false
	// DefaultGuardCandidates is Guard.Candidates's default: every
	// decision tested.
	DefaultGuardCandidates = 0
	// DefaultGuardStop is Guard.Stop's default: off, until measured.
	DefaultGuardStop = false
	// DefaultGuardKeep is Guard.Keep's default: off, until measured.
	DefaultGuardKeep = false
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
	g := &Guard{Depth: depth, Margin: margin, Share: share, Extend: DefaultGuardExtend, Order: DefaultGuardOrder, Reduce: DefaultGuardReduce, Stop: DefaultGuardStop, Keep: DefaultGuardKeep, ab: ab}
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
	ex, _, _, err := g.excluded(ctx, p, deadline, Limits{}, nil)
	return ex, err
}

// excluded is Excluded that also stops deepening once lim.Stop (nil:
// never) is closed, tests the decisions in the order of prefer (nil: the
// order of generation) where Candidates bounds them, and returns the best
// decision and the turns of the deepest search completed.
func (g *Guard) excluded(ctx context.Context, p *game.Position, deadline time.Time, lim Limits, prefer []game.Decision) ([]game.Decision, game.Decision, int, error) {
	if g.ab == nil {
		return nil, 0, 0, errors.New("mcts: Guard not made by NewGuard")
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
	if g.Reduce && !g.Order {
		return nil, 0, 0, errors.New("mcts: the guard's reductions need its ordering (Reduce needs Order)")
	}
	g.ready()
	var out []game.Decision
	var best game.Decision
	var used int64
	var took time.Duration     // the last search's time
	var nodes, prevNodes int64 // the last two searches' nodes
	reached := 0
	for d := 1; d <= g.Depth && !lim.stopped(); d++ {
		budget := int64(0)
		if g.Nodes > 0 {
			if budget = g.Nodes - used; budget <= 0 {
				break
			}
		}
		start := time.Now()
		if g.Stop && !deadline.IsZero() && !nextSearchFits(start, deadline, took, nodes, prevNodes) {
			break
		}
		before := g.ab.Nodes
		order := prefer
		if g.Keep && reached > 0 {
			order = passedFirst(order, p, out)
		}
		r, err := g.ab.vetoes(search, p, vetoLimits{depth: d, margin: g.Margin, deadline: deadline, maxNodes: budget, prefer: order, passes: g.Candidates})
		used += g.ab.Nodes - before
		took, prevNodes, nodes = time.Since(start), nodes, g.ab.Nodes-before
		if errors.Is(err, errGuardTime) || err != nil && ctx.Err() == nil && search.Err() != nil {
			// Out of time, or stopped.
			if g.Keep && reached > 0 && r.tested >= 0 {
				out, best = keepJudged(out, r), r.best
			}
			break
		}
		if err != nil {
			return nil, 0, 0, err
		}
		out, best, reached = r.excluded, r.best, d
		if !deadline.IsZero() && time.Now().After(deadline) {
			break
		}
	}
	return out, best, reached, nil
}

// passedFirst returns the legal decisions of p in the order of prefer
// (nil: the order of generation), those not in excluded before those in
// it: the order in which a guard that keeps what an unfinished search
// judged (Guard.Keep) tests them, so that the decisions the network's
// search may play get the deeper verdict first.
func passedFirst(prefer []game.Decision, p *game.Position, excluded []game.Decision) []game.Decision {
	if prefer == nil {
		prefer = p.Decisions(nil)
	}
	out := make([]game.Decision, 0, len(prefer))
	for _, d := range prefer {
		if !slices.Contains(excluded, d) {
			out = append(out, d)
		}
	}
	for _, d := range prefer {
		if slices.Contains(excluded, d) {
			out = append(out, d)
		}
	}
	return out
}

// keepJudged merges the vetoes of a search that stopped among its tests
// (r, with its best score found) into prev, the vetoes of the deepest
// search completed: the decisions r judged take its verdict, its best
// passes, and the rest keep their verdict in prev.
func keepJudged(prev []game.Decision, r vetoResult) []game.Decision {
	out := slices.Clone(r.excluded)
	for _, d := range r.tests[r.tested:] {
		if d != r.best && slices.Contains(prev, d) {
			out = append(out, d)
		}
	}
	return out
}

// ready gives the guard's alpha-beta its settings (Extend, Order,
// Reduce) and clears its killers and history, before a root's deepening.
func (g *Guard) ready() {
	g.ab.cfg.Extend, g.ab.cfg.Order, g.ab.cfg.Reduce = g.Extend, g.Order, g.Reduce
	g.ab.clearOrder()
}

// nextSearchFits reports whether a search started at now is expected to
// finish by deadline, when the last search took took and visited nodes
// nodes and the one before it prevNodes: each search costs about as many
// times the last as the last cost the one before (its branching factor),
// so the next is expected to take took × nodes / prevNodes. Without two
// searches to go by (prevNodes 0) it always fits.
func nextSearchFits(now, deadline time.Time, took time.Duration, nodes, prevNodes int64) bool {
	if prevNodes <= 0 || nodes <= 0 {
		return true
	}
	expected := time.Duration(float64(took) * float64(nodes) / float64(prevNodes))
	return !now.Add(expected).After(deadline)
}

// Restriction is what Guard.Restrict did to a search's root.
type Restriction struct {
	// Excluded are the vetoed decisions, to exclude from the search.
	Excluded []game.Decision
	// Only is the one decision the guard left, when Guarded is set: the
	// search need not run. HandedOff says that the guard chose it, by its
	// deepest search, in an endgame given to it (Guard.Handoff).
	Only      game.Decision
	Guarded   bool
	HandedOff bool
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
	return g.restrict(ctx, q, lim, nil)
}

// restrict is Restrict with the order in which Candidates are tested (nil:
// the order of generation).
func (g *Guard) restrict(ctx context.Context, q *game.Position, lim Limits, prefer []game.Decision) (Restriction, error) {
	r := Restriction{Limits: lim}
	start := time.Now()
	legal := q.Decisions(nil)
	if len(legal) <= 1 {
		return r, nil
	}
	// An endgame handed to the guard gets the whole time: the network's
	// search will not run.
	handoff := g.handsOff(q)
	ex, best, depth, err := g.excluded(ctx, q, g.deadline(start, lim, handoff), lim, prefer)
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
	} else if depth > 0 && handoff {
		r.Only, r.Guarded, r.HandedOff = best, true, true
	}
	return r, nil
}

// Spec returns the guard's settings as the keys of a player spec
// (NewSpecFactory), every one of them, defaults included: "guard=16,
// gmargin=50,gshare=0.5,gnodes=50000,gext=1,gorder=1,greduce=0,gcand=0,
// ghand=0,gking=10,gkopp=0,gstop=0,gkeep=0".
// A record of games played with a guard names it so, and a guard made
// with other defaults names itself differently.
func (g *Guard) Spec() string {
	return fmt.Sprintf("guard=%d,gmargin=%d,gshare=%g,gnodes=%d,gext=%d,gorder=%d,greduce=%d,gcand=%d,ghand=%d,gking=%d,gkopp=%d,gstop=%d,gkeep=%d",
		g.Depth, g.Margin, g.Share, g.Nodes, b2i(g.Extend), b2i(g.Order), b2i(g.Reduce), g.Candidates, g.Handoff, g.KingValue(), g.OpponentKingValue(), b2i(g.Stop), b2i(g.Keep))
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

// OpponentKingValue returns the value of the opponent's king in the
// guard's evaluation, in soldiers; 0 (the default) when it is the same as
// the guard's own (KingValue).
func (g *Guard) OpponentKingValue() int {
	return g.ab.cfg.OpponentKing / g.ab.cfg.Weights[game.Soldier]
}

// SetOpponentKingValue sets the value of the opponent's king in the
// guard's evaluation to soldiers soldiers (1 to MaxGuardKingValue; 0: the
// same as its own, KingValue), through AlphaBetaConfig.OpponentKing. The
// guard's own king keeps its value: the player still guards its king as
// closely, and pays no more for the other's than it is worth to it. On the
// dablot ladder the draws left are the games in which the model took the
// other king after giving six or seven soldiers for it
// (docs/experiments/2026-11-strength.md §26).
func (g *Guard) SetOpponentKingValue(soldiers int) error {
	if soldiers < 0 || soldiers > MaxGuardKingValue {
		return fmt.Errorf("mcts: guard opponent's king value %d: want 0 (its own king's) or 1 to %d soldiers", soldiers, MaxGuardKingValue)
	}
	g.ab.cfg.OpponentKing = soldiers * g.ab.cfg.Weights[game.Soldier]
	return nil
}

// handsOff reports whether p is an endgame that Handoff gives to the
// guard: the opponent has at most Handoff pieces, the side to move leads
// by more than a soldier's weight, and it could take every enemy piece. A
// king is taken only by a king, so a side without one cannot take the
// opponent's: there the guard's hunt would close in on a piece it cannot
// take (docs/experiments/2026-11-strength.md §12).
func (g *Guard) handsOff(p *game.Position) bool {
	me := p.SideToMove()
	switch {
	case g.Handoff <= 0 || p.Occupied(me.Other()).Count() > g.Handoff:
		return false
	case p.Pieces(me, game.King).Empty() && !p.Pieces(me.Other(), game.King).Empty():
		return false
	}
	return g.ab.materialLead(p) > g.ab.cfg.Weights[game.Soldier]
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
	var prefer []game.Decision
	if g.Candidates > 0 && s.root.state != terminal {
		// The guard tests the decisions the network prefers first: the
		// root's prior, evaluated now rather than by the search's first
		// simulation, and its time counted as the guard's.
		start := time.Now()
		if s.root.state == unexpanded {
			if err := s.evalRoot(); err != nil {
				return Restriction{Limits: lim}, err
			}
		}
		prefer = s.byPrior(s.root)
		took := time.Since(start)
		if lim.Time > 0 {
			lim.Time = max(lim.Time-took, time.Millisecond)
		}
		defer func() { r.Took += took }()
	}
	r, err = g.restrict(ctx, &s.root.pos, lim, prefer)
	if err != nil {
		return r, err
	}
	return r, s.Exclude(r.Excluded)
}

// byPrior returns n's legal decisions, most probable first by its prior
// (ties in the order of generation).
func (s *Search) byPrior(n *node) []game.Decision {
	idx := make([]int, len(n.legal))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(n.prior[b], n.prior[a]) })
	out := make([]game.Decision, len(idx))
	for k, i := range idx {
		out[k] = n.legal[i]
	}
	return out
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
// starts at start, or of the whole time if whole is set (an endgame handed
// to the guard); zero without a time limit.
func (g *Guard) deadline(start time.Time, lim Limits, whole bool) time.Time {
	switch {
	case lim.Time <= 0:
		return time.Time{}
	case whole:
		return start.Add(lim.Time)
	}
	return start.Add(time.Duration(g.Share * float64(lim.Time)))
}
