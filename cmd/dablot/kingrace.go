package main

import (
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/stat"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/durable"
	"github.com/dablot-zero/dablot/internal/research/study"
	"github.com/dablot-zero/dablot/mcts/match"
	"github.com/dablot-zero/dablot/net/model"
)

// cmdKingRace tells whose king fell first in each game, and what followed.
var cmdKingRace = &command{
	name:  "kingrace",
	usage: "--records FILE [--variant V] [--from-start] [--list] [--book OUT] [--model FILE [--every N]]",
	short: "whose king fell first in game records, and how those games ended",
	long: `Replays game records (PGN-like or JSON lines, such as arena and ladder --out write)
and finds in each the first king taken: whose, at which turn, with how many pieces
left. Prints, for each player, its W/D/L in the games where its own king fell first,
where the opponent's did, and where no king fell, the median turn of those captures,
and its draws with only its own or only the opponent's king left. In dablot a king is
taken only by a king, so the side with the only king cannot lose its last piece; the
draws with one king left are the games that side did not convert
(docs/experiments/2026-11-strength.md §11). Then, for the pairs of games the arena
plays from one opening (games 2k-1 and 2k, the colours swapped), how many had their
first king taken by the same side both times (the opening decided the race) and how
many by the same player (a player did); records without the arena's game numbers pair
by start position, in order, and a player's games against itself (self-play) do not
pair. Then, for each player that took the first king, its
results by its lead in pieces beside the kings just after: what it paid for the king
(§26); and its draws holding the only king by what the other side had left at the
end: the conversions it missed (§28).

--model FILE then shows what that model knows of the races in the records: every N
turns from the first king's fall (--every), the model's win chance for the side
holding the only king, by that side's pieces beside its king and the other side's
pieces, against the share of those positions whose game the holder won. A model that
knows the races believes what the players in the records made of them.

--book OUT writes, for each opening, the position just after the first king fell in
its first game that went on after it (each position once), as a book for arena
--book: played from both sides, it measures converting the only king and holding
against it, with the race left out.

FILE may be a glob pattern, quoted against the shell, such as a run's self-play games
'runs/R/games/gen-0002*.pgn'; --from-start then keeps only the games that began at the
variant's start (self-play's endgame curriculum begins others).`,
	run: runKingRace,
}

func runKingRace(args []string, out io.Writer) error {
	fs := newFlags("analyse kingrace", out)
	records := fs.String("records", "", "game records to replay (plain or compressed: .zst, .gz)")
	variant := fs.String("variant", "", "variant of the records (default: the first record's)")
	list := fs.Bool("list", false, "list every game: whose king fell first, at which turn, and the result")
	fromStart := fs.Bool("from-start", false, "only the games that began at the variant's start position")
	book := fs.String("book", "", "write the positions just after the first king fell, one for each opening, to this book file")
	modelPath := fs.String("model", "", "model file whose win chance for the side with the only king to set against the records' results")
	every := fs.Int("every", 10, "with --model, judge the position every this many turns from the first king's fall")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *records == "" {
		return usagef("--records is required")
	}
	if *every < 1 || *every > maxEvery {
		return usagef("--every %d: want 1 to %d", *every, maxEvery)
	}
	recs, r, err := readRecords(*records, *variant)
	if err != nil {
		return err
	}
	races, err := study.KingRaces(recs, r)
	if err != nil {
		return fmt.Errorf("%s: %w", *records, err)
	}
	if *fromStart {
		races = slices.DeleteFunc(races, func(kr study.KingRace) bool { return !kr.FromStart })
		if len(races) == 0 {
			return fmt.Errorf("%s: no game began at the start position", *records)
		}
	}
	if *book != "" {
		made := fmt.Sprintf("dablot analyse kingrace --records '%s'", *records)
		if *variant != "" {
			made += " --variant " + *variant
		}
		if *fromStart {
			made += " --from-start"
		}
		if err := writeRaceBook(*book, made+" --book "+*book, r.Name, study.RaceBook(races)); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "kingrace: %s, %d games from %s; %s\n", r.Name, len(races), *records, afterFall(races))
	if *list {
		listRaces(out, races)
	}
	stats := study.SumKingRaces(races)
	if err := writeRaceStats(out, stats); err != nil {
		return err
	}
	if err := writeOpeningRaces(out, study.SumOpenings(races), stats); err != nil {
		return err
	}
	if err := writeRaceLeads(out, stats); err != nil {
		return err
	}
	if err := writeOnlyKingDraws(out, stats); err != nil {
		return err
	}
	if *modelPath == "" {
		return nil
	}
	if *fromStart {
		recs = slices.DeleteFunc(recs, func(rec *game.Record) bool { return rec.Setup != "" })
	}
	return writeRaceBeliefs(out, recs, r, *modelPath, *every)
}

