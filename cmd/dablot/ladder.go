package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/durable"
	"github.com/dablot-zero/dablot/internal/research/ladder"
	"github.com/dablot-zero/dablot/internal/research/study"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/mcts/match"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
)

// cmdLadder measures strength at equal time.
var cmdLadder = &command{
	name:  "ladder",
	usage: "MODEL [--ms 100] [--games 100] [--vs MODEL2] [--player gumbel|mcts[:KEY=V,...]] [--book FILE] [--results FILE] [--threads N] [--seed S] [--out FILE [--resume]]",
	short: "strength at equal time: a model against alpha-beta, from an opening book",
	long: `Plays MODEL (the shipped player, gumbel:model=MODEL,ms=T) against alphabeta:ms=T, the same time T
per decision for both, and with --vs also against MODEL2 at the same T. The games
start from the variant's opening book (configs/books/VARIANT.txt; "dablot analyse
book" makes one), each opening twice with the colours swapped; a variant without a book
gets generated openings. --threads games run at once, each player searching on
one core. Prints W/D/L (as South and as North), the score with its 95% interval,
the Elo difference and how the games ended, and appends a row per match to the
results file (tab-separated; its first line names the columns).

--player sets the search: gumbel or mcts, with extra settings after a colon
(gumbel:gmargin=100, mcts:cpuct=2); the ladder adds model= and ms=. Every other
setting is the shipped player's (docs/player.md): the alpha-beta guard within
half the time and, where the variant allows, the endings of three pieces or
fewer from exact tables; guard=0,eg=0 measures the network's search alone. With
eval=material and no MODEL it measures a search without a network (then
--variant is needed). The match header and the results row name each player in
full.

A long ladder (40 games at 1 s a move take about two hours on 2 cores) can span
sessions: with --out FILE each game's record is written as it is counted, and the
same command with --resume checks those records against the match, counts them and
plays only the games left. A match whose games were all played before appends its
row only if the results file does not hold it yet.`,
	run: runLadder,
}

// ladderDefaultResults is where the ladder appends its rows by default.
const ladderDefaultResults = "docs/ladder.tsv"

