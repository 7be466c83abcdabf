package main

import (
	"context"
	"errors"
	"flag"
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
	usage: "MODEL [--ms 100] [--games 100] [--vs MODEL2] [--player gumbel|mcts[:KEY=V,...]] [--book FILE] [--results FILE] [--threads N] [--seed S] [--sprt elo0,elo1] [--out FILE [--resume]] | --curve DIR [--games 50] [--out DIR [--resume]] ...",
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
row only if the results file does not hold it yet. --sprt stops each match early
once a GSPRT between elo0 and elo1 decides (its row counts the games played).

--curve DIR measures the snapshots of a training run (DIR/snapshots, kept at
given CPU hours by a config with snapshots:, such as overnight) or a folder of
snapshots (files VARIANT-Hh.dbm), in order of CPU hours: each against the
snapshot before it (none for the first), against alphabeta:ms=T and against
classical:ms=T (the same search with a material count), --games each (default
50). It prints the plan first; --out DIR keeps a records file per match
(dablot-2h-vs-dablot-1h.jsonl, dablot-2h-vs-alphabeta.jsonl, ...), which
--resume continues; the rows go to docs/curve.tsv unless --results says
otherwise, and dablot report --curve plots them.`,
	run: runLadder,
}

// ladderDefaultResults is where the ladder appends its rows by default.
const ladderDefaultResults = "docs/ladder.tsv"

// ladderFlags are a ladder's settings as its command line gives them
// (parseLadder).
type ladderFlags struct {
	model, vs, player, variant, book, results, out, curve string
	ms, games, threads                                    int
	seed                                                  uint64
	resume                                                bool
	sprt                                                  *match.SPRT // nil: every match plays its games
}

// ladderSetup is what the matches of a ladder share: the settings, the
// rules and the openings.
type ladderSetup struct {
	*ladderFlags
	rules    *game.Rules
	openings []game.Position
	bookName string
}

// ladderMatch is one match of a ladder: A, made from the spec specA,
// against B, made from specB; model and sha are A's model file and its
// checksum ("" for none), for the match's row.
type ladderMatch struct {
	a, b         *mcts.Factory
	specA, specB string
	model, sha   string
}

func runLadder(args []string, out io.Writer) error {
	lf, err := parseLadder(args, out)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if lf.curve != "" {
		return runCurve(ctx, out, lf)
	}
	ls, spec, sha, err := ladderSettings(ctx, out, lf)
	if err != nil {
		return err
	}
	var made factories
	defer made.close()
	matches, err := ladderPlayers(ls, spec, sha, &made)
	if err != nil {
		return err
	}
	return ladderMatches(ctx, out, ls, matches)
}

// parseLadder parses the ladder's command line and checks what needs no
// file: --curve changes the defaults of --games and --results.
func parseLadder(args []string, out io.Writer) (*ladderFlags, error) {
	fs := newFlags("ladder", out)
	lf := &ladderFlags{}
	ms := rangeFlag(fs, "ms", 100, 1, 600_000, "time per decision of both players, in milliseconds (1000 for the one-second ladder)")
	games := rangeFlag(fs, "games", 100, 2, 1_000_000, fmt.Sprintf("games per match, an even number (each opening twice, colours swapped); %d with --curve", curveDefaultGames))
	fs.StringVar(&lf.vs, "vs", "", "a second model to play at the same time per move (a second match)")
	fs.StringVar(&lf.player, "player", mcts.ShippedKind(), "the model's search: gumbel or mcts (PUCT, the shipped player's), with settings after a colon")
	fs.StringVar(&lf.variant, "variant", "", "the variant, for a player without a model (eval=), or of the snapshots in a --curve folder of several")
	fs.StringVar(&lf.book, "book", "", "an opening book file (one FEN a line) in place of the variant's")
	fs.StringVar(&lf.results, "results", ladderDefaultResults, fmt.Sprintf(`append a row per match to this file ("" for none; %s with --curve)`, curveDefaultResults))
	threads := threadsFlag(fs, runtime.NumCPU(), "games played at once, one core each")
	fs.Uint64Var(&lf.seed, "seed", 1, "random seed of the players (and of generated openings)")
	fs.StringVar(&lf.out, "out", "", "write the game records to this file (PGN-like; .jsonl for JSON lines), a file already there moved aside; with --curve a directory, a file per match")
	fs.BoolVar(&lf.resume, "resume", false, "continue the ladder whose records are in --out: its games are checked and counted, the rest played")
	sprt := fs.String("sprt", "", "stop each match early once a GSPRT of elo0 against elo1 (alpha = beta = 0.05) decides, such as 0,50")
	fs.StringVar(&lf.curve, "curve", "", "the snapshots of a run directory (DIR/snapshots) or a folder of them (VARIANT-Hh.dbm), each against the one before it, alpha-beta and classical")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	lf.ms, lf.games, lf.threads = *ms, *games, *threads
	if lf.curve != "" && !set["games"] {
		lf.games = curveDefaultGames
	}
	if lf.curve != "" && !set["results"] {
		lf.results = curveDefaultResults
	}
	switch {
	case lf.curve != "" && len(pos) > 0:
		return nil, usagef("--curve measures the snapshots in %s: no MODEL (%s)", lf.curve, strings.Join(pos, " "))
	case lf.curve != "" && lf.vs != "":
		return nil, usagef("--curve plays each snapshot against the one before it: no --vs")
	case len(pos) > 1:
		return nil, usagef("one MODEL, not %d (%s); a second model goes after --vs", len(pos), strings.Join(pos, " "))
	case lf.games%2 != 0:
		return nil, usagef("--games %d: want an even number (each opening is played twice, colours swapped)", lf.games)
	case lf.curve != "" && lf.resume && lf.out == "":
		return nil, usagef("--resume continues the curve whose records are in --out DIR: give --out")
	}
	if len(pos) == 1 {
		lf.model = pos[0]
	}
	if lf.vs != "" && lf.model == "" {
		return nil, usagef("--vs compares two models: give MODEL too")
	}
	if *sprt != "" {
		t, err := parseSPRT(*sprt)
		if err != nil {
			return nil, err
		}
		lf.sprt = &t
	}
	return lf, nil
}

// ladderSettings checks the model and --player, and reads what the
// ladder's matches share; it returns the model's spec and checksum too.
func ladderSettings(ctx context.Context, out io.Writer, lf *ladderFlags) (*ladderSetup, string, string, error) {
	if _, err := ladderSpec(lf.player, lf.model, lf.ms, nil); err != nil {
		return nil, "", "", err // a bad --player before a missing model
	}
	r, sha, err := ladderRules(lf.model, lf.variant)
	if err != nil {
		return nil, "", "", err
	}
	spec, err := ladderSpec(lf.player, lf.model, lf.ms, r)
	if err != nil {
		return nil, "", "", err
	}
	ls, err := newLadderSetup(ctx, out, lf, r)
	return ls, spec, sha, err
}

// newLadderSetup checks the results file and reads the openings of a
// ladder on rules r.
func newLadderSetup(ctx context.Context, out io.Writer, lf *ladderFlags, r *game.Rules) (*ladderSetup, error) {
	if lf.results != "" {
		if err := ladder.CheckFile(lf.results); err != nil {
			return nil, usagef("--results: %v", err)
		}
	}
	openings, bookName, err := bookOpenings(ctx, out, r, lf.book, lf.games, lf.seed)
	if err != nil {
		return nil, err
	}
	return &ladderSetup{ladderFlags: lf, rules: r, openings: openings, bookName: bookName}, nil
}

// factories are the players a ladder made, closed together.
type factories []*mcts.Factory

// make makes the players of spec, each searching on a core of its own; an
// error is a usage error of the flag that gave the spec.
func (fs *factories) make(spec string, r *game.Rules, flag string) (*mcts.Factory, error) {
	f, err := mcts.ParseFactory(spec, model.OwnSpecOptions(r))
	if err != nil {
		return nil, usagef("%s: %v", flag, err)
	}
	*fs = append(*fs, f)
	return f, nil
}

// close closes every factory made.
func (fs factories) close() {
	for _, f := range fs {
		f.Close()
	}
}

// ladderPlayers makes the players of a ladder of the model of spec: its
// matches against alphabeta:ms=T and, with --vs, against the second model.
// Every player is made before the first game, so that a bad --vs is found
// at once.
func ladderPlayers(ls *ladderSetup, spec, sha string, made *factories) ([]ladderMatch, error) {
	a, err := made.make(spec, ls.rules, "--player")
	if err != nil {
		return nil, err
	}
	specs := []string{fmt.Sprintf("alphabeta:ms=%d", ls.ms)}
	if ls.vs != "" {
		vsSpec, err := ladderSpec(ls.player, ls.vs, ls.ms, ls.rules)
		if err != nil {
			return nil, err
		}
		specs = append(specs, vsSpec)
	}
	var matches []ladderMatch
	for _, s := range specs {
		b, err := made.make(s, ls.rules, "--vs")
		if err != nil {
			return nil, err
		}
		if b.Name == a.Name {
			b.Name += " (B)"
		}
		matches = append(matches, ladderMatch{a: a, b: b, specA: spec, specB: s, model: ls.model, sha: sha})
	}
	return matches, nil
}

// ladderMatches plays the matches of a ladder, their records in one file
// (--out), and appends their rows.
func ladderMatches(ctx context.Context, out io.Writer, ls *ladderSetup, matches []ladderMatch) error {
	sink, recs, err := openSink(out, ls.out, ls.resume)
	if err != nil {
		return err
	}
	defer sink.Close()
	byMatch, err := ladderRecords(recs, matches)
	if err != nil {
		return fmt.Errorf("--resume: %s: %w", ls.out, err)
	}
	for i, m := range matches {
		if err := playLadderMatch(ctx, out, ls, m, byMatch[i], sink, ls.out); err != nil {
			return err
		}
	}
	if err := sink.Close(); err != nil {
		return err
	}
	if ls.out != "" {
		fmt.Fprintf(out, "records written to %s\n", ls.out)
	}
	return nil
}

// playLadderMatch plays match m, its games of an earlier run in recs (read
// from file) counted first and the rest written to sink, and appends its
// row to the results file.
func playLadderMatch(ctx context.Context, out io.Writer, ls *ladderSetup, m ladderMatch, recs []*game.Record, sink *recordSink, file string) error {
	fmt.Fprintf(out, "ladder: %s, A = %s, B = %s, %d games from %s, %d at once (one core each), seed %d, %s\n",
		ls.rules.Name, m.a.Name, m.b.Name, ls.games, ls.bookName, ls.threads, ls.seed, buildName())
	cfg := match.ArenaConfig{Rules: ls.rules, Openings: ls.openings, A: m.a, B: m.b, Games: ls.games, Threads: ls.threads,
		Seed: ls.seed, SPRT: ls.sprt, Code: buildName()}
	var err error
	if cfg.Tags, err = modelTags(m.specA, m.specB); err != nil {
		return err
	}
	if cfg.Done, err = resumeMatch(ctx, out, cfg, recs, file); err != nil {
		return err
	}
	res, err := playMatch(ctx, out, cfg, sink)
	if err != nil {
		return err
	}
	row := ladder.Row{Time: time.Now(), Code: strings.Join(res.Codes(), "+"), Model: m.model, ModelSHA256: m.sha,
		Variant: ls.rules.Name, Player: m.a.Name, Opponent: strings.TrimSuffix(m.b.Name, " (B)"), MS: ls.ms, WDL: res.WDL,
		AsSouth: res.AsSouth, AsNorth: res.AsNorth, Book: ls.bookName, Threads: ls.threads, Seed: ls.seed, Wall: res.Elapsed}
	return appendLadderRow(out, ls.results, row, res.Resumed == len(res.Games))
}

// appendLadderRow appends row to the results file ("" for none), unless
// every game of its match was played before (resumed) and the file holds
// the row already.
func appendLadderRow(out io.Writer, results string, row ladder.Row, resumed bool) error {
	if results == "" {
		return nil
	}
	if resumed {
		rows, err := ladder.Read(results)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if slices.ContainsFunc(rows, row.SameMatch) {
			fmt.Fprintf(out, "every game was played before, and %s holds the match's row already\n", results)
			return nil
		}
	}
	if err := ladder.AppendRow(results, row); err != nil {
		fmt.Fprintf(out, "the row, not appended:\n%s\n%s\n", ladder.Header(), row.Format())
		return err
	}
	fmt.Fprintf(out, "row appended to %s\n", results)
	return nil
}

// ladderRecords sorts the records of an earlier run of a ladder by match:
// the games of match i's players go to element i, in the order of the
// file. A record of other players is an error.
func ladderRecords(recs []*game.Record, matches []ladderMatch) ([][]*game.Record, error) {
	byMatch := make([][]*game.Record, len(matches))
next:
	for k, rec := range recs {
		for i, m := range matches {
			a, b := m.a.Name, m.b.Name
			if rec.South == a && rec.North == b || rec.South == b && rec.North == a {
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
