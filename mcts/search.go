package mcts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/dablot-zero/dablot/game"
)

// Config holds the parameters of a Search. Start from DefaultConfig: the
// zero value of a field is a real setting (no noise, say), not "default".
type Config struct {
	// CPuct is c_init of the exploration term; with CPuctBase > 0 it grows as
	// c = CPuct + ln((N + CPuctBase + 1) / CPuctBase) (AlphaZero's form).
	CPuct     float64
	CPuctBase float64
	// FPUReduction sets the value of unvisited children (first-play
	// urgency): the parent's mean value minus FPUReduction·√(sum of the
	// priors of visited children). RootFPUReduction is the same at the root.
	FPUReduction     float64
	RootFPUReduction float64
	// NoiseEpsilon is the weight of Dirichlet noise mixed into the root
	// priors (0: none; AlphaZero uses 0.25). The noise's concentration per
	// decision is NoiseAlphaTotal / (number of legal decisions), so that the
	// noise is as spiky in a chain with 2 choices as at a turn with 40.
	NoiseEpsilon    float64
	NoiseAlphaTotal float64
	// BatchSize is the number of leaves gathered with virtual loss before
	// one call of the evaluator. VirtualLoss is the loss counted for each
	// simulation in flight through a node.
	BatchSize   int
	VirtualLoss float64
	// Reuse keeps the subtree of the position reached when the search is
	// moved on (PUCT only; Gumbel search starts afresh at each decision).
	Reuse bool

	// Gumbel switches to the Gumbel root search: GumbelM root decisions are
	// sampled by Gumbel-top-k, the simulations are spread over them by
	// sequential halving, and interior nodes choose deterministically by the
	// improved policy. GumbelScale scales the Gumbel noise (0: none, fully
	// deterministic choice, the default, for play; self-play sets 1 so
	// that its choices explore). CVisit and CScale are the constants of
	// σ(q) = (CVisit + max N)·CScale·q, with q rescaled to [0, 1].
	Gumbel      bool
	GumbelM     int
	GumbelScale float64
	CVisit      float64
	CScale      float64

	// Temperature applies to the first TemperaturePlies complete turns of a
	// game, FinalTemperature after them (0: play the best decision). The
	// move is drawn with probability ∝ visits^(1/temperature). Gumbel
	// search ignores it: its choice already holds the Gumbel noise.
	Temperature      float64
	TemperaturePlies int
	FinalTemperature float64

	// Solver propagates results that the tree proves (MCTS-Solver of
	// Winands, Björnsson and Saito, 2008): a node with a child that wins for
	// its side to move is won, and a node whose children are all proven is
	// worth the best of them. A proven node is searched no further; its
	// exact value replaces the mean in selection and in the result, the
	// search stops once the root is proven, and it plays a proven win (the
	// shortest) at once and a proven loss only when every decision loses.
	// Without it a low-prior sacrifice that forces a win a few plies deep
	// is averaged away with the network's guesses below it.
	Solver bool
	// SkipForced expands a position with a single legal decision without
	// asking the evaluator, and goes on to the position after it: a forced
	// line costs one evaluation, at its end, instead of one per decision.
	SkipForced bool

	// Seed seeds the noise and the temperature draws.
	Seed uint64
}

// DefaultConfig returns the settings for strong play: PUCT with AlphaZero's
// constants, no noise, temperature 0, batches of 8 leaves, the solver and
// forced decisions skipped.
func DefaultConfig() Config {
	return Config{
		CPuct: 1.25, CPuctBase: 19652,
		FPUReduction: 0.25, RootFPUReduction: 0.1,
		NoiseEpsilon: 0, NoiseAlphaTotal: 10,
		BatchSize: 8, VirtualLoss: 1, Reuse: true,
		GumbelM: 16, GumbelScale: 0, CVisit: 50, CScale: 0.1,
		Solver: true, SkipForced: true,
	}
}

