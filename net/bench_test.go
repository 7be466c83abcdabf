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
// with GOMAXPROCS worker goroutines.
func BenchmarkInference(b *testing.B) {
	topo := GridBoard(6, 7)
	w, err := NewWeights(benchConfig, 1)
	if err != nil {
		b.Fatal(err)
	}
	e, err := NewEvaluator(topo, w)
	if err != nil {
		b.Fatal(err)
	}
	flops := benchConfig.FLOPsPerPosition(topo.Points)
	for _, batch := range []int{1, 16, 64, 256} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
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
