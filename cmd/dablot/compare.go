package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/dablot-zero/dablot/internal/recordio"
	"github.com/dablot-zero/dablot/mcts/match"
)

// cmdCompare compares two players game by game from the records of their
// matches against the same opponent.
var cmdCompare = &command{
	name:  "compare",
	usage: "A-RECORDS B-RECORDS [--anchor SPEC]",
	short: "two players compared game by game, from their matches against the same opponent",
	long: `Reads the game records of two matches (arena or ladder --out, PGN-like or JSON
lines, plain or compressed: .zst, .gz), player A against an opponent and player B against the same opponent from the
same openings with the same colours (two ladders of one variant with the same book,
seed and games), and pairs them game by game: game k of one match and game k of the
other differ only in the player. Prints both players' W/D/L and scores over the paired
games, A's score minus B's in points per hundred games with its 95% interval from
the differences game by game (which leave out what the openings and colours
contribute), and how many games went each way. The
common opponent is found as the one player in every game of both matches; --anchor
names it when both players are (the same match twice). Games one match has and the
other lacks are left out and counted.`,
	run: runCompare,
}

func runCompare(args []string, out io.Writer) error {
	fs := newFlags("analyse compare", out)
	anchor := fs.String("anchor", "", `the common opponent's spec, as in the records (default: the one player in every game of both)`)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("want two record files, A's match and B's, not %d", len(pos))
	}
	a, err := recordio.ReadFile(pos[0])
	if err != nil {
		return err
	}
	b, err := recordio.ReadFile(pos[1])
	if err != nil {
		return err
	}
	p, err := match.Pair(a, b, *anchor)
	if err != nil {
		return fmt.Errorf("%s and %s: %w", pos[0], pos[1], err)
	}
	fmt.Fprintf(out, "compare: %d games paired (same openings, same colours) against %s", p.Games(), p.Anchor)
	if p.Unpaired > 0 {
		fmt.Fprintf(out, "; %d games of one match without a pair left out", p.Unpaired)
	}
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\tplayer\trecords\tW/D/L and score")
	fmt.Fprintf(tw, "A\t%s\t%s\t%s\n", p.A, pos[0], p.AWDL)
	fmt.Fprintf(tw, "B\t%s\t%s\t%s\n", p.B, pos[1], p.BWDL)
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintln(out, p)
	return err
}