// Validate reports the first setting that is out of range.
func (c *Config) Validate() error {
	bad := func(name string, v any, want string) error {
		return fmt.Errorf("mcts: %s = %v: want %s", name, v, want)
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !(c.CPuct > 0) || !finite(c.CPuct):
		return bad("CPuct", c.CPuct, "a number > 0")
	case !(c.CPuctBase >= 0) || !finite(c.CPuctBase):
		return bad("CPuctBase", c.CPuctBase, "a number ≥ 0")
	case !finite(c.FPUReduction) || !finite(c.RootFPUReduction):
		return bad("FPUReduction", c.FPUReduction, "a finite number")
	case !(c.NoiseEpsilon >= 0 && c.NoiseEpsilon <= 1):
		return bad("NoiseEpsilon", c.NoiseEpsilon, "0 to 1")
	case c.NoiseEpsilon > 0 && !(c.NoiseAlphaTotal > 0 && finite(c.NoiseAlphaTotal)):
		return bad("NoiseAlphaTotal", c.NoiseAlphaTotal, "a number > 0")
	case c.BatchSize < 1 || c.BatchSize > 4096:
		return bad("BatchSize", c.BatchSize, "1 to 4096")
	case !(c.VirtualLoss >= 0) || !finite(c.VirtualLoss):
		return bad("VirtualLoss", c.VirtualLoss, "a number ≥ 0")
	case c.Gumbel && c.GumbelM < 1:
		return bad("GumbelM", c.GumbelM, "at least 1")
	case !(c.GumbelScale >= 0) || !finite(c.GumbelScale):
		return bad("GumbelScale", c.GumbelScale, "a number ≥ 0")
	case c.Gumbel && !(c.CVisit >= 0 && finite(c.CVisit)):
		return bad("CVisit", c.CVisit, "a number ≥ 0")
	case c.Gumbel && !(c.CScale > 0 && finite(c.CScale)):
		return bad("CScale", c.CScale, "a number > 0")
	case !(c.Temperature >= 0) || !(c.FinalTemperature >= 0) || !finite(c.Temperature) || !finite(c.FinalTemperature):
		return bad("Temperature", c.Temperature, "a number ≥ 0")
	case c.TemperaturePlies < 0:
		return bad("TemperaturePlies", c.TemperaturePlies, "≥ 0")
	}
	return nil
}

// TemperatureAt returns the temperature for a decision made at ply (complete
// turns played so far).
func (c *Config) TemperatureAt(ply int) float64 {
	if ply < c.TemperaturePlies {
		return c.Temperature
	}
	return c.FinalTemperature
}

// Bounds of one search, so that its tree fits in memory: a simulation adds
// about one node to the tree, some 600 bytes with its slices.
const (
	// MaxSims is the most simulations one run may ask for (Limits.Sims, the
	// sims= of a player spec, a preset's simulations); UCT's playouts, one
	// node each, have the same bound. A tree of that many nodes takes about
	// 0.6 GB.
	MaxSims = 1_000_000
	// MaxNodes bounds a tree: Limits.Nodes may ask for no more, and a run
	// bounded by time stops once its tree, with what it kept from earlier
	// runs, holds this many nodes (about 1.2 GB).
	MaxNodes = 2 * MaxSims
)

// Limits bounds one run of a search; a zero field is no bound, and at least
// one of Sims, Nodes and Time must be set. Sims and Nodes may not exceed
// MaxSims and MaxNodes, and the tree never grows past MaxNodes.
type Limits struct {
	Sims  int           // simulations in this run
	Nodes int           // nodes in the tree
	Time  time.Duration // wall time of this run; the first batch of simulations always runs
	// Stop, once closed, ends the run early with what it has found (an
	// engine's "stop"); unlike a cancelled context it is not an error. A
	// run that starts after Stop is closed still evaluates an unexpanded
	// root, so it always has a result.
	Stop <-chan struct{}
	// Forced searches a root with a single legal decision like any other,
	// for its value (an analysis); without it such a root is returned at
	// once, with the network's value and no simulations (a player's move).
	Forced bool
}

// validate reports a limit out of range: no limit at all (ErrNoLimit), or
// more simulations or nodes than a tree may hold.
func (lim *Limits) validate() error {
	switch {
	case lim.Sims <= 0 && lim.Nodes <= 0 && lim.Time <= 0:
		return ErrNoLimit
	case lim.Sims > MaxSims:
		return fmt.Errorf("mcts: %d simulations: want at most %d (mcts.MaxSims), so that the tree fits in memory", lim.Sims, MaxSims)
	case lim.Nodes > MaxNodes:
		return fmt.Errorf("mcts: %d nodes: want at most %d (mcts.MaxNodes), so that the tree fits in memory", lim.Nodes, MaxNodes)
	}
	return nil
}

