package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/mcts/match"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/train/progress"
)

// cmdArena plays matches.
var cmdArena = &command{
	name:  "arena",
	usage: "--variant V --a SPEC --b SPEC [--games N] [--sprt elo0,elo1] [--seed S] [--out FILE.pgn [--resume]] [--threads T] [--open K] [--fen F | --endgames N | --book FILE]",
	short: "play a match between two players, with its score and Elo difference",
	long: `Plays --games games between the players A and B, the sides alternating (A is South
in games 1, 3, ...), --threads at once, and prints each game's end and the match's
W/D/L, score with its 95 % interval and Elo difference. --sprt stops early once a
GSPRT decides between elo0 and elo1.

The games start from the variant's start position, from --fen, from random
endgames (--endgames), or from the openings of a book (--book FILE, one FEN a line,
such as the variants' books in configs/books): games 2k and 2k+1 start from the
book's opening k+1 with the colours swapped, so 100 games from a book of 50 are 100
different games. --open K plays K random turns first; two deterministic players
repeat a game whenever they meet the same opening, and a start position has few
distinct openings of 2 turns, so a match from a book measures more games.

--out writes each game's record as the game is counted (a records file already there
is moved aside, not overwritten). --resume continues a stopped match from those
records: the same command with --resume checks each record against the match (its
players, seed, opening and turns), counts it, and plays only the games left.

Player SPECs: random | greedy | uct:playouts=1000 | alphabeta:depth=4 | alphabeta:ms=1000 |
  mcts:eval=rollout|material,sims=200 | mcts:model=FILE,sims=200 | gumbel:eval=material,sims=16 | gumbel:model=FILE,sims=16
  (keys: ` + specKeysUsage() + ")",
	run: runArena,
}

// specKeysUsage lists the keys of each player kind that takes any, such as
// "uct playouts,ms,c,rollout; alphabeta depth,...".
func specKeysUsage() string {
	var parts []string
	for _, kind := range mcts.SpecKinds() {
		if keys := mcts.SpecKeys(kind); len(keys) > 0 {
			parts = append(parts, kind+" "+strings.Join(keys, ","))
		}
	}
	return strings.Join(parts, ";\n   ")
}

