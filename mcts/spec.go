package mcts

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/game/endgame"
)

// Spec is a player description such as "alphabeta:depth=4" or
// "mcts:eval=material,sims=200": a kind, then optional key=value settings
// separated by commas. A model file alone, "models/dablot.dbm", is the
// shipped player of that model (ShippedKind, model=FILE).
type Spec struct {
	Text   string            // the spec as given, trimmed
	Kind   string            // random, greedy, uct, alphabeta, mcts or gumbel
	Params map[string]string // the settings by key (lower case)
}

// guardKeys are the keys that set the guard of an mcts or gumbel player,
// which mean nothing without guard=.
var guardKeys = []string{"gmargin", "gshare", "gnodes", "gext", "gorder", "gking"}

// The player kinds and their keys.
var specKeys = map[string][]string{
	"random":    {},
	"greedy":    {},
	"uct":       {"playouts", "ms", "c", "rollout"},
	"classical": {"ms", "sims"},
	"alphabeta": {"depth", "ms", "tt", "q", "mobility", "hunt", "ext", "order", "king", "eg"},
	"mcts": slices.Concat([]string{"model", "eval", "sims", "ms", "nodes", "cpuct", "fpu", "batch", "noise", "temp",
		"rollout", "reuse", "solve", "forced", "policy", "value", "cache", "su", "guard", "eg"}, guardKeys),
	"gumbel": slices.Concat([]string{"model", "eval", "sims", "ms", "nodes", "batch", "m", "cvisit", "cscale", "gscale",
		"rollout", "solve", "forced", "policy", "value", "cache", "su", "guard", "eg"}, guardKeys),
}

// SpecKinds returns the player kinds ParseSpec knows.
func SpecKinds() []string { return slices.Sorted(maps.Keys(specKeys)) }

// SpecKeys returns the keys a player kind takes (nil for an unknown kind).
func SpecKeys(kind string) []string { return slices.Clone(specKeys[kind]) }

// ParseSpec parses a player spec and checks its kind and keys (not yet the
// values; NewSpecFactory does).
func ParseSpec(s string) (Spec, error) {
	text := strings.TrimSpace(s)
	if !strings.Contains(text, ":") && strings.HasSuffix(text, ".dbm") {
		text = ShippedKind() + ":model=" + text // a model file alone: the shipped player
	}
	kind, rest, _ := strings.Cut(text, ":")
	kind = strings.ToLower(kind)
	keys, ok := specKeys[kind]
	if !ok {
		return Spec{}, fmt.Errorf("player %q: unknown kind %q (want one of %s)", s, kind, strings.Join(SpecKinds(), ", "))
	}
	sp := Spec{Text: text, Kind: kind, Params: map[string]string{}}
	if rest == "" {
		return sp, nil
	}
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok || k == "" {
			return Spec{}, fmt.Errorf("player %q: setting %q: want key=value", s, kv)
		}
		if !slices.Contains(keys, k) {
			known := "none"
			if len(keys) > 0 {
				known = strings.Join(slices.Sorted(slices.Values(keys)), ", ")
			}
			return Spec{}, fmt.Errorf("player %q: unknown key %q for %s (keys: %s)", s, k, kind, known)
		}
		if _, dup := sp.Params[k]; dup {
			return Spec{}, fmt.Errorf("player %q: key %q given twice", s, k)
		}
		sp.Params[k] = strings.TrimSpace(v)
	}
	return sp, nil
}

// ErrModelUnsupported is the error of a spec with model= when no model
// loader is given.
var ErrModelUnsupported = errors.New("model files are not supported yet")

// SpecOptions are what NewSpecFactory needs beyond the spec.
type SpecOptions struct {
	// LoadModel loads a model file as an evaluator. The factory puts a
	// Batcher in front of it, so the players of all games running at once
	// share it in batches; it need not be safe for concurrent use. Nil: a
	// spec with model= fails with ErrModelUnsupported.
	LoadModel func(path string) (Evaluator, error)
	// OwnEvaluators gives every player an evaluator of its own instead:
	// the Clone method's copy of the one LoadModel returns (an evaluator
	// without Clone is shared as above). Each search then evaluates on its
	// own goroutine, so a match of N games at once uses N cores.
	OwnEvaluators bool
	// Rules are the rules the players will play, if known (nil: not): a
	// spec asking for what they cannot do, such as eg= on rules the
	// endgame tables refuse (endgame.Check), is then an error at once
	// rather than when a game first reaches such an ending.
	Rules *game.Rules
}