// nodeCap is the most nodes the tree may hold in a run: lim.Nodes, or
// MaxNodes if lim sets none.
func (lim *Limits) nodeCap() int {
	if lim.Nodes > 0 {
		return lim.Nodes
	}
	return MaxNodes
}

// stopped reports whether lim.Stop is closed.
func (lim *Limits) stopped() bool {
	select {
	case <-lim.Stop:
		return true
	default:
		return false
	}
}

// node states.
const (
	unexpanded uint8 = iota
	pending          // sent to the evaluator
	expanded
	terminal
)

// node is one position of the tree. Its value sum w is from the point of view
// of its own side to move, whoever moved into it: a parent compares sides,
// never depths, to read it.
type node struct {
	pos      game.Position
	side     game.Side
	state    uint8
	solved   bool  // exact is the node's proven value (terminal nodes always)
	plies    int16 // decisions to the end along the proof, if solved
	exact    float32
	n        int32 // completed visits
	vl       int32 // visits in flight (virtual loss)
	w        float64
	value    float32 // evaluator's value (or the result, if terminal) for side
	legal    []game.Decision
	prior    []float32
	children []*node
}

func (n *node) q() float64 {
	if n.n == 0 {
		return 0
	}
	return n.w / float64(n.n)
}

// exactFor is the solved node's proven value for side s.
func (n *node) exactFor(s game.Side) float64 {
	if n.side == s {
		return float64(n.exact)
	}
	return -float64(n.exact)
}

// qFor is the node's mean value for side s.
func (n *node) qFor(s game.Side) float64 {
	if n.side == s {
		return n.q()
	}
	return -n.q()
}

// Search is a Monte Carlo tree search over an Evaluator. It is not safe for
// concurrent use; run one Search per goroutine (and share the evaluator
// through a Batcher). With the same Config, evaluator and calls, a Search
// gives the same results, unless time limits stop it.
type Search struct {
	cfg  Config
	ev   Evaluator
	rng  *rand.Rand
	root *node
	// rootPrior is the root's prior with Dirichlet noise (nil: none yet).
	rootPrior []float32
	// excluded marks the root decisions that Exclude ruled out (nil: none).
	excluded []bool
	nodes    int

	// Gumbel state of the current run.
	gLogits  []float64
	gNoise   []float64
	gPlan    halving // the halving schedule: visits wanted, by visit index
	gSeen    []int   // each root decision's visits before the schedule
	gAnytime bool    // halve in passes of doubling budgets (no fixed budget)
	gBudget  int     // the current pass's budget (anytime)
	gSims    int     // the run's simulation limit (0: none)
	gStart   int     // root visits before the run
	scratchA []float64
	scratchB []float64

	reqs   []Request
	paths  [][]*node
	decBuf []game.Decision
}

