package encode_test

import (
	"math/rand/v2"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/cputime"
	"github.com/dablot-zero/dablot/net/encode"
)

// BenchmarkEncode encodes positions of random dablot and winther games
// (every decision of 20 games each, chains and endings included) with and
// without the tactical planes: the cost per network evaluation. On a
// loaded machine, CPU-ns/op is the figure to read.
func BenchmarkEncode(b *testing.B) {
	for _, v := range []string{"dablot", "winther"} {
		r := configs.MustVariant(v)
		var ps []game.Position
		rng := rand.New(rand.NewPCG(1, 2))
		for range 20 {
			p := r.Start()
			for {
				ds := p.Decisions(nil)
				if len(ds) == 0 {
					break
				}
				ps = append(ps, p)
				p.Apply(ds[rng.IntN(len(ds))])
			}
		}
		for _, tc := range []struct {
			name string
			o    encode.Options
		}{{"base", encode.Options{}}, {"tactical", encode.Options{Tactical: true}}} {
			b.Run(v+"/"+tc.name, func(b *testing.B) {
				e := encode.New(r, tc.o)
				x := make([]float32, e.InputSize())
				b.ReportAllocs()
				i, cpu0 := 0, cputime.Process()
				for b.Loop() {
					e.Encode(&ps[i], x)
					if i++; i == len(ps) {
						i = 0
					}
				}
				// Per CPU-second: what it costs whatever else the machine runs.
				b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N), "CPU-ns/op")
			})
		}
	}
}
