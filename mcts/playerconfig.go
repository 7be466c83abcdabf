package mcts

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/game/endgame"
)

// PlayerConfig is a search player: its tree search and budget, what it
// evaluates positions with, the alpha-beta guard in front of the search,
// and the exact tables behind it. It is the one description of such a
// player: the player language's kinds mcts and gumbel parse into it
// (ParsePlayerConfig), String writes it back in full, and NewPlayer
// assembles it, always in the same order. ShippedPlayer is the player
// that ships; self-play and the run's ratings start from it and set
// their own fields.
type PlayerConfig struct {
	// Gumbel chooses the Gumbel root search (the kind gumbel), else PUCT
	// (the kind mcts).
	Gumbel bool
	// Limits bound each decision's search (simulations, tree nodes, time).
	Limits Limits
	// Search are the tree search's settings (DefaultConfig); its Gumbel
	// and Seed are set by NewPlayer.
	Search Config
	// Model is a model file (SpecOptions.LoadModel opens it); without one,
	// Eval names a hand-written evaluator: "material" (MaterialEvaluator)
	// or "rollout" (RolloutEvaluator, RolloutLength decisions at most, 0
	// to the end of the game).
	Model         string
	Eval          string
	RolloutLength int
	// ScoreUtility, if set, replaces the score utility the model was
	// trained with (a network with a score head).
	ScoreUtility *float64
	// Cache is the positions of an EvalCache in front of the evaluator
	// (0: none).
	Cache int
	// UniformPolicy and MaterialValue replace the network's priors by
	// equal ones and its value by the material count (Ablated): the
	// diagnosis of what each head is worth.
	UniformPolicy, MaterialValue bool
	// MaterialBlend adds that much per soldier of material balance to the
	// value's logit (MaterialBlend): self-play's selfplay.material_blend;
	// PlainRaces leaves positions with one king out of it
	// (selfplay.plain_races).
	MaterialBlend float64
	PlainRaces    bool
	// Guard is the alpha-beta guard that vetoes root decisions before
	// each search (Depth 0: none).
	Guard GuardConfig
	// Endgames is the most pieces of a position played from exact tables
	// (EndgameTables; 0: none).
	Endgames int
}

// GuardConfig is a Guard's settings (see Guard's fields).
type GuardConfig struct {
	Depth     int // 0: no guard
	Margin    int
	Share     float64
	Nodes     int64
	Extend    bool
	Order     bool
	KingValue int // soldiers
}

// The shipped player's budget and tables (ShippedPlayer).
const (
	// DefaultMoveTime is a decision's time when a spec gives no budget.
	DefaultMoveTime = time.Second
	// DefaultEndgamePieces is the endings played from exact tables,
	// where the rules allow them (docs/player.md).
	DefaultEndgamePieces = 3
)

// ShippedGumbel is the search of the shipped player: Gumbel (true) or
// PUCT (false). Head to head at 100 ms PUCT scored 54.5 % against Gumbel,
// but on the ladder against alpha-beta, on the same machine, it scored
// 5.5 ± 6.7 points below Gumbel (docs/player.md), so Gumbel ships.
const ShippedGumbel = true

// ShippedKind is the spec kind of the shipped player's search: gumbel or
// mcts (PUCT).
func ShippedKind() string {
	if ShippedGumbel {
		return "gumbel"
	}
	return "mcts"
}

// DefaultGuard returns the guard of the shipped player for searches
// within lim: DefaultGuardDepth turns, DefaultGuardMargin, half of a time
// limit or else DefaultGuardNodes nodes, single replies extended, moves
// ordered, the king at DefaultGuardKingValue soldiers.
func DefaultGuard(lim Limits) GuardConfig {
	return GuardConfig{Depth: DefaultGuardDepth, Margin: DefaultGuardMargin, Share: DefaultGuardShare,
		Nodes: DefaultGuardNodesFor(lim), Extend: DefaultGuardExtend, Order: DefaultGuardOrder, KingValue: DefaultGuardKingValue}
}

// ShippedPlayer returns the player that ships, searching with the model
// file path: the ShippedGumbel search for DefaultMoveTime a decision,
// with the DefaultGuard and the tables of DefaultEndgamePieces pieces.
// A spec that names only the model ("gumbel:model=FILE") is this player.
func ShippedPlayer(path string) PlayerConfig {
	lim := Limits{Time: DefaultMoveTime}
	return PlayerConfig{Gumbel: ShippedGumbel, Limits: lim, Search: DefaultConfig(), Model: path, Cache: defaultCacheSize,
		Guard: DefaultGuard(lim), Endgames: DefaultEndgamePieces}
}