// NewSearch returns a search that evaluates with ev.
func NewSearch(ev Evaluator, cfg Config) (*Search, error) {
	if ev == nil {
		return nil, errors.New("mcts: no evaluator")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Search{cfg: cfg, ev: ev, rng: rand.New(rand.NewPCG(cfg.Seed, 0x6d637473))}, nil
}

// Config returns the search's settings.
func (s *Search) Config() Config { return s.cfg }

// SetPosition makes p the root. If p is already in the tree (within a few
// decisions of the root, as after the opponent's turn) and Reuse is on, its
// subtree is kept.
func (s *Search) SetPosition(p game.Position) {
	s.rootPrior = nil
	if s.root != nil && s.cfg.Reuse && !s.cfg.Gumbel {
		if n := findNode(s.root, &p, 8); n != nil {
			s.setRoot(n)
			return
		}
	}
	s.setRoot(s.newNode(p))
}

// findNode looks for position p among the expanded descendants of n, up to
// depth decisions below it.
func findNode(n *node, p *game.Position, depth int) *node {
	if n.pos == *p {
		return n
	}
	if depth == 0 || n.state != expanded {
		return nil
	}
	for _, c := range n.children {
		if c != nil {
			if f := findNode(c, p, depth-1); f != nil {
				return f
			}
		}
	}
	return nil
}

// Advance moves the root to the position after decision d, keeping its
// subtree when Reuse is on. d must be legal at the root.
func (s *Search) Advance(d game.Decision) error {
	if s.root == nil {
		return errors.New("mcts: Advance before SetPosition")
	}
	i := slices.Index(s.root.legal, d)
	if i < 0 {
		return fmt.Errorf("mcts: %s is not legal at the root", s.root.pos.DecisionString(d))
	}
	s.rootPrior = nil
	if c := s.root.children[i]; c != nil && s.cfg.Reuse && !s.cfg.Gumbel {
		s.setRoot(c)
		return nil
	}
	p := s.root.pos
	p.Apply(d)
	s.setRoot(s.newNode(p))
	return nil
}

// Exclude keeps the runs of the search, until the root moves on
// (SetPosition, Advance), from visiting or choosing the root decisions in ds:
// a player's veto, such as Guard's. A decision the solver proves is still
// played as proven. At least one legal decision must stay allowed.
func (s *Search) Exclude(ds []game.Decision) error {
	if s.root == nil {
		return errors.New("mcts: Exclude before SetPosition")
	}
	ex := make([]bool, len(s.root.legal))
	for _, d := range ds {
		i := slices.Index(s.root.legal, d)
		if i < 0 {
			return fmt.Errorf("mcts: cannot exclude %s: not legal at the root", s.root.pos.DecisionString(d))
		}
		ex[i] = true
	}
	if !slices.Contains(ex, false) {
		return errors.New("mcts: cannot exclude every legal decision")
	}
	s.excluded = ex
	if !slices.Contains(ex, true) {
		s.excluded = nil
	}
	return nil
}

// isExcluded reports whether root decision i is excluded (Exclude).
func (s *Search) isExcluded(n *node, i int) bool {
	return n == s.root && s.excluded != nil && s.excluded[i]
}

// rootAllowed is the number of root decisions not excluded.
func (s *Search) rootAllowed() int {
	k := len(s.root.legal)
	for _, x := range s.excluded {
		if x {
			k--
		}
	}
	return k
}

// Position returns the root position.
func (s *Search) Position() (game.Position, bool) {
	if s.root == nil {
		return game.Position{}, false
	}
	return s.root.pos, true
}

func (s *Search) setRoot(n *node) {
	s.root = n
	s.excluded = nil
	s.nodes = countNodes(n)
}

func countNodes(n *node) int {
	k := 1
	for _, c := range n.children {
		if c != nil {
			k += countNodes(c)
		}
	}
	return k
}

// newNode makes the node of position p; a position with no legal decision
// is terminal.
func (s *Search) newNode(p game.Position) *node {
	n := &node{pos: p, side: p.SideToMove()}
	s.decBuf = p.Decisions(s.decBuf[:0])
	if len(s.decBuf) == 0 {
		n.state = terminal
		n.value = float32(outcomeValue(p.Status().Outcome, n.side))
		n.solved, n.exact = true, n.value
		return n
	}
	n.legal = slices.Clone(s.decBuf)
	n.children = make([]*node, len(n.legal))
	return n
}

// Result is what a search found at its root.
type Result struct {
	// Legal are the root's legal decisions; the slices below follow them.
	Legal []game.Decision
	// Visits are the completed visits below each decision.
	Visits []int
	// Prior is the evaluator's prior (without noise).
	Prior []float32
	// Q is the mean value of each decision for the side to move at the root
	// (0 where unvisited).
	Q []float32
	// Policy is the training target: the visit distribution (PUCT) or the
	// completed-Q improved policy (Gumbel).
	Policy []float32
	// Value is the root's mean value for its side to move (its proven
	// value, if Solved).
	Value float32
	// Solved says that the solver (Config.Solver) proved the root's value
	// exactly: 1 a win, -1 a loss, 0 a draw, in Plies decisions along the
	// proof with the best play the tree knows.
	Solved bool
	Plies  int
	// Best is the decision the search recommends: the most visited (PUCT,
	// ties broken by Q), or the winner of sequential halving (Gumbel).
	Best game.Decision
	// Simulations run, nodes in the tree, and time taken by this run.
	Simulations int
	Nodes       int
	Elapsed     time.Duration
	gumbel      bool
	// lost marks the root decisions the solver proved lost, when another
	// decision is still open (nil if none).
	lost []bool
}

// Choose returns the decision to play: Best at temperature 0, after a
// Gumbel search or at a proven root, otherwise a draw with probability ∝
// visits^(1/temperature) among the decisions not proven lost.
func (r *Result) Choose(temperature float64, rng *rand.Rand) game.Decision {
	if temperature <= 0 || r.gumbel || r.Solved || rng == nil {
		return r.Best
	}
	w := make([]float64, len(r.Visits))
	var sum float64
	for i, v := range r.Visits {
		if v > 0 && (r.lost == nil || !r.lost[i]) {
			w[i] = math.Pow(float64(v), 1/temperature)
			sum += w[i]
		}
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		return r.Best
	}
	x := rng.Float64() * sum
	for i, wi := range w {
		if x < wi {
			return r.Legal[i]
		}
		x -= wi
	}
	return r.Best
}

// PolicySurprise returns how much the search's policy target surprised
// the evaluator: the Kullback-Leibler divergence KL(Policy ‖ Prior) in
// nats, Policy normalised to sum 1, a prior of 0 counted as 1e-100 (as
// KataGo does). It is 0 for a result without both, or with slices of
// different lengths.
func (r *Result) PolicySurprise() float64 {
	if len(r.Policy) == 0 || len(r.Policy) != len(r.Prior) {
		return 0
	}
	var sum float64
	for _, t := range r.Policy {
		sum += max(float64(t), 0)
	}
	if !(sum > 0) {
		return 0
	}
	kl := 0.0
	for i, t := range r.Policy {
		if t := float64(t) / sum; t > 1e-100 {
			kl += t * (math.Log(t) - math.Log(max(float64(r.Prior[i]), 1e-100)))
		}
	}
	return max(kl, 0) // rounding
}

// ErrNoLimit is returned by Run when Limits sets no bound.
var ErrNoLimit = errors.New("mcts: no limit on simulations, nodes or time")

// Run searches from the root until a limit is reached and returns what it
// found. A root with a single legal decision is returned at once unless
// lim.Forced is set. If ctx is cancelled, Run stops and returns ctx's
// error; if lim.Stop is closed, it stops and returns its result so far.
func (s *Search) Run(ctx context.Context, lim Limits) (*Result, error) {
	start := time.Now()
	if s.root == nil {
		return nil, errors.New("mcts: Run before SetPosition")
	}
	if err := lim.validate(); err != nil {
		return nil, err
	}
	root := s.root
	if root.state == terminal {
		return nil, fmt.Errorf("mcts: the game is over (%s)", root.pos.Status())
	}
	if root.state == unexpanded {
		if err := s.evalRoot(); err != nil {
			return nil, err
		}
	}
	if len(root.legal) == 1 && !lim.Forced {
		return s.result(0, start), nil
	}
	if s.cfg.Gumbel {
		s.gumbelStart(lim)
	} else if s.rootPrior == nil && s.cfg.NoiseEpsilon > 0 {
		s.addNoise()
	}
	sims, nodeCap := 0, lim.nodeCap()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if lim.Sims > 0 && sims >= lim.Sims || s.nodes >= nodeCap ||
			lim.Time > 0 && sims > 0 && time.Since(start) >= lim.Time || lim.stopped() ||
			s.cfg.Solver && root.solved {
			break
		}
		want := s.cfg.BatchSize
		if lim.Sims > 0 {
			want = min(want, lim.Sims-sims)
		}
		want = min(want, max(nodeCap-s.nodes, 1))
		n, err := s.step(want)
		if err != nil {
			return nil, err
		}
		sims += n
	}
	return s.result(sims, start), nil
}

