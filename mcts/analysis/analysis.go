// Package analysis searches a position and reports what a player wants to
// know of it: the best complete turn and the other turns in order, each with
// its value and win/draw/loss chances, the principal variation, and what
// the solver proved. It is the model's player behind "dablot play",
// "dablot engine" and "dablot serve", and works over any mcts.Evaluator.
//
// The search (package mcts) chooses one decision at a time, and a turn of
// Dablot can be a capture chain of several decisions; an Analyst searches
// each decision of the best turn as mcts.SearchPlayer plays it, completes
// the chains of the other turns with smaller searches of their own, and
// reports complete turns in the notation.
//
// Values and chances are from the point of view of the side to move
// (Analysis.Side): a value is the expected result in [-1, 1], and the
// win/draw/loss chances split it with the evaluator's draw chance of the
// position after the turn (mcts.SplitWDL), or give the exact result of a
// turn that ends the game or of a proven position.
package analysis

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/game/endgame"
	"github.com/dablot-zero/dablot/mcts"
)

// Analyst searches positions with one evaluator. It keeps its search tree
// between calls (PUCT reuses it when the next position is in it). It is not
// safe for concurrent use.
type Analyst struct {
	ev     mcts.Evaluator
	cfg    mcts.Config
	search *mcts.Search
	// Guard, if set, vetoes decisions of the best turn before each of their
	// searches, as it does for mcts.SearchPlayer; its time counts against a
	// time limit. The vetoed first decisions are not among the turns
	// reported.
	Guard *mcts.Guard
	// Endgames, if set, plays the endings it holds from exact tables in
	// place of the search, as it does for mcts.SearchPlayer.
	Endgames *mcts.EndgameTables
}

// New returns an Analyst that searches with evaluator ev and configuration
// cfg (such as mcts.DefaultConfig with Gumbel or Solver set). The caller
// keeps ev and closes it, if it needs closing, after the Analyst's last use.
func New(ev mcts.Evaluator, cfg mcts.Config) (*Analyst, error) {
	search, err := mcts.NewSearch(ev, cfg)
	if err != nil {
		return nil, err
	}
	return &Analyst{ev: ev, cfg: cfg, search: search}, nil
}

// Query says how far to search a position and how much to report.
type Query struct {
	// Limits bounds the search of each decision of the best turn; at least
	// one limit must be set (see mcts.Limits). Closing Limits.Stop ends the
	// search early with what it has found.
	Limits mcts.Limits
	// Top is the number of turns to report, the best first (less than 1: 1).
	Top int
	// PV is the number of turns of principal variation to report after the
	// best one (PUCT only: the Gumbel search keeps no tree). Walking the
	// principal variation gives up the reuse of the tree at the next call.
	PV int
}

// Turn is one complete turn as the search sees it.
type Turn struct {
	Text      string          // in the notation, such as "a7xe7xg5"
	Decisions []game.Decision // the decisions that make it
	Visits    int             // simulations below its first decision at the root
	Value     float32         // expected result for the side that plays it, in [-1, 1]
	WDL       [3]float32      // its win, draw and loss chances for that side
}

// Analysis is what a search of one position found.
type Analysis struct {
	Side  game.Side     // the side to move, whose point of view the values take
	Top   []Turn        // the best turn first, then the others by root visits
	PV    []string      // the principal variation in turns, starting with the best
	Sims  int           // simulations run in all
	Nodes int           // nodes in the main tree at the end of the main search
	Time  time.Duration // wall time of the analysis
	Proof *Proof        // what the solver proved of the position (nil: nothing, or no solver)
	// Tables is the position's result from the endgame tables when they
	// chose the turn (Analyst.Endgames), with no search: Top holds their
	// turn alone, with the exact value.
	Tables *endgame.Result
	// Vetoed is the number of first decisions the guard (Analyst.Guard)
	// kept from the search.
	Vetoed int
	// Kept is the visits of the root's decisions that the tree held from
	// earlier searches when this one began (PUCT keeps its tree from one
	// turn to the next): a turn's Visits count them with this search's
	// simulations.
	Kept int
}

// Best returns the turn the search plays.
func (a *Analysis) Best() Turn { return a.Top[0] }