// specReader reads a spec's values, remembering the first error.
type specReader struct {
	sp  Spec
	err error
}

func (r *specReader) fail(key, val, want string) {
	if r.err == nil {
		r.err = fmt.Errorf("player %q: %s=%s: want %s", r.sp.Text, key, val, want)
	}
}

func (r *specReader) int(key string, def, lo, hi int) int {
	v, ok := r.sp.Params[key]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		r.fail(key, v, fmt.Sprintf("a whole number from %d to %d", lo, hi))
		return def
	}
	return n
}

func (r *specReader) float(key string, def, lo, hi float64) float64 {
	v, ok := r.sp.Params[key]
	if !ok {
		return def
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || !(x >= lo && x <= hi) {
		r.fail(key, v, fmt.Sprintf("a number from %g to %g", lo, hi))
		return def
	}
	return x
}

// choice reads a key that is one of two words: false for the first (also
// when the key is absent), true for the second.
func (r *specReader) choice(key, first, second string) bool {
	v, ok := r.sp.Params[key]
	switch {
	case !ok || v == first:
		return false
	case v == second:
		return true
	}
	r.fail(key, v, first+" or "+second)
	return false
}

func (r *specReader) bool(key string, def bool) bool {
	v, ok := r.sp.Params[key]
	if !ok {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		r.fail(key, v, "true or false (1 or 0)")
		return def
	}
	return b
}

func (r *specReader) ms(key string) time.Duration {
	return time.Duration(r.int(key, 0, 0, 3_600_000)) * time.Millisecond
}

// NewSpecFactory checks every value of sp and returns a factory of its
// players. Keys, by kind (defaults in brackets):
//
//	random, greedy     no keys
//	uct                playouts [1000], ms [0: none], c [1.41], rollout [0: to the end]
//	alphabeta          depth [4, or none if ms is given], ms, tt [20: log2 entries; 0 none],
//	                   q [1: quiescence], mobility [2], hunt [3], ext [0: 1 extends
//	                   single replies, AlphaBetaConfig.Extend], order [0: 1 orders
//	                   quiet decisions by killers and history and searches with null
//	                   windows, AlphaBetaConfig.Order], king [5: the king's weight in
//	                   soldiers], eg [0: none; else the endings of that many pieces or
//	                   fewer from exact tables, where the rules allow]
//	classical          ms, sims [ms=1000]: the classical control (Classical), the
//	                   strongest player here with nothing learned
//	mcts, gumbel       a PlayerConfig (ParsePlayerConfig): the ShippedPlayer but for
//	                   what the spec sets. model=FILE or eval=rollout|material
//	                   (rollout: the most decisions of a rollout [0: to the end]);
//	                   the budget: sims, ms, nodes [ms=1000, DefaultMoveTime, when none
//	                   is given]; batch [8], solve [1: Config.Solver], forced
//	                   [1: Config.SkipForced]; gumbel: m [16], cvisit [50], cscale
//	                   [0.1], gscale [0: play the best; 1 samples like self-play];
//	                   mcts: cpuct [1.25], fpu [0.25], noise [0], temp [0: else the
//	                   temperature of the whole game], reuse [1]; policy [net; uniform]
//	                   and value [net; material] (Ablated); cache [65536 with model=,
//	                   else 0]; su [the model's score utility]; guard [16: the
//	                   guard's most turns; 0: none], gmargin [50], gshare [0.5],
//	                   gnodes [0 with ms, else 50000], gext [1], gorder [1], gking
//	                   [10] (GuardConfig); eg [3 where the rules allow: the endings
//	                   of that many pieces or fewer from exact tables; 0: none]
//
// ms limits are per decision. sims and playouts go up to MaxSims, nodes to
// MaxNodes and tt to MaxTTBits, so that a player's memory stays bounded.
// A search player's factory is named by its configuration in full
// (PlayerConfig.String), so a match header and a game record name the
// player that played.
func NewSpecFactory(sp Spec, opts SpecOptions) (*Factory, error) {
	r := &specReader{sp: sp}
	name := sp.Text
	switch sp.Kind {
	case "random":
		return NewFactory(name, func(seed uint64) (Player, error) { return NewRandomPlayer(seed), nil }), nil
	case "greedy":
		return NewFactory(name, func(seed uint64) (Player, error) { return NewGreedyPlayer(seed), nil }), nil
	case "uct":
		cfg := UCTConfig{Time: r.ms("ms"), C: r.float("c", 1.41, 0, 100), MaxRollout: r.int("rollout", 0, 0, 1<<30)}
		cfg.Playouts = r.int("playouts", 1000, 1, MaxSims)
		if _, ok := sp.Params["playouts"]; !ok && cfg.Time > 0 {
			cfg.Playouts = 0
		}
		if r.err != nil {
			return nil, r.err
		}
		if _, err := NewUCTPlayer(cfg); err != nil {
			return nil, fmt.Errorf("player %q: %w", sp.Text, err)
		}
		return NewFactory(name, func(seed uint64) (Player, error) {
			c := cfg
			c.Seed = seed
			return NewUCTPlayer(c)
		}), nil
	case "alphabeta":
		cfg := DefaultAlphaBetaConfig()
		cfg.Time = r.ms("ms")
		def := cfg.Depth
		if cfg.Time > 0 {
			def = 0
		}
		cfg.Depth = r.int("depth", def, 1, maxDepth)
		cfg.TTBits = r.int("tt", cfg.TTBits, 0, MaxTTBits)
		cfg.Quiescence = r.bool("q", cfg.Quiescence)
		cfg.Mobility = r.int("mobility", cfg.Mobility, -1000, 1000)
		cfg.Hunt = r.int("hunt", cfg.Hunt, -1000, 1000)
		cfg.Extend = r.bool("ext", cfg.Extend)
		cfg.Order = r.bool("order", cfg.Order)
		king := r.int("king", cfg.Weights[game.King]/cfg.Weights[game.Soldier], 1, MaxGuardKingValue)
		cfg.Weights[game.King] = king * cfg.Weights[game.Soldier]
		pieces := r.int("eg", 0, 0, MaxEndgamePieces)
		switch {
		case pieces == 1:
			r.fail("eg", sp.Params["eg"], fmt.Sprintf("0 (none) or 2 to %d", MaxEndgamePieces))
		case pieces > 0 && opts.Rules != nil && endgame.Check(opts.Rules) != nil:
			return nil, fmt.Errorf("player %q: eg=%d: %w", sp.Text, pieces, endgame.Check(opts.Rules))
		}
		if r.err != nil {
			return nil, r.err
		}
		if err := cfg.Validate(); err != nil {
			return nil, fmt.Errorf("player %q: %w", sp.Text, err)
		}
		return NewFactory(name, func(uint64) (Player, error) {
			ab, err := NewAlphaBetaPlayer(cfg)
			if err != nil || pieces == 0 {
				return ab, err
			}
			return &tabledPlayer{Player: ab, tables: &EndgameTables{Pieces: pieces}}, nil
		}), nil
	case "classical":
		c := Classical(Limits{Time: r.ms("ms"), Sims: r.int("sims", 0, 0, MaxSims)})
		if r.err != nil {
			return nil, r.err
		}
		f, err := c.ForRules(opts.Rules).NewFactory(opts)
		if err != nil {
			return nil, fmt.Errorf("player %q: %w", sp.Text, err)
		}
		return f, nil
	case "mcts", "gumbel":
		c, err := playerConfig(sp, r, opts.Rules)
		if err != nil {
			return nil, err
		}
		f, err := c.NewFactory(opts)
		if err != nil {
			return nil, fmt.Errorf("player %q: %w", sp.Text, err)
		}
		return f, nil
	}
	return nil, fmt.Errorf("player %q: unknown kind %q", sp.Text, sp.Kind)
}

// playerConfig reads the settings of sp, a spec of kind mcts or gumbel,
// into the ShippedPlayer's configuration (ParsePlayerConfig).
func playerConfig(sp Spec, r *specReader, rules *game.Rules) (PlayerConfig, error) {
	c := ShippedPlayer(sp.Params["model"])
	c.Gumbel = sp.Kind == "gumbel"
	c.Limits = Limits{Time: r.ms("ms"), Nodes: r.int("nodes", 0, 0, MaxNodes)}
	c.Limits.Sims = r.int("sims", 0, 0, MaxSims)
	if _, ok := sp.Params["sims"]; ok && c.Limits.Sims == 0 && c.Limits.Time == 0 && c.Limits.Nodes == 0 {
		r.fail("sims", sp.Params["sims"], "at least 1 without ms or nodes")
	}
	if c.Limits == (Limits{}) {
		c.Limits.Time = DefaultMoveTime
	}
	cfg := &c.Search
	cfg.BatchSize = r.int("batch", cfg.BatchSize, 1, 4096)
	cfg.Solver = r.bool("solve", cfg.Solver)
	cfg.SkipForced = r.bool("forced", cfg.SkipForced)
	if c.Gumbel {
		cfg.GumbelM = r.int("m", cfg.GumbelM, 1, 1024)
		cfg.CVisit = r.float("cvisit", cfg.CVisit, 0, 1e6)
		cfg.CScale = r.float("cscale", cfg.CScale, 1e-6, 1e6)
		cfg.GumbelScale = r.float("gscale", cfg.GumbelScale, 0, 100)
	} else {
		cfg.CPuct = r.float("cpuct", cfg.CPuct, 1e-6, 100)
		cfg.FPUReduction = r.float("fpu", cfg.FPUReduction, -10, 10)
		cfg.NoiseEpsilon = r.float("noise", 0, 0, 1)
		cfg.Temperature = r.float("temp", 0, 0, 100)
		if cfg.Temperature > 0 {
			cfg.TemperaturePlies = 1 << 20 // for the whole game
		}
		cfg.Reuse = r.bool("reuse", cfg.Reuse)
	}
	c.UniformPolicy, c.MaterialValue = r.choice("policy", "net", "uniform"), r.choice("value", "net", "material")
	if _, ok := sp.Params["model"]; !ok {
		c.Eval, c.Cache = sp.Params["eval"], 0
	}
	c.RolloutLength = r.int("rollout", 0, 0, 1<<30)
	c.Cache = r.int("cache", c.Cache, 0, maxCacheSize)
	if _, ok := sp.Params["su"]; ok {
		u := r.float("su", 0, 0, 1)
		c.ScoreUtility = &u
	}
	g := &c.Guard
	*g = DefaultGuard(c.Limits)
	g.Depth = r.int("guard", g.Depth, 0, MaxGuardDepth)
	g.Margin = r.int("gmargin", g.Margin, 0, 1_000_000)
	g.Share = r.float("gshare", g.Share, 1e-3, 1)
	g.Nodes = int64(r.int("gnodes", int(g.Nodes), 0, MaxGuardNodes))
	g.Extend = r.bool("gext", g.Extend)
	g.Order = r.bool("gorder", g.Order)
	g.KingValue = r.int("gking", g.KingValue, 1, MaxGuardKingValue)
	_, setEG := sp.Params["eg"]
	c.Endgames = r.int("eg", c.Endgames, 0, MaxEndgamePieces)
	if c.Endgames == 1 {
		r.fail("eg", sp.Params["eg"], fmt.Sprintf("0 (none) or 2 to %d", MaxEndgamePieces))
	}
	if r.err != nil {
		return c, r.err
	}
	setsGuard := slices.ContainsFunc(guardKeys, func(k string) bool {
		_, ok := sp.Params[k]
		return ok
	})
	model, hasModel := sp.Params["model"]
	evalKind, hasEval := sp.Params["eval"]
	_, hasSU := sp.Params["su"]
	_, hasRollout := sp.Params["rollout"]
	switch {
	case hasModel && hasEval:
		return c, fmt.Errorf("player %q: give model= or eval=, not both", sp.Text)
	case hasModel && model == "":
		return c, fmt.Errorf("player %q: model=: want a model file", sp.Text)
	case hasEval && evalKind != "rollout" && evalKind != "material":
		return c, fmt.Errorf("player %q: eval=%s: want rollout or material", sp.Text, evalKind)
	case !hasModel && !hasEval:
		return c, fmt.Errorf("player %q: %s needs model=FILE or eval=rollout|material", sp.Text, sp.Kind)
	case hasRollout && evalKind != "rollout":
		return c, fmt.Errorf("player %q: rollout= is the length of eval=rollout's rollouts: it needs eval=rollout", sp.Text)
	case setEG && c.Endgames > 0 && rules != nil && endgame.Check(rules) != nil:
		return c, fmt.Errorf("player %q: eg=%d: %w", sp.Text, c.Endgames, endgame.Check(rules))
	case setsGuard && g.Depth == 0:
		last := len(guardKeys) - 1
		return c, fmt.Errorf("player %q: %s= and %s= set the guard: they need guard=1 or more", sp.Text, strings.Join(guardKeys[:last], "=, "), guardKeys[last])
	case hasSU && !hasModel:
		return c, fmt.Errorf("player %q: su= is the score utility of a network: it needs model=", sp.Text)
	}
	if g.Depth == 0 {
		*g = GuardConfig{}
	}
	c = c.ForRules(rules)
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("player %q: %w", sp.Text, err)
	}
	return c, nil
}