// afterFall says how many of the games' turns came after the first king
// fell.
func afterFall(races []study.KingRace) string {
	turns, after := 0, 0
	for _, kr := range races {
		turns += kr.Turns
		if kr.Taken {
			after += kr.Turns - kr.Turn
		}
	}
	return fmt.Sprintf("%d of their %d turns (%.1f %%) came after the first king fell",
		after, turns, 100*float64(after)/float64(max(1, turns)))
}

// writeRaceStats writes each player's results by whose king fell first.
func writeRaceStats(out io.Writer, stats []study.KingRaceStats) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "player\tW/D/L\town king first: games, W/D/L, median turn\tthe other's first\tno king taken\tdraws with only its king\twith only the other's")
	for _, st := range stats {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\n", st.Player, wdlText(st.All), raceCell(st.OwnFirst, st.OwnTurns),
			raceCell(st.TheirsFirst, st.TheirTurns), raceCell(st.NoneTaken, nil), st.DrawsOnlyKing, st.DrawsOpponentOnlyKing)
	}
	return tw.Flush()
}

// writeRaceLeads writes each player's results by its lead beside the
// kings when it took the first king.
func writeRaceLeads(out io.Writer, stats []study.KingRaceStats) error {
	fmt.Fprintln(out, "\nlead beside the kings when the player took the first king: W/D/L")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, st := range stats {
		leads := slices.Sorted(maps.Keys(st.ByLead))
		if len(leads) == 0 {
			continue
		}
		cells := make([]string, len(leads))
		for i, l := range leads {
			cells[i] = fmt.Sprintf("%+d: %s", l, wdlText(st.ByLead[l]))
		}
		fmt.Fprintf(tw, "%s\t%s\n", st.Player, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// maxEvery bounds kingrace's --every: a game's length.
const maxEvery = 10000

// writeRaceBeliefs writes, for each player that held the only king in
// recs (variant r), the model's win chance for it against the share of
// positions whose game it won (study.RaceBeliefs), by class of position.
func writeRaceBeliefs(out io.Writer, recs []*game.Record, r *game.Rules, path string, every int) error {
	m, err := model.LoadModel(path)
	if err != nil {
		return err
	}
	if err := m.CheckRules(r); err != nil {
		return fmt.Errorf("model %s: %w", path, err)
	}
	ev := m.NewEvaluator(64, 1)
	defer ev.Close()
	beliefs, err := study.RaceBeliefs(recs, r, every, ev)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\n%s's win chance for the side with the only king, every %d turns from the first king's fall, against the share of those positions whose game that side won\n", filepath.Base(path), every)
	var tw *tabwriter.Writer
	for i, b := range beliefs {
		if i == 0 || b.Holder != beliefs[i-1].Holder {
			if tw != nil {
				if err := tw.Flush(); err != nil {
					return err
				}
			}
			fmt.Fprintf(out, "holding the only king: %s\n", b.Holder)
			tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "beside its king\tthe other side\tpositions\tgames\tthe model's win %\twon %\t")
		}
		beside := fmt.Sprint(b.Class.Beside)
		if b.Class.Beside == study.RaceBesideCap {
			beside += "+"
		}
		lo := b.Class.Against * study.RaceAgainstStep
		against := fmt.Sprintf("%d-%d", lo, lo+study.RaceAgainstStep-1)
		if b.Class.Against == study.RaceAgainstCap {
			against = fmt.Sprintf("%d+", lo)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.1f\t%.1f\t\n", beside, against, b.Positions, b.Games,
			100*b.Belief/float64(b.Positions), 100*float64(b.Won)/float64(b.Positions))
	}
	if tw == nil {
		fmt.Fprintln(out, "(no game went on after its first king fell)")
		return nil
	}
	return tw.Flush()
}

// listRaces writes a line for each game: whose king fell first, when,
// and how the game ended.
func listRaces(out io.Writer, races []study.KingRace) {
	for _, kr := range races {
		first := "no king taken"
		if kr.Taken {
			name := kr.South
			if kr.FirstLost == game.North {
				name = kr.North
			}
			first = fmt.Sprintf("%s's king (%s) taken at turn %d, %d pieces left, the taker's lead beside the kings %+d", kr.FirstLost, name, kr.Turn, kr.Pieces, kr.Lead)
		}
		fmt.Fprintf(out, "game %d: %s; %s (%s) in %d turns; beside the kings at the end: south %d, north %d\n", kr.Record, first,
			kr.Result.Outcome.Result(), kr.Result.Reason.Key(), kr.Turns, kr.Beside[game.South], kr.Beside[game.North])
	}
}

// writeRaceBook writes the positions of study.RaceBook to the book file
// path, with a header that names the command that made it.
func writeRaceBook(path, command, variant string, fens []string) error {
	if len(fens) == 0 {
		return fmt.Errorf("--book %s: no game went on after its first king fell", path)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %d positions of %s just after the first king fell, one for each opening of the\n", len(fens), variant)
	b.WriteString("# records (its first game that went on after it), each position once.\n")
	fmt.Fprintf(&b, "# Made by: %s\n", command)
	b.WriteString("# Played from both sides (arena --book), they measure converting the only king\n# and holding against it. One FEN a line; # starts a comment.\n")
	for _, f := range fens {
		b.WriteString(f + "\n")
	}
	return durable.WriteFile(path, []byte(b.String()))
}

// writeOpeningRaces writes, for the pairs of games from one opening, how
// often the opening decided who took the first king (the same side both
// times) and how often a player did (the same player both times), by
// player in the order of stats. It writes nothing when no games pair.
func writeOpeningRaces(out io.Writer, o study.OpeningRaces, stats []study.KingRaceStats) error {
	if o.Pairs == 0 {
		return nil
	}
	byPlayer := 0
	for _, n := range o.ByPlayer {
		byPlayer += n
	}
	fmt.Fprintf(out, "\npairs of games from one opening, colours swapped: %d; the first king fell to the same side in both in %d (south %d, north %d), to the same player in %d, and in one of them no king fell in %d\n",
		o.Pairs, o.BySide[game.South]+o.BySide[game.North], o.BySide[game.South], o.BySide[game.North], byPlayer, o.NoKing)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, st := range stats {
		if n := o.ByPlayer[st.Player]; n > 0 {
			fmt.Fprintf(tw, "the same player: %s\t%d\n", st.Player, n)
		}
	}
	return tw.Flush()
}

// onlyKingDrawsAbove is the number of the opponent's pieces from which
// writeOnlyKingDraws counts draws together.
const onlyKingDrawsAbove = 6

// writeOnlyKingDraws writes, for each player that drew holding the only
// king, those draws by how many pieces the opponent had left beside its
// king at the end, and of them how many with the player ahead.
func writeOnlyKingDraws(out io.Writer, stats []study.KingRaceStats) error {
	fmt.Fprintln(out, "\ndraws holding the only king, by the other side's pieces left at the end: games (the player ahead in)")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, st := range stats {
		if len(st.OnlyKingDrawEnds) == 0 {
			continue
		}
		var games, ahead [onlyKingDrawsAbove + 1]int
		for end, n := range st.OnlyKingDrawEnds {
			k := min(end[1], onlyKingDrawsAbove)
			games[k] += n
			if end[0] > end[1] {
				ahead[k] += n
			}
		}
		var cells []string
		for k := range games {
			if games[k] == 0 {
				continue
			}
			label := fmt.Sprint(k)
			if k == onlyKingDrawsAbove {
				label += "+"
			}
			cells = append(cells, fmt.Sprintf("%s: %d (%d)", label, games[k], ahead[k]))
		}
		fmt.Fprintf(tw, "%s\t%s\n", st.Player, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

func wdlText(w match.WDL) string { return fmt.Sprintf("%d/%d/%d", w.W, w.D, w.L) }

// raceCell describes a player's games of one kind: how many, its W/D/L,
// and the median turn of the king's capture (when turns are given).
func raceCell(w match.WDL, turns []int) string {
	s := fmt.Sprintf("%d, %s", w.Games(), wdlText(w))
	if len(turns) > 0 {
		xs := make([]float64, len(turns))
		for i, t := range turns {
			xs[i] = float64(t)
		}
		s += fmt.Sprintf(", turn %.0f", stat.Quantile(0.5, stat.Empirical, xs, nil))
	}
	return s
}