// evalRoot evaluates the unexpanded root.
func (s *Search) evalRoot() error {
	s.root.state = pending
	s.root.vl++
	s.paths = append(s.paths[:0], []*node{s.root})
	return s.evaluate(1)
}

// step runs up to want simulations: it descends with virtual loss until it
// has want leaves (or too many collide), evaluates the new leaves in one
// batch and backs all values up. It returns the simulations completed.
func (s *Search) step(want int) (int, error) {
	done, leaves, collisions := 0, 0, 0
	for done+leaves < want && collisions <= want {
		if leaves >= len(s.paths) {
			s.paths = append(s.paths, nil)
		}
		path, kind := s.descend(s.paths[leaves][:0])
		s.paths[leaves] = path
		switch kind {
		case terminal:
			// A terminal or proven leaf: its exact value, no evaluation.
			leaf := path[len(path)-1]
			backup(path, float64(leaf.exact), leaf.side)
			if s.cfg.Solver {
				solveUp(path)
			}
			done++
		case pending:
			for _, n := range path {
				n.vl--
			}
			collisions++
		default:
			leaves++
		}
	}
	if leaves == 0 {
		if done == 0 {
			// Every path collided with a leaf in flight: impossible, since
			// the batch is empty; guard against looping for ever.
			return 0, errors.New("mcts: search made no progress")
		}
		return done, nil
	}
	if err := s.evaluate(leaves); err != nil {
		return done, err
	}
	return done + leaves, nil
}