// NewFactory returns a factory of c's players: it loads the model once
// (opts.LoadModel) and every player searches with it, in batches shared by
// the games played at once or, with opts.OwnEvaluators, each with its own
// copy. Its name is c in full (String).
func (c PlayerConfig) NewFactory(opts SpecOptions) (*Factory, error) {
	c = c.ForRules(opts.Rules)
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var shared Evaluator
	var newEval func(seed uint64) Evaluator
	var closeFn func()
	switch {
	case c.Model != "":
		if opts.LoadModel == nil {
			return nil, fmt.Errorf("model=%s: %w", c.Model, ErrModelUnsupported)
		}
		ev, err := opts.LoadModel(c.Model)
		if err != nil {
			return nil, fmt.Errorf("model=%s: %w", c.Model, err)
		}
		if c.ScoreUtility != nil {
			if err := setScoreUtility(ev, *c.ScoreUtility); err != nil {
				closeEvaluator(ev)
				return nil, fmt.Errorf("model=%s: su=%g: %w", c.Model, *c.ScoreUtility, err)
			}
		}
		if cl, ok := ev.(interface{ Clone() Evaluator }); ok && opts.OwnEvaluators {
			newEval = func(uint64) Evaluator { return cl.Clone() }
			closeFn = func() { closeEvaluator(ev) }
			break
		}
		batcher := NewBatcher(ev, 0, 0)
		shared = batcher
		closeFn = func() {
			batcher.Close()
			closeEvaluator(ev)
		}
	case c.Eval == "rollout":
		newEval = func(seed uint64) Evaluator {
			return &RolloutEvaluator{Rollouts: 1, MaxDecisions: c.RolloutLength, Seed: seed}
		}
	default:
		shared = &MaterialEvaluator{}
	}
	f := NewFactory(c.String(), func(seed uint64) (Player, error) {
		ev := shared
		if newEval != nil {
			ev = newEval(Mix(seed, 1))
		}
		return c.NewPlayer(ev, seed)
	})
	f.close = closeFn
	return f, nil
}