func runArena(args []string, out io.Writer) error {
	fs := newFlags("arena", out)
	variant := fs.String("variant", "", "variant name, YAML file, or name,key=value,...")
	fen := fs.String("fen", "", "start position (default: the variant's)")
	specA := fs.String("a", "", "player A (see SPEC above)")
	specB := fs.String("b", "", "player B")
	games := rangeFlag(fs, "games", 20, 1, 1_000_000, "number of games (sides alternate: A is South in games 1, 3, …)")
	sprt := fs.String("sprt", "", "stop early by a GSPRT of elo0 against elo1 (alpha = beta = 0.05), such as 0,50")
	seed := fs.Uint64("seed", 1, "random seed: the same seed plays the same games")
	outFile := fs.String("out", "", "write the game records to this file (PGN-like; .jsonl for JSON lines); a file already there is moved aside")
	resume := fs.Bool("resume", false, "continue the match whose records are in --out: its games are checked and counted, the rest played")
	threads := threadsFlag(fs, runtime.NumCPU(), "games played at once")
	opening := rangeFlag(fs, "open", 0, 0, 1000, "random turns before the players take over (shared by each pair of games)")
	endgames := rangeFlag(fs, "endgames", -1, -1, game.MaxPoints, "start each pair of games from a random endgame with at most N soldiers a side, -1 for none")
	bookFile := fs.String("book", "", "start the games from the openings of this book (one FEN a line), each twice with the colours swapped")
	// The variant first: every other setting is about its games.
	var r *game.Rules
	var start game.Position
	fs.first(func() (err error) {
		r, start, err = position(*variant, *fen)
		return err
	})
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *specA == "" || *specB == "":
		return usagef("--a and --b are required (such as --a alphabeta:depth=4 --b greedy)")
	case *endgames >= 0 && *fen != "":
		return usagef("--endgames and --fen exclude each other")
	case *bookFile != "" && (*endgames >= 0 || *fen != ""):
		return usagef("--book excludes --fen and --endgames")
	}
	var openings []game.Position
	if *bookFile != "" {
		// A book file is read, not made, so no context is needed yet.
		var err error
		if openings, _, err = bookOpenings(context.Background(), out, r, *bookFile, *games, *seed); err != nil {
			return err
		}
	}
	var test *match.SPRT
	if *sprt != "" {
		t, err := parseSPRT(*sprt)
		if err != nil {
			return err
		}
		test = &t
	}
	opts := model.SpecOptions(r, *threads)
	a, err := mcts.ParseFactory(*specA, opts)
	if err != nil {
		return usagef("--a: %v", err)
	}
	defer a.Close()
	b, err := mcts.ParseFactory(*specB, opts)
	if err != nil {
		return usagef("--b: %v", err)
	}
	defer b.Close()
	if a.Name == b.Name {
		a.Name, b.Name = a.Name+" (A)", b.Name+" (B)"
	}

	sink, recs, err := openSink(out, *outFile, *resume)
	if err != nil {
		return err
	}
	defer sink.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg := match.ArenaConfig{
		Rules: r, Start: &start, A: a, B: b, Games: *games, Threads: *threads, Seed: *seed,
		OpeningTurns: *opening, SPRT: test, Code: buildName(),
	}
	if openings != nil {
		cfg.Start, cfg.Openings = nil, openings
	}
	if *endgames >= 0 {
		cfg.Start, cfg.Endgame = nil, new(match.DefaultEndgame(*endgames))
		fmt.Fprintf(out, "random endgames: each pair of games starts from its own (at most %d soldiers a side)\n", *endgames)
	}
	if cfg.Tags, err = modelTags(*specA, *specB); err != nil {
		return err
	}
	if cfg.Done, err = resumeMatch(ctx, out, cfg, recs, *outFile); err != nil {
		return err
	}
	fmt.Fprintf(out, "arena: %s, A = %s, B = %s, %d games, %d threads, seed %d, %s\n", r.Name, a.Name, b.Name, *games, *threads, *seed, buildName())
	if _, err := playMatch(ctx, out, cfg, sink); err != nil {
		return err
	}
	if err := sink.Close(); err != nil {
		return err
	}
	if *outFile != "" {
		fmt.Fprintf(out, "records written to %s\n", *outFile)
	}
	return nil
}

// playMatch plays a match as the arena shows it: a progress bar on a
// terminal, else a line per game; each game's record goes to sink; the
// result is printed by printArena, even when the match stopped early.
func playMatch(ctx context.Context, out io.Writer, cfg match.ArenaConfig, sink *recordSink) (*match.ArenaResult, error) {
	bar := progress.New(out, cfg.Games, "games")
	bar.Add(len(cfg.Done))
	logGames := !isTerminal(out) // no bar: a line per game instead
	cfg.OnGame = func(g *match.ArenaGame, sofar match.WDL) {
		sink.write(g.Record)
		bar.Describe(fmt.Sprintf("A +%d =%d -%d", sofar.W, sofar.D, sofar.L))
		bar.Add(1)
		if logGames {
			fmt.Fprintln(out, gameLine(g, cfg.Games, sofar))
		}
	}
	res, err := match.RunArena(ctx, cfg)
	bar.Finish()
	if res != nil && len(res.Games) > 0 {
		printArena(out, res, cfg.SPRT)
	}
	return res, err
}

// buildName names the program that plays a match, for its records and
// its ladder row: the code version and the matrix kernel, which sets the
// network's speed and so what a player does in its time per move (an
// AVX-512 machine, one with AVX2 alone and a plain build differ severalfold).
func buildName() string {
	return model.CodeVersion() + " " + net.GemmImplementation()
}

