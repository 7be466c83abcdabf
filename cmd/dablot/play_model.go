package main

// The model's player, shared by "play", "engine" and "serve": it loads a
// model, searches a position with it and reports complete turns with their
// values, win/draw/loss estimates and a principal variation.

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/net/model"
)

// Bounds of the search settings a user may ask for; simulations go up to
// mcts.MaxSims.
const (
	maxSearchMoveTime = time.Hour
	maxSearchThreads  = 64
)

// searchSettings are how the model searches: the simulations or the time per
// decision, PUCT or Gumbel, and the threads of the network's forward pass.
type searchSettings struct {
	Sims     int           // simulations per decision (0: none, MoveTime bounds the search)
	MoveTime time.Duration // time per decision (0: none)
	Gumbel   bool          // Gumbel root search instead of PUCT
	Solve    bool          // prove wins and losses in the tree (mcts.Config.Solver)
	Forced   bool          // pass forced decisions without evaluation (mcts.Config.SkipForced)
	Threads  int           // goroutines of one forward pass
	Seed     uint64        // seeds the Gumbel noise
}

// addFlags defines --sims, --movetime, --gumbel, --solve, --forced, --threads and
// --seed on fs.
func (s *searchSettings) addFlags(fs *flag.FlagSet) {
	fs.IntVar(&s.Sims, "sims", 200, "simulations per decision of the model's search (0 with --movetime: time only)")
	fs.Func("movetime", "time per decision in milliseconds, instead of or on top of --sims", func(v string) error {
		d, err := parseMillis(v)
		s.MoveTime = d
		return err
	})
	fs.BoolVar(&s.Gumbel, "gumbel", false, "use the Gumbel root search instead of PUCT (needs --sims)")
	def := mcts.DefaultConfig()
	fs.BoolVar(&s.Solve, "solve", def.Solver, "prove wins and losses in the search tree and play by them")
	fs.BoolVar(&s.Forced, "forced", def.SkipForced, "pass decisions that are forced without asking the network")
	fs.IntVar(&s.Threads, "threads", 1, "goroutines for the network's forward pass")
	fs.Uint64Var(&s.Seed, "seed", 1, "random seed of the search")
}

// parseMillis reads a time in whole milliseconds, 1 ms to an hour.
func parseMillis(v string) (time.Duration, error) {
	var ms int64
	if _, err := fmt.Sscan(v, &ms); err != nil || fmt.Sprint(ms) != strings.TrimSpace(v) {
		return 0, fmt.Errorf("%q is not a whole number of milliseconds", v)
	}
	d := time.Duration(ms) * time.Millisecond
	if ms < 1 || d > maxSearchMoveTime {
		return 0, fmt.Errorf("%d ms: want 1 to %d", ms, maxSearchMoveTime.Milliseconds())
	}
	return d, nil
}

// validate checks the settings as given on the command line.
func (s *searchSettings) validate() error {
	switch {
	case s.Sims < 0 || s.Sims > mcts.MaxSims:
		return usagef("--sims %d: want 0 to %d", s.Sims, mcts.MaxSims)
	case s.Sims == 0 && s.MoveTime == 0:
		return usagef("--sims 0 needs --movetime: the search needs a limit")
	case s.Gumbel && s.Sims == 0:
		return usagef("--gumbel needs --sims: the Gumbel search spreads a number of simulations")
	case s.Threads < 1 || s.Threads > maxSearchThreads:
		return usagef("--threads %d: want 1 to %d", s.Threads, maxSearchThreads)
	}
	return nil
}

// limits returns the limits of one decision's search.
func (s *searchSettings) limits() mcts.Limits {
	return mcts.Limits{Sims: s.Sims, Time: s.MoveTime}
}

// describe says how the model searches, such as "200 sims" or "PUCT, 1000 ms".
func (s *searchSettings) describe() string {
	var parts []string
	if s.Sims > 0 {
		parts = append(parts, fmt.Sprintf("%d sims", s.Sims))
	}
	if s.MoveTime > 0 {
		parts = append(parts, fmt.Sprintf("%d ms", s.MoveTime.Milliseconds()))
	}
	kind := "PUCT"
	if s.Gumbel {
		kind = "Gumbel"
	}
	return kind + ", " + strings.Join(parts, ", ") + " per decision"
}

// openAnalyst loads a model file, checks it against --variant (if given)
// and makes its player with the settings s.
func openAnalyst(path, variant string, s searchSettings) (*analyst, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	m, err := loadPlayModel(path, variant)
	if err != nil {
		return nil, err
	}
	return newAnalyst(m, s)
}

// loadPlayModel loads a model file and checks it against --variant, if given.
// The model's own rules are the game's rules.
func loadPlayModel(path, variant string) (*model.Model, error) {
	m, err := model.LoadModel(path)
	if err != nil {
		return nil, err
	}
	if variant != "" {
		r, err := configs.Variant(variant)
		if err != nil {
			return nil, err
		}
		if err := m.CheckRules(r); err != nil {
			return nil, fmt.Errorf("model %s: %w", path, err)
		}
	}
	return m, nil
}

