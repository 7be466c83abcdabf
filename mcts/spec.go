package mcts

import (
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
// separated by commas.
type Spec struct {
	Text   string            // the spec as given, trimmed
	Kind   string            // random, greedy, uct, alphabeta, mcts or gumbel
	Params map[string]string // the settings by key (lower case)
}

// guardKeys are the keys that set the guard of an mcts or gumbel player,
// which mean nothing without guard=.
var guardKeys = []string{"gmargin", "gshare", "gnodes", "gext", "gorder", "greduce", "gcand", "ghand", "gking", "gkopp", "gstop", "gkeep"}

// The player kinds and their keys.
var specKeys = map[string][]string{
	"random":    {},
	"greedy":    {},
	"uct":       {"playouts", "ms", "c", "rollout"},
	"alphabeta": {"depth", "ms", "tt", "q", "mobility", "hunt", "ext", "order", "reduce"},
	"mcts": slices.Concat([]string{"model", "eval", "sims", "ms", "nodes", "cpuct", "fpu", "batch", "noise", "temp", "tempplies",
		"rollouts", "rollout", "reuse", "q", "mat", "trade", "dscale", "solve", "forced", "policy", "value", "cache", "mm", "su", "guard", "eg"}, guardKeys),
	"gumbel": slices.Concat([]string{"model", "eval", "sims", "ms", "nodes", "batch", "m", "cvisit", "cscale", "gscale",
		"rollouts", "rollout", "q", "mat", "trade", "dscale", "solve", "forced", "policy", "value", "cache", "mm", "su", "guard", "eg"}, guardKeys),
}

// SpecKinds returns the player kinds ParseSpec knows.
func SpecKinds() []string { return slices.Sorted(maps.Keys(specKeys)) }

// SpecKeys returns the keys a player kind takes (nil for an unknown kind).
func SpecKeys(kind string) []string { return slices.Clone(specKeys[kind]) }

// ParseSpec parses a player spec and checks its kind and keys (not yet the
// values; NewSpecFactory does).
func ParseSpec(s string) (Spec, error) {
	text := strings.TrimSpace(s)
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
//	                   windows, AlphaBetaConfig.Order], reduce [0: 1 searches late
//	                   quiet decisions a turn shallower first, AlphaBetaConfig.Reduce;
//	                   needs order=1]
//	mcts               model=FILE or eval=rollout|material; sims [200], ms, nodes,
//	                   cpuct [1.25], fpu [0.25], batch [8], noise [0], temp [0],
//	                   tempplies [0], rollouts [1], rollout [0], reuse [true],
//	                   q [0: none; else the QuiescenceEvaluator scale],
//	                   mat [0: none; else MaterialBlend's PerSoldier],
//	                   trade [0: none; else MaterialBlend's Trade, with mat],
//	                   dscale [0: none; else DrawScale's Rate: the value shrunk
//	                   towards a draw as the no-capture counter nears its limit],
//	                   solve [true: Config.Solver], forced [true: Config.SkipForced],
//	                   policy [net; uniform: equal priors], value [net; material:
//	                   MaterialEvaluator's value] (diagnosis: Ablated),
//	                   cache [65536 with model=, else 0: EvalCache positions],
//	                   mm [0: the mean; else Config.MinimaxWeight],
//	                   su [the model's: the score utility it was trained with, 0 to 1;
//	                   value + su·score of a network with a score head; 0 turns it off],
//	                   guard [0: none; else Guard's deepest search in turns: alpha-beta
//	                   vetoes root decisions before each search], gmargin [50: Guard's
//	                   margin], gshare [0.5: Guard's share of ms], gnodes [0: none;
//	                   else Guard's Nodes, its alpha-beta nodes a decision], gext
//	                   [1, DefaultGuardExtend: Guard's Extend; 0 turns it off], gorder
//	                   [1, DefaultGuardOrder: Guard's Order, killers, history and null
//	                   windows in its searches; 0 turns them off], greduce [0,
//	                   DefaultGuardReduce: Guard's Reduce, late-move reductions;
//	                   needs gorder=1], gcand [0: all; else Guard's Candidates, the
//	                   decisions that pass its test, in the network's order, before
//	                   it stops testing and excludes the rest], ghand
//	                   [0: none; else Guard's Handoff, the enemy pieces at most of an
//	                   endgame the guard plays], gking [10, DefaultGuardKingValue:
//	                   the king's value in soldiers in the guard's evaluation], gkopp
//	                   [0: as gking; else the opponent's king's value in soldiers in the
//	                   guard's evaluation, its own keeping gking's], gstop
//	                   [0, DefaultGuardStop: Guard's Stop, no search begun under ms
//	                   that is not expected to finish], gkeep [0, DefaultGuardKeep:
//	                   Guard's Keep, the verdicts of an unfinished search kept],
//	                   eg [0: none; else EndgameTables' Pieces, 2 to 3: the endings of
//	                   that many pieces or fewer played from exact tables]
//	gumbel             as mcts without cpuct, fpu, noise, temp, reuse; sims [16, or none
//	                   if ms or nodes is given: halving in passes of doubling budgets],
//	                   m [16], cvisit [50], cscale [0.1], gscale [0: play the best; 1 samples like self-play]
//
// ms limits are per decision. sims and playouts go up to MaxSims, nodes to
// MaxNodes and tt to MaxTTBits, so that a player's memory stays bounded.
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
		cfg.Reduce = r.bool("reduce", cfg.Reduce)
		if r.err != nil {
			return nil, r.err
		}
		if err := cfg.Validate(); err != nil {
			return nil, fmt.Errorf("player %q: %w", sp.Text, err)
		}
		return NewFactory(name, func(uint64) (Player, error) { return NewAlphaBetaPlayer(cfg) }), nil
	case "mcts", "gumbel":
		return searchFactory(sp, r, opts)
	}
	return nil, fmt.Errorf("player %q: unknown kind %q", sp.Text, sp.Kind)
}

