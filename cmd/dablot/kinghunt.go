package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/research/study"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/train/progress"
)

// cmdKingHunt looks for kings that could be taken by force.
var cmdKingHunt = &command{
	name:  "kinghunt",
	usage: "--records FILE [--variant V] [--from T] [--to T] [--every N] [--ms MS | --depth D] [--king K] [--threads T] [--list]",
	short: "find where the side to move could take the other king by force, in game records",
	long: `Takes the positions of game records (PGN-like or JSON lines, such as arena --out
writes) that have both kings on the board, searches each with alpha-beta
(material, mobility, capture extension) valuing the king at K soldiers, and
counts, for each player, the positions in which the side to move can take the
other king, or win, by force within the search's reach. In keyland only the
kings decide games; this says whether a player's draws were missed chances or
positions in which no king could be caught.`,
	run: runKingHunt,
}

func runKingHunt(args []string, out io.Writer) error {
	fs := newFlags("analyse kinghunt", out)
	rr := addRecordRange(fs, 0, 100000, 7, "take every N-th position (odd: both sides to move)")
	ms := rangeFlag(fs, "ms", 500, 0, int(maxSearchMoveTime.Milliseconds()), "search time per position, in milliseconds (iterative deepening)")
	depth := fs.Int("depth", 0, "search depth in turns instead of a time")
	king := rangeFlag(fs, "king", 50, 6, 1000, "the king's value in soldiers (above the rest of the material that matters)")
	threads := threadsFlag(fs, runtime.NumCPU(), "positions searched at once")
	list := fs.Bool("list", false, "list every position found, with the first decision of the forced line")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := rr.check(); err != nil {
		return err
	}
	if *ms < 1 && *depth < 1 {
		return usagef("--ms %d --depth %d: want a time or a depth", *ms, *depth)
	}
	cfg := mcts.DefaultAlphaBetaConfig()
	cfg.Weights[game.King] = *king * cfg.Weights[game.Soldier]
	cfg.Depth, cfg.Time = *depth, 0
	reach := fmt.Sprintf("depth %d", *depth)
	if *depth == 0 {
		cfg.Time = time.Duration(*ms) * time.Millisecond
		reach = fmt.Sprintf("%d ms", *ms)
	}
	if err := cfg.Validate(); err != nil {
		return usagef("--depth %d: %v", *depth, err)
	}
	recs, r, err := rr.read()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "kinghunt: %s, %d games, turns %d to %d every %d, alpha-beta %s a position, king = %d soldiers\n",
		r.Name, len(recs), *rr.from, *rr.to-1, *rr.every, reach, *king)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	positions, err := takePositions(rr, recs, r, study.KingHuntPositions)
	if err != nil {
		return err
	}
	bar := progress.New(out, len(positions), "positions")
	stats, finds, err := study.HuntKings(ctx, positions, cfg, *threads, func() { bar.Add(1) })
	bar.Finish()
	if err != nil {
		return err
	}
	if *list {
		for _, f := range finds {
			fmt.Fprintf(out, "game %d before turn %d, %s to move: %s (score %d) in %s\n", f.Record, f.Turn, f.Player, f.Best, f.Score, f.FEN)
		}
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "player to move\tpositions\ttakes the king by force\tmean depth")
	for _, s := range stats {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\n", s.Player, s.Positions, s.Forced, s.Depth)
	}
	return tw.Flush()
}
