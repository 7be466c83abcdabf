package diagnose

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/cputime"
	"github.com/dablot-zero/dablot/internal/pool"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/net/model"
)

// PlayerPosition is a position of a game record: the record's index
// in its list, and the position before one decision of it.
type PlayerPosition struct {
	Record   int
	Position game.Position
}

// PlayerPositions returns the positions before each decision of every
// every-th turn that a player whose name contains player (the records'
// South and North names, such as their specs; "" matches both) played in
// recs, games of variant r. A record that does not replay is an error.
func PlayerPositions(recs []*game.Record, r *game.Rules, player string, every int) ([]PlayerPosition, error) {
	if every < 1 {
		return nil, fmt.Errorf("diagnose: every %d: want 1 or more", every)
	}
	var out []PlayerPosition
	for i, rec := range recs {
		p, err := rec.StartPosition(r)
		if err != nil {
			return nil, fmt.Errorf("record %d: %w", i+1, err)
		}
		mine := 0
		for k, text := range rec.Turns {
			name := rec.South
			if p.SideToMove() == game.North {
				name = rec.North
			}
			_, ds, err := p.ParseTurn(text)
			if err != nil {
				return nil, fmt.Errorf("record %d, turn %d %q: %w", i+1, k+1, text, err)
			}
			take := strings.Contains(name, player)
			if take {
				take = mine%every == 0
				mine++
			}
			for _, d := range ds {
				if take {
					out = append(out, PlayerPosition{i, p})
				}
				p.Apply(d)
			}
		}
	}
	return out, nil
}

// GuardOptions set up MeasureGuard: the shipped player's guard and
// search, bounded by nodes and simulations instead of time, so that a
// loaded machine measures what an idle one plays.
type GuardOptions struct {
	// Depth and Margin are the guard's (mcts.NewGuard, with the players'
	// other defaults: single replies extended, ordering, the king at ten
	// soldiers); Nodes bounds its alpha-beta nodes a decision in place of
	// its share of the time (mcts.Guard.Nodes).
	Depth, Margin int
	Nodes         int64
	// Sims is the network search's budget: the simulations the shipped
	// player's Gumbel search runs in the time the guard leaves it.
	Sims int
	// Tables is the most pieces played from exact tables (eg=; 0: none).
	Tables int
	// Threads positions are measured at once.
	Threads int
}

// GuardRow is what MeasureGuard finds at one decision.
type GuardRow struct {
	Index  int    `json:"index"`
	Record int    `json:"record"` // the game's index in its list of records
	FEN    string `json:"fen"`
	Pieces int    `json:"pieces"`
	Phase  int    `json:"phase"`
	Legal  int    `json:"legal"`
	// Tables says that the exact tables play it (and nothing else runs).
	Tables bool `json:"tables"`
	// Allowed is the number of decisions the guard lets through, Depth
	// the turns of its deepest search completed, GuardCPU its CPU time,
	// SearchCPU the unguarded search's (the forward passes on the same
	// thread).
	Allowed   int           `json:"allowed"`
	Depth     int           `json:"depth"`
	GuardCPU  time.Duration `json:"guard_cpu"`
	SearchCPU time.Duration `json:"search_cpu"`
	// Played is the guarded player's decision; NetChoice the same search's
	// without the guard, PriorTop the network's most probable decision,
	// and NetVetoed and PriorVetoed whether the guard vetoes them.
	Played      string `json:"played"`
	NetChoice   string `json:"net_choice"`
	PriorTop    string `json:"prior_top"`
	NetVetoed   bool   `json:"net_vetoed"`
	PriorVetoed bool   `json:"prior_vetoed"`
}

// MeasureGuard plays one decision of the shipped player in each position
// of ps with model m (opt says how), with and without its guard, and
// returns what the guard did; the decisions of a record are a cluster of
// the summaries' intervals. onDone, if not nil, is called after each
// position, one call at a time.
func MeasureGuard(ctx context.Context, m *model.Model, ps []PlayerPosition, opt GuardOptions, onDone func()) ([]GuardRow, error) {
	var tables *mcts.EndgameTables
	if opt.Tables > 0 {
		var err error
		if tables, err = mcts.NewEndgameTables(opt.Tables); err != nil {
			return nil, err
		}
	}
	rows := make([]GuardRow, len(ps))
	err := pool.Run(len(ps), opt.Threads, func() (func(int) error, func(), error) {
		ev := m.NewEvaluator(64, 1)
		g, err := mcts.NewGuard(opt.Depth, opt.Margin, mcts.DefaultGuardShare)
		if err != nil {
			ev.Close()
			return nil, nil, err
		}
		g.Nodes = opt.Nodes
		return func(i int) error {
			row, err := guardDecision(ctx, ev, g, tables, &ps[i].Position, &opt)
			if err != nil {
				return fmt.Errorf("position %d (%s): %w", i, ps[i].Position.FEN(), err)
			}
			row.Index, row.Record = i, ps[i].Record
			rows[i] = row
			return nil
		}, ev.Close, nil
	}, onDone)
	return rows, err
}

// ShippedSearchConfig is the search of the shipped player's spec
// (gumbel: with its defaults: Gumbel root search without noise, the
// solver, forced decisions skipped).
func ShippedSearchConfig() mcts.Config {
	cfg := mcts.DefaultConfig()
	cfg.Gumbel = true
	return cfg
}

