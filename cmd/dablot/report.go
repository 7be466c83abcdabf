package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/dablot-zero/dablot/internal/research/report"
)

// cmdReport writes the plots and summary of a run.
var cmdReport = &command{
	name:  "report",
	usage: "DIR [--out DIR] [--anchor NAME]",
	short: "write plots and a summary of a training run",
	long: `Reads DIR/metrics.jsonl, DIR/ratings.jsonl and the last 10 generations' games
in DIR/games, and writes rating.png, loss.png, length.png, draws.png and
summary.md to DIR/report (or --out). The summary says what decided the
self-play games: the side that lost its king first, and material leads.`,
	run: runReport,
}

func runReport(args []string, out io.Writer) error {
	fs := newFlags("report", out)
	outDir := fs.String("out", "", "directory to write (default DIR/report)")
	anchor := fs.String("anchor", "", `player rated 0 (default "random", or the baseline with the most games)`)
	dirs, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(dirs) == 0:
		return usagef("want the run directory: dablot report DIR [--out DIR]")
	case len(dirs) > 1:
		return usagef("unexpected argument %q", strings.Join(dirs[1:], " "))
	}
	paths, err := report.Write(dirs[0], report.Options{Out: *outDir, Anchor: *anchor})
	for _, p := range paths {
		fmt.Fprintln(out, p)
	}
	return err
}
