package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"text/tabwriter"

	"github.com/dablot-zero/dablot/internal/research/study"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/train/progress"
)

// cmdBlunders counts the turns that give material away.
var cmdBlunders = &command{
	name:  "blunders",
	usage: "--records FILE --player SPEC [--player SPEC ...] [--variant V] [--from T] [--to T] [--every N] [--threads T] [--seed S]",
	short: "count the turns of players that give material away, on positions of game records",
	long: `Takes positions from game records (PGN-like or JSON lines, such as arena --out
writes), lets each player choose a turn in each, and counts the turns that keep
a soldier's worth of material (or more) less than the best turn would, judged
two plies deep: the turn's own captures less the opponent's best capture
sequence after it (mcts.TurnJudge). A fast, crude measure of tactics for
comparing players on the same positions.`,
	run: runBlunders,
}

func runBlunders(args []string, out io.Writer) error {
	fs := newFlags("analyse blunders", out)
	var players stringList
	fs.Var(&players, "player", "a player SPEC, as in arena (may be given several times)")
	rr := addRecordRange(fs, 6, 200, 3, "take every N-th position")
	threads := threadsFlag(fs, runtime.NumCPU(), "positions judged at once")
	seed := fs.Uint64("seed", 1, "random seed of the players")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := rr.check(); err != nil {
		return err
	}
	if len(players) == 0 {
		return usagef("--player is required (such as --player alphabeta:depth=2)")
	}
	recs, r, err := rr.read()
	if err != nil {
		return err
	}
	positions, err := takePositions(rr, recs, r, study.RecordPositions)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "blunders: %s, %d positions from %d games (turns %d to %d, every %d)\n", r.Name, len(positions), len(recs), *rr.from, *rr.to-1, *rr.every)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "player\tblunders (≥ 1 soldier)\t95 % CI\t≥ 3 soldiers\tmean loss")
	for _, spec := range players {
		fac, err := mcts.ParseFactory(spec, model.SpecOptions(r, *threads))
		if err != nil {
			return usagef("--player %s: %v", spec, err)
		}
		bar := progress.New(out, len(positions), "positions")
		st, err := study.JudgePlayer(ctx, positions, fac, *threads, *seed, func() { bar.Add(1) })
		bar.Finish()
		fac.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", spec, err)
		}
		rate, lo, hi := st.Rate()
		fmt.Fprintf(tw, "%s\t%d/%d = %.1f %%\t%.1f–%.1f %%\t%d\t%.2f\n", fac.Name, st.Blunders, st.Positions, 100*rate, 100*lo, 100*hi, st.Big, st.MeanLoss)
	}
	return tw.Flush()
}
