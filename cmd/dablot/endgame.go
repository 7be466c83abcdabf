package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/game/endgame"
	"github.com/dablot-zero/dablot/internal/research/study"
	"github.com/dablot-zero/dablot/mcts/match"
	"github.com/dablot-zero/dablot/train/progress"
)

// cmdEndgame solves endings of a few pieces.
var cmdEndgame = &command{
	name:  "endgame",
	usage: "[--variant V] [--pieces N | --material M,...] [--fen F] | --records FILE [--pieces N] [--list]",
	short: "solve the endings of a few pieces exactly, under the no-capture limit",
	long: `Solves by retrograde analysis every ending of up to --pieces pieces (at most 3),
or the endings --material names (South's pieces, a dash, North's: K king, P
prince, S soldier, such as KP-SS; at most 4 pieces in all) and the smaller ones
their captures lead into. A win counts only if the capture or the end of the
game that settles it comes before the no-capture limit (from a counter of 0).
For each ending it prints the placements with each side to move, the share the
side to move wins, draws and loses, and the longest win with a position that
needs it. With --fen it also gives that position's result for its no-capture
counter and the turn the tables play.

With --records it replays game records (such as arena and ladder --out
write) instead and finds in each the first position, at the start of a
turn, with at most --pieces pieces (up to 4): it solves the endings reached
and prints, for each player, its results in those games as played and as
the tables give them from there (the player's eg= plays them so), the wins
it did not play out, and its score both ways. The score with the tables is
what a player with them is sure of against one without: such an opponent
can only do worse than the tables.

Three pieces on the 72-point board solve in about a minute on one core; an
ending of four (such as KP-SS) in minutes, with a few GB of memory.`,
	run: runEndgame,
}

func runEndgame(args []string, out io.Writer) error {
	fs := newFlags("analyse endgame", out)
	variant := fs.String("variant", "dablot", "variant name, YAML file, or name,key=value,...")
	pieces := rangeFlag(fs, "pieces", 3, 2, endgame.MaxPieces, "solve every ending of up to this many pieces (4 only with --records)")
	materials := fs.String("material", "", "solve these endings (comma-separated, such as KP-SS,K-SSS) in place of --pieces")
	fen := fs.String("fen", "", "a position to look up")
	records := fs.String("records", "", "game records to replay (plain or compressed: .zst, .gz): judge each game's first ending of up to --pieces pieces")
	list := fs.Bool("list", false, "with --records, list every game that reached such an ending")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *records != "" {
		if *materials != "" || *fen != "" {
			return usagef("--records judges the endings the games reached: give neither --material nor --fen with it")
		}
		recordsVariant := "" // the records' own, unless --variant is given
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "variant" {
				recordsVariant = *variant
			}
		})
		return endgameRecords(out, *records, recordsVariant, *pieces, *list)
	}
	if *pieces > 3 && *materials == "" {
		return usagef("--pieces %d: every ending of %d pieces would take hours; name them with --material", *pieces, *pieces)
	}
	r, p, err := position(*variant, *fen)
	if err != nil {
		return err
	}
	if err := endgame.Check(r); err != nil {
		return usagef("--variant: %v", err)
	}
	ms := endgame.Endings(r, *pieces)
	if *materials != "" {
		ms = nil
		for _, s := range strings.Split(*materials, ",") {
			m, err := endgame.ParseMaterial(strings.TrimSpace(s))
			if err != nil {
				return usagef("--material: %v", err)
			}
			if n := m.Pieces(); n > endgame.MaxPieces {
				return usagef("--material %s: %d pieces, at most %d", m, n, endgame.MaxPieces)
			}
			ms = append(ms, m)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	bar := progress.New(out, -1, "endings")
	t, err := endgame.Solve(ctx, r, ms, func(m endgame.Material) {
		bar.Describe(m.String())
		bar.Add(1)
	})
	bar.Finish()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "endgame: %s, %d endings, no-capture limit %d, %v\n", r.Name, len(t.Classes), r.NoCaptureLimit,
		time.Since(start).Round(time.Second))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ending\tplacements\tSouth to move: wins/draws/losses\tNorth to move: wins/draws/losses\tlongest win (turns)\ta longest win")
	for _, c := range t.Classes {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%s\n", c.Material, c.Positions[game.South]+c.Positions[game.North],
			wdlShares(c, game.South), wdlShares(c, game.North), c.Longest, c.LongestFEN)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if *fen == "" {
		return nil
	}
	turn, res, ok := t.BestTurn(&p)
	if !ok {
		return fmt.Errorf("--fen %q: not a position of the endings solved, at the start of a turn and not over", *fen)
	}
	verdict := map[endgame.Outcome]string{endgame.Win: "wins", endgame.Draw: "draws", endgame.Loss: "loses"}[res.Outcome]
	if res.Outcome != endgame.Draw {
		verdict += fmt.Sprintf(", settled in %d turns", res.Turns)
	}
	fmt.Fprintf(out, "position: %s to move %s (no-capture counter %d); the tables play %s\n",
		p.SideToMove(), verdict, p.Quiet(), turn.Format(r.Board))
	return nil
}

