package main

// The model's player, shared by "play", "engine" and "serve": the search
// settings of the command line, and a model loaded with its evaluator and
// the analysis (package mcts/analysis) over it.

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/game/endgame"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/mcts/analysis"
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
	// Guard is the depth of the alpha-beta guard (mcts.Guard) in turns: 0
	// for none, -1 (the default) for mcts.DefaultGuardDepth. A search
	// without a time limit also bounds its nodes (mcts.DefaultGuardNodesFor).
	Guard int
	// Endgames is the most pieces of a position played from exact endgame
	// tables (mcts.EndgameTables) where the rules allow them; 0: none.
	Endgames int
}

// addFlags defines --sims, --movetime, --gumbel, --solve, --forced, --threads and
// --seed on fs.
func (s *searchSettings) addFlags(fs *flagSet) {
	rangeVar(fs, &s.Sims, "sims", 200, 0, mcts.MaxSims, "simulations per decision of the model's search (0 with --movetime: time only)")
	millisVar(fs, &s.MoveTime, "movetime", 0, int(maxSearchMoveTime.Milliseconds()), "time per decision in milliseconds, instead of or on top of --sims (0: none)")
	fs.BoolVar(&s.Gumbel, "gumbel", false, "use the Gumbel root search instead of PUCT (needs --sims)")
	def := mcts.DefaultConfig()
	fs.BoolVar(&s.Solve, "solve", def.Solver, "prove wins and losses in the search tree and play by them")
	fs.BoolVar(&s.Forced, "forced", def.SkipForced, "pass decisions that are forced without asking the network")
	rangeVar(fs, &s.Threads, "threads", 1, 1, maxSearchThreads, "goroutines for the network's forward pass")
	fs.Uint64Var(&s.Seed, "seed", 1, "random seed of the search")
	rangeVar(fs, &s.Guard, "guard", -1, -1, mcts.MaxGuardDepth, fmt.Sprintf(
		"most turns of the alpha-beta guard that vetoes blunders before each search, deepening within half of --movetime, else within %d nodes (0: none; -1: %d)",
		mcts.DefaultGuardNodes, mcts.DefaultGuardDepth))
	rangeVar(fs, &s.Endgames, "eg", mcts.MaxEndgamePieces, 0, mcts.MaxEndgamePieces,
		"play positions of this many pieces or fewer from exact endgame tables, solved the first time one is reached, where the rules allow them (0: never)")
}

// guardDepth returns the guard's most turns (0: none).
func (s *searchSettings) guardDepth() int {
	if s.Guard < 0 {
		return mcts.DefaultGuardDepth
	}
	return s.Guard
}

// describeGuard describes a guard of depth turns (0: none) for searches
// within lim, as describe's tail.
func describeGuard(depth int, lim mcts.Limits) string {
	switch nodes := mcts.DefaultGuardNodesFor(lim); {
	case depth == 0:
		return ""
	case nodes > 0:
		return fmt.Sprintf(", guard %d turns within %d nodes", depth, nodes)
	default:
		return fmt.Sprintf(", guard %d turns within half the time", depth)
	}
}

// validate checks the settings together (addFlags checks each range).
func (s *searchSettings) validate() error {
	switch {
	case s.Sims == 0 && s.MoveTime == 0:
		return usagef("--sims 0 needs --movetime: the search needs a limit")
	case s.Gumbel && s.Sims == 0:
		return usagef("--gumbel needs --sims: the Gumbel search spreads a number of simulations")
	case s.Endgames == 1:
		return usagef("--eg 1: the tables hold 2 or 3 pieces (0: none)")
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
	return kind + ", " + strings.Join(parts, ", ") + " per decision" + describeGuard(s.guardDepth(), s.limits())
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

// analyst is the model's player of play, engine and serve: a model, its
// network evaluator and the analysis over them, with the search settings
// it was made with. It is not safe for concurrent use.
type analyst struct {
	*analysis.Analyst
	model    *model.Model
	ev       *model.NetEvaluator
	settings searchSettings
}

// newAnalyst makes the model's player with the given settings.
func newAnalyst(m *model.Model, s searchSettings) (*analyst, error) {
	cfg := mcts.DefaultConfig()
	cfg.Gumbel = s.Gumbel
	cfg.Solver, cfg.SkipForced = s.Solve, s.Forced
	cfg.Seed = s.Seed
	ev := m.NewEvaluator(max(cfg.BatchSize, 16), s.Threads)
	an, err := analysis.New(ev, cfg)
	if err != nil {
		ev.Close()
		return nil, err
	}
	if s.Endgames > 0 && endgame.Check(m.Rules) == nil {
		if an.Endgames, err = mcts.NewEndgameTables(s.Endgames); err != nil {
			ev.Close()
			return nil, err
		}
	}
	return &analyst{Analyst: an, model: m, ev: ev, settings: s}, nil
}

// Analyse is analysis.Analyst's, with the guard of the settings for the
// query's limits (a time limit lets it deepen further).
func (a *analyst) Analyse(ctx context.Context, p game.Position, q analysis.Query) (*analysis.Analysis, error) {
	return a.analyseGuarded(ctx, p, q, a.settings.guardDepth(), q.Limits)
}

// analyseGuarded is analysis.Analyst's Analyse with a guard of depth turns
// (0: none) and the usual settings for searches within guardLim
// (mcts.NewDefaultGuard).
func (a *analyst) analyseGuarded(ctx context.Context, p game.Position, q analysis.Query, depth int, guardLim mcts.Limits) (*analysis.Analysis, error) {
	switch {
	case depth == 0:
		a.Guard = nil
	case a.Guard == nil || a.Guard.Depth != depth || a.Guard.Nodes != mcts.DefaultGuardNodesFor(guardLim):
		g, err := mcts.NewDefaultGuard(depth, guardLim)
		if err != nil {
			return nil, err
		}
		a.Guard = g
	}
	return a.Analyst.Analyse(ctx, p, q)
}

// Close releases the network's worker goroutines.
func (a *analyst) Close() { a.ev.Close() }

// Rules returns the variant the model plays.
func (a *analyst) Rules() *game.Rules { return a.model.Rules }

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
	an, err := m.a.Analyse(ctx, p, analysis.Query{Limits: m.a.settings.limits(), Top: 1})
	if err != nil {
		return nil, "", err
	}
	b := an.Best()
	note := fmt.Sprintf("value %+.2f for %s, W/D/L %s, %d sims", b.Value, sideName(an.Side), formatWDL(b.WDL), an.Sims)
	if an.Proof != nil {
		note += ", proven " + an.Proof.String()
	}
	if an.Tables != nil {
		note = "endgame tables: " + tablesText(an.Tables)
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

// tablesText says what the endgame tables give a position: "win 17" (the
// settling move in 17 turns), "draw" or "loss 9".
func tablesText(r *endgame.Result) string {
	if r.Outcome == endgame.Draw {
		return "draw"
	}
	return fmt.Sprintf("%s %d", r.Outcome, r.Turns)
}