// modelName names a model for game records and messages: the file's base
// name and, when known, its training generation.
func modelName(path string, m *model.Model) string {
	name := filepath.Base(path)
	if g := m.Training.Generation; g > 0 {
		name += fmt.Sprintf(", generation %d", g)
	}
	return name
}

// turnEval is one complete turn as the model sees it.
type turnEval struct {
	Turn      string          // in the notation
	Decisions []game.Decision // the decisions that make it
	Visits    int             // simulations below its first decision at the root
	Value     float32         // expected result for the side that plays it, in [-1, 1]
	WDL       [3]float32      // its win, draw and loss chances for that side
}

// analysis is what a search of one position found.
type analysis struct {
	Side  game.Side  // the side to move, whose point of view the values take
	Top   []turnEval // the best turn first, then the others by root visits
	PV    []string   // the principal variation in turns, starting with the best
	Sims  int        // simulations run in all
	Nodes int        // nodes in the main tree at the end of the main search
	Time  time.Duration
	Proof *proof // what the solver proved of the position, if it did (off with --solve=false)
}

// proof is a result the solver proved: the side to move wins, draws or loses
// with best play, in Decisions decisions (jumps of a chain count one each).
type proof struct {
	Result    string `json:"result"` // "win", "draw" or "loss", for the side to move
	Decisions int    `json:"decisions"`
}

// String writes the proof as the engine's info line does, such as "win 5".
func (p *proof) String() string { return fmt.Sprintf("%s %d", p.Result, p.Decisions) }

// rootProof is the proof of a search's root, or nil if it was not proven.
func rootProof(res *mcts.Result) *proof {
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
	return &proof{Result: r, Decisions: res.Plies}
}

// Best returns the turn the model plays.
func (a *analysis) Best() turnEval { return a.Top[0] }

// analyst searches positions with one model: it is the model player of
// play, engine and serve. It is not safe for concurrent use.
type analyst struct {
	model    *model.Model
	ev       *model.NetEvaluator
	settings searchSettings
	cfg      mcts.Config
	search   *mcts.Search // kept between calls: PUCT reuses its tree
}

// newAnalyst makes the model's player with the given settings.
func newAnalyst(m *model.Model, s searchSettings) (*analyst, error) {
	cfg := mcts.DefaultConfig()
	cfg.Gumbel = s.Gumbel
	cfg.Solver, cfg.SkipForced = s.Solve, s.Forced
	cfg.Seed = s.Seed
	ev := m.NewEvaluator(max(cfg.BatchSize, 16), s.Threads)
	search, err := mcts.NewSearch(ev, cfg)
	if err != nil {
		ev.Close()
		return nil, err
	}
	return &analyst{model: m, ev: ev, settings: s, cfg: cfg, search: search}, nil
}

// Close releases the network's worker goroutines.
func (a *analyst) Close() { a.ev.Close() }

// Rules returns the variant the model plays.
func (a *analyst) Rules() *game.Rules { return a.model.Rules }

// errGameOver is the error of a search asked for in a finished game.
var errGameOver = errors.New("the game is over")

// gameOverError says that p's game is over and how it ended.
func gameOverError(p *game.Position) error {
	return fmt.Errorf("%w: %s", errGameOver, p.Status())
}