// descend walks from the root to a leaf, adding virtual loss on the way. It
// returns the path and what the leaf is: terminal, pending (a collision) or
// unexpanded (now pending, to be evaluated).
func (s *Search) descend(path []*node) ([]*node, uint8) {
	n := s.root
	n.vl++
	path = append(path, n)
	for {
		switch n.state {
		case terminal:
			return path, terminal
		case pending:
			return path, pending
		case unexpanded:
			if !s.cfg.SkipForced || len(n.legal) != 1 {
				n.state = pending
				return path, unexpanded
			}
			// A forced decision: no evaluation, on to the position after it.
			n.state = expanded
			n.prior = append(n.prior[:0], 1)
		}
		if n.solved {
			return path, terminal
		}
		var i int
		if s.cfg.Gumbel {
			if n == s.root {
				i = s.gumbelRootSelect()
			} else {
				i = s.gumbelInteriorSelect(n)
			}
		} else {
			i = s.puctSelect(n)
		}
		c := n.children[i]
		if c == nil {
			p := n.pos
			p.Apply(n.legal[i])
			// Counted as it is made, so that a leaf an evaluator failed
			// (back to unexpanded, still in the tree) is not counted twice.
			c = s.newNode(p)
			n.children[i] = c
			s.nodes++
		}
		c.vl++
		path = append(path, c)
		n = c
	}
}

// solveUp tries to prove the nodes of path above its proven leaf, from the
// bottom up, and stops at the first that is not proven.
func solveUp(path []*node) {
	for i := len(path) - 2; i >= 0; i-- {
		if n := path[i]; n.solved || !n.trySolve() {
			return
		}
	}
}

// trySolve proves n if one of its children wins for n's side to move, or
// if all its children are proven: its value is then the best of theirs.
func (n *node) trySolve() bool {
	i, all := n.bestProven()
	if i < 0 {
		return false
	}
	c := n.children[i]
	if v := c.exactFor(n.side); v < 1 && !all {
		return false
	}
	n.solved, n.exact = true, float32(c.exactFor(n.side))
	n.plies = int16(min(int(c.plies)+1, math.MaxInt16))
	return true
}