// WDLFor returns the best turn's win, draw and loss chances for side s,
// such as South's for an evaluation bar.
func (a *Analysis) WDLFor(s game.Side) [3]float32 {
	wdl := a.Best().WDL
	if s == a.Side {
		return wdl
	}
	return [3]float32{wdl[2], wdl[1], wdl[0]}
}

// Proof is a result the solver proved: the side to move wins, draws or
// loses with best play, in Decisions decisions (the jumps of a chain count
// one each).
type Proof struct {
	Result    string // "win", "draw" or "loss", for the side to move
	Decisions int
}

// String writes the proof as a word and a number, such as "win 5".
func (p *Proof) String() string { return fmt.Sprintf("%s %d", p.Result, p.Decisions) }

// rootProof is the proof of a search's root, or nil if it was not proven.
func rootProof(res *mcts.Result) *Proof {
	if !res.Solved {
		return nil
	}
	r := "draw"
	switch {
	case res.Value > 0:
		r = "win"
	case res.Value < 0:
		r = "loss"
	}
	return &Proof{Result: r, Decisions: res.Plies}
}

// ErrGameOver is the error of an analysis asked for in a finished game.
var ErrGameOver = errors.New("the game is over")

// GameOverError says that p's game is over and how it ended; it wraps
// ErrGameOver.
func GameOverError(p *game.Position) error {
	return fmt.Errorf("%w: %s", ErrGameOver, p.Status())
}

// Analyse searches p and returns the best turn first and up to q.Top-1
// other turns, with a principal variation of up to q.PV turns after the
// best one. It fails with ErrGameOver if p's game is over.
//
// The best turn is played as mcts.SearchPlayer plays: one search within
// q.Limits per decision of the turn, so a capture chain is searched jump by
// jump; its first decision is searched even when it is forced, for the
// position's value. The other turns start with the other root decisions in
// order of visits; a capture chain among them is completed by a smaller
// search of its own. The principal variation follows the most visited
// decisions of the tree.
func (a *Analyst) Analyse(ctx context.Context, p game.Position, q Query) (*Analysis, error) {
	start := time.Now()
	if len(p.Decisions(nil)) == 0 {
		return nil, GameOverError(&p)
	}
	if a.Endgames != nil {
		ds, res, ok, err := a.Endgames.Play(ctx, &p)
		if err != nil {
			return nil, err
		}
		if ok {
			return fromTables(&p, ds, res, start), nil
		}
	}
	lim := q.Limits
	top := max(q.Top, 1)
	an := &Analysis{Side: p.SideToMove()}

	// The best turn, decision by decision. The rest of a chain reuses the
	// first decision's tree.
	root, err := a.searchRoot(ctx, p, lim, an)
	if err != nil {
		return nil, err
	}
	best, after, err := a.bestTurn(ctx, p, root, lim, an)
	if err != nil {
		return nil, err
	}
	an.Top = append(an.Top, best)

	// The principal variation: the best turn, then the most visited path.
	an.PV = append(an.PV, best.Text)
	if q.PV > 0 && !a.cfg.Gumbel {
		an.PV = append(an.PV, a.walkPV(ctx, after, q.PV)...)
	}

	if err := a.otherTurns(ctx, p, root, lim, top, an); err != nil {
		return nil, err
	}
	if err := a.addWDL(&p, an.Top); err != nil {
		return nil, err
	}
	if an.Proof != nil {
		// The best turn's result is known, not estimated: a value of 1, 0
		// or -1 with every chance it leaves to a draw is exact.
		an.Top[0].Value, an.Top[0].WDL = root.Value, mcts.SplitWDL(root.Value, 1)
	}
	an.Time = time.Since(start)
	return an, nil
}

