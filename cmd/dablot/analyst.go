package main

// The model's player, shared by "play", "engine" and "serve": the search
// settings of the command line, and a model loaded with its evaluator and
// the analysis (package mcts/analysis) over it.

import (
	"context"
	"fmt"
	"path/filepath"
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

// searchSettings are the command line's settings of the model's player
// (mcts.PlayerConfig): the shipped player (mcts.ShippedPlayer) but for
// the flags given, and the threads of the network's forward pass.
type searchSettings struct {
	Sims     int           // simulations per decision (0: none)
	MoveTime time.Duration // time per decision (0: none; with no --sims either, mcts.DefaultMoveTime)
	Search   string        // gumbel or puct
	Solve    bool          // prove wins and losses in the tree (mcts.Config.Solver)
	Forced   bool          // pass forced decisions without evaluation (mcts.Config.SkipForced)
	Threads  int           // goroutines of one forward pass
	Seed     uint64        // seeds the Gumbel noise
	// Guard is the most turns of the alpha-beta guard (mcts.Guard), 0 for
	// none. A search without a time limit also bounds its nodes
	// (mcts.DefaultGuardNodesFor).
	Guard int
	// Endgames is the most pieces of a position played from exact endgame
	// tables (mcts.EndgameTables) where the rules allow them; 0: none.
	Endgames int
}

// shippedSearch names the shipped player's search, as --search does.
func shippedSearch() string {
	if mcts.ShippedGumbel {
		return "gumbel"
	}
	return "puct"
}

// addFlags defines --sims, --movetime, --search, --solve, --forced,
// --threads, --seed, --guard and --eg on fs, their defaults the shipped
// player's.
func (s *searchSettings) addFlags(fs *flagSet) {
	shipped := mcts.ShippedPlayer("")
	rangeVar(fs, &s.Sims, "sims", 0, 0, mcts.MaxSims, fmt.Sprintf("simulations per decision of the model's search (0: none; with neither --sims nor --movetime, %d ms a decision)", mcts.DefaultMoveTime.Milliseconds()))
	millisVar(fs, &s.MoveTime, "movetime", 0, int(maxSearchMoveTime.Milliseconds()), "time per decision in milliseconds, instead of or on top of --sims (0: none)")
	fs.StringVar(&s.Search, "search", shippedSearch(), "the model's search: gumbel (the Gumbel root search) or puct")
	fs.BoolVar(&s.Solve, "solve", shipped.Search.Solver, "prove wins and losses in the search tree and play by them")
	fs.BoolVar(&s.Forced, "forced", shipped.Search.SkipForced, "pass decisions that are forced without asking the network")
	rangeVar(fs, &s.Threads, "threads", 1, 1, maxSearchThreads, "goroutines for the network's forward pass")
	fs.Uint64Var(&s.Seed, "seed", 1, "random seed of the search")
	rangeVar(fs, &s.Guard, "guard", shipped.Guard.Depth, 0, mcts.MaxGuardDepth, fmt.Sprintf(
		"most turns of the alpha-beta guard that vetoes blunders before each search, deepening within half of --movetime, else within %d nodes (0: none)",
		mcts.DefaultGuardNodes))
	rangeVar(fs, &s.Endgames, "eg", shipped.Endgames, 0, mcts.MaxEndgamePieces,
		"play positions of this many pieces or fewer from exact endgame tables, solved the first time one is reached, where the rules allow them (0: never)")
}

// validate checks the settings together (addFlags checks each range).
func (s *searchSettings) validate() error {
	switch {
	case s.Search != "gumbel" && s.Search != "puct":
		return usagef("--search %q: want gumbel or puct", s.Search)
	case s.Endgames == 1:
		return usagef("--eg 1: the tables hold 2 or 3 pieces (0: none)")
	}
	return nil
}

// player returns the player of the model file path with these settings,
// on rules r.
func (s *searchSettings) player(path string, r *game.Rules) mcts.PlayerConfig {
	c := mcts.ShippedPlayer(path)
	c.Gumbel = s.Search == "gumbel"
	c.Limits = mcts.Limits{Sims: s.Sims, Time: s.MoveTime}
	if c.Limits == (mcts.Limits{}) {
		c.Limits.Time = mcts.DefaultMoveTime
	}
	c.Search.Solver, c.Search.SkipForced = s.Solve, s.Forced
	c.Guard = mcts.DefaultGuard(c.Limits)
	c.Guard.Depth = s.Guard
	if s.Guard == 0 {
		c.Guard = mcts.GuardConfig{}
	}
	c.Endgames = s.Endgames
	return c.ForRules(r)
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
	return newAnalyst(m, s.player(path, m.Rules), s)
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
// network evaluator and the analysis over them, with the player it was
// made as. It is not safe for concurrent use.
type analyst struct {
	*analysis.Analyst
	model    *model.Model
	ev       *model.NetEvaluator
	player   mcts.PlayerConfig
	settings searchSettings
}

// newAnalyst makes the model's player pc (with the command line's
// settings s): the analysis over pc's evaluator, search and tables; its
// guard is made for each query's limits (analyseGuarded).
func newAnalyst(m *model.Model, pc mcts.PlayerConfig, s searchSettings) (*analyst, error) {
	cfg := pc.SearchConfig(s.Seed)
	ev := m.NewEvaluator(max(cfg.BatchSize, 16), s.Threads)
	an, err := analysis.New(pc.Evaluator(ev), cfg)
	if err != nil {
		ev.Close()
		return nil, err
	}
	if an.Endgames, err = pc.NewTables(); err != nil {
		ev.Close()
		return nil, err
	}
	return &analyst{Analyst: an, model: m, ev: ev, player: pc, settings: s}, nil
}

// limits returns the limits of one of the player's decisions.
func (a *analyst) limits() mcts.Limits { return a.player.Limits }

// describe says how the model searches: its player in full.
func (a *analyst) describe() string { return a.player.String() }

// Analyse is analysis.Analyst's, with the player's guard for the query's
// limits (a time limit lets it deepen further).
func (a *analyst) Analyse(ctx context.Context, p game.Position, q analysis.Query) (*analysis.Analysis, error) {
	return a.analyseGuarded(ctx, p, q, q.Limits)
}

// analyseGuarded is analysis.Analyst's Analyse with the player's guard
// (if any) for searches within guardLim: its node budget is
// mcts.DefaultGuardNodesFor(guardLim).
func (a *analyst) analyseGuarded(ctx context.Context, p game.Position, q analysis.Query, guardLim mcts.Limits) (*analysis.Analysis, error) {
	gc := a.player.Guard
	gc.Nodes = mcts.DefaultGuardNodesFor(guardLim)
	switch {
	case gc.Depth == 0:
		a.Guard = nil
	case a.Guard == nil || a.Guard.Nodes != gc.Nodes:
		pc := a.player
		pc.Guard = gc
		g, err := pc.NewGuard()
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
	an, err := m.a.Analyse(ctx, p, analysis.Query{Limits: m.a.limits(), Top: 1})
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
