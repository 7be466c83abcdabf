package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"text/tabwriter"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/train"
)

func init() {
	register(&command{"blunders", "count the turns that give material away: --records FILE --player SPEC [--player SPEC...]", runBlunders})
}

const blundersUsage = `--records FILE --player SPEC [--player SPEC ...] [--variant V] [--from T] [--to T] [--every N] [--threads T] [--seed S]

Takes positions from game records (PGN-like or JSON lines, such as arena --out
writes), lets each player choose a turn in each, and counts the turns that keep
a soldier's worth of material (or more) less than the best turn would, judged
two plies deep: the turn's own captures less the opponent's best capture
sequence after it (mcts.TurnJudge). A fast, crude measure of tactics for
comparing players on the same positions.`

func runBlunders(args []string, out io.Writer) error {
	fs := newFlags("blunders", blundersUsage, out)
	var players stringList
	fs.Var(&players, "player", "a player SPEC, as in arena (may be given several times)")
	records := fs.String("records", "", "game records to take positions from")
	variant := fs.String("variant", "", "variant of the records (default: the first record's)")
	from := fs.Int("from", 6, "first turn (from 0) of each game to take a position before")
	to := fs.Int("to", 200, "take positions before turns below this")
	every := fs.Int("every", 3, "take every N-th position")
	threads := fs.Int("threads", runtime.NumCPU(), "positions judged at once")
	seed := fs.Uint64("seed", 1, "random seed of the players")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *records == "":
		return usagef("--records is required")
	case len(players) == 0:
		return usagef("--player is required (such as --player alphabeta:depth=2)")
	case *from < 0 || *to <= *from:
		return usagef("--from %d --to %d: want 0 ≤ from < to", *from, *to)
	case *every < 1:
		return usagef("--every %d: want 1 or more", *every)
	case *threads < 1 || *threads > 256:
		return usagef("--threads %d: want 1 to 256", *threads)
	}
	recs, r, err := readRecords(*records, *variant)
	if err != nil {
		return err
	}
	positions, err := train.RecordPositions(recs, r, *from, *to, *every)
	if err != nil {
		return fmt.Errorf("%s: %w", *records, err)
	}
	if len(positions) == 0 {
		return fmt.Errorf("%s: no positions between turns %d and %d", *records, *from, *to)
	}
	fmt.Fprintf(out, "blunders: %s, %d positions from %d games (turns %d to %d, every %d)\n", r.Name, len(positions), len(recs), *from, *to-1, *every)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "player\tblunders (≥ 1 soldier)\t95 % CI\t≥ 3 soldiers\tmean loss")
	for _, spec := range players {
		fac, err := mcts.ParseFactory(spec, train.SpecOptions(r, *threads))
		if err != nil {
			return usagef("--player %s: %v", spec, err)
		}
		bar := train.NewProgress(out, len(positions), "positions")
		st, err := train.JudgePlayer(ctx, positions, fac, *threads, *seed, func() { bar.Add(1) })
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

// readRecords reads the game records in path, of variant name (or, if name
// is empty, of the first record's variant).
func readRecords(path, name string) ([]*game.Record, *game.Rules, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	recs, err := game.ReadRecords(f)
	f.Close()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, nil, fmt.Errorf("%s: no game records", path)
	}
	if name == "" {
		name = recs[0].Variant
	}
	r, err := configs.Variant(name)
	if err != nil {
		return nil, nil, err
	}
	return recs, r, nil
}