// searchRoot searches the first decision of p within lim, after the
// guard's vetoes, even when it is forced (for the position's value). It
// sets an's vetoes, nodes and proof, adds its simulations, and returns the
// search's result at the root.
func (a *Analyst) searchRoot(ctx context.Context, p game.Position, lim mcts.Limits, an *Analysis) (*mcts.Result, error) {
	a.search.SetPosition(p)
	guarded, err := a.search.GuardRoot(ctx, a.Guard, lim)
	if err != nil {
		return nil, err
	}
	an.Vetoed = len(guarded.Excluded)
	first := guarded.Limits
	first.Forced = true
	root, err := a.search.Run(ctx, first)
	if err != nil {
		return nil, err
	}
	an.Sims += root.Simulations
	an.Nodes = root.Nodes
	for _, v := range root.Visits {
		an.Kept += v
	}
	an.Kept = max(an.Kept-root.Simulations, 0)
	an.Proof = rootProof(root)
	return root, nil
}

// bestTurn plays the best turn of p from the root search root: its first
// decision, then each further decision of a capture chain searched within
// lim (after the guard's vetoes) in the tree the first one left. It adds
// the simulations to an and returns the turn and the position after it.
func (a *Analyst) bestTurn(ctx context.Context, p game.Position, root *mcts.Result, lim mcts.Limits, an *Analysis) (Turn, game.Position, error) {
	best := Turn{Visits: root.Visits[slices.Index(root.Legal, root.Best)]}
	res := root
	after := p
	for {
		d := res.Best
		if res == root || res.Simulations > 0 {
			// A forced decision returned without a search keeps the value
			// of the decision before it: the same side's, of the same position.
			best.Value = decisionValue(res, d)
		}
		best.Decisions = append(best.Decisions, d)
		if err := a.search.Advance(d); err != nil {
			return Turn{}, game.Position{}, err
		}
		after.Apply(d)
		if after.Chain() < 0 || after.Status().Over() {
			break
		}
		guarded, err := a.search.GuardRoot(ctx, a.Guard, lim)
		if err != nil {
			return Turn{}, game.Position{}, err
		}
		if guarded.Guarded {
			// The guard left one decision: it is played as a forced one.
			res = &mcts.Result{Best: guarded.Only}
			continue
		}
		if res, err = a.search.Run(ctx, guarded.Limits); err != nil {
			return Turn{}, game.Position{}, err
		}
		an.Sims += res.Simulations
	}
	best.Text = formatTurn(&p, best.Decisions)
	return best, after, nil
}

// otherTurns appends to an.Top, up to top turns in all, the other turns of
// p by the root visits of their first decision (root.Q breaks ties),
// skipping the best one and the unvisited. A capture chain among them is
// completed by a search of its own of the decision's visits, raised to 16
// and capped at lim.Sims when that is set; its simulations are added to an.
func (a *Analyst) otherTurns(ctx context.Context, p game.Position, root *mcts.Result, lim mcts.Limits, top int, an *Analysis) error {
	order := make([]int, len(root.Legal))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		return cmp.Or(cmp.Compare(root.Visits[j], root.Visits[i]), cmp.Compare(root.Q[j], root.Q[i]))
	})
	for _, i := range order {
		if len(an.Top) >= top {
			break
		}
		d := root.Legal[i]
		if d == root.Best || root.Visits[i] == 0 {
			continue
		}
		t := Turn{Decisions: []game.Decision{d}, Visits: root.Visits[i], Value: root.Q[i]}
		next := p
		next.Apply(d)
		if next.Chain() >= 0 && !next.Status().Over() {
			budget := mcts.Limits{Sims: max(root.Visits[i], 16)}
			if lim.Sims > 0 {
				budget.Sims = min(budget.Sims, lim.Sims)
			}
			rest, v, sims, err := a.completeTurn(ctx, next, budget)
			if err != nil {
				return err
			}
			t.Decisions = append(t.Decisions, rest...)
			t.Value = v
			an.Sims += sims
		}
		t.Text = formatTurn(&p, t.Decisions)
		an.Top = append(an.Top, t)
	}
	return nil
}

// fromTables is the analysis of p when the endgame tables play ds, with
// result res for the side to move.
func fromTables(p *game.Position, ds []game.Decision, res endgame.Result, start time.Time) *Analysis {
	me := p.SideToMove()
	best := Turn{Text: formatTurn(p, ds), Decisions: ds, Value: float32(res.Outcome), WDL: outcomeWDL(res.GameOutcome(me), me)}
	return &Analysis{Side: me, Top: []Turn{best}, PV: []string{best.Text}, Tables: &res, Time: time.Since(start)}
}