// bestProven returns the index of n's best proven child for n's side to
// move (-1: none), reached by the shortest win or the longest loss or draw,
// and whether every child is proven.
func (n *node) bestProven() (best int, all bool) {
	best, all = -1, true
	for i, c := range n.children {
		if c == nil || !c.solved {
			all = false
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		b := n.children[best]
		v, bv := c.exactFor(n.side), b.exactFor(n.side)
		if v > bv || v == bv && (v > 0 && c.plies < b.plies || v <= 0 && c.plies > b.plies) {
			best = i
		}
	}
	return best, all
}

// childQ is child c's value for n's side to move: its proven value when the
// solver has one, else its mean.
func (s *Search) childQ(n, c *node) float64 {
	if s.cfg.Solver && c.solved {
		return c.exactFor(n.side)
	}
	return c.qFor(n.side)
}

// backup adds value v, which is for side, to every node of path and removes
// the path's virtual loss. The sign depends on each node's side only.
func backup(path []*node, v float64, side game.Side) {
	for _, n := range path {
		n.vl--
		n.n++
		if n.side == side {
			n.w += v
		} else {
			n.w -= v
		}
	}
}

// evaluate sends the leaves of the first k paths to the evaluator, expands
// them and backs their values up.
func (s *Search) evaluate(k int) error {
	s.reqs = slices.Grow(s.reqs[:0], k)[:k]
	for i := range k {
		leaf := s.paths[i][len(s.paths[i])-1]
		if cap(leaf.prior) < len(leaf.legal) {
			leaf.prior = make([]float32, len(leaf.legal))
		}
		s.reqs[i] = Request{Pos: leaf.pos, Legal: leaf.legal, Priors: leaf.prior[:len(leaf.legal)]}
	}
	err := s.ev.Evaluate(s.reqs)
	if err == nil {
		for i := range k {
			if err = checkRequest(&s.reqs[i]); err != nil {
				break
			}
		}
	}
	if err != nil {
		for i := range k {
			path := s.paths[i]
			path[len(path)-1].state = unexpanded
			for _, n := range path {
				n.vl--
			}
		}
		return fmt.Errorf("mcts: evaluator: %w", err)
	}
	for i := range k {
		path := s.paths[i]
		leaf := path[len(path)-1]
		r := &s.reqs[i]
		leaf.prior = r.Priors
		leaf.value = r.Value
		leaf.state = expanded
		backup(path, float64(r.Value), leaf.side)
	}
	return nil
}

// checkRequest validates an evaluator's output, normalising the priors.
func checkRequest(r *Request) error {
	if len(r.Priors) != len(r.Legal) {
		return fmt.Errorf("%d priors for %d legal decisions", len(r.Priors), len(r.Legal))
	}
	v := float64(r.Value)
	if math.IsNaN(v) || v < -1.0001 || v > 1.0001 {
		return fmt.Errorf("value %g is not in [-1, 1]", v)
	}
	r.Value = float32(max(-1, min(1, v)))
	var sum float64
	for _, p := range r.Priors {
		if !(p >= 0) || math.IsInf(float64(p), 0) {
			return fmt.Errorf("prior %g is not a probability", p)
		}
		sum += float64(p)
	}
	if !(sum > 0) {
		uniform(r)
		return nil
	}
	if math.Abs(sum-1) > 1e-4 {
		for i := range r.Priors {
			r.Priors[i] = float32(float64(r.Priors[i]) / sum)
		}
	}
	return nil
}

// puctSelect returns the child of n that maximises Q + U.
func (s *Search) puctSelect(n *node) int {
	prior := n.prior
	fpuRed := s.cfg.FPUReduction
	if n == s.root {
		fpuRed = s.cfg.RootFPUReduction
		if s.rootPrior != nil {
			prior = s.rootPrior
		}
	}
	total := float64(n.n + n.vl)
	c := s.cfg.CPuct
	if b := s.cfg.CPuctBase; b > 0 {
		c += math.Log((total + b + 1) / b)
	}
	cu := c * math.Sqrt(max(total, 1))
	var visitedPrior float64
	for i, ch := range n.children {
		if ch != nil && ch.n+ch.vl > 0 {
			visitedPrior += float64(prior[i])
		}
	}
	fpu := n.q() - fpuRed*math.Sqrt(visitedPrior)
	vl := s.cfg.VirtualLoss
	best, bestScore := 0, math.Inf(-1)
	for i, ch := range n.children {
		if s.isExcluded(n, i) {
			continue
		}
		q, visits := fpu, 0.0
		switch {
		case ch != nil && s.cfg.Solver && ch.solved:
			visits, q = float64(ch.n+ch.vl), ch.exactFor(n.side)
		case ch != nil && ch.n+ch.vl > 0:
			visits = float64(ch.n + ch.vl)
			w := ch.w
			if ch.side != n.side {
				w = -w
			}
			q = (w - vl*float64(ch.vl)) / visits
		}
		if score := q + cu*float64(prior[i])/(1+visits); score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// addNoise mixes Dirichlet noise into the root's priors.
func (s *Search) addNoise() {
	r := s.root
	k := len(r.legal)
	alpha := s.cfg.NoiseAlphaTotal / float64(k)
	noise := make([]float64, k)
	var sum float64
	for i := range noise {
		noise[i] = gammaVariate(s.rng, alpha)
		sum += noise[i]
	}
	s.rootPrior = make([]float32, k)
	eps := s.cfg.NoiseEpsilon
	for i := range noise {
		d := 1 / float64(k)
		if sum > 0 {
			d = noise[i] / sum
		}
		s.rootPrior[i] = float32((1-eps)*float64(r.prior[i]) + eps*d)
	}
}

// gammaVariate draws from Gamma(alpha, 1) (Marsaglia and Tsang, with the
// boost U^(1/alpha) for alpha < 1).
func gammaVariate(rng *rand.Rand, alpha float64) float64 {
	boost := 1.0
	if alpha < 1 {
		boost = math.Pow(rng.Float64(), 1/alpha)
		alpha++
	}
	d := alpha - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v * boost
		}
	}
}

// result summarises the root after a run of sims simulations.
func (s *Search) result(sims int, start time.Time) *Result {
	r := s.root
	k := len(r.legal)
	res := &Result{
		Legal: slices.Clone(r.legal), Visits: make([]int, k), Prior: slices.Clone(r.prior),
		Q: make([]float32, k), Policy: make([]float32, k),
		Value: float32(r.q()), Simulations: sims, Nodes: s.nodes, gumbel: s.cfg.Gumbel,
	}
	total := 0
	for i, c := range r.children {
		if c != nil && c.n > 0 {
			res.Visits[i] = int(c.n)
			res.Q[i] = float32(s.childQ(r, c))
			total += int(c.n)
		}
	}
	switch {
	case k == 1:
		res.Policy[0] = 1
		res.Best = r.legal[0]
	case s.cfg.Gumbel:
		s.gumbelFinish(res)
	default:
		best := -1
		for i := range k {
			if !s.isExcluded(r, i) && (best < 0 || res.Visits[i] > res.Visits[best] ||
				res.Visits[i] == res.Visits[best] && res.Q[i] > res.Q[best]) {
				best = i
			}
			if total > 0 {
				res.Policy[i] = float32(res.Visits[i]) / float32(total)
			}
		}
		if total == 0 {
			copy(res.Policy, r.prior)
		}
		res.Best = r.legal[best]
	}
	if s.cfg.Solver {
		s.solvedChoice(res)
	}
	res.Elapsed = time.Since(start)
	return res
}

// solvedChoice corrects a result by what the solver proved: at a proven
// root it plays the decision of the proof (the shortest win, or the longest
// loss or draw), with the root's exact value, and a proven win is the
// policy target; elsewhere it never plays a proven loss while some decision
// is not one.
func (s *Search) solvedChoice(res *Result) {
	r := s.root
	if r.solved {
		res.Solved, res.Plies, res.Value = true, int(r.plies), r.exact
		i, _ := r.bestProven()
		res.Best = r.legal[i]
		if r.exact == 1 {
			clear(res.Policy)
			res.Policy[i] = 1
		}
		return
	}
	for i, c := range r.children {
		if c != nil && c.solved && c.exactFor(r.side) == -1 {
			if res.lost == nil {
				res.lost = make([]bool, len(r.legal))
			}
			res.lost[i] = true
		}
	}
	if res.lost == nil || !res.lost[slices.Index(r.legal, res.Best)] {
		return
	}
	alt := -1 // the root is not proven, so some decision is not lost
	for _, allowExcluded := range []bool{false, true} {
		for i := range r.legal {
			if !res.lost[i] && (allowExcluded || !s.isExcluded(r, i)) && (alt < 0 || res.Visits[i] > res.Visits[alt] ||
				res.Visits[i] == res.Visits[alt] && res.Q[i] > res.Q[alt]) {
				alt = i
			}
		}
		if alt >= 0 {
			break
		}
	}
	res.Best = r.legal[alt]
}