// Classical returns the classical control within lim (none given:
// DefaultMoveTime a decision): the strongest player with nothing learned,
// the yardstick of what learning adds. It is the shipped player with a
// material count in place of the network (MaterialEvaluator): the same
// search, guard and tables. The player language calls it classical;
// docs/player.md has the match that chose it.
func Classical(lim Limits) PlayerConfig {
	c := ShippedPlayer("")
	c.Eval, c.Cache = "material", 0
	if lim == (Limits{}) {
		lim.Time = DefaultMoveTime
	}
	c.Limits, c.Guard = lim, DefaultGuard(lim)
	return c
}

// Validate reports the first setting out of range, or settings that do
// not go together. A config without Model and Eval is valid: its caller
// gives NewPlayer the evaluator (self-play gives its network).
func (c *PlayerConfig) Validate() error {
	s := c.Search
	s.Gumbel = c.Gumbel
	if err := s.Validate(); err != nil {
		return err
	}
	if err := c.Limits.validate(); err != nil {
		return err
	}
	g := c.Guard
	switch {
	case c.Eval != "" && c.Eval != "material" && c.Eval != "rollout":
		return fmt.Errorf("mcts: evaluator %q: want material or rollout", c.Eval)
	case c.Model != "" && c.Eval != "":
		return errors.New("mcts: a search player evaluates with a model or a hand-written evaluator, not both")
	case c.ScoreUtility != nil && c.Model == "":
		return errors.New("mcts: the score utility is a network's: it needs a model")
	case c.Cache < 0 || c.Cache > maxCacheSize:
		return fmt.Errorf("mcts: cache of %d positions: want 0 to %d", c.Cache, maxCacheSize)
	case !(c.MaterialBlend >= 0 && c.MaterialBlend <= 100):
		return fmt.Errorf("mcts: material blend %g: want 0 to 100", c.MaterialBlend)
	case c.Endgames != 0 && (c.Endgames < 2 || c.Endgames > MaxEndgamePieces):
		return fmt.Errorf("mcts: tables of %d pieces: want 0 (none) or 2 to %d", c.Endgames, MaxEndgamePieces)
	case g.Depth < 0 || g.Depth > MaxGuardDepth:
		return fmt.Errorf("mcts: guard depth %d: want 0 (none) to %d", g.Depth, MaxGuardDepth)
	case g.Depth > 0 && (g.Margin < 0 || !(g.Share > 0 && g.Share <= 1) || g.Nodes < 0 || g.Nodes > MaxGuardNodes ||
		g.KingValue < 1 || g.KingValue > MaxGuardKingValue):
		return fmt.Errorf("mcts: guard %+v: a setting out of range", g)
	}
	return nil
}

// ForRules returns c as it plays rules r: without tables where the rules
// refuse them (endgame.Check).
func (c PlayerConfig) ForRules(r *game.Rules) PlayerConfig {
	if c.Endgames > 0 && r != nil && endgame.Check(r) != nil {
		c.Endgames = 0
	}
	return c
}

// SearchConfig returns the tree search's settings of a player seeded by
// seed.
func (c PlayerConfig) SearchConfig(seed uint64) Config {
	s := c.Search
	s.Gumbel, s.Seed = c.Gumbel, seed
	return s
}

// Evaluator returns the evaluator the player searches with: base (the
// network's or the hand-written one) behind, in this order, the cache,
// the ablation and the material blend.
func (c *PlayerConfig) Evaluator(base Evaluator) Evaluator {
	ev := base
	if c.Cache > 0 {
		ev = NewEvalCache(ev, c.Cache)
	}
	if c.UniformPolicy || c.MaterialValue {
		ev = &Ablated{Inner: ev, UniformPolicy: c.UniformPolicy, MaterialValue: c.MaterialValue}
	}
	if c.MaterialBlend > 0 {
		ev = &MaterialBlend{Inner: ev, PerSoldier: c.MaterialBlend, PlainRaces: c.PlainRaces}
	}
	return ev
}

// NewGuard returns the player's guard, nil for none.
func (c *PlayerConfig) NewGuard() (*Guard, error) {
	g := c.Guard
	if g.Depth == 0 {
		return nil, nil
	}
	guard, err := NewGuard(g.Depth, g.Margin, g.Share)
	if err != nil {
		return nil, err
	}
	guard.Nodes, guard.Extend, guard.Order = g.Nodes, g.Extend, g.Order
	return guard, guard.SetKingValue(g.KingValue)
}