func searchFactory(sp Spec, r *specReader, opts SpecOptions) (*Factory, error) {
	gumbel := sp.Kind == "gumbel"
	cfg := DefaultConfig()
	cfg.Gumbel = gumbel
	lim := Limits{Time: r.ms("ms"), Nodes: r.int("nodes", 0, 0, MaxNodes)}
	defSims := 200
	if lim.Time > 0 || lim.Nodes > 0 {
		defSims = 0
	} else if gumbel {
		defSims = 16
	}
	lim.Sims = r.int("sims", defSims, 0, MaxSims)
	if lim == (Limits{}) {
		r.fail("sims", sp.Params["sims"], "at least 1 without ms or nodes")
	}
	cfg.BatchSize = r.int("batch", cfg.BatchSize, 1, 4096)
	cfg.Solver = r.bool("solve", cfg.Solver)
	cfg.MinimaxWeight = r.float("mm", 0, 0, 1)
	cfg.SkipForced = r.bool("forced", cfg.SkipForced)
	if gumbel {
		cfg.GumbelM = r.int("m", cfg.GumbelM, 1, 1024)
		cfg.CVisit = r.float("cvisit", cfg.CVisit, 0, 1e6)
		cfg.CScale = r.float("cscale", cfg.CScale, 1e-6, 1e6)
		cfg.GumbelScale = r.float("gscale", cfg.GumbelScale, 0, 100)
	} else {
		cfg.CPuct = r.float("cpuct", cfg.CPuct, 1e-6, 100)
		cfg.FPUReduction = r.float("fpu", cfg.FPUReduction, -10, 10)
		cfg.NoiseEpsilon = r.float("noise", 0, 0, 1)
		cfg.Temperature = r.float("temp", 0, 0, 100)
		cfg.TemperaturePlies = r.int("tempplies", 0, 0, 1<<20)
		if cfg.Temperature > 0 && cfg.TemperaturePlies == 0 {
			cfg.TemperaturePlies = 1 << 20 // temp alone: for the whole game
		}
		cfg.Reuse = r.bool("reuse", cfg.Reuse)
	}
	qscale := r.float("q", 0, 0, 100)
	perSoldier := r.float("mat", 0, 0, 100)
	trade := r.float("trade", 0, 0, 1000)
	drawRate := r.float("dscale", 0, 0, 1)
	rollouts := r.int("rollouts", 1, 1, 1<<20)
	maxRollout := r.int("rollout", 0, 0, 1<<30)
	ablated := Ablated{UniformPolicy: r.choice("policy", "net", "uniform"), MaterialValue: r.choice("value", "net", "material")}
	model, hasModel := sp.Params["model"]
	evalKind, hasEval := sp.Params["eval"]
	defCache := 0
	if hasModel {
		defCache = defaultCacheSize
	}
	cacheSize := r.int("cache", defCache, 0, maxCacheSize)
	guardDepth := r.int("guard", 0, 0, MaxGuardDepth)
	guardMargin := r.int("gmargin", DefaultGuardMargin, 0, 1_000_000)
	guardShare := r.float("gshare", DefaultGuardShare, 1e-3, 1)
	guardNodes := r.int("gnodes", 0, 0, MaxGuardNodes)
	guardExtend := r.bool("gext", DefaultGuardExtend)
	guardOrder := r.bool("gorder", DefaultGuardOrder)
	guardReduce := r.bool("greduce", DefaultGuardReduce)
	guardCandidates := r.int("gcand", DefaultGuardCandidates, 0, game.MaxPoints*game.NumDirections)
	guardHandoff := r.int("ghand", 0, 0, game.MaxPoints)
	guardKing := r.int("gking", DefaultGuardKingValue, 1, MaxGuardKingValue)
	guardOpponentKing := r.int("gkopp", 0, 0, MaxGuardKingValue)
	guardStop := r.bool("gstop", DefaultGuardStop)
	guardKeep := r.bool("gkeep", DefaultGuardKeep)
	egPieces := r.int("eg", 0, 0, MaxEndgamePieces)
	if egPieces == 1 {
		r.fail("eg", sp.Params["eg"], fmt.Sprintf("0 (none) or 2 to %d", MaxEndgamePieces))
	}
	setsGuard := slices.ContainsFunc(guardKeys, func(k string) bool {
		_, ok := sp.Params[k]
		return ok
	})
	_, hasSU := sp.Params["su"]
	scoreUtility := r.float("su", 0, 0, 1)
	if r.err != nil {
		return nil, r.err
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("player %q: %w", sp.Text, err)
	}
	var shared Evaluator
	var newEval func(seed uint64) Evaluator
	var closeFn func()
	switch {
	case hasModel && hasEval:
		return nil, fmt.Errorf("player %q: give model= or eval=, not both", sp.Text)
	case egPieces > 0 && opts.Rules != nil && endgame.Check(opts.Rules) != nil:
		return nil, fmt.Errorf("player %q: eg=%d: %w", sp.Text, egPieces, endgame.Check(opts.Rules))
	case setsGuard && guardDepth == 0:
		last := len(guardKeys) - 1
		return nil, fmt.Errorf("player %q: %s= and %s= set the guard: they need guard=1 or more", sp.Text, strings.Join(guardKeys[:last], "=, "), guardKeys[last])
	case guardReduce && !guardOrder:
		return nil, fmt.Errorf("player %q: greduce=1 needs gorder=1: the reductions spare the killers", sp.Text)
	case trade > 0 && perSoldier == 0:
		return nil, fmt.Errorf("player %q: trade= counts up the material blend's lead: it needs mat=", sp.Text)
	case hasSU && !hasModel:
		return nil, fmt.Errorf("player %q: su= is the score utility of a network: it needs model=", sp.Text)
	case hasModel:
		if model == "" {
			return nil, fmt.Errorf("player %q: model=: want a model file", sp.Text)
		}
		if opts.LoadModel == nil {
			return nil, fmt.Errorf("player %q: model=%s: %w", sp.Text, model, ErrModelUnsupported)
		}
		ev, err := opts.LoadModel(model)
		if err != nil {
			return nil, fmt.Errorf("player %q: model=%s: %w", sp.Text, model, err)
		}
		if hasSU {
			if err := setScoreUtility(ev, scoreUtility); err != nil {
				closeEvaluator(ev)
				return nil, fmt.Errorf("player %q: model=%s: su=%s: %w", sp.Text, model, sp.Params["su"], err)
			}
		}
		if c, ok := ev.(interface{ Clone() Evaluator }); ok && opts.OwnEvaluators {
			newEval = func(uint64) Evaluator { return c.Clone() }
			closeFn = func() { closeEvaluator(ev) }
			break
		}
		batcher := NewBatcher(ev, 0, 0)
		shared = batcher
		closeFn = func() {
			batcher.Close()
			closeEvaluator(ev)
		}
	case evalKind == "rollout":
		newEval = func(seed uint64) Evaluator {
			return &RolloutEvaluator{Rollouts: rollouts, MaxDecisions: maxRollout, Seed: seed}
		}
	case evalKind == "material":
		shared = &MaterialEvaluator{}
	case hasEval:
		return nil, fmt.Errorf("player %q: eval=%s: want rollout or material", sp.Text, evalKind)
	default:
		return nil, fmt.Errorf("player %q: %s needs model=FILE or eval=rollout|material", sp.Text, sp.Kind)
	}
	f := NewFactory(sp.Text, func(seed uint64) (Player, error) {
		c := cfg
		c.Seed = seed
		ev := shared
		if newEval != nil {
			ev = newEval(Mix(seed, 1))
		}
		if cacheSize > 0 {
			ev = NewEvalCache(ev, cacheSize)
		}
		if ablated.UniformPolicy || ablated.MaterialValue {
			a := ablated
			a.Inner = ev
			ev = &a
		}
		if perSoldier > 0 {
			ev = &MaterialBlend{Inner: ev, PerSoldier: perSoldier, Trade: trade}
		}
		if drawRate > 0 {
			ev = &DrawScale{Inner: ev, Rate: drawRate}
		}
		if qscale > 0 {
			ev = NewQuiescenceEvaluator(ev, qscale)
		}
		pl, err := NewSearchPlayer(ev, c, lim)
		if err != nil {
			return nil, err
		}
		if egPieces > 0 {
			if pl.Endgames, err = NewEndgameTables(egPieces); err != nil {
				return nil, err
			}
		}
		if guardDepth > 0 {
			if pl.Guard, err = NewGuard(guardDepth, guardMargin, guardShare); err != nil {
				return nil, err
			}
			pl.Guard.Nodes = int64(guardNodes)
			pl.Guard.Extend = guardExtend
			pl.Guard.Order = guardOrder
			pl.Guard.Reduce = guardReduce
			pl.Guard.Candidates = guardCandidates
			pl.Guard.Handoff = guardHandoff
			pl.Guard.Stop = guardStop
			pl.Guard.Keep = guardKeep
			if err := pl.Guard.SetKingValue(guardKing); err != nil {
				return nil, err
			}
			if err := pl.Guard.SetOpponentKingValue(guardOpponentKing); err != nil {
				return nil, err
			}
		}
		return pl, nil
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