// setScoreUtility sets the score utility of ev, a network's evaluator.
func setScoreUtility(ev Evaluator, u float64) error {
	s, ok := ev.(interface{ SetScoreUtility(float64) error })
	if !ok {
		return errors.New("this evaluator has no score utility")
	}
	return s.SetScoreUtility(u)
}

// checkEvaluator stands for a model's evaluator in CheckSpec: it takes any
// score utility, which a real model checks when it is loaded.
type checkEvaluator struct{ MaterialEvaluator }

// SetScoreUtility accepts every u.
func (*checkEvaluator) SetScoreUtility(float64) error { return nil }

// closeEvaluator closes ev if it has a Close method.
func closeEvaluator(ev Evaluator) {
	if c, ok := ev.(interface{ Close() }); ok {
		c.Close()
	}
}

// CheckSpec parses s and checks every value as NewSpecFactory does, without
// building a player: a model= file is not opened, so a config can be checked
// before its models exist.
func CheckSpec(s string) error {
	sp, err := ParseSpec(s)
	if err != nil {
		return err
	}
	f, err := NewSpecFactory(sp, SpecOptions{LoadModel: func(string) (Evaluator, error) {
		return &checkEvaluator{}, nil
	}})
	if err != nil {
		return err
	}
	f.Close()
	return nil
}

// ParseFactory is ParseSpec followed by NewSpecFactory.
func ParseFactory(s string, opts SpecOptions) (*Factory, error) {
	sp, err := ParseSpec(s)
	if err != nil {
		return nil, err
	}
	return NewSpecFactory(sp, opts)
}

// tabledPlayer plays the endings its tables hold from them, and every
// other position as Player does.
type tabledPlayer struct {
	Player
	tables *EndgameTables
}

// Turn implements Player.
func (t *tabledPlayer) Turn(ctx context.Context, p *game.Position) ([]game.Decision, error) {
	if ds, ok, err := t.tables.Turn(ctx, p); err != nil || ok {
		return ds, err
	}
	return t.Player.Turn(ctx, p)
}
