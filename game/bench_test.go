package game_test

import (
	"math/rand/v2"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// BenchmarkPlayout plays uniformly random games; the decisions/s metric is
// the move generator's speed in self-play conditions.
func BenchmarkPlayout(b *testing.B) {
	for _, v := range []string{"keyland", "dablot", "winther", "frostviken", "daablot"} {
		b.Run(v, func(b *testing.B) {
			start := configs.MustVariant(v).Start()
			rng := rand.New(rand.NewPCG(1, 2))
			decisions := 0
			for b.Loop() {
				p := start
				_, n := p.RandomPlayout(rng)
				decisions += n
			}
			b.ReportMetric(float64(decisions)/b.Elapsed().Seconds(), "decisions/s")
		})
	}
}

// BenchmarkPerft5 is perft(5) from the keyland start (1,862,477 turns).
func BenchmarkPerft5(b *testing.B) {
	p := configs.MustVariant("keyland").Start()
	for b.Loop() {
		if n := p.PerftTurns(5); n != 1862477 {
			b.Fatal(n)
		}
	}
}

var sink []game.Decision

// BenchmarkDecisions generates the legal decisions of the start position.
func BenchmarkDecisions(b *testing.B) {
	p := configs.MustVariant("keyland").Start()
	buf := make([]game.Decision, 0, 256)
	for b.Loop() {
		sink = p.Decisions(buf)
	}
}