func runLadder(args []string, out io.Writer) error {
	fs := newFlags("ladder", out)
	ms := rangeFlag(fs, "ms", 100, 1, 600_000, "time per decision of both players, in milliseconds (1000 for the one-second ladder)")
	games := rangeFlag(fs, "games", 100, 2, 1_000_000, "games per match, an even number (each opening twice, colours swapped)")
	vs := fs.String("vs", "", "a second model to play at the same time per move (a second match)")
	player := fs.String("player", "gumbel", "the model's search: gumbel or mcts, with settings after a colon")
	variant := fs.String("variant", "", "the variant, for a player without a model (eval=); a model decides its own")
	bookFile := fs.String("book", "", "an opening book file (one FEN a line) in place of the variant's")
	results := fs.String("results", ladderDefaultResults, `append a row per match to this file ("" for none)`)
	threads := threadsFlag(fs, runtime.NumCPU(), "games played at once, one core each")
	seed := fs.Uint64("seed", 1, "random seed of the players (and of generated openings)")
	outFile := fs.String("out", "", "write the game records to this file (PGN-like; .jsonl for JSON lines); a file already there is moved aside")
	resume := fs.Bool("resume", false, "continue the ladder whose records are in --out: its games are checked and counted, the rest played")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 1:
		return usagef("one MODEL, not %d (%s); a second model goes after --vs", len(pos), strings.Join(pos, " "))
	case *games%2 != 0:
		return usagef("--games %d: want an even number (each opening is played twice, colours swapped)", *games)
	}
	modelPath := ""
	if len(pos) == 1 {
		modelPath = pos[0]
	}
	if *vs != "" && modelPath == "" {
		return usagef("--vs compares two models: give MODEL too")
	}
	if _, err := ladderSpec(*player, modelPath, *ms, nil); err != nil {
		return err // a bad --player before a missing model
	}
	r, sha, err := ladderRules(modelPath, *variant)
	if err != nil {
		return err
	}
	spec, err := ladderSpec(*player, modelPath, *ms, r)
	if err != nil {
		return err
	}
	if *results != "" {
		if err := ladder.CheckFile(*results); err != nil {
			return usagef("--results: %v", err)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	openings, bookName, err := bookOpenings(ctx, out, r, *bookFile, *games, *seed)
	if err != nil {
		return err
	}

	opts := model.OwnSpecOptions(r)
	a, err := mcts.ParseFactory(spec, opts)
	if err != nil {
		return usagef("--player: %v", err)
	}
	defer a.Close()
	// Every player is made before the first game, so that a bad --vs is
	// found at once.
	specs := []string{fmt.Sprintf("alphabeta:ms=%d", *ms)}
	if *vs != "" {
		vsSpec, err := ladderSpec(*player, *vs, *ms, r)
		if err != nil {
			return err
		}
		specs = append(specs, vsSpec)
	}
	var opponents []*mcts.Factory
	for _, s := range specs {
		b, err := mcts.ParseFactory(s, opts)
		if err != nil {
			return usagef("--vs: %v", err)
		}
		defer b.Close()
		if b.Name == a.Name {
			b.Name += " (B)"
		}
		opponents = append(opponents, b)
	}
	sink, recs, err := openSink(out, *outFile, *resume)
	if err != nil {
		return err
	}
	defer sink.Close()
	byMatch, err := ladderRecords(recs, a, opponents)
	if err != nil {
		return fmt.Errorf("--resume: %s: %w", *outFile, err)
	}
	for i, b := range opponents {
		fmt.Fprintf(out, "ladder: %s, A = %s, B = %s, %d games from %s, %d at once (one core each), seed %d, %s\n",
			r.Name, a.Name, b.Name, *games, bookName, *threads, *seed, buildName())
		cfg := match.ArenaConfig{Rules: r, Openings: openings, A: a, B: b, Games: *games, Threads: *threads, Seed: *seed,
			Code: buildName()}
		if cfg.Tags, err = modelTags(spec, specs[i]); err != nil {
			return err
		}
		if cfg.Done, err = resumeMatch(ctx, out, cfg, byMatch[i], *outFile); err != nil {
			return err
		}
		res, err := playMatch(ctx, out, cfg, sink)
		if err != nil {
			return err
		}
		row := ladder.Row{Time: time.Now(), Code: strings.Join(res.Codes(), "+"), Model: modelPath, ModelSHA256: sha,
			Variant: r.Name, Player: a.Name, Opponent: strings.TrimSuffix(b.Name, " (B)"), MS: *ms, WDL: res.WDL, AsSouth: res.AsSouth,
			AsNorth: res.AsNorth, Book: bookName, Threads: *threads, Seed: *seed, Wall: res.Elapsed}
		if *results == "" {
			continue
		}
		if res.Resumed == len(res.Games) {
			rows, err := ladder.Read(*results)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			if slices.ContainsFunc(rows, row.SameMatch) {
				fmt.Fprintf(out, "every game was played before, and %s holds the match's row already\n", *results)
				continue
			}
		}
		if err := ladder.AppendRow(*results, row); err != nil {
			fmt.Fprintf(out, "the row, not appended:\n%s\n%s\n", ladder.Header(), row.Format())
			return err
		}
		fmt.Fprintf(out, "row appended to %s\n", *results)
	}
	if err := sink.Close(); err != nil {
		return err
	}
	if *outFile != "" {
		fmt.Fprintf(out, "records written to %s\n", *outFile)
	}
	return nil
}

// ladderRecords sorts the records of an earlier run of the ladder by match:
// the games of A against opponents[i] go to element i, in the order of the
// file. A record of other players is an error.
func ladderRecords(recs []*game.Record, a *mcts.Factory, opponents []*mcts.Factory) ([][]*game.Record, error) {
	byMatch := make([][]*game.Record, len(opponents))
next:
	for k, rec := range recs {
		for i, b := range opponents {
			if rec.South == a.Name && rec.North == b.Name || rec.South == b.Name && rec.North == a.Name {
				byMatch[i] = append(byMatch[i], rec)
				continue next
			}
		}
		return nil, fmt.Errorf("record %d is a game of %s against %s, not of this ladder", k+1, rec.South, rec.North)
	}
	return byMatch, nil
}

// ladderSpec returns the spec of the ladder's player: the kind and
// settings of --player, with model= (unless empty) and ms= added, and the
// guard's margin (gmargin=, mcts.DefaultGuardMargin) and depth (guard=,
// mcts.MaxGuardDepth) where --player leaves them to their defaults. The
// margin is written out because its default changed (a soldier before
// session 47, half one since): a record says which it was, and a ladder
// begun with the other margin is not resumed as if it were this one.
// On rules r whose endings exact tables can play (endgame.Check; r nil:
// none), it adds eg= (mcts.MaxEndgamePieces) where --player leaves it out.
func ladderSpec(player, modelPath string, ms int, r *game.Rules) (string, error) {
	sp, err := mcts.ParseSpec(player)
	if err != nil {
		return "", usagef("--player: %v", err)
	}
	if sp.Kind != "gumbel" && sp.Kind != "mcts" {
		return "", usagef("--player %q: want gumbel or mcts, with settings after a colon such as mcts:mat=1", player)
	}
	for _, k := range []string{"model", "ms", "sims", "nodes"} {
		if _, ok := sp.Params[k]; ok {
			return "", usagef("--player %q: %s= is the ladder's to set (the model is the argument, the time --ms)", player, k)
		}
	}
	_, hasEval := sp.Params["eval"]
	switch {
	case modelPath == "" && !hasEval:
		return "", usagef("a MODEL is required (or a player without one, such as --player mcts:eval=material --variant V)")
	case modelPath != "" && hasEval:
		return "", usagef("--player %q: eval= plays without a model, but MODEL %s is given", player, modelPath)
	}
	spec := sp.Kind + ":"
	if modelPath != "" {
		spec += "model=" + modelPath + ","
	}
	spec += "ms=" + strconv.Itoa(ms)
	if _, settings, _ := strings.Cut(sp.Text, ":"); settings != "" {
		spec += "," + settings
	}
	return spec, nil
}

// ladderRules returns the variant of the match, the model's (or, without
// a model, --variant's), and the model's checksum ("" without one).
func ladderRules(modelPath, variant string) (*game.Rules, string, error) {
	if modelPath == "" {
		r, _, err := position(variant, "")
		return r, "", err
	}
	m, err := model.LoadModel(modelPath)
	if err != nil {
		return nil, "", err
	}
	if variant != "" {
		r, err := configs.Variant(variant)
		if err != nil {
			return nil, "", err
		}
		if err := m.CheckRules(r); err != nil {
			return nil, "", usagef("--variant %s: model %s: %v", variant, modelPath, err)
		}
	}
	return m.Rules, m.Metadata[net.MetaChecksum], nil
}

// bookOpenings returns the openings of a match of the given number of
// games and names their source: the book file, else the variant's built-in
// book, else games/2 openings made by study.MakeBook (with a note).
func bookOpenings(ctx context.Context, out io.Writer, r *game.Rules, file string, games int, seed uint64) ([]game.Position, string, error) {
	var openings []game.Position
	name := file
	switch {
	case file != "":
		data, err := durable.ReadFile(file, "opening book", configs.MaxBookBytes)
		if err != nil {
			return nil, "", fmt.Errorf("--book: %w", err)
		}
		if openings, err = configs.ParseBook(r, file, data); err != nil {
			return nil, "", fmt.Errorf("--book: %w", err)
		}
	default:
		var ok bool
		var err error
		if openings, ok, err = configs.Book(r); err != nil {
			return nil, "", err
		}
		name = configs.BookPath(r.Name)
		if ok {
			break
		}
		cfg := study.DefaultBookConfig(games/2, seed)
		fmt.Fprintf(out, "note: %s has no opening book; generating %d level openings (dablot analyse book --variant %s --openings %d --seed %d writes them)\n",
			r.Name, cfg.Openings, r.Name, cfg.Openings, seed)
		book, err := study.MakeBook(ctx, r, cfg)
		if err != nil {
			return nil, "", err
		}
		openings, name = book.Positions(), fmt.Sprintf("generated:%d", len(book.Openings))
	}
	switch n := len(openings); {
	case games < 2*n:
		fmt.Fprintf(out, "openings: the first %d of the %d in %s, each twice (colours swapped)\n", games/2, n, name)
	case games > 2*n:
		fmt.Fprintf(out, "openings: the %d in %s, each played by both colours %.1f times\n", n, name, float64(games)/float64(2*n))
	}
	return openings, name, nil
}
