package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/game/endgame"
	"github.com/dablot-zero/dablot/train/progress"
)

// cmdEndgame solves endings of a few pieces.
var cmdEndgame = &command{
	name:  "endgame",
	usage: "[--variant V] [--pieces N | --material M,...] [--fen F]",
	short: "solve the endings of a few pieces exactly, under the no-capture limit",
	long: `Solves by retrograde analysis every ending of up to --pieces pieces (at most 3),
or the endings --material names (South's pieces, a dash, North's: K king, P
prince, S soldier, such as KP-SS; at most 4 pieces in all) and the smaller ones
their captures lead into. A win counts only if the capture or the end of the
game that settles it comes before the no-capture limit (from a counter of 0).
For each ending it prints the placements with each side to move, the share the
side to move wins, draws and loses, and the longest win with a position that
needs it. With --fen it also gives that position's result for its no-capture
counter and the turn the tables play.

Three pieces on the 72-point board solve in about a minute on one core; an
ending of four (such as KP-SS) in minutes, with a few GB of memory.`,
	run: runEndgame,
}

func runEndgame(args []string, out io.Writer) error {
	fs := newFlags("analyse endgame", out)
	variant := fs.String("variant", "dablot", "variant name, YAML file, or name,key=value,...")
	pieces := rangeFlag(fs, "pieces", 3, 2, 3, "solve every ending of up to this many pieces")
	materials := fs.String("material", "", "solve these endings (comma-separated, such as KP-SS,K-SSS) in place of --pieces")
	fen := fs.String("fen", "", "a position to look up")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	r, p, err := position(*variant, *fen)
	if err != nil {
		return err
	}
	if err := endgame.Check(r); err != nil {
		return usagef("--variant: %v", err)
	}
	ms := endgame.Endings(r, *pieces)
	if *materials != "" {
		ms = nil
		for _, s := range strings.Split(*materials, ",") {
			m, err := endgame.ParseMaterial(strings.TrimSpace(s))
			if err != nil {
				return usagef("--material: %v", err)
			}
			if n := m.Pieces(); n > endgame.MaxPieces {
				return usagef("--material %s: %d pieces, at most %d", m, n, endgame.MaxPieces)
			}
			ms = append(ms, m)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	bar := progress.New(out, -1, "endings")
	t, err := endgame.Solve(ctx, r, ms, func(m endgame.Material) {
		bar.Describe(m.String())
		bar.Add(1)
	})
	bar.Finish()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "endgame: %s, %d endings, no-capture limit %d, %v\n", r.Name, len(t.Classes), r.NoCaptureLimit,
		time.Since(start).Round(time.Second))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ending\tplacements\tSouth to move: wins/draws/losses\tNorth to move: wins/draws/losses\tlongest win (turns)\ta longest win")
	for _, c := range t.Classes {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%s\n", c.Material, c.Positions[game.South]+c.Positions[game.North],
			wdlShares(c, game.South), wdlShares(c, game.North), c.Longest, c.LongestFEN)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if *fen == "" {
		return nil
	}
	turn, res, ok := t.BestTurn(&p)
	if !ok {
		return fmt.Errorf("--fen %q: not a position of the endings solved, at the start of a turn and not over", *fen)
	}
	verdict := map[endgame.Outcome]string{endgame.Win: "wins", endgame.Draw: "draws", endgame.Loss: "loses"}[res.Outcome]
	if res.Outcome != endgame.Draw {
		verdict += fmt.Sprintf(", settled in %d turns", res.Turns)
	}
	fmt.Fprintf(out, "position: %s to move %s (no-capture counter %d); the tables play %s\n",
		p.SideToMove(), verdict, p.Quiet(), turn.Format(r.Board))
	return nil
}

// wdlShares formats the shares of an ending's placements with side s to
// move that it wins, draws and loses.
func wdlShares(c endgame.ClassStats, s game.Side) string {
	n := float64(max(c.Positions[s], 1))
	return fmt.Sprintf("%.1f/%.1f/%.1f %%", 100*float64(c.Wins[s])/n, 100*float64(c.Draws(s))/n, 100*float64(c.Losses[s])/n)
}
