package train

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/mcts/match"
	"github.com/dablot-zero/dablot/net/encode"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/train/rundir"
	"github.com/dablot-zero/dablot/train/samples"
)

// SelfPlayGame is one finished self-play game with its training samples.
type SelfPlayGame struct {
	Index    int
	Record   *game.Record
	Status   game.Status
	Samples  []samples.Sample
	Searches int  // decisions searched (full and fast)
	Endgame  bool // started from a random endgame (the curriculum), not the setup
	// FullSearches counts the full searches: the samples the game writes
	// without policy surprise weighting (SelfPlayConfig.PolicySurprise),
	// and about as many as it writes with it. Surprise is the sum of their
	// policy surprise (mcts.Result.PolicySurprise), with or without it.
	FullSearches int
	Surprise     float64
	Duration     time.Duration
}

// Player returns the player of self-play at sims simulations a decision,
// exploring (noise) as self-play games do, or not, as the run's matches
// play: the shipped player (mcts.ShippedPlayer) with self-play's search
// and its material blend, no guard, no tables and no cache. The network
// is the caller's.
func (s *SelfPlayConfig) Player(sims int, noise bool) mcts.PlayerConfig {
	c := mcts.ShippedPlayer("")
	c.Gumbel, c.Limits, c.Cache = s.Search == "gumbel", mcts.Limits{Sims: sims}, 0
	c.Search.BatchSize = s.LeafBatch
	c.Search.Reuse = false // playout-cap randomisation mixes budgets; a fresh tree keeps them honest
	c.Search.Solver, c.Search.SkipForced = s.Solve, s.Forced
	switch {
	case c.Gumbel:
		c.Search.GumbelM = s.GumbelM
		if noise {
			c.Search.GumbelScale = 1 // explore: sample the root decisions (Gumbel-top-k)
		}
	case noise:
		c.Search.NoiseEpsilon = s.Noise
		c.Search.Temperature, c.Search.TemperaturePlies = 1, s.TemperatureTurns
	}
	c.MaterialBlend, c.PlainRaces = s.MaterialBlend, s.PlainRaces
	c.Guard = mcts.GuardConfig{}
	c.Endgames = 0
	return c
}

