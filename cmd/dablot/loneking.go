package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"text/tabwriter"
	"time"

	"github.com/dablot-zero/dablot/internal/research/study"
	"github.com/dablot-zero/dablot/train/progress"
)

// cmdLoneKing solves the lone-king endings.
var cmdLoneKing = &command{
	name:  "loneking",
	usage: "[--variant V] [--soldiers N] [--fen F]",
	short: "solve king and soldiers against a lone king by retrograde analysis",
	long: `Solves, by retrograde analysis, the endings of South's king and 0 to N soldiers
(N at most 2) against North's lone king: every placement of the pieces, either
side to move, and whether South wins by force, leaving aside the variant's
limits on length. It prints, for each number of soldiers, the share of
placements South wins and its longest forced win. With --fen it also says
whether South wins that position and in how many turns. Two soldiers on the
72-point board take about a minute and up to 5 GB.`,
	run: runLoneKing,
}

func runLoneKing(args []string, out io.Writer) error {
	fs := newFlags("analyse loneking", out)
	variant := fs.String("variant", "keyland", "variant name, YAML file, or name,key=value,...")
	soldiers := rangeFlag(fs, "soldiers", 1, 0, study.MaxLoneKingSoldiers, "solve up to this many South soldiers")
	fen := fs.String("fen", "", "a lone-king ending to look up")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	r, p, err := position(*variant, *fen)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	bar := progress.New(out, 1000*(*soldiers+1), "tables")
	done := 0
	t, err := study.SolveLoneKing(ctx, r, *soldiers, func(n int, f float64) {
		if now := 1000*n + int(1000*f); now > done {
			bar.Add(now - done)
			done = now
		}
	})
	bar.Finish()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "loneking: %s, South's king and up to %d soldiers against North's lone king, %v\n",
		r.Name, *soldiers, time.Since(start).Round(time.Second))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "soldiers\tplacements\tSouth wins, South to move\tSouth wins, North to move\tlongest win (turns)\ta longest win")
	for _, res := range t.Results {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%d\t%s\n", res.Soldiers, res.Positions[0]+res.Positions[1],
			share(res.Won[0], res.Positions[0]), share(res.Won[1], res.Positions[1]), res.Longest, res.LongestFEN)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if *fen != "" {
		plies, ok := t.Plies(&p)
		switch {
		case !ok:
			return fmt.Errorf("--fen %q: not South's king and up to %d soldiers against a lone North king at the start of a turn", *fen, *soldiers)
		case plies < 0:
			fmt.Fprintln(out, "position: South has no forced win")
		case plies == 0:
			fmt.Fprintln(out, "position: South has won")
		default:
			fmt.Fprintf(out, "position: South wins by force in %d turns\n", plies)
		}
	}
	return nil
}

// share formats k of n with its percentage.
func share(k, n int) string {
	return fmt.Sprintf("%d of %d (%.2f %%)", k, n, 100*float64(k)/float64(max(n, 1)))
}