// guardDecision is MeasureGuard's work at one decision.
func guardDecision(ctx context.Context, ev mcts.Evaluator, g *mcts.Guard, tables *mcts.EndgameTables, p *game.Position, opt *GuardOptions) (GuardRow, error) {
	legal := p.Decisions(nil)
	row := GuardRow{FEN: p.FEN(), Pieces: p.PieceCount(), Phase: phaseOf(p), Legal: len(legal), Allowed: len(legal)}
	if tables != nil {
		ds, ok, err := tables.Turn(ctx, p)
		if err != nil {
			return row, err
		}
		if ok {
			row.Tables, row.Played = true, p.DecisionString(ds[0])
			return row, nil
		}
	}
	if len(legal) == 1 {
		row.Played = p.DecisionString(legal[0])
		return row, nil
	}
	lim := mcts.Limits{Sims: opt.Sims}
	s, err := mcts.NewSearch(ev, ShippedSearchConfig())
	if err != nil {
		return row, err
	}
	s.SetPosition(*p)
	var r mcts.Restriction
	cpu := threadCPU(func() { r, err = s.GuardRoot(ctx, g, lim) })
	if err != nil {
		return row, err
	}
	row.Allowed, row.Depth, row.GuardCPU = len(legal)-len(r.Excluded), r.Depth, cpu
	if r.Guarded {
		row.Played = p.DecisionString(r.Only)
	} else {
		res, err := s.Run(ctx, r.Limits)
		if err != nil {
			return row, err
		}
		row.Played = p.DecisionString(res.Best)
	}
	u, err := mcts.NewSearch(ev, ShippedSearchConfig())
	if err != nil {
		return row, err
	}
	u.SetPosition(*p)
	var res *mcts.Result
	row.SearchCPU = threadCPU(func() { res, err = u.Run(ctx, lim) })
	if err != nil {
		return row, err
	}
	top := res.Legal[argmax(res.Prior)]
	row.NetChoice, row.PriorTop = p.DecisionString(res.Best), p.DecisionString(top)
	row.NetVetoed, row.PriorVetoed = slices.Contains(r.Excluded, res.Best), slices.Contains(r.Excluded, top)
	return row, nil
}

// threadCPU runs f on one locked OS thread and returns its CPU time (0
// where the platform does not measure it).
func threadCPU(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0, ok := cputime.Thread()
	f()
	if !ok {
		return 0
	}
	t1, _ := cputime.Thread()
	return t1 - t0
}

// GuardSummary says what the guard did to the decisions of a phase.
type GuardSummary struct {
	Phase     string
	Decisions int
	// Forced decisions have one legal decision; Tables are played from
	// the tables; Guarded are left a single decision by the guard; Choice
	// are left more than one, among which the network's search chooses
	// (each a share of Decisions).
	Forced, Tables, Guarded, Choice Proportion
	// Searched are the decisions the guard ran on (two legal or more, not
	// from the tables); among them, NetVetoed is the share whose
	// unguarded search's choice the guard vetoes, PriorVetoed the share
	// whose prior's top it vetoes, Changed the share in which the guarded
	// player plays another decision than the unguarded search.
	Searched                        int
	NetVetoed, PriorVetoed, Changed Proportion
	// Allowed is the mean share of the legal decisions the guard lets
	// through (where it ran), Depth its mean depth, CPU its mean CPU
	// time in milliseconds, SearchCPU the unguarded search's.
	Allowed, Depth, CPU, SearchCPU Mean
}

// SummariseGuard summarises rows by phase (and all together, last), the
// decisions of a record a cluster of the intervals.
func SummariseGuard(rows []GuardRow) []GuardSummary {
	gs := make([][]GuardRow, len(Phases))
	for _, r := range rows {
		gs[r.Phase] = append(gs[r.Phase], r)
	}
	var names []string
	var groups [][]GuardRow
	for i, g := range gs {
		if len(g) > 0 {
			names, groups = append(names, Phases[i].Name), append(groups, g)
		}
	}
	names, groups = append(names, "all"), append(groups, rows)
	out := make([]GuardSummary, len(groups))
	for k, rs := range groups {
		s := GuardSummary{Phase: names[k], Decisions: len(rs)}
		for _, r := range rs {
			ran, c := !r.Tables && r.Legal > 1, r.Record
			s.Forced.AddIn(c, b2f(!r.Tables && r.Legal == 1))
			s.Tables.AddIn(c, b2f(r.Tables))
			s.Guarded.AddIn(c, b2f(ran && r.Allowed == 1))
			s.Choice.AddIn(c, b2f(ran && r.Allowed > 1))
			if !ran {
				continue
			}
			s.Searched++
			s.NetVetoed.AddIn(c, b2f(r.NetVetoed))
			s.PriorVetoed.AddIn(c, b2f(r.PriorVetoed))
			s.Changed.AddIn(c, b2f(r.Played != r.NetChoice))
			s.Allowed.AddIn(c, float64(r.Allowed)/float64(r.Legal))
			s.Depth.AddIn(c, float64(r.Depth))
			s.CPU.AddIn(c, float64(r.GuardCPU)/float64(time.Millisecond))
			s.SearchCPU.AddIn(c, float64(r.SearchCPU)/float64(time.Millisecond))
		}
		out[k] = s
	}
	return out
}
