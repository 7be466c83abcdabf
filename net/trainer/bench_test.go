package trainer

import (
	"testing"

	"github.com/dablot-zero/dablot/internal/cputime"
	"github.com/dablot-zero/dablot/net"
)

// BenchmarkTraining measures Trainer.Step at batch 256 on the 72-point board.
func BenchmarkTraining(b *testing.B) {
	topo := net.GridBoard(6, 7)
	const batch = 256
	tr, bt, err := benchTrainer(topo, net.DefaultConfig(8), batch)
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	b.ResetTimer()
	cpu0 := cputime.Process()
	for i := 0; i < b.N; i++ {
		if _, err := tr.Step(bt); err != nil {
			b.Fatal(err)
		}
	}
	if cpu := (cputime.Process() - cpu0).Seconds(); cpu > 0 {
		b.ReportMetric(float64(b.N*batch)/cpu, "pos/CPU-s")
	}
	pps := float64(b.N*batch) / b.Elapsed().Seconds()
	flops := net.DefaultConfig(8).FLOPsPerPosition(topo.Points)
	b.ReportMetric(pps, "pos/s")
	b.ReportMetric(3*pps*flops/1e9, "GFLOP/s")
	b.ReportMetric(flops/1e6, "MFLOP/pos")
}
