package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/dablot-zero/dablot/internal/research/ladder"
	"github.com/dablot-zero/dablot/internal/research/report"
)

// cmdReport writes the plots and summary of a run.
var cmdReport = &command{
	name:  "report",
	usage: "DIR [--out DIR] [--anchor NAME] | --curve FILE [--out FILE.png] [--variant V] [--ms T] [--snapshots DIR]",
	short: "write plots and a summary of a training run, or plot a curve",
	long: `Reads DIR/metrics.jsonl, DIR/ratings.jsonl and the last 10 generations' games
in DIR/games, and writes rating.png, loss.png, length.png, draws.png and
summary.md to DIR/report (or --out). The summary says what decided the
self-play games: the side that lost its king first, and material leads.

--curve FILE plots the rows of dablot ladder --curve (docs/curve.tsv): the Elo of
each snapshot against alphabeta:ms=T and against classical:ms=T, and over the first
snapshot (the matches of each snapshot against the one before it, summed), against
CPU hours, with 95 % bands, and each join (a snapshot started by --init from another
model than the one before it) as a dotted line. It prints the numbers and writes the plot to --out
(default docs/img/curve-VARIANT.png). A file of several curves plots the one measured
last of those --variant, --ms and --snapshots (the ladder's --curve DIR) select.`,
	run: runReport,
}

func runReport(args []string, out io.Writer) error {
	fs := newFlags("report", out)
	outDir := fs.String("out", "", "directory to write (default DIR/report); with --curve the PNG file")
	anchor := fs.String("anchor", "", `player rated 0 (default "random", or the baseline with the most games)`)
	curve := fs.String("curve", "", "plot the curve in this results file of dablot ladder --curve")
	variant := fs.String("variant", "", "with --curve: the curve of this variant")
	ms := rangeFlag(fs, "ms", 0, 0, 600_000, "with --curve: the curve at this time per decision (0: any)")
	snapshots := fs.String("snapshots", "", "with --curve: the curve of the snapshots of this run directory or folder")
	dirs, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	switch {
	case *curve != "" && (len(dirs) > 0 || *anchor != ""):
		return usagef("--curve plots a curve's results file: no run directory or --anchor")
	case *curve != "":
		return runCurveReport(out, *curve, *outDir, *variant, *ms, *snapshots)
	case *variant != "" || *ms != 0 || *snapshots != "":
		return usagef("--variant, --ms and --snapshots select a curve: give --curve FILE")
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

// runCurveReport prints the curve of the results file that variant, ms
// and snapshots select and plots it to png (default
// docs/img/curve-VARIANT.png).
func runCurveReport(out io.Writer, file, png, variant string, ms int, snapshots string) error {
	rows, err := ladder.Read(file)
	if err != nil {
		return err
	}
	curves, err := report.Curves(rows)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	c, others, err := report.SelectCurve(curves, variant, ms, snapshots)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if err := report.FindJoins(c); err != nil {
		return err
	}
	fmt.Fprint(out, c.Table())
	for _, o := range others {
		fmt.Fprintf(out, "%s also holds the curve of %s (--variant, --ms and --snapshots pick it)\n", file, o.Name())
	}
	if png == "" {
		png = filepath.Join("docs", "img", "curve-"+c.Variant+".png")
	}
	if err := report.WriteCurvePlot(c, png); err != nil {
		return err
	}
	fmt.Fprintln(out, png)
	return nil
}