// wdlShares formats the shares of an ending's placements with side s to
// move that it wins, draws and loses.
func wdlShares(c endgame.ClassStats, s game.Side) string {
	n := float64(max(c.Positions[s], 1))
	return fmt.Sprintf("%.1f/%.1f/%.1f %%", 100*float64(c.Wins[s])/n, 100*float64(c.Draws(s))/n, 100*float64(c.Losses[s])/n)
}

// endgameRecords judges, with exact tables, the first ending of up to
// pieces pieces of each game of the records at path (variant: their
// variant, or the first record's if empty) against how it was played.
func endgameRecords(out io.Writer, path, variant string, pieces int, list bool) error {
	recs, r, err := readRecords(path, variant)
	if err != nil {
		return err
	}
	if err := endgame.Check(r); err != nil {
		return usagef("--records %s: %v", path, err)
	}
	ends, err := study.Endings(recs, r, pieces)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	ms, reached := reachedMaterials(ends)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	t, err := endgame.Solve(ctx, r, ms, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "endgame: %s, %d games from %s; %d reached an ending of %d pieces or fewer (%d endings solved, %v)\n",
		r.Name, len(recs), path, reached, pieces, len(t.Classes), time.Since(start).Round(time.Second))
	var ts endingTallies
	for _, e := range ends {
		ts.player(e.South).all.Add(e.Result.Outcome.ScoreFor(game.South))
		ts.player(e.North).all.Add(e.Result.Outcome.ScoreFor(game.North))
	}
	late := 0 // games whose ending came too late in the game for the tables
	for _, e := range ends {
		if !e.Reached {
			continue
		}
		res, ok := t.Probe(&e.Position)
		if !ok && t.Holds(&e.Position) {
			late++ // too near the length limit: as played
			continue
		}
		if !ok {
			return fmt.Errorf("%s: record %d: the tables do not hold %s", path, e.Record, e.Position.FEN())
		}
		ts.add(e, res)
		if list {
			fmt.Fprintf(out, "game %d: %s after turn %d: %s to move %s; played: %s (%s) in %d turns\n", e.Record,
				endgame.MaterialOf(&e.Position), e.Turn, e.Position.SideToMove(), res.Outcome, e.Result.Outcome.Result(), e.Result.Reason.Key(), e.Turns)
		}
	}
	if late > 0 {
		fmt.Fprintf(out, "%d games reached their ending too near the game's length limit (max_plies %d) for the tables to judge: counted as played\n", late, r.MaxPlies)
	}
	return ts.write(out)
}

// reachedMaterials returns the materials of the endings the games
// reached, each once, and how many games reached one.
func reachedMaterials(ends []study.Ending) ([]endgame.Material, int) {
	var ms []endgame.Material
	reached := 0
	for _, e := range ends {
		if !e.Reached {
			continue
		}
		reached++
		if m := endgame.MaterialOf(&e.Position); !slices.Contains(ms, m) {
			ms = append(ms, m)
		}
	}
	return ms, reached
}

// endingTally is one player's results: in all its games, and in those
// reaching an ending as played and as the tables give them.
type endingTally struct {
	all, played, tables match.WDL
	missed              int // won by the tables, not won in play
}

// endingTallies holds each player's endingTally, in order of first
// appearance.
type endingTallies struct {
	by      map[string]*endingTally
	players []string
}

// player returns name's tally, made the first time name is asked for.
func (ts *endingTallies) player(name string) *endingTally {
	if ts.by == nil {
		ts.by = map[string]*endingTally{}
	}
	if ts.by[name] == nil {
		ts.by[name] = &endingTally{}
		ts.players = append(ts.players, name)
	}
	return ts.by[name]
}

// add counts ending e, whose exact result the tables give as res, for
// both its players.
func (ts *endingTallies) add(e study.Ending, res endgame.Result) {
	mover := e.Position.SideToMove()
	for _, side := range []game.Side{game.South, game.North} {
		name := e.South
		if side == game.North {
			name = e.North
		}
		tl := ts.player(name)
		got, want := e.Result.Outcome.ScoreFor(side), res.GameOutcome(mover).ScoreFor(side)
		tl.played.Add(got)
		tl.tables.Add(want)
		if want == 1 && got < 1 {
			tl.missed++
		}
	}
}

// write writes the players' table: their results, in the endings as
// played and by the tables, and their score had the tables played on.
func (ts *endingTallies) write(out io.Writer) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "player\tW/D/L\tin the endings: played\tthe tables\twins not played out\tscore played\twith the tables from there")
	for _, name := range ts.players {
		tl := ts.by[name]
		with := tl.all
		with.W += tl.tables.W - tl.played.W
		with.D += tl.tables.D - tl.played.D
		with.L += tl.tables.L - tl.played.L
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%.1f %%\t%.1f %%\n", name, wdlText(tl.all), wdlText(tl.played), wdlText(tl.tables),
			tl.missed, 100*tl.all.Score(), 100*with.Score())
	}
	return tw.Flush()
}