// gameLine describes a finished arena game in one line, for output that is
// not a terminal: its number, A's side and result, how it ended, its length,
// the pieces left, its time, and the score so far.
func gameLine(g *match.ArenaGame, games int, sofar match.WDL) string {
	side, result := "North", "draw"
	if g.AIsSouth {
		side = "South"
	}
	switch g.ScoreA {
	case 1:
		result = "win"
	case 0:
		result = "loss"
	}
	return fmt.Sprintf("game %*d/%d: A as %s, %s by %s in %d turns, pieces %d-%d, %s; A +%d =%d -%d",
		len(strconv.Itoa(games)), g.Index+1, games, side, result, g.Record.Termination, len(g.Record.Turns), g.PiecesA, g.PiecesB,
		g.Duration.Round(100*time.Millisecond), sofar.W, sofar.D, sofar.L)
}

func parseSPRT(s string) (match.SPRT, error) {
	e0s, e1s, ok := strings.Cut(s, ",")
	if !ok {
		return match.SPRT{}, usagef("--sprt %q: want elo0,elo1 such as 0,50", s)
	}
	e0, err0 := strconv.ParseFloat(strings.TrimSpace(e0s), 64)
	e1, err1 := strconv.ParseFloat(strings.TrimSpace(e1s), 64)
	if err0 != nil || err1 != nil {
		return match.SPRT{}, usagef("--sprt %q: want two numbers elo0,elo1", s)
	}
	t := match.SPRT{Elo0: e0, Elo1: e1, Alpha: 0.05, Beta: 0.05}
	if err := t.Validate(); err != nil {
		return match.SPRT{}, usagef("--sprt %q: %v", s, err)
	}
	return t, nil
}

func printArena(out io.Writer, res *match.ArenaResult, test *match.SPRT) {
	w := res.WDL
	n := w.Games()
	lo, hi := w.ScoreCI(0.95)
	elo, elo0, elo1 := w.Elo(0.95)
	var plies, decisive int
	for _, g := range res.Games {
		plies += len(g.Record.Turns)
		if g.Status.Outcome != game.Draw {
			decisive++
		}
	}
	fmt.Fprintf(out, "games   %d in %.1f s (%.1f s/game, %.0f turns/game)\n", n, res.Elapsed.Seconds(),
		res.Elapsed.Seconds()/float64(n), float64(plies)/float64(n))
	fmt.Fprintf(out, "A W/D/L %d/%d/%d   (as south %d/%d/%d, as north %d/%d/%d)\n", w.W, w.D, w.L,
		res.AsSouth.W, res.AsSouth.D, res.AsSouth.L, res.AsNorth.W, res.AsNorth.D, res.AsNorth.L)
	fmt.Fprintf(out, "score   %.1f%%  95%% CI [%.1f%%, %.1f%%]\n", 100*w.Score(), 100*lo, 100*hi)
	fmt.Fprintf(out, "Elo     %s  95%% CI [%s, %s]   LOS %.1f%%\n", match.FormatElo(elo), match.FormatElo(elo0), match.FormatElo(elo1), 100*w.LOS())
	won, lost := res.Ends()
	if w.W > 0 {
		fmt.Fprintf(out, "A won   %d (%s)\n", w.W, match.FormatEnds(won))
	}
	if w.L > 0 {
		fmt.Fprintf(out, "A lost  %d (%s)\n", w.L, match.FormatEnds(lost))
	}
	if d := res.Draws(); d.Games > 0 {
		fmt.Fprintf(out, "draws   %d (%s): A ahead on pieces in %d, level in %d, behind in %d; pieces left %.1f to %.1f on average\n",
			d.Games, match.FormatEnds(d.Reasons), d.AAhead, d.Level, d.BAhead, d.PiecesA, d.PiecesB)
	}
	if codes := res.Codes(); len(codes) > 1 {
		fmt.Fprintf(out, "builds  %d played the games (a resumed match): %s\n", len(codes), strings.Join(codes, ", "))
	}
	if test != nil {
		lower, upper := test.Bounds()
		fmt.Fprintf(out, "SPRT    elo0=%g elo1=%g alpha=%g beta=%g: LLR %.2f [%.2f, %.2f]: %s\n",
			test.Elo0, test.Elo1, test.Alpha, test.Beta, res.LLR, lower, upper, res.Verdict)
	}
}
