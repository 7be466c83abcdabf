package mcts

import (
	"context"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// BenchmarkAlphaBeta searches the start position to depth 6 (turns); the
// nodes/s metric counts every node, quiescence included.
func BenchmarkAlphaBeta(b *testing.B) {
	for _, v := range []string{"keyland", "dablot"} {
		b.Run(v, func(b *testing.B) {
			p := configs.MustVariant(v).Start()
			c := DefaultAlphaBetaConfig()
			c.Depth = 6
			var nodes int64
			var secs float64
			for b.Loop() {
				ab, err := NewAlphaBetaPlayer(c) // a fresh table each time
				if err != nil {
					b.Fatal(err)
				}
				r, err := ab.Search(context.Background(), &p)
				if err != nil {
					b.Fatal(err)
				}
				nodes += r.Nodes
				secs += ab.Elapsed.Seconds()
			}
			b.ReportMetric(float64(nodes)/secs, "nodes/s")
		})
	}
}

// BenchmarkUCT runs 1000 random-rollout playouts from the start position.
func BenchmarkUCT(b *testing.B) {
	for _, v := range []string{"keyland", "dablot"} {
		b.Run(v, func(b *testing.B) {
			p := configs.MustVariant(v).Start()
			u, err := NewUCTPlayer(UCTConfig{Playouts: 1000, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := u.Decide(context.Background(), &p); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(u.Playouts)/b.Elapsed().Seconds(), "playouts/s")
		})
	}
}

// BenchmarkSearch runs 800 PUCT or Gumbel simulations with the cheap
// evaluators, to measure the tree's own overhead.
func BenchmarkSearch(b *testing.B) {
	for _, tc := range []struct {
		name   string
		ev     Evaluator
		gumbel bool
	}{
		{"material", &MaterialEvaluator{}, false},
		{"rollout", &RolloutEvaluator{Seed: 1}, false},
		{"gumbel-material", &MaterialEvaluator{}, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p := configs.MustVariant("keyland").Start()
			cfg := DefaultConfig()
			cfg.Gumbel = tc.gumbel
			sims := 0
			for b.Loop() {
				s, err := NewSearch(tc.ev, cfg)
				if err != nil {
					b.Fatal(err)
				}
				s.SetPosition(p)
				r, err := s.Run(context.Background(), Limits{Sims: 800})
				if err != nil {
					b.Fatal(err)
				}
				sims += r.Simulations
			}
			b.ReportMetric(float64(sims)/b.Elapsed().Seconds(), "sims/s")
		})
	}
}

// slowEvaluator stands in for a network: each call costs a fixed time,
// whatever its size.
type slowEvaluator struct {
	MaterialEvaluator
	cost time.Duration
}

func (e *slowEvaluator) Evaluate(batch []Request) error {
	time.Sleep(e.cost)
	return e.MaterialEvaluator.Evaluate(batch)
}

// BenchmarkBatcher runs 8 searches at once through one Batcher, as game
// workers share a network; it reports the mean batch size. With an
// evaluator that costs 1 ms a call, the calls of all searches merge.
func BenchmarkBatcher(b *testing.B) {
	p := configs.MustVariant("keyland").Start()
	for _, cost := range []time.Duration{0, time.Millisecond} {
		b.Run(cost.String(), func(b *testing.B) {
			bt := NewBatcher(&slowEvaluator{cost: cost}, 0, 0)
			defer bt.Close()
			sims := int64(0)
			for b.Loop() {
				var wg sync.WaitGroup
				for g := range 8 {
					wg.Go(func() {
						cfg := DefaultConfig()
						cfg.Seed = uint64(g)
						s, err := NewSearch(bt, cfg)
						if err != nil {
							b.Error(err)
							return
						}
						s.SetPosition(p)
						r, err := s.Run(context.Background(), Limits{Sims: 400})
						if err != nil {
							b.Error(err)
							return
						}
						atomic.AddInt64(&sims, int64(r.Simulations))
					})
				}
				wg.Wait()
			}
			batches, reqs := bt.Stats()
			b.ReportMetric(float64(reqs)/float64(batches), "requests/batch")
			b.ReportMetric(float64(sims)/b.Elapsed().Seconds(), "sims/s")
		})
	}
}

// BenchmarkGuardDepth reports the mean depth in turns that the shipped
// guard's node budget (DefaultGuardNodes) completes over positions of
// recorded ladder games (every 12th turn of the first 6 games of each
// record file), without ordering, with it (the default), and with late-move
// reductions too (docs/strength.md §16):
//
//	go test ./mcts -run XXX -bench GuardDepth -benchtime 1x
func BenchmarkGuardDepth(b *testing.B) {
	for _, f := range []string{"dablot-100ms-avx2", "winther-100ms-avx2"} {
		fh, err := os.Open("../docs/experiments/records/" + f + ".jsonl")
		if err != nil {
			b.Fatal(err)
		}
		recs, err := game.ReadRecords(fh)
		fh.Close()
		if err != nil {
			b.Fatal(err)
		}
		var positions []game.Position
		for _, rec := range recs[:6] {
			r := configs.MustVariant(rec.Variant)
			for k := 6; k < len(rec.Turns); k += 12 {
				p, err := rec.StartPosition(r)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := p.ApplyTurns(rec.Turns[:k]); err != nil {
					b.Fatal(err)
				}
				if !p.Status().Over() && len(p.Decisions(nil)) > 1 {
					positions = append(positions, p)
				}
			}
		}
		for _, tc := range []struct {
			name          string
			order, reduce bool
		}{{"plain", false, false}, {"order", true, false}, {"reduce", true, true}} {
			b.Run(f+"/"+tc.name, func(b *testing.B) {
				depth := 0
				for b.Loop() {
					depth = 0
					for _, p := range positions {
						g, err := NewDefaultGuard(MaxGuardDepth, Limits{Sims: 1})
						if err != nil {
							b.Fatal(err)
						}
						g.Order, g.Reduce = tc.order, tc.reduce
						r, err := g.Restrict(context.Background(), &p, Limits{Sims: 1})
						if err != nil {
							b.Fatal(err)
						}
						depth += r.Depth
					}
				}
				b.ReportMetric(float64(depth)/float64(len(positions)), "turns")
				b.ReportMetric(float64(len(positions)), "positions")
			})
		}
	}
}