// walkPV follows the most visited decisions of the search's tree from its
// root (the position q after the best turn) and returns up to n complete
// turns. It runs no simulations: Run with a one-node limit only reads the
// root (or evaluates it, if the tree has not reached it, which ends the walk).
func (a *Analyst) walkPV(ctx context.Context, q game.Position, n int) []string {
	var pv []string
	var ds []game.Decision
	turnStart := q
	for len(pv) < n && len(q.Decisions(nil)) > 0 {
		res, err := a.search.Run(ctx, mcts.Limits{Nodes: 1})
		if err != nil {
			break
		}
		i := slices.Index(res.Legal, res.Best)
		if i < 0 || res.Visits[i] == 0 {
			break
		}
		if err := a.search.Advance(res.Best); err != nil {
			break
		}
		ds = append(ds, res.Best)
		q.Apply(res.Best)
		if q.Chain() < 0 || q.Status().Over() {
			pv = append(pv, formatTurn(&turnStart, ds))
			ds, turnStart = ds[:0], q
		}
	}
	return pv
}

// completeTurn finishes the capture chain of p with a fresh search within
// lim per decision; it returns the decisions, the value of the last one for
// the side moving and the simulations run.
func (a *Analyst) completeTurn(ctx context.Context, p game.Position, lim mcts.Limits) ([]game.Decision, float32, int, error) {
	cfg := a.cfg
	cfg.Reuse = false
	s, err := mcts.NewSearch(a.ev, cfg)
	if err != nil {
		return nil, 0, 0, err
	}
	var ds []game.Decision
	var value float32
	sims := 0
	for p.Chain() >= 0 && !p.Status().Over() {
		s.SetPosition(p)
		res, err := s.Run(ctx, lim)
		if err != nil {
			return nil, 0, 0, err
		}
		sims += res.Simulations
		value = decisionValue(res, res.Best)
		ds = append(ds, res.Best)
		p.Apply(res.Best)
	}
	return ds, value, sims, nil
}

// addWDL sets the win/draw/loss chances of each turn of p: the search's
// value split with the evaluator's draw chance of the position after the
// turn (mcts.SplitWDL); a turn that ends the game gets its exact result.
func (a *Analyst) addWDL(p *game.Position, turns []Turn) error {
	mover := p.SideToMove()
	var reqs []mcts.Request
	var who []int
	for i := range turns {
		after := *p
		for _, d := range turns[i].Decisions {
			after.Apply(d)
		}
		if st := after.Status(); st.Over() {
			turns[i].WDL = outcomeWDL(st.Outcome, mover)
			turns[i].Value = turns[i].WDL[0] - turns[i].WDL[2]
			continue
		}
		legal := after.Decisions(nil)
		reqs = append(reqs, mcts.Request{Pos: after, Legal: legal, Priors: make([]float32, len(legal))})
		who = append(who, i)
	}
	if len(reqs) == 0 {
		return nil
	}
	if err := a.ev.Evaluate(reqs); err != nil {
		return err
	}
	for k, i := range who {
		turns[i].WDL = mcts.SplitWDL(turns[i].Value, reqs[k].WDL[1])
	}
	return nil
}

// decisionValue is the value of root decision d of a search for the side to
// move: its mean value, or the root's when it was not searched (a forced
// decision returns at once).
func decisionValue(res *mcts.Result, d game.Decision) float32 {
	i := slices.Index(res.Legal, d)
	if i < 0 || res.Visits[i] == 0 {
		return res.Value
	}
	return res.Q[i]
}

// outcomeWDL is the win/draw/loss of a finished game for side s.
func outcomeWDL(o game.Outcome, s game.Side) [3]float32 {
	switch o.ScoreFor(s) {
	case 1:
		return [3]float32{1, 0, 0}
	case 0:
		return [3]float32{0, 0, 1}
	}
	return [3]float32{0, 1, 0}
}

// formatTurn writes the complete turn that decisions ds make from p.
func formatTurn(p *game.Position, ds []game.Decision) string {
	t, _, _ := p.DecisionsToTurn(ds)
	return t.Format(p.Board())
}
