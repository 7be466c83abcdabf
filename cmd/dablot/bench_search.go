package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/train"
)

// cmdBenchSearch measures the self-play search.
var cmdBenchSearch = &command{
	name:  "search",
	usage: "[--variant V | --model FILE] [--blocks B --channels C] [--tactical] [--ownership] [--search gumbel|puct] [--sims N] [--workers W] [--leaf-batch L] [--batch N] [--seconds S]",
	short: "simulations per second of the self-play search with a network",
	long: `Runs the self-play search (--workers searches at once, sharing one network
evaluator per core) with a model file or a fresh network for --seconds, and prints
the simulations and network positions per second, the mean batch, and the share of
the CPU time spent outside the network.`,
	run: runBenchSearch,
}

// runBenchSearch implements "dablot analyse bench search": the speed of the
// self-play search with a network, and the share of CPU time spent outside
// the network.
func runBenchSearch(args []string, out io.Writer) error {
	fs := newFlags("analyse bench search", out)
	variant := fs.String("variant", "keyland", "variant (for a fresh network)")
	modelPath := fs.String("model", "", "model file (default: a fresh network of the default size)")
	def := net.DefaultConfig(0)
	blocks := fs.Int("blocks", def.Blocks, "residual blocks of a fresh network")
	channels := fs.Int("channels", def.Channels, "channels of a fresh network")
	tactical := fs.Bool("tactical", false, "give a fresh network the tactical input planes")
	ownership := fs.Bool("ownership", false, "give a fresh network an ownership head")
	search := fs.String("search", "gumbel", "gumbel or puct")
	sims := rangeFlag(fs, "sims", 64, 1, mcts.MaxSims, "simulations per search")
	workers := rangeFlag(fs, "workers", 32, 1, 4096, "searches at once (shared over one evaluator per core)")
	leaf := rangeFlag(fs, "leaf-batch", 4, 1, 256, "leaves one search gathers per network call")
	netBatch := rangeFlag(fs, "batch", 64, 1, 4096, "largest network batch")
	seconds := rangeFlag[float64](fs, "seconds", 10, 0.01, 3600, "how long to run")
	seed := fs.Uint64("seed", 1, "random seed")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *search != "gumbel" && *search != "puct" {
		return usagef("--search %q: want gumbel or puct", *search)
	}
	var m *model.Model
	var err error
	if *modelPath != "" {
		m, err = model.LoadModel(*modelPath)
	} else {
		rules, verr := configs.Variant(*variant)
		if verr != nil {
			return verr
		}
		cfg := def
		cfg.Blocks, cfg.Channels, cfg.TacticalPlanes, cfg.OwnershipHead = *blocks, *channels, *tactical, *ownership
		m, err = model.NewNetwork(rules, cfg, *seed)
	}
	if err != nil {
		return err
	}
	sp := train.SelfPlayConfig{Games: 1, Workers: *workers, Search: *search, FullSims: *sims, FastSims: *sims, FullFraction: 1,
		GumbelM: 16, LeafBatch: *leaf, NetBatch: *netBatch}
	arch := m.Weights.Config
	heads := ""
	for _, h := range arch.Heads() {
		heads += ", " + h.Name + " head"
	}
	fmt.Fprintf(out, "bench search: %s, network %d×%d%s (%.1f MFLOP/position), %s, %d sims, %d searches at once, leaf batch %d, batch ≤ %d, %.0f s\n",
		m.Rules.Name, arch.Blocks, arch.Channels, heads, arch.FLOPsPerPosition(m.Rules.Board.Points())/1e6, *search, *sims, *workers, *leaf, *netBatch, *seconds)
	b, err := train.MeasureSearch(context.Background(), m, sp, time.Duration(*seconds*float64(time.Second)), *seed)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "simulations/s        %.0f  (%d searches, %d simulations in %.1f s)\n", b.SimsPerSecond(), b.Searches, b.Simulations, b.Elapsed.Seconds())
	fmt.Fprintf(out, "network positions/s  %.0f, mean batch %.1f\n", float64(b.Positions)/b.Elapsed.Seconds(), b.MeanBatch())
	fmt.Fprintf(out, "CPU                  %.1f s of %.1f s on %d cores\n", b.CPU.Seconds(), b.Elapsed.Seconds()*float64(runtime.NumCPU()), runtime.NumCPU())
	fmt.Fprintf(out, "outside the network  %.1f %% of the CPU time\n", 100*b.OutsideShare())
	return nil
}
