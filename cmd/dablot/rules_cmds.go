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

func init() {
	register(&command{"variants", "list the rule variants with a one-line description", runVariants})
	register(&command{"show", "draw a position: --variant V [--fen F]", runShow})
	register(&command{"legal", "list every legal complete turn: --variant V --fen F", runLegal})
	register(&command{"perft", "count move sequences: --variant V [--fen F] --depth N [--decisions] [--divide]", runPerft})
}

// position loads the variant and, if fen is not empty, the position.
func position(variant, fen string) (*game.Rules, game.Position, error) {
	if variant == "" {
		return nil, game.Position{}, usagef("--variant is required (see \"dablot variants\")")
	}
	r, err := configs.Variant(variant)
	if err != nil {
		return nil, game.Position{}, err
	}
	if fen == "" || fen == "startpos" {
		return r, r.Start(), nil
	}
	p, err := game.ParseFEN(r, fen)
	return r, p, err
}

func runVariants(args []string, out io.Writer) error {
	fs := newFlags("variants", "", out)
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
	fs := newFlags("show", "--variant V [--fen F]", out)
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
	fs := newFlags("legal", "--variant V [--fen F]", out)
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
	turns := p.Turns()
	game.SortTurns(p.Board(), turns)
	for _, t := range turns {
		fmt.Fprintln(out, t.Format(p.Board()))
	}
	return nil
}

func runPerft(args []string, out io.Writer) error {
	fs := newFlags("perft", "--variant V [--fen F] --depth N [--decisions] [--divide]", out)
	variant := fs.String("variant", "", "variant name, YAML file, or name,key=value,...")
	fen := fs.String("fen", "", "position (default: the variant's start)")
	depth := fs.Int("depth", 0, "depth in complete turns (or decisions with --decisions)")
	decisions := fs.Bool("decisions", false, "count single decisions instead of complete turns")
	divide := fs.Bool("divide", false, "print the count below each first move")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *depth < 1 || *depth > 12 {
		return usagef("--depth %d: want 1 to 12", *depth)
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