// analyse searches p within lim (a zero lim: the analyst's settings) and
// returns the best turn first and up to top-1 other turns, with a principal
// variation of up to pvTurns turns after the best one.
//
// The best turn is played as mcts.SearchPlayer plays: one search within lim
// per decision of the turn, so a capture chain is searched jump by jump.
// The other turns start with the other root decisions in order of visits;
// a capture chain among them is completed by a smaller search of its own.
// The principal variation follows the most visited decisions of the tree
// (PUCT only: the Gumbel search keeps no tree), and walking it gives up the
// tree's reuse at the next call.
func (a *analyst) analyse(ctx context.Context, p game.Position, lim mcts.Limits, top, pvTurns int) (*analysis, error) {
	start := time.Now()
	if len(p.Decisions(nil)) == 0 {
		return nil, gameOverError(&p)
	}
	if lim == (mcts.Limits{}) {
		lim = a.settings.limits()
	}
	top = max(top, 1)
	an := &analysis{Side: p.SideToMove()}

	// The best turn, decision by decision. Its first decision is searched
	// even when it is forced, for the position's value; the rest of a chain
	// reuses that search's tree.
	a.search.SetPosition(p)
	first := lim
	first.Forced = true
	root, err := a.search.Run(ctx, first)
	if err != nil {
		return nil, err
	}
	an.Sims += root.Simulations
	an.Nodes = root.Nodes
	an.Proof = rootProof(root)
	best := turnEval{Visits: root.Visits[slices.Index(root.Legal, root.Best)]}
	res := root
	q := p
	for {
		d := res.Best
		if res == root || res.Simulations > 0 {
			// A forced decision returned without a search keeps the value
			// of the decision before it: the same side's, of the same position.
			best.Value = decisionValue(res, d)
		}
		best.Decisions = append(best.Decisions, d)
		if err := a.search.Advance(d); err != nil {
			return nil, err
		}
		q.Apply(d)
		if q.Chain() < 0 || q.Status().Over() {
			break
		}
		if res, err = a.search.Run(ctx, lim); err != nil {
			return nil, err
		}
		an.Sims += res.Simulations
	}
	best.Turn = formatTurn(&p, best.Decisions)
	an.Top = append(an.Top, best)

	// The principal variation: the best turn, then the most visited path.
	an.PV = append(an.PV, best.Turn)
	if pvTurns > 0 && !a.cfg.Gumbel {
		an.PV = append(an.PV, a.walkPV(ctx, q, pvTurns)...)
	}

	// The other turns, by the visits of their first decision.
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
		te := turnEval{Decisions: []game.Decision{d}, Visits: root.Visits[i], Value: root.Q[i]}
		after := p
		after.Apply(d)
		if after.Chain() >= 0 && !after.Status().Over() {
			budget := mcts.Limits{Sims: max(root.Visits[i], 16)}
			if lim.Sims > 0 {
				budget.Sims = min(budget.Sims, lim.Sims)
			}
			rest, v, sims, err := a.completeTurn(ctx, after, budget)
			if err != nil {
				return nil, err
			}
			te.Decisions = append(te.Decisions, rest...)
			te.Value = v
			an.Sims += sims
		}
		te.Turn = formatTurn(&p, te.Decisions)
		an.Top = append(an.Top, te)
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

// walkPV follows the most visited decisions of the search's tree from its
// root (the position q after the best turn) and returns up to n complete
// turns. It runs no simulations: Run with a one-node limit only reads the
// root (or evaluates it, if the tree has not reached it, which ends the walk).
func (a *analyst) walkPV(ctx context.Context, q game.Position, n int) []string {
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
func (a *analyst) completeTurn(ctx context.Context, p game.Position, lim mcts.Limits) ([]game.Decision, float32, int, error) {
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
// value v split with the network's draw chance d of the position after the
// turn, w = (1-d+v)/2, l = (1-d-v)/2 (with d lowered to 1-|v| where it is
// larger); a turn that ends the game gets its exact result.
func (a *analyst) addWDL(p *game.Position, turns []turnEval) error {
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

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
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

// forSouth turns win/draw/loss chances for side s into South's.
func forSouth(wdl [3]float32, s game.Side) [3]float32 {
	if s == game.South {
		return wdl
	}
	return [3]float32{wdl[2], wdl[1], wdl[0]}
}

// formatTurn writes the complete turn that decisions ds make from p.
func formatTurn(p *game.Position, ds []game.Decision) string {
	t, _, _ := p.DecisionsToTurn(ds)
	if len(ds) == 1 && ds[0] == game.Pass {
		return "pass"
	}
	return t.Format(p.Board())
}

// gamePlayer is one side of a game played by the program: the model (an
// analyst) or a baseline player made from a spec.
type gamePlayer interface {
	// Name describes the player for records and messages.
	Name() string
	// Move chooses a complete turn in p (not over) and returns its
	// decisions and a short note on the search, such as its value.
	Move(ctx context.Context, p game.Position) ([]game.Decision, string, error)
}

// modelPlayer plays with an analyst.
type modelPlayer struct {
	name string
	a    *analyst
}

// Name implements gamePlayer.
func (m *modelPlayer) Name() string { return m.name }

// Move implements gamePlayer: the analyst's best turn.
func (m *modelPlayer) Move(ctx context.Context, p game.Position) ([]game.Decision, string, error) {
	an, err := m.a.analyse(ctx, p, mcts.Limits{}, 1, 0)
	if err != nil {
		return nil, "", err
	}
	b := an.Best()
	note := fmt.Sprintf("value %+.2f, W/D/L %s, %d sims", b.Value, formatWDL(b.WDL), an.Sims)
	if an.Proof != nil {
		note += ", proven " + an.Proof.String()
	}
	return b.Decisions, note, nil
}

// specPlayer plays with a baseline player, such as "alphabeta:depth=4".
type specPlayer struct {
	name string
	pl   mcts.Player
}

// Name implements gamePlayer.
func (s *specPlayer) Name() string { return s.name }

// Move implements gamePlayer.
func (s *specPlayer) Move(ctx context.Context, p game.Position) ([]game.Decision, string, error) {
	q := p
	ds, err := mcts.PlayTurn(ctx, s.pl, &q)
	return ds, "", err
}

// newSpecPlayer makes a baseline player of variant r from a player spec.
// It returns the factory too, to be closed when done.
func newSpecPlayer(spec string, r *game.Rules, threads int, seed uint64) (*specPlayer, *mcts.Factory, error) {
	f, err := mcts.ParseFactory(spec, model.SpecOptions(r, threads))
	if err != nil {
		return nil, nil, err
	}
	pl, err := f.New(seed)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return &specPlayer{name: f.Name, pl: pl}, f, nil
}

// formatWDL writes win/draw/loss chances as percentages, such as "45/30/25".
func formatWDL(wdl [3]float32) string {
	return fmt.Sprintf("%.0f/%.0f/%.0f", 100*wdl[0], 100*wdl[1], 100*wdl[2])
}
