package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/dablot-zero/dablot/internal/durable"
	"github.com/dablot-zero/dablot/internal/research/study"
)

// cmdBook makes the opening books of the ladder.
var cmdBook = &command{
	name:  "book",
	usage: "--variant V [--openings 50] [--turns 8] [--depth 6] [--margin 50] [--seed 1] [--out FILE]",
	short: "make an opening book of level positions for the ladder",
	long: `Plays random turns from the variant's start and keeps the positions where both
sides have the same pieces of every rank and a shallow alpha-beta search scores
the side to move within the margin, each distinct up to the mirror image and the
colours swapped. The same flags always make the same book. The books of
configs/books/ (read by "dablot ladder") were made this way; each says how in
its header.`,
	run: runBook,
}

func runBook(args []string, out io.Writer) error {
	fs := newFlags("analyse book", out)
	def := study.DefaultBookConfig(50, 1)
	variant := fs.String("variant", "", "variant name, YAML file, or name,key=value,...")
	openings := fs.Int("openings", def.Openings, "openings in the book")
	turns := fs.Int("turns", def.Turns, "random turns from the start to each opening")
	depth := fs.Int("depth", def.Depth, "depth in turns of the alpha-beta search that checks the balance")
	margin := fs.Int("margin", def.Margin, "largest score of that search that is level (a soldier is 100)")
	seed := fs.Uint64("seed", def.Seed, "random seed: the same seed makes the same book")
	outFile := fs.String("out", "", "write the book to this file (default: standard output)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	r, _, err := position(*variant, "")
	if err != nil {
		return err
	}
	cfg := study.BookConfig{Openings: *openings, Turns: *turns, Depth: *depth, Margin: *margin, Seed: *seed}
	if err := cfg.Validate(); err != nil {
		return usagef("--%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	book, err := study.MakeBook(ctx, r, cfg)
	if err != nil {
		return err
	}
	command := fmt.Sprintf("dablot analyse book --variant %s --openings %d --turns %d --depth %d --margin %d --seed %d",
		*variant, cfg.Openings, cfg.Turns, cfg.Depth, cfg.Margin, cfg.Seed)
	var buf bytes.Buffer
	if err := book.Write(&buf, command); err != nil {
		return err
	}
	if *outFile == "" {
		_, err := out.Write(buf.Bytes())
		return err
	}
	if err := durable.WriteFile(*outFile, buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(out, "%d openings of %s (%d random ones drawn) written to %s\n", len(book.Openings), r.Name, book.Tries, *outFile)
	return nil
}
