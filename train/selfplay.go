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
	"github.com/dablot-zero/dablot/game/endgame"
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
// play: the shipped player (mcts.ShippedPlayer) with self-play's search,
// its material blend, its guard (selfplay.guard) and tables
// (selfplay.endgame_tables), and no cache. The network is the caller's.
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
	c.MaterialBlend = s.MaterialBlend
	c.Guard = mcts.GuardConfig{}
	if s.Guard > 0 {
		c.Guard = mcts.DefaultGuard(c.Limits)
		c.Guard.Depth, c.Guard.Margin, c.Guard.Share, c.Guard.Nodes = s.Guard, s.guardMargin(), 1, 0
	}
	c.Endgames = s.EndgameTables
	return c
}

// SelfPlay plays games first, first+1, …, first+n-1 of a generation with
// model m, cfg.Workers at a time sharing the network in batches, and returns
// them in index order. Game i's randomness comes from Mix(seed, i) alone,
// so the same call plays the same games however the work is scheduled.
// onGame, if set, is called (from one goroutine at a time) as games end.
func SelfPlay(ctx context.Context, m *model.Model, cfg SelfPlayConfig, seed uint64, first, n int, onGame func(*SelfPlayGame)) ([]*SelfPlayGame, error) {
	if err := cfg.checkRules(m.Rules); err != nil {
		return nil, err
	}
	// One network evaluator per core, each with its own batcher and its
	// share of the games: while one core runs a batch through the network,
	// the other's games are searching or being evaluated too.
	lanes := max(1, min(runtime.NumCPU(), cfg.Workers/2))
	batchers := make([]*mcts.Batcher, lanes)
	for i := range batchers {
		ev := m.NewEvaluator(cfg.NetBatch, 1)
		defer ev.Close()
		if err := ev.SetScoreUtility(cfg.ScoreUtility); err != nil {
			return nil, fmt.Errorf("self-play: selfplay.score_utility: %w", err)
		}
		batchers[i] = mcts.NewBatcher(ev, cfg.NetBatch, 0) // no wait: a batch goes as soon as the network is free
		defer batchers[i].Close()
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	var (
		mu       sync.Mutex
		games    []*SelfPlayGame
		firstErr error
		wg       sync.WaitGroup
	)
	for w := range min(cfg.Workers, n) {
		batcher := batchers[w%lanes]
		wg.Go(func() {
			for i := range jobs {
				g, err := playSelfPlayGame(ctx, m, batcher, &cfg, mcts.Mix(seed, uint64(i)))
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = fmt.Errorf("self-play game %d: %w", i, err)
						cancel()
					}
				} else {
					g.Index = i
					games = append(games, g)
					if onGame != nil {
						onGame(g)
					}
				}
				mu.Unlock()
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
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sort.Slice(games, func(a, b int) bool { return games[a].Index < games[b].Index })
	return games, nil
}

// playSelfPlayGame plays one game of m against itself.
func playSelfPlayGame(ctx context.Context, m *model.Model, ev mcts.Evaluator, cfg *SelfPlayConfig, seed uint64) (*SelfPlayGame, error) {
	began := time.Now()
	r := m.Rules
	rng := rand.New(rand.NewPCG(seed, mcts.Mix(seed, 2)))
	p := r.Start()
	// The curriculum draws from a stream of its own, so that games that
	// start from the setup are the same whatever its settings.
	endgame := false
	if cfg.EndgameFraction > 0 {
		crng := rand.New(rand.NewPCG(mcts.Mix(seed, 3), mcts.Mix(seed, 4)))
		if crng.Float64() < cfg.EndgameFraction {
			p, endgame = match.RandomEndgame(r, crng, match.DefaultEndgame(cfg.EndgameSoldiers))
		}
	}
	rec := game.NewRecord(r, &p)
	rec.South, rec.North = rundir.SelfPlayName, rundir.SelfPlayName
	var buf [2 * game.MaxPoints]game.Decision
	var scratch game.MoveScratch
	var turn []game.Decision
	turnStart := p
	endTurn := func() {
		t, _, _ := turnStart.DecisionsToTurn(turn)
		rec.Turns = append(rec.Turns, t.Format(r.Board))
		turn, turnStart = turn[:0], p
	}
	// balance[k] is South's material lead before decision k.
	var balance []float64
	var sampleAt []int
	var surprise []float64 // of each sample's search (mcts.Result.PolicySurprise)
	play := func(d game.Decision) {
		balance = append(balance, southBalance(&p))
		side := p.SideToMove()
		p.Apply(d)
		turn = append(turn, d)
		if p.SideToMove() != side || p.Status().Over() {
			endTurn()
		}
	}
	// Random opening turns.
	for !endgame && len(rec.Turns) < cfg.RandomTurns && !p.Status().Over() {
		d, ok := p.RandomDecision(rng, &scratch)
		if !ok {
			break
		}
		play(d)
	}

	pc := cfg.Player(cfg.FullSims, true)
	s, err := mcts.NewSearch(pc.Evaluator(ev), pc.SearchConfig(mcts.Mix(seed, 1)))
	if err != nil {
		return nil, err
	}
	tables, err := pc.NewTables()
	if err != nil {
		return nil, err
	}
	guard, err := pc.NewGuard()
	if err != nil {
		return nil, err
	}
	g := &SelfPlayGame{Record: rec, Endgame: endgame}
	var idx []int32
	var tabled *game.Status // the tables' verdict that ended the game
	for !p.Status().Over() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if tables != nil && len(turn) == 0 {
			_, res, ok, err := tables.Play(ctx, &p)
			if err != nil {
				return nil, err
			}
			if ok {
				tabled = &game.Status{Outcome: res.GameOutcome(p.SideToMove()), Reason: game.Adjudicated}
				break
			}
		}
		legal := p.Decisions(buf[:0])
		if len(legal) == 0 {
			return nil, fmt.Errorf("no legal decision in %s, yet the game is not over", p.FEN())
		}
		var d game.Decision
		var guarded mcts.Restriction
		if guard != nil {
			if guarded, err = guard.Restrict(ctx, &p, mcts.Limits{}); err != nil {
				return nil, err
			}
		}
		switch {
		case len(legal) == 1:
			d = legal[0]
		case guarded.Guarded:
			d = guarded.Only
		default:
			full := rng.Float64() < cfg.FullFraction
			sims := cfg.FastSims
			if full {
				sims = cfg.FullSims
			}
			s.SetPosition(p)
			if err := s.Exclude(guarded.Excluded); err != nil {
				return nil, err
			}
			res, err := s.Run(ctx, mcts.Limits{Sims: sims})
			if err != nil {
				return nil, err
			}
			g.Searches++
			if full {
				idx = m.Encoder.LegalIndices(&p, res.Legal, idx[:0])
				pol := make([]samples.PolicyEntry, 0, len(idx))
				for k, j := range idx {
					if res.Policy[k] > 0 {
						pol = append(pol, samples.PolicyEntry{Index: uint16(j), Prob: res.Policy[k]})
					}
				}
				g.Samples = append(g.Samples, samples.Sample{Position: p, Policy: pol, Value: max(-1, min(1, res.Value)), Full: true})
				sampleAt = append(sampleAt, len(balance))
				surprise = append(surprise, res.PolicySurprise())
			}
			conf := s.Config()
			d = res.Choose(conf.TemperatureAt(len(rec.Turns)), rng)
		}
		play(d)
	}
	g.Status = p.Status()
	if tabled != nil {
		g.Status = *tabled
	}
	rec.Finish(g.Status)
	balance = append(balance, southBalance(&p))
	// The targets are per decision: set them before the samples are
	// weighted and copied.
	cfg.setTargets(g.Samples, sampleAt, balance, g.Status)
	if m.Weights.Config.OwnershipHead {
		setOwnership(m.Encoder, g.Samples, &p)
	}
	g.FullSearches = len(g.Samples)
	for _, x := range surprise {
		g.Surprise += x
	}
	if cfg.PolicySurprise {
		g.Samples = replicate(g.Samples, surpriseWeights(surprise), rng)
	}
	g.Duration = time.Since(began)
	return g, nil
}

// checkRules refuses selfplay.endgame_tables on rules the tables cannot
// follow (endgame.Check).
func (cfg *SelfPlayConfig) checkRules(r *game.Rules) error {
	if cfg.EndgameTables > 0 {
		if err := endgame.Check(r); err != nil {
			return fmt.Errorf("selfplay.endgame_tables: %w", err)
		}
	}
	return nil
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
// point of view.
func (cfg *SelfPlayConfig) setTargets(ss []samples.Sample, sampleAt []int, balance []float64, st game.Status) {
	shaped := func(lead float64) float64 { return cfg.Adjudication * math.Tanh(lead/cfg.AdjudicationScale) }
	// The game's result for South (-1, 0 or 1), adjudicated if the limits
	// drew it.
	outcome := 2*st.Outcome.ScoreFor(game.South) - 1
	if r := st.Reason; cfg.Adjudication > 0 && (r == game.NoCaptureLimit || r == game.MaxPlies) {
		outcome = shaped(balance[len(balance)-1])
	}
	for i := range ss {
		s := &ss[i]
		me := s.Position.SideToMove()
		s.Result = int8(2*st.Outcome.ScoreFor(me) - 1)
		t := southView(outcome, me)
		if cfg.MaterialHorizon > 0 {
			later := southView(balance[min(sampleAt[i]+cfg.MaterialHorizon, len(balance)-1)], me)
			s.Lead, s.HasLead = float32(later), true
			if w := cfg.MaterialWeight; w > 0 {
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