// NewTables returns the player's endgame tables, nil for none.
func (c *PlayerConfig) NewTables() (*EndgameTables, error) {
	if c.Endgames == 0 {
		return nil, nil
	}
	return NewEndgameTables(c.Endgames)
}

// NewPlayer returns the player over base, the network's or the
// hand-written evaluator, seeded by seed: the search over c.Evaluator(base)
// within c.Limits, with its tables and its guard.
func (c *PlayerConfig) NewPlayer(base Evaluator, seed uint64) (*SearchPlayer, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	pl, err := NewSearchPlayer(c.Evaluator(base), c.SearchConfig(seed), c.Limits)
	if err != nil {
		return nil, err
	}
	if pl.Endgames, err = c.NewTables(); err != nil {
		return nil, err
	}
	if pl.Guard, err = c.NewGuard(); err != nil {
		return nil, err
	}
	return pl, nil
}

// String writes c in the player language, every setting given, defaults
// included, so that a record names the player that played: such as
// "gumbel:model=models/dablot.dbm,ms=1000,batch=8,solve=1,forced=1,m=16,
// cvisit=50,cscale=0.1,gscale=0,cache=65536,guard=16,gmargin=50,gshare=0.5,
// gnodes=0,gext=1,gorder=1,gking=10,eg=3". ParsePlayerConfig reads it back
// as c.
func (c PlayerConfig) String() string {
	var kv []string
	add := func(k string, v any) { kv = append(kv, fmt.Sprintf("%s=%v", k, v)) }
	kind := "mcts"
	if c.Gumbel {
		kind = "gumbel"
	}
	if c.Model != "" {
		add("model", c.Model)
	} else {
		add("eval", c.Eval)
		if c.Eval == "rollout" {
			add("rollout", c.RolloutLength)
		}
	}
	lim := c.Limits
	if lim.Sims > 0 {
		add("sims", lim.Sims)
	}
	if lim.Time > 0 {
		add("ms", lim.Time.Milliseconds())
	}
	if lim.Nodes > 0 {
		add("nodes", lim.Nodes)
	}
	s := c.Search
	add("batch", s.BatchSize)
	add("solve", b2i(s.Solver))
	add("forced", b2i(s.SkipForced))
	if c.Gumbel {
		add("m", s.GumbelM)
		add("cvisit", fmtFloat(s.CVisit))
		add("cscale", fmtFloat(s.CScale))
		add("gscale", fmtFloat(s.GumbelScale))
	} else {
		add("cpuct", fmtFloat(s.CPuct))
		add("fpu", fmtFloat(s.FPUReduction))
		add("noise", fmtFloat(s.NoiseEpsilon))
		add("temp", fmtFloat(s.Temperature))
		add("reuse", b2i(s.Reuse))
	}
	if c.UniformPolicy {
		add("policy", "uniform")
	}
	if c.MaterialValue {
		add("value", "material")
	}
	if c.ScoreUtility != nil {
		add("su", fmtFloat(*c.ScoreUtility))
	}
	add("cache", c.Cache)
	g := c.Guard
	add("guard", g.Depth)
	if g.Depth > 0 {
		add("gmargin", g.Margin)
		add("gshare", fmtFloat(g.Share))
		add("gnodes", g.Nodes)
		add("gext", b2i(g.Extend))
		add("gorder", b2i(g.Order))
		add("gking", g.KingValue)
	}
	add("eg", c.Endgames)
	return kind + ":" + strings.Join(kv, ",")
}

// fmtFloat writes x as the player language does: the shortest form that
// reads back as x.
func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// ParsePlayerConfig parses a spec of kind mcts or gumbel into the player
// it describes: the ShippedPlayer but for what the spec sets. A spec that
// gives sims=, ms= or nodes= has that budget alone; a guard without a time
// limit is bounded by DefaultGuardNodes unless gnodes= says otherwise.
// Rules, if not nil, are those the player will play: the default tables
// are then left out where the rules refuse them, and eg= there is an
// error.
func ParsePlayerConfig(s string, rules *game.Rules) (PlayerConfig, error) {
	sp, err := ParseSpec(s)
	if err != nil {
		return PlayerConfig{}, err
	}
	if sp.Kind != "mcts" && sp.Kind != "gumbel" {
		return PlayerConfig{}, fmt.Errorf("player %q: %s is not a search player (mcts or gumbel)", sp.Text, sp.Kind)
	}
	return playerConfig(sp, &specReader{sp: sp}, rules)
}
