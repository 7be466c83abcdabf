package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// The commands of the rules.
var (
	cmdVariants = &command{
		name:  "variants",
		usage: "[-v]",
		short: "list the rule variants, one line each",
		long: `Lists the built-in variants: name, board size and a one-line description. With -v,
also each variant's source and the rules it assumes where the sources are silent.
A variant is given to other commands by name, as a YAML file, or as a name with
overrides (keyland,no_return=true).`,
		run: runVariants,
	}
	cmdShow = &command{
		name:  "show",
		usage: "--variant V [--fen F]",
		short: "draw a position with its lines and coordinates",
		long: `Draws the position (default: the variant's start) with its lines and coordinates,
and says whose turn it is, how many legal turns it has, and its FEN.`,
		run: runShow,
	}
	cmdLegal = &command{
		name:  "legal",
		usage: "--variant V [--fen F] [--decisions]",
		short: "list the legal turns of a position",
		long: `Lists every legal complete turn of the position (default: the variant's start),
sorted, in the notation; with --decisions, the single decisions (steps, jumps, stop)
instead.`,
		run: runLegal,
	}
	cmdPerft = &command{
		name:  "perft",
		usage: "--variant V --depth N [--fen F] [--decisions] [--divide]",
		short: "count the move sequences from a position, to check the rules",
		long: `Counts the sequences of complete turns (or, with --decisions, single decisions)
from the position to each depth up to --depth, with the time each count took; with
--divide, the count below each first move instead. The counts check the move
generator against other implementations of the rules.`,
		run: runPerft,
	}
)

// position loads the variant and, if fen is not empty, the position.
func position(variant, fen string) (*game.Rules, game.Position, error) {
	if variant == "" {
		return nil, game.Position{}, usagef("--variant is required (see \"dablot variants\")")
	}
	r, err := configs.Variant(variant)
	if err != nil {
		return nil, game.Position{}, err
	}
	p, err := game.ParseSetup(r, fen)
	return r, p, err
}

func runVariants(args []string, out io.Writer) error {
	fs := newFlags("variants", out)
	verbose := fs.Bool("v", false, "also print each variant's board, source and assumptions")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, name := range configs.VariantNames() {
		r, err := configs.Variant(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%d points\t%s\n", name, r.Board.Points(), r.Description)
		if *verbose {
			fmt.Fprintf(tw, "\tsource\t%s\n", r.Source)
			for _, a := range r.Assumed {
				fmt.Fprintf(tw, "\tassumed\t%s\n", a)
			}
		}
	}
	return tw.Flush()
}

func runShow(args []string, out io.Writer) error {
	fs := newFlags("show", out)
	variant := fs.String("variant", "", "variant name, YAML file, or name,key=value,...")
	fen := fs.String("fen", "", "position (default: the variant's start)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	_, p, err := position(*variant, *fen)
	if err != nil {
		return err
	}
	fmt.Fprint(out, p.Diagram())
	fmt.Fprintf(out, "\n%s to move", p.SideToMove())
	if c := p.Chain(); c >= 0 {
		fmt.Fprintf(out, ", in the middle of a capture chain from %s", p.Board().Name(c))
	}
	fmt.Fprintf(out, "; ply %d, %d since the last capture\n", p.Ply(), p.Quiet())
	if st := p.Status(); st.Over() {
		fmt.Fprintf(out, "game over: %s\n", st)
	} else {
		fmt.Fprintf(out, "%d legal turns\n", p.CountTurns())
	}
	fmt.Fprintf(out, "FEN: %s\n", p.FEN())
	return nil
}

func runLegal(args []string, out io.Writer) error {
	fs := newFlags("legal", out)
	variant := fs.String("variant", "", "variant name, YAML file, or name,key=value,...")
	fen := fs.String("fen", "", "position (default: the variant's start)")
	decisions := fs.Bool("decisions", false, "list single decisions (steps, jumps, stop) instead of complete turns")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	_, p, err := position(*variant, *fen)
	if err != nil {
		return err
	}
	if st := p.Status(); st.Over() {
		return fmt.Errorf("the game is over: %s", st)
	}
	if *decisions {
		for _, d := range p.Decisions(nil) {
			fmt.Fprintln(out, p.DecisionString(d))
		}
		return nil
	}
	_, texts := p.SortedTurns()
	for _, t := range texts {
		fmt.Fprintln(out, t)
	}
	return nil
}

func runPerft(args []string, out io.Writer) error {
	fs := newFlags("analyse perft", out)
	variant := fs.String("variant", "", "variant name, YAML file, or name,key=value,...")
	fen := fs.String("fen", "", "position (default: the variant's start)")
	depth := rangeFlag(fs, "depth", 0, 1, 12, "depth in complete turns (or decisions with --decisions)")
	decisions := fs.Bool("decisions", false, "count single decisions instead of complete turns")
	divide := fs.Bool("divide", false, "print the count below each first move")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	_, p, err := position(*variant, *fen)
	if err != nil {
		return err
	}
	if *divide {
		var total int64
		if *decisions {
			ds, counts := p.DivideDecisions(*depth)
			for i, d := range ds {
				fmt.Fprintf(out, "%s\t%d\n", p.DecisionString(d), counts[i])
				total += counts[i]
			}
		} else {
			turns, counts := p.DivideTurns(*depth)
			lines := make([]string, len(turns))
			for i, t := range turns {
				lines[i] = fmt.Sprintf("%s\t%d", t.Format(p.Board()), counts[i])
				total += counts[i]
			}
			slices.Sort(lines)
			fmt.Fprintln(out, strings.Join(lines, "\n"))
		}
		fmt.Fprintf(out, "total\t%d\n", total)
		return nil
	}
	unit := "turns"
	if *decisions {
		unit = "decisions"
	}
	for d := 1; d <= *depth; d++ {
		start := time.Now()
		var n int64
		if *decisions {
			n = p.PerftDecisions(d)
		} else {
			n = p.PerftTurns(d)
		}
		el := time.Since(start)
		fmt.Fprintf(out, "perft(%d) = %d %s  (%.3f s)\n", d, n, unit, el.Seconds())
	}
	return nil
}
