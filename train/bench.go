package train

import (
	"context"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/cputime"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/net/model"
)

// SearchBench is a measurement of self-play search speed.
type SearchBench struct {
	Simulations int64
	Searches    int64
	Elapsed     time.Duration // wall time
	CPU         time.Duration // process CPU time
	NetTime     time.Duration // time in the network's forward pass, summed over evaluators
	Batches     int64
	Positions   int64
}

// SimsPerSecond is the simulation rate.
func (b SearchBench) SimsPerSecond() float64 { return float64(b.Simulations) / b.Elapsed.Seconds() }

// OutsideShare is the share of the CPU time spent outside the network's
// forward pass: tree search, move generation, encoding, batching.
func (b SearchBench) OutsideShare() float64 {
	if b.CPU <= 0 {
		return 0
	}
	return max(0, 1-b.NetTime.Seconds()/b.CPU.Seconds())
}

// MeanBatch is the mean number of positions per forward pass.
func (b SearchBench) MeanBatch() float64 { return float64(b.Positions) / float64(max(b.Batches, 1)) }

// MeasureSearch runs the searches of self-play (full_sims simulations from
// positions of random games) for d and reports their speed: sp.Workers
// searches at once over one network evaluator per core, as SelfPlay runs
// them.
func MeasureSearch(ctx context.Context, m *model.Model, sp SelfPlayConfig, d time.Duration, seed uint64) (SearchBench, error) {
	starts := randomStarts(m.Rules, 64, seed)
	lanes := max(1, min(runtime.NumCPU(), sp.Workers/2))
	evs := make([]*model.NetEvaluator, lanes)
	batchers := make([]*mcts.Batcher, lanes)
	for i := range lanes {
		evs[i] = m.NewEvaluator(sp.NetBatch, 1)
		defer evs[i].Close()
		batchers[i] = mcts.NewBatcher(evs[i], sp.NetBatch, 0)
		defer batchers[i].Close()
	}
	var sims, searches atomic.Int64
	var firstErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	began, cpuBegan := time.Now(), cputime.Process()
	deadline := began.Add(d)
	for w := range sp.Workers {
		wg.Go(func() {
			pc := sp.Player(sp.FullSims, true)
			s, err := mcts.NewSearch(pc.Evaluator(batchers[w%lanes]), pc.SearchConfig(mcts.Mix(seed, uint64(w))))
			for i := w; err == nil && time.Now().Before(deadline) && ctx.Err() == nil; i += sp.Workers {
				s.SetPosition(starts[i%len(starts)])
				var res *mcts.Result
				if res, err = s.Run(ctx, mcts.Limits{Sims: sp.FullSims}); err == nil {
					sims.Add(int64(res.Simulations))
					searches.Add(1)
				}
			}
			if err != nil {
				mu.Lock()
				firstErr = err
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	b := SearchBench{Simulations: sims.Load(), Searches: searches.Load(), Elapsed: time.Since(began), CPU: cputime.Process() - cpuBegan}
	for _, ev := range evs {
		b.NetTime += ev.NetTime
		b.Batches += ev.Batches
		b.Positions += ev.Positions
	}
	return b, firstErr
}

// randomStarts returns n positions with more than one legal decision,
// taken along random games of r.
func randomStarts(r *game.Rules, n int, seed uint64) []game.Position {
	rng := rand.New(rand.NewPCG(seed, 0x5ea7))
	var scratch game.MoveScratch
	var out []game.Position
	for len(out) < n {
		p := r.Start()
		for !p.Status().Over() && len(out) < n {
			if rng.IntN(8) == 0 && len(p.Decisions(nil)) > 1 {
				out = append(out, p)
			}
			d, _ := p.RandomDecision(rng, &scratch)
			p.Apply(d)
		}
	}
	return out
}