// SelfPlay plays games first, first+1, …, first+n-1 of a generation with
// model m, cfg.Workers at a time sharing the network in batches, and returns
// them in index order. Game i's randomness comes from Mix(seed, i) alone,
// so the same call plays the same games however the work is scheduled.
// onGame, if set, is called (from one goroutine at a time) as games end.
func SelfPlay(ctx context.Context, m *model.Model, cfg SelfPlayConfig, seed uint64, first, n int, onGame func(*SelfPlayGame)) ([]*SelfPlayGame, error) {
	var (
		mu    sync.Mutex
		games []*SelfPlayGame
	)
	err := inParallel(ctx, m, &cfg, first, n, "self-play game", func(ctx context.Context, ev mcts.Evaluator, i int) error {
		g, err := playSelfPlayGame(ctx, m, ev, &cfg, mcts.Mix(seed, uint64(i)))
		if err != nil {
			return err
		}
		g.Index = i
		mu.Lock()
		defer mu.Unlock()
		games = append(games, g)
		if onGame != nil {
			onGame(g)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(games, func(a, b int) bool { return games[a].Index < games[b].Index })
	return games, nil
}

// inParallel runs job for i = first, …, first+n-1, cfg.Workers at a time,
// their network evaluations in batches: one evaluator per core, each with
// its own batcher and its share of the workers, so that while one core
// runs a batch through the network the other's jobs are searching or being
// evaluated too. The first error (named by what and i) cancels the rest
// and is returned.
func inParallel(ctx context.Context, m *model.Model, cfg *SelfPlayConfig, first, n int, what string, job func(context.Context, mcts.Evaluator, int) error) error {
	lanes := max(1, min(runtime.NumCPU(), cfg.Workers/2))
	batchers := make([]*mcts.Batcher, lanes)
	for i := range batchers {
		ev := m.NewEvaluator(cfg.NetBatch, 1)
		defer ev.Close()
		if err := ev.SetScoreUtility(cfg.ScoreUtility); err != nil {
			return fmt.Errorf("%s: selfplay.score_utility: %w", what, err)
		}
		batchers[i] = mcts.NewBatcher(ev, cfg.NetBatch, 0) // no wait: a batch goes as soon as the network is free
		defer batchers[i].Close()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	for w := range min(cfg.Workers, n) {
		batcher := batchers[w%lanes]
		wg.Go(func() {
			for i := range jobs {
				if err := job(ctx, batcher, i); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("%s %d: %w", what, i, err)
						cancel()
					}
					mu.Unlock()
				}
			}
		})
	}
feed:
	for i := first; i < first+n; i++ {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// playSelfPlayGame plays one game of m against itself, its randomness
// from seed alone: the setup (newGameInPlay), the random opening turns,
// the game played out, then its targets (finish).
func playSelfPlayGame(ctx context.Context, m *model.Model, ev mcts.Evaluator, cfg *SelfPlayConfig, seed uint64) (*SelfPlayGame, error) {
	began := time.Now()
	gp, err := newGameInPlay(m, ev, cfg, seed)
	if err != nil {
		return nil, err
	}
	gp.openingTurns()
	if err := gp.playOut(ctx); err != nil {
		return nil, err
	}
	g := gp.finish()
	g.Duration = time.Since(began)
	return g, nil
}

// gameInPlay is a self-play game under way: its position and record, its
// search, and what its samples' targets need.
type gameInPlay struct {
	cfg    *SelfPlayConfig
	m      *model.Model
	rng    *rand.Rand // the game's own stream: opening turns, playout caps, choices, sample copies
	p      game.Position
	g      *SelfPlayGame // the record, the samples and the counts, as they grow
	search *mcts.Search
	// guard, with selfplay.race_guard, vetoes decisions before each search
	// while both sides have a king (searchDecision).
	guard *mcts.Guard
	// turn holds the decisions of the turn under way, which began in
	// turnStart.
	turn      []game.Decision
	turnStart game.Position
	// balance[k] is South's material lead before decision k, sampleAt[i]
	// the decision sample i was taken before, and surprise[i] the policy
	// surprise of its search (mcts.Result.PolicySurprise).
	balance  []float64
	sampleAt []int
	surprise []float64
	// buf, scratch and idx are room for the legal decisions, random moves
	// and a sample's policy indices, reused from decision to decision.
	buf     [2 * game.MaxPoints]game.Decision
	scratch game.MoveScratch
	idx     []int32
}

// newGameInPlay sets up a game of m with seed: from the variant's setup,
// or in a share selfplay.endgame_fraction of games from a random endgame
// (the curriculum, drawn from a stream of its own so that games from the
// setup are the same whatever its settings); its record, and self-play's
// search (SelfPlayConfig.Player).
func newGameInPlay(m *model.Model, ev mcts.Evaluator, cfg *SelfPlayConfig, seed uint64) (*gameInPlay, error) {
	gp := &gameInPlay{cfg: cfg, m: m, rng: rand.New(rand.NewPCG(seed, mcts.Mix(seed, 2))), p: m.Rules.Start()}
	endgame := false
	if cfg.EndgameFraction > 0 {
		crng := rand.New(rand.NewPCG(mcts.Mix(seed, 3), mcts.Mix(seed, 4)))
		if crng.Float64() < cfg.EndgameFraction {
			gp.p, endgame = match.RandomEndgame(m.Rules, crng, match.DefaultEndgame(cfg.EndgameSoldiers))
		}
	}
	rec := game.NewRecord(m.Rules, &gp.p)
	rec.South, rec.North = rundir.SelfPlayName, rundir.SelfPlayName
	gp.g, gp.turnStart = &SelfPlayGame{Record: rec, Endgame: endgame}, gp.p
	pc := cfg.Player(cfg.FullSims, true)
	var err error
	if gp.search, err = mcts.NewSearch(pc.Evaluator(ev), pc.SearchConfig(mcts.Mix(seed, 1))); err != nil {
		return nil, err
	}
	if cfg.RaceGuard {
		if gp.guard, err = RaceGuard(); err != nil {
			return nil, err
		}
	}
	return gp, nil
}

// RaceGuard returns the guard of selfplay.race_guard: the shipped
// player's (mcts.DefaultGuard) for searches with no clock, within
// mcts.DefaultGuardNodes nodes, so a game's play depends on its seed alone.
func RaceGuard() (*mcts.Guard, error) {
	pc := mcts.PlayerConfig{Guard: mcts.DefaultGuard(mcts.Limits{})}
	return pc.NewGuard()
}

// bothKings reports whether each side has a king in p: the king race is
// still to be won.
func bothKings(p *game.Position) bool {
	return !p.Pieces(game.South, game.King).Empty() && !p.Pieces(game.North, game.King).Empty()
}

// openingTurns plays selfplay.random_turns random turns, for variety (none
// in a curriculum game, which starts from a random position).
func (gp *gameInPlay) openingTurns() {
	for !gp.g.Endgame && len(gp.g.Record.Turns) < gp.cfg.RandomTurns && !gp.p.Status().Over() {
		d, ok := gp.p.RandomDecision(gp.rng, &gp.scratch)
		if !ok {
			return
		}
		gp.play(d)
	}
}

// play plays decision d, noting the material before it, and records the
// turn when d ends it.
func (gp *gameInPlay) play(d game.Decision) {
	gp.balance = append(gp.balance, southBalance(&gp.p))
	side := gp.p.SideToMove()
	gp.p.Apply(d)
	gp.turn = append(gp.turn, d)
	if gp.p.SideToMove() != side || gp.p.Status().Over() {
		t, _, _ := gp.turnStart.DecisionsToTurn(gp.turn)
		gp.g.Record.Turns = append(gp.g.Record.Turns, t.Format(gp.m.Rules.Board))
		gp.turn, gp.turnStart = gp.turn[:0], gp.p
	}
}

// playOut plays the game to its end by the rules, a decision at a time
// (decide).
func (gp *gameInPlay) playOut(ctx context.Context) error {
	for !gp.p.Status().Over() {
		if err := ctx.Err(); err != nil {
			return err
		}
		d, err := gp.decide(ctx)
		if err != nil {
			return err
		}
		gp.play(d)
	}
	return nil
}

// decide chooses the next decision: the only legal one, or else the
// search's (searchDecision).
func (gp *gameInPlay) decide(ctx context.Context) (game.Decision, error) {
	legal := gp.p.Decisions(gp.buf[:0])
	switch len(legal) {
	case 0:
		return 0, fmt.Errorf("no legal decision in %s, yet the game is not over", gp.p.FEN())
	case 1:
		return legal[0], nil
	}
	return gp.searchDecision(ctx)
}

// searchDecision searches the position with selfplay.full_sims simulations in a share full_fraction of
// decisions (playout-cap randomisation), which become samples, and
// fast_sims in the others, and returns the search's choice; with
// selfplay.race_guard, among the decisions the guard left while both sides
// have a king.
func (gp *gameInPlay) searchDecision(ctx context.Context) (game.Decision, error) {
	full := gp.rng.Float64() < gp.cfg.FullFraction
	sims := gp.cfg.FastSims
	if full {
		sims = gp.cfg.FullSims
	}
	s := gp.search
	s.SetPosition(gp.p)
	if gp.guard != nil && bothKings(&gp.p) {
		r, err := gp.guard.Restrict(ctx, &gp.p, mcts.Limits{Sims: sims})
		if err != nil {
			return 0, err
		}
		if r.Guarded {
			return r.Only, nil // the guard left one decision: no search, no sample
		}
		if err := s.Exclude(r.Excluded); err != nil {
			return 0, err
		}
	}
	res, err := s.Run(ctx, mcts.Limits{Sims: sims})
	if err != nil {
		return 0, err
	}
	gp.g.Searches++
	if full {
		var pol []samples.PolicyEntry
		pol, gp.idx = policyTarget(gp.m.Encoder, &gp.p, res.Legal, res.Policy, gp.idx)
		gp.g.Samples = append(gp.g.Samples, samples.Sample{Position: gp.p, Policy: pol, Value: max(-1, min(1, res.Value)), Full: true})
		gp.sampleAt = append(gp.sampleAt, len(gp.balance))
		gp.surprise = append(gp.surprise, res.PolicySurprise())
	}
	conf := s.Config()
	return res.Choose(conf.TemperatureAt(len(gp.g.Record.Turns)), gp.rng), nil
}

// policyTarget returns the policy target of probabilities probs over the
// decisions legal in p: an entry for each decision of probability above
// 0, at its policy index. idx is room for the indices, returned for reuse.
func policyTarget(enc *encode.Encoder, p *game.Position, legal []game.Decision, probs []float32, idx []int32) ([]samples.PolicyEntry, []int32) {
	idx = enc.LegalIndices(p, legal, idx[:0])
	pol := make([]samples.PolicyEntry, 0, len(idx))
	for k, j := range idx {
		if probs[k] > 0 {
			pol = append(pol, samples.PolicyEntry{Index: uint16(j), Prob: probs[k]})
		}
	}
	return pol, idx
}

// finish ends the game's record with its result and gives its samples
// their targets (setTargets, and setOwnership for a network with the
// ownership head), before they are weighted by their policy surprise
// (selfplay.policy_surprise) and copied.
func (gp *gameInPlay) finish() *SelfPlayGame {
	g := gp.g
	g.Status = gp.p.Status()
	g.Record.Finish(g.Status)
	gp.balance = append(gp.balance, southBalance(&gp.p))
	gp.cfg.setTargets(g.Samples, gp.sampleAt, gp.balance, g.Status, mcts.OneKing(&gp.p))
	if gp.m.Weights.Config.OwnershipHead {
		setOwnership(gp.m.Encoder, g.Samples, &gp.p)
	}
	g.FullSearches = len(g.Samples)
	for _, x := range gp.surprise {
		g.Surprise += x
	}
	if gp.cfg.PolicySurprise {
		g.Samples = replicate(g.Samples, surpriseWeights(gp.surprise), gp.rng)
	}
	return g
}

// southBalance is South's material lead in p.
func southBalance(p *game.Position) float64 {
	return mcts.Material(p, game.South) - mcts.Material(p, game.North)
}

// southView returns x, a number from the point of view of side, from
// South's (and back: the map is its own inverse).
func southView(x float64, side game.Side) float64 {
	if side == game.North {
		return -x
	}
	return x
}

// setTargets sets the targets of the samples ss of a game that ended with
// status st: sample i was taken before decision sampleAt[i], and
// balance[k] is South's material lead before decision k (the last entry:
// at the end). Each sample gets its result and value target (see
// SelfPlayConfig.Adjudication and MaterialWeight), and with a material
// horizon its material lead (samples.Sample.Lead) MaterialHorizon
// decisions on, or at the end if sooner, all from its side to move's
// point of view. oneKing is whether the game ended with one king on the
// board (see PlainRaces).
func (cfg *SelfPlayConfig) setTargets(ss []samples.Sample, sampleAt []int, balance []float64, st game.Status, oneKing bool) {
	shaped := func(lead float64) float64 { return cfg.Adjudication * math.Tanh(lead/cfg.AdjudicationScale) }
	// The game's result for South (-1, 0 or 1), adjudicated if the limits
	// drew it.
	result := 2*st.Outcome.ScoreFor(game.South) - 1
	outcome := result
	if r := st.Reason; cfg.Adjudication > 0 && (r == game.NoCaptureLimit || r == game.MaxPlies) && !(cfg.PlainRaces && oneKing) {
		outcome = shaped(balance[len(balance)-1])
	}
	for i := range ss {
		s := &ss[i]
		me := s.Position.SideToMove()
		s.Result = int8(2*st.Outcome.ScoreFor(me) - 1)
		t := southView(outcome, me)
		plain := cfg.PlainRaces && mcts.OneKing(&s.Position)
		if plain {
			t = southView(result, me)
		}
		if cfg.MaterialHorizon > 0 {
			later := southView(balance[min(sampleAt[i]+cfg.MaterialHorizon, len(balance)-1)], me)
			s.Lead, s.HasLead = float32(later), true
			if w := cfg.MaterialWeight; w > 0 && !plain {
				t = (1-w)*t + w*shaped(later)
			}
		}
		s.Target = float32(t)
	}
}

// setOwnership gives the samples ss of a game that ended in position
// final (won, drawn by a limit or adjudicated alike: the board as it
// stands) their ownership targets (samples.Sample.Ownership): who holds
// each point of final, from each sample's side to move's point of view, in
// the frame of its network input (encode.Encoder.Ownership of enc).
func setOwnership(enc *encode.Encoder, ss []samples.Sample, final *game.Position) {
	for i := range ss {
		s := &ss[i]
		s.Ownership = make([]int8, enc.Points())
		enc.Ownership(&s.Position, final, s.Ownership)
	}
}
