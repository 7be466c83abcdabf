package main

import (
	"fmt"
	"io"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/dablot-zero/dablot/internal/cputime"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/trainer"
)

// cmdBenchNet measures the network.
var cmdBenchNet = &command{
	name:  "net",
	usage: "[--blocks B] [--channels C] [--planes P] [--points 72|41] [--seconds S] [--threads T]",
	short: "network positions per second, inference and training, and the matrix kernel",
	long: `Measures a network of the given size on a synthetic board: inference at batch
1, 16, 64 and 256 (--threads goroutines), training at batch 256, and the speed of
the matrix multiply at 512³ next to gonum's blas32; then the peak memory.`,
	run: runBenchNet,
}

// runBenchNet implements "dablot analyse bench net": network throughput on a
// synthetic board (inference at batch 1/16/64/256, training at batch 256)
// and the matrix-multiply speed next to gonum's blas32 at 512³.
func runBenchNet(args []string, out io.Writer) error {
	fs := newFlags("analyse bench net", out)
	def := net.DefaultConfig(8)
	blocks := fs.Int("blocks", def.Blocks, "residual blocks")
	channels := fs.Int("channels", def.Channels, "channels")
	planes := fs.Int("planes", def.InputPlanes, "input planes per point")
	points := fs.Int("points", 72, "board size: 72 (6x7 lines) or 41 (5x5 lines)")
	seconds := rangeFlag[float64](fs, "seconds", 2, 0.01, 600, "time per measurement")
	threads := threadsFlag(fs, runtime.GOMAXPROCS(0), "inference worker goroutines")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var topo *net.Topology
	switch *points {
	case 72:
		topo = net.GridBoard(6, 7)
	case 41:
		topo = net.GridBoard(5, 5)
	default:
		return usagef("--points %d: want 72 or 41", *points)
	}
	cfg := def
	cfg.Blocks, cfg.Channels, cfg.InputPlanes = *blocks, *channels, *planes
	if err := cfg.Validate(); err != nil {
		return err
	}
	d := time.Duration(*seconds * float64(time.Second))
	fmt.Fprintf(out, "network: %d blocks, %d channels, %d input planes, %d points; %.2f MFLOP per position (forward)\n",
		cfg.Blocks, cfg.Channels, cfg.InputPlanes, topo.Points, cfg.FLOPsPerPosition(topo.Points)/1e6)
	fmt.Fprintf(out, "matmul kernel: %s, GOMAXPROCS %d\n\n", net.GemmImplementation(), runtime.GOMAXPROCS(0))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "measurement\tbatch\tpositions/s\tGFLOP/s\t")
	for _, b := range []int{1, 16, 64, 256} {
		r, err := net.MeasureInference(topo, cfg, b, *threads, d)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "inference\t%d\t%.0f\t%.1f\t\n", b, r.PosPerSec, r.GFLOPs)
	}
	r, err := trainer.MeasureTraining(topo, cfg, 256, d)
	if err != nil {
		return err
	}
	fmt.Fprintf(tw, "training\t%d\t%.0f\t%.1f\t\n", 256, r.PosPerSec, r.GFLOPs)
	for _, g := range []bool{false, true} {
		gf, err := net.MeasureSgemm(512, g, d)
		if err != nil {
			return err
		}
		name := "sgemm 512³ (" + net.GemmImplementation() + ")"
		if g {
			name = "sgemm 512³ (gonum blas32)"
		}
		fmt.Fprintf(tw, "%s\t-\t-\t%.1f\t\n", name, gf)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if rss := cputime.PeakRSS(); rss > 0 {
		fmt.Fprintf(out, "\npeak memory (resident) %.0f MiB\n", float64(rss)/(1<<20))
	}
	return nil
}
