package net

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/dablot-zero/dablot/internal/cputime"
	"github.com/dablot-zero/dablot/net/internal/kernel"
)

// benchConfig is the network the benchmarks measure (the proposed default,
// with 8 input planes).
var benchConfig = DefaultConfig(8)

// BenchmarkInference measures Evaluator throughput on the 72-point board
// with GOMAXPROCS worker goroutines, and at batch 64 that of the same
// network with an ownership head (own=true), which runs at every
// evaluation.
func BenchmarkInference(b *testing.B) {
	for _, tc := range []struct {
		name    string
		own     bool
		batches []int
	}{{"", false, []int{1, 16, 64, 256}}, {"own=true/", true, []int{64}}} {
		cfg := benchConfig
		cfg.OwnershipHead = tc.own
		topo := GridBoard(6, 7)
		w, err := NewWeights(cfg, 1)
		if err != nil {
			b.Fatal(err)
		}
		e, err := NewEvaluator(topo, w)
		if err != nil {
			b.Fatal(err)
		}
		flops := cfg.FLOPsPerPosition(topo.Points)
		for _, batch := range tc.batches {
			b.Run(fmt.Sprintf("%sbatch=%d", tc.name, batch), func(b *testing.B) {
				ws := e.NewWorkspace(batch, runtime.GOMAXPROCS(0))
				defer ws.Close()
				in := kernel.BenchInputs(batch*e.InputSize(), 2)
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := cputime.Process()
				for i := 0; i < b.N; i++ {
					if _, _, err := ws.Forward(in, batch); err != nil {
						b.Fatal(err)
					}
				}
				if cpu := (cputime.Process() - cpu0).Seconds(); cpu > 0 {
					b.ReportMetric(float64(b.N*batch)/cpu, "pos/CPU-s")
				}
				pps := float64(b.N*batch) / b.Elapsed().Seconds()
				b.ReportMetric(pps, "pos/s")
				b.ReportMetric(pps*flops/1e9, "GFLOP/s")
				b.ReportMetric(flops/1e6, "MFLOP/pos")
			})
		}
	}
}
