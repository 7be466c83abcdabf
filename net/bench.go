package net

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// BenchResult is one throughput measurement.
type BenchResult struct {
	Name        string
	Batch       int
	Positions   int           // positions processed
	Elapsed     time.Duration // wall time
	FLOPsPerPos float64       // network arithmetic per position (forward pass)
	PosPerSec   float64
	GFLOPs      float64 // achieved network GFLOP/s (training counts 3x the forward FLOPs)
}

func benchInputs(n int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 1))
	x := make([]float32, n)
	for i := range x {
		if r.IntN(4) == 0 {
			x[i] = 1
		}
	}
	return x
}

// MeasureInference runs Evaluator.Forward on random inputs of batch
// positions for at least d and reports the throughput. threads <= 0 uses
// GOMAXPROCS.
func MeasureInference(topo *Topology, cfg Config, batch, threads int, d time.Duration) (BenchResult, error) {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	w, err := NewWeights(cfg, 1)
	if err != nil {
		return BenchResult{}, err
	}
	e, err := NewEvaluator(topo, w)
	if err != nil {
		return BenchResult{}, err
	}
	ws := e.NewWorkspace(batch, threads)
	defer ws.Close()
	in := benchInputs(batch*e.InputSize(), 2)
	if _, _, err := ws.Forward(in, batch); err != nil {
		return BenchResult{}, err
	}
	start := time.Now()
	n := 0
	for time.Since(start) < d || n == 0 {
		if _, _, err := ws.Forward(in, batch); err != nil {
			return BenchResult{}, err
		}
		n++
	}
	el := time.Since(start)
	r := BenchResult{Name: "inference", Batch: batch, Positions: n * batch, Elapsed: el, FLOPsPerPos: cfg.FLOPsPerPosition(topo.Points)}
	r.PosPerSec = float64(r.Positions) / el.Seconds()
	r.GFLOPs = r.PosPerSec * r.FLOPsPerPos / 1e9
	return r, nil
}

// benchTrainer returns a trainer of a new network of cfg and a random
// batch of batch positions on which it has taken one step already (so
// timing starts warm). The caller closes the trainer.
func benchTrainer(topo *Topology, cfg Config, batch int) (*Trainer, Batch, error) {
	w, err := NewWeights(cfg, 1)
	if err != nil {
		return nil, Batch{}, err
	}
	tc := DefaultTrainConfig()
	tc.BatchSize = batch
	tr, err := NewTrainer(topo, w, tc)
	if err != nil {
		return nil, Batch{}, err
	}
	A := PolicySize(topo.Points)
	b := Batch{N: batch, Input: benchInputs(batch*topo.Points*cfg.InputPlanes, 3),
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
func MeasureTraining(topo *Topology, cfg Config, batch int, d time.Duration) (BenchResult, error) {
	tr, b, err := benchTrainer(topo, cfg, batch)
	if err != nil {
		return BenchResult{}, err
	}
	defer tr.Close()
	start := time.Now()
	n := 0
	for time.Since(start) < d || n == 0 {
		if _, err := tr.Step(b); err != nil {
			return BenchResult{}, err
		}
		n++
	}
	el := time.Since(start)
	r := BenchResult{Name: "training", Batch: batch, Positions: n * batch, Elapsed: el, FLOPsPerPos: cfg.FLOPsPerPosition(topo.Points)}
	r.PosPerSec = float64(r.Positions) / el.Seconds()
	r.GFLOPs = 3 * r.PosPerSec * r.FLOPsPerPos / 1e9
	return r, nil
}

// MeasureSgemm times an n×n×n product with Sgemm (gonum=false) or with
// gonum's blas32 (gonum=true) for at least d and returns GFLOP/s.
func MeasureSgemm(n int, gonum bool, d time.Duration) (float64, error) {
	if n < 1 || n > 8192 {
		return 0, fmt.Errorf("net: sgemm size %d out of range", n)
	}
	a, b, c := benchInputs(n*n, 4), benchInputs(n*n, 5), make([]float32, n*n)
	run := func() error {
		if gonum {
			blas32.Implementation().Sgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a, n, b, n, 0, c, n)
			return nil
		}
		return Sgemm(false, false, n, n, n, 1, a, n, b, n, 0, c, n)
	}
	if err := run(); err != nil {
		return 0, err
	}
	start := time.Now()
	k := 0
	for time.Since(start) < d || k == 0 {
		if err := run(); err != nil {
			return 0, err
		}
		k++
	}
	return 2 * float64(n) * float64(n) * float64(n) * float64(k) / time.Since(start).Seconds() / 1e9, nil
}
