package mcts

import (
	"context"
	"testing"

	"github.com/dablot-zero/dablot/configs"
)

// BenchmarkAlphaBeta searches the start position to a fixed depth; the
// nodes/s metric counts every node, quiescence included.
func BenchmarkAlphaBeta(b *testing.B) {
	for _, v := range []string{"keyland", "dablot"} {
		b.Run(v, func(b *testing.B) {
			p := configs.MustVariant(v).Start()
			c := DefaultAlphaBetaConfig()
			c.Depth = 4
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

// BenchmarkSearch runs 800 PUCT simulations with the cheap evaluators, to
// measure the tree's own overhead.
func BenchmarkSearch(b *testing.B) {
	for name, ev := range map[string]Evaluator{"material": &MaterialEvaluator{}, "rollout": &RolloutEvaluator{Seed: 1}} {
		b.Run(name, func(b *testing.B) {
			p := configs.MustVariant("keyland").Start()
			sims := 0
			for b.Loop() {
				s, err := NewSearch(ev, DefaultConfig())
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
