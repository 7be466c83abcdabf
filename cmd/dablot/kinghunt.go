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
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/train/progress"
	"github.com/dablot-zero/dablot/train/study"
)

func init() {
	register(&command{"kinghunt", "find where the side to move could take the other king by force: --records FILE", runKingHunt})
}

const kingHuntUsage = `--records FILE [--variant V] [--from T] [--to T] [--every N] [--ms MS | --depth D] [--king K] [--threads T] [--list]

Takes the positions of game records (PGN-like or JSON lines, such as arena --out
writes) that have both kings on the board, searches each with alpha-beta
(material, mobility, capture extension) valuing the king at K soldiers, and
counts, for each player, the positions in which the side to move can take the
other king, or win, by force within the search's reach. In keyland only the
kings decide games; this says whether a player's draws were missed chances or
positions in which no king could be caught.`

func runKingHunt(args []string, out io.Writer) error {
	fs := newFlags("kinghunt", kingHuntUsage, out)
	rr := addRecordRange(fs, 0, 100000, 7, "take every N-th position (odd: both sides to move)")
	ms := fs.Int("ms", 500, "search time per position, in milliseconds (iterative deepening)")
	depth := fs.Int("depth", 0, "search depth in turns instead of a time")
	king := fs.Int("king", 50, "the king's value in soldiers")
	threads := fs.Int("threads", runtime.NumCPU(), "positions searched at once")
	list := fs.Bool("list", false, "list every position found, with the first decision of the forced line")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := rr.check(); err != nil {
		return err
	}
	switch {
	case *ms < 1 && *depth < 1:
		return usagef("--ms %d --depth %d: want a time or a depth", *ms, *depth)
	case int64(*ms) > maxSearchMoveTime.Milliseconds():
		return usagef("--ms %d: want 1 to %d", *ms, maxSearchMoveTime.Milliseconds())
	case *king < 6 || *king > 1000:
		return usagef("--king %d: want 6 to 1000 soldiers (above the rest of the material that matters)", *king)
	case *threads < 1 || *threads > 256:
		return usagef("--threads %d: want 1 to 256", *threads)
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
