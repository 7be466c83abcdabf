package net

import (
	"fmt"
	"runtime"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/dablot-zero/dablot/net/internal/kernel"
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
	in := kernel.BenchInputs(batch*e.InputSize(), 2)
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

// MeasureSgemm times an n×n×n product with Sgemm (gonum=false) or with
// gonum's blas32 (gonum=true) for at least d and returns GFLOP/s.
func MeasureSgemm(n int, gonum bool, d time.Duration) (float64, error) {
	if n < 1 || n > 8192 {
		return 0, fmt.Errorf("net: sgemm size %d out of range", n)
	}
	a, b, c := kernel.BenchInputs(n*n, 4), kernel.BenchInputs(n*n, 5), make([]float32, n*n)
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
