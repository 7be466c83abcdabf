package train

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/game/endgame"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/train/rundir"
	"github.com/dablot-zero/dablot/train/runlog"
	"github.com/dablot-zero/dablot/train/samples"
)

// reanalyseWorker is the worker name of the trainer's reanalysis shards:
// gen-NNNNNN-reanalyse.samples.zst, written by generation NNNNNN.
const reanalyseWorker = "reanalyse"

// ReanalysisPlayer is the search that reanalysis gives a stored position
// (selfplay.reanalyse): self-play's search at full_sims simulations, with
// no exploration, and the shipped player's guard within
// mcts.DefaultGuardNodes nodes and tables where the rules allow them. It
// is bounded by simulations and nodes, not time, so a position's new
// targets depend on the network alone.
func (s *SelfPlayConfig) ReanalysisPlayer(r *game.Rules) mcts.PlayerConfig {
	c := s.Player(s.FullSims, false)
	c.Guard = mcts.DefaultGuard(c.Limits)
	c.Endgames = 0
	if endgame.Check(r) == nil {
		c.Endgames = max(s.EndgameTables, mcts.DefaultEndgamePieces)
	}
	return c
}

// Reanalysis counts what Reanalyse did.
type Reanalysis struct {
	Positions int // positions searched again
	Tables    int // of them, given their exact result by the tables
	Vetoed    int // of them, with a decision the guard vetoed
}

// Reanalyse searches the positions of ss again with model m and the
// ReanalysisPlayer of cfg, cfg.Workers at a time, and returns them as new
// samples: the same position, result, lead and ownership, with
//   - a position the tables hold: the tables' first decision as the policy
//     target and their exact result as the value target and the search
//     value;
//   - one where the guard leaves a single decision: that decision as the
//     policy target, the value as stored;
//   - else the search's policy over the decisions the guard leaves, and
//     its root value as the search value (the value target as stored).
//
// Sample i's search is seeded by Mix(seed, i) alone. onDone, if set, is
// called as each position is done, from several goroutines at once.
func Reanalyse(ctx context.Context, m *model.Model, cfg SelfPlayConfig, seed uint64, ss []samples.Sample, onDone func()) ([]samples.Sample, Reanalysis, error) {
	pc := cfg.ReanalysisPlayer(m.Rules)
	out := make([]samples.Sample, len(ss))
	var tables, vetoed atomic.Int64
	err := inParallel(ctx, m, &cfg, 0, len(ss), "reanalysis of sample", func(ctx context.Context, ev mcts.Evaluator, i int) error {
		s, how, err := reanalyseOne(ctx, m, &pc, ev, mcts.Mix(seed, uint64(i)), ss[i])
		if err != nil {
			return err
		}
		out[i] = s
		if onDone != nil {
			onDone()
		}
		switch how {
		case byTables:
			tables.Add(1)
		case byVeto:
			vetoed.Add(1)
		}
		return nil
	})
	if err != nil {
		return nil, Reanalysis{}, err
	}
	return out, Reanalysis{Positions: len(ss), Tables: int(tables.Load()), Vetoed: int(vetoed.Load())}, nil
}

// How reanalyseOne set a sample's targets.
const (
	bySearch = iota // the search alone
	byTables        // the tables' exact result
	byVeto          // the search over what the guard left, or its one decision
)

// reanalyseOne searches the position of s again with the player pc over
// evaluator ev, seeded by seed, and returns s with its new targets and
// how they were set (see Reanalyse).
func reanalyseOne(ctx context.Context, m *model.Model, pc *mcts.PlayerConfig, ev mcts.Evaluator, seed uint64, s samples.Sample) (samples.Sample, int, error) {
	p := s.Position
	if len(p.Decisions(nil)) == 0 {
		return s, 0, fmt.Errorf("no legal decision in %s", p.FEN())
	}
	one := func(d game.Decision) []samples.PolicyEntry { // all the probability on d
		pol, _ := policyTarget(m.Encoder, &p, []game.Decision{d}, []float32{1}, nil)
		return pol
	}
	tables, err := pc.NewTables()
	if err != nil {
		return s, 0, err
	}
	if tables != nil {
		ds, res, ok, err := tables.Play(ctx, &p)
		if err != nil {
			return s, 0, err
		}
		if ok {
			s.Policy = one(ds[0])
			s.Target, s.Value = float32(res.Outcome), float32(res.Outcome)
			return s, byTables, nil
		}
	}
	guard, err := pc.NewGuard()
	if err != nil {
		return s, 0, err
	}
	guarded, err := guard.Restrict(ctx, &p, mcts.Limits{})
	if err != nil {
		return s, 0, err
	}
	how := bySearch
	if len(guarded.Excluded) > 0 || guarded.Guarded {
		how = byVeto
	}
	if guarded.Guarded {
		s.Policy = one(guarded.Only)
		return s, how, nil
	}
	search, err := mcts.NewSearch(pc.Evaluator(ev), pc.SearchConfig(seed))
	if err != nil {
		return s, 0, err
	}
	search.SetPosition(p)
	if err := search.Exclude(guarded.Excluded); err != nil {
		return s, 0, err
	}
	res, err := search.Run(ctx, pc.Limits)
	if err != nil {
		return s, 0, err
	}
	s.Policy, _ = policyTarget(m.Encoder, &p, res.Legal, res.Policy, nil)
	s.Value = max(-1, min(1, res.Value))
	return s, how, nil
}

// reanalyse is the reanalysis phase of generation g (selfplay.reanalyse):
// it draws a share of as many positions as the generation's full searches
// (m.GenFullSearches) from the replay window, their choice from seed,
// searches them again with the best network (Reanalyse) and writes them
// as the generation's reanalysis shard, which training takes in with the
// self-play shard. Its counts go in m.
func (r *Run) reanalyse(ctx context.Context, g int, seed uint64, m *runlog.Generation) error {
	share := r.Config.SelfPlay.Reanalyse
	n := int(math.Round(share * float64(m.GenFullSearches)))
	if share <= 0 || n == 0 || r.replay.Len() == 0 {
		return nil
	}
	began := time.Now()
	window := min(r.Config.Train.WindowSize(r.replay.Total()), r.replay.Len())
	rng := rand.New(rand.NewPCG(seed, 5))
	picked := make([]samples.Sample, n)
	for i := range picked {
		picked[i] = r.replay.buf[r.replay.Len()-window+rng.IntN(window)]
	}
	bar := r.bar(n, fmt.Sprintf("gen %d reanalysis", g))
	out, how, err := Reanalyse(ctx, r.best, r.Config.SelfPlay, mcts.Mix(seed, 6), picked, func() { bar.Add(1) })
	bar.Finish()
	if err != nil {
		return err
	}
	hdr := samples.Header{Variant: r.Rules.Name, Fingerprint: r.Rules.Fingerprint(), Generation: r.state.Best,
		Model: r.best.Metadata[net.MetaChecksum], Worker: reanalyseWorker, Run: r.state.Run}
	if err := samples.Write(filepath.Join(r.Dir, rundir.ShardDir, shardName(g, reanalyseWorker, 0)), r.Rules, hdr, out); err != nil {
		return err
	}
	m.Reanalysed, m.ReanalysedTables, m.ReanalysedVetoed = how.Positions, how.Tables, how.Vetoed
	m.ReanalyseSeconds = time.Since(began).Seconds()
	return nil
}
