package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/dablot-zero/dablot/internal/durable"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/train/evalfit"
)

// cmdFitGuard fits a learned evaluation for the guard to game records.
var cmdFitGuard = &command{
	name:  "fit-guard",
	usage: "--records FILE --out FILE.json [--every N] [--hold-out N] [--l2 X]",
	short: "fit the guard's evaluation to the results of games (geval=FILE)",
	long: `Replays game records (a run's games/*.pgn, or what arena and ladder --out
write; plain or compressed, a pattern in quotes for several files) and fits
the alpha-beta evaluation of the guard to their results: a logistic
regression of each quiet position's result (won, drawn, lost for the side to
move; at the start of a turn, no capture to make) on a value for each rank,
an offset for each rank on each point (a point and its mirror share one) and
mobility, scaled so that a soldier is worth 100 on average. The offsets are
held towards 0 by a penalty (--l2), by default the one of 1e-4, 1e-3, 1e-2
and 0.1 whose fit predicts the games held out best. A player's
geval=FILE searches its guard with it in place of the hand-written material
and mobility (the hunt term stays).

It prints the fit's mean cross-entropy on the games held out beside that of
the hand-written evaluation with its scale fitted alone: lower is better.`,
	run: runFitGuard,
}

func runFitGuard(args []string, out io.Writer) error {
	fs := newFlags("analyse fit-guard", out)
	records := fs.String("records", "", "game records to fit (plain or compressed; a pattern such as 'run/games/*.pgn')")
	variant := fs.String("variant", "", "the records' variant (default: the first record's)")
	outFile := fs.String("out", "", "the learned evaluation to write (JSON)")
	every := rangeFlag(fs, "every", evalfit.DefaultEvery, 1, 1000, "keep every Nth quiet position of a game")
	holdOut := rangeFlag(fs, "hold-out", evalfit.DefaultHoldOut, 0, 1000, "hold every Nth game out to measure the fit (0: none)")
	l2 := fs.Float64("l2", 0, "the penalty on the squares' offsets (0: the one of 1e-4 to 0.1 with the lowest held-out loss)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *records == "":
		return usagef("--records: the games to fit")
	case *outFile == "":
		return usagef("--out: the file to write")
	case !(*l2 >= 0 && *l2 < 1):
		return usagef("--l2 %g: want 0 to below 1", *l2)
	}
	recs, r, err := readRecords(*records, *variant)
	if err != nil {
		return err
	}
	opts := evalfit.Options{Every: *every, HoldOut: *holdOut, L2: *l2}
	if *holdOut == 0 {
		opts.HoldOut = -1
	}
	d, err := evalfit.Collect(recs, r, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", *records, err)
	}
	fit, held := d.Positions()
	fmt.Fprintf(out, "%d games (%d held out): %d quiet positions fitted, %d held out\n", d.Games, d.Held, fit, held)
	e, err := evalfit.Fit(d, opts)
	if err != nil {
		return err
	}
	e.Fit.Source, e.Fit.Code = *records, model.CodeVersion()
	data, err := json.MarshalIndent(e, "", " ")
	if err != nil {
		return err
	}
	if err := durable.WriteFile(*outFile, append(data, '\n')); err != nil {
		return err
	}
	fmt.Fprint(out, evalfit.Summary(e, r.Board))
	fmt.Fprintf(out, "wrote %s\n", *outFile)
	return nil
}
