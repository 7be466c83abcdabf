package trainer

import (
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/internal/kernel"
)

// benchTrainer returns a trainer of a new network of cfg and a random
// batch of batch positions on which it has taken one step already (so
// timing starts warm). The caller closes the trainer.
func benchTrainer(topo *net.Topology, cfg net.Config, batch int) (*Trainer, Batch, error) {
	w, err := net.NewWeights(cfg, 1)
	if err != nil {
		return nil, Batch{}, err
	}
	tc := DefaultTrainConfig()
	tc.BatchSize = batch
	tr, err := NewTrainer(topo, w, tc)
	if err != nil {
		return nil, Batch{}, err
	}
	A := game.PolicySize(topo.Points)
	b := Batch{N: batch, Input: kernel.BenchInputs(batch*topo.Points*cfg.InputPlanes, 3),
		Policy: make([]float32, batch*A), Value: make([]float32, batch*3)}
	for q := 0; q < batch; q++ {
		b.Policy[q*A+q%A] = 1
		b.Value[q*3+q%3] = 1
	}
	if _, err := tr.Step(b); err != nil {
		tr.Close()
		return nil, Batch{}, err
	}
	return tr, b, nil
}

// MeasureTraining runs Trainer.Step on a random batch for at least d.
func MeasureTraining(topo *net.Topology, cfg net.Config, batch int, d time.Duration) (net.BenchResult, error) {
	tr, b, err := benchTrainer(topo, cfg, batch)
	if err != nil {
		return net.BenchResult{}, err
	}
	defer tr.Close()
	start := time.Now()
	n := 0
	for time.Since(start) < d || n == 0 {
		if _, err := tr.Step(b); err != nil {
			return net.BenchResult{}, err
		}
		n++
	}
	el := time.Since(start)
	r := net.BenchResult{Name: "training", Batch: batch, Positions: n * batch, Elapsed: el, FLOPsPerPos: cfg.FLOPsPerPosition(topo.Points)}
	r.PosPerSec = float64(r.Positions) / el.Seconds()
	r.GFLOPs = 3 * r.PosPerSec * r.FLOPsPerPos / 1e9
	return r, nil
}
