package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/research/study"
)

// TestKingRace: a game in which A's king takes B's, and a draw with B
// alone holding a king, listed and summed by player.
func TestKingRace(t *testing.T) {
	r := configs.MustVariant("dablot")
	dir := t.TempDir()
	for i, g := range []struct{ fen, south, north, turn string }{
		{"6/5/2s3/5/6/5/2k3/5/2K3/5/6/5/S5 s", "A", "B", "e5xe9xe13"},
		{"s5/5/6/5/6/5/6/5/6/5/6/5/S4K s - 99", "B", "A", "a1-a3"},
	} {
		p, err := game.ParseFEN(r, g.fen)
		if err != nil {
			t.Fatal(err)
		}
		rec := game.NewRecord(r, &p)
		rec.South, rec.North, rec.Turns = g.south, g.north, []string{g.turn}
		if err := p.ApplyTurn(g.turn); err != nil {
			t.Fatal(err)
		}
		rec.Finish(p.Status())
		var buf strings.Builder
		if err := writeJSONLine(&buf, rec); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("games-%d.jsonl", i+1)), []byte(buf.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The two files are read as one list through a pattern.
	games := filepath.Join(dir, "games-*.jsonl")
	out, err := runCmd(t, "analyse", "kingrace", "--records", games, "--list")
	if err != nil {
		t.Fatal(err, out)
	}
	wantOutput(t, out,
		"kingrace: dablot, 2 games from "+games+"; 0 of their 2 turns (0.0 %) came after the first king fell",
		"game 1: north's king (B) taken at turn 1, 2 pieces left, the taker's lead beside the kings +1; 1-0 (no-pieces) in 1 turns; beside the kings at the end: south 1, north 0",
		"game 2: no king taken; 1/2-1/2 (no-capture) in 1 turns; beside the kings at the end: south 1, north 1",
		"A       1/1/0  0, 0/0/0", "1, 1/0/0, turn 1",
		"B       0/1/1  1, 0/0/1, turn 1",
		"lead beside the kings when the player took the first king: W/D/L\nA  +1: 1/0/0\n",
		"draws holding the only king, by the other side's pieces left at the end: games (the player ahead in)\nB  1: 1 (0)\n",
	)
	if strings.Contains(out, "pairs of games") {
		t.Errorf("no opening played from both sides, yet:\n%s", out)
	}
	// One opening played from each side: South takes the first king both
	// times, whoever plays South, and North's soldier on a13 plays on to
	// the ply limit.
	var pair strings.Builder
	for _, players := range [][2]string{{"A", "B"}, {"B", "A"}} {
		p, err := game.ParseFEN(r, "s5/5/2s3/5/6/5/2k3/5/2K3/5/6/5/S5 s - 0 500")
		if err != nil {
			t.Fatal(err)
		}
		rec := game.NewRecord(r, &p)
		rec.South, rec.North, rec.Turns = players[0], players[1], []string{"e5xe9xe13", "a13-a11"}
		for _, turn := range rec.Turns {
			if err := p.ApplyTurn(turn); err != nil {
				t.Fatal(err)
			}
		}
		rec.Finish(p.Status())
		if err := writeJSONLine(&pair, rec); err != nil {
			t.Fatal(err)
		}
	}
	pairFile := filepath.Join(dir, "pair.jsonl")
	if err := os.WriteFile(pairFile, []byte(pair.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := runCmd(t, "analyse", "kingrace", "--records", pairFile); err != nil || !strings.Contains(out,
		"pairs of games from one opening, colours swapped: 1; the first king fell to the same side in both in 1 (south 1, north 0), to the same player in 0, and in one of them no king fell in 0\n") {
		t.Errorf("a pair of games: %v\n%s", err, out)
	}
	// --model: the one position after the race in each game, South's
	// king against North's soldier, judged for A and for B; both drew.
	modelFile := filepath.Join(dir, "tiny.dbm")
	saveTinyModel(t, "dablot", modelFile)
	out, err = runCmd(t, "analyse", "kingrace", "--records", pairFile, "--model", modelFile, "--every", "1")
	if err != nil {
		t.Fatal(err, out)
	}
	belief := regexp.MustCompile(`holding the only king: (A|B)\n +beside its king +the other side +positions +games +the model's win % +won %\n +1 +0-2 +1 +1 +[0-9.]+ +0\.0\n`)
	if got := belief.FindAllStringSubmatch(out, -1); !strings.Contains(out, "tiny.dbm's win chance for the side with the only king, every 1 turns") ||
		len(got) != 2 || got[0][1] != "A" || got[1][1] != "B" {
		t.Errorf("--model: the beliefs of A and B, one position each, are not in\n%s", out)
	}
	otherModel := filepath.Join(dir, "winther.dbm")
	saveTinyModel(t, "winther", otherModel)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", otherModel}, "winther"},
		{[]string{"--model", modelFile, "--every", "0"}, "--every 0: want 1 to"},
		{[]string{"--model", filepath.Join(dir, "none.dbm")}, "none.dbm"},
	} {
		if out, err := runCmd(t, append([]string{"analyse", "kingrace", "--records", pairFile}, c.args...)...); err == nil || !strings.Contains(err.Error()+out, c.want) {
			t.Errorf("%v: %v\n%s", c.args, err, out)
		}
	}
	// --book: the position after the race, once for the one start
	// position, readable as an arena book.
	bookFile := filepath.Join(dir, "race.txt")
	if out, err := runCmd(t, "analyse", "kingrace", "--records", pairFile, "--book", bookFile); err != nil {
		t.Fatal(err, out)
	}
	data, err := os.ReadFile(bookFile)
	if err != nil {
		t.Fatal(err)
	}
	if book, err := configs.ParseBook(r, bookFile, data); err != nil || len(book) != 1 || book[0].PieceCount() != 3 || book[0].SideToMove() != game.North {
		t.Errorf("the race book %q: %v, %d positions", data, err, len(book))
	}
	if out, err := runCmd(t, "analyse", "kingrace", "--records", filepath.Join(dir, "games-2.jsonl"), "--book", bookFile); err == nil || !strings.Contains(err.Error(), "no game went on after its first king fell") {
		t.Errorf("a book of games in which no king fell: %v\n%s", err, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--records", games, "--from-start"}, "no game began at the start position"},
		{[]string{"--records", filepath.Join(dir, "none-*.jsonl")}, "matches no file"},
		{[]string{"--records", filepath.Join(dir, "[")}, "syntax error in pattern"},
	} {
		if out, err := runCmd(t, append([]string{"analyse", "kingrace"}, c.args...)...); err == nil || !strings.Contains(err.Error()+out, c.want) {
			t.Errorf("%v: %v\n%s", c.args, err, out)
		}
	}
	// Files that together exceed one file's bound are refused before they
	// are read (sparse files: their size costs no disk).
	big := t.TempDir()
	for _, name := range []string{"a.jsonl", "b.jsonl"} {
		f, err := os.Create(filepath.Join(big, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(game.MaxRecordsBytes/2 + 1); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if out, err := runCmd(t, "analyse", "kingrace", "--records", filepath.Join(big, "*.jsonl")); err == nil || !strings.Contains(err.Error()+out, "its files hold more than") {
		t.Errorf("too large a pattern: %v\n%s", err, out)
	}
	if out, err := runCmd(t, "analyse", "kingrace"); err == nil || !strings.Contains(out, "--records is required") {
		t.Errorf("no records: %v\n%s", err, out)
	}
}

// TestWriteOpeningRaces: the pairs, by side and by player in the order of
// the players, and nothing when no games pair.
func TestWriteOpeningRaces(t *testing.T) {
	stats := []study.KingRaceStats{{Player: "A"}, {Player: "B"}, {Player: "C"}}
	var b strings.Builder
	o := study.OpeningRaces{Pairs: 6, BySide: [2]int{1, 2}, ByPlayer: map[string]int{"C": 1, "A": 1}, NoKing: 1}
	if err := writeOpeningRaces(&b, o, stats); err != nil {
		t.Fatal(err)
	}
	want := "\npairs of games from one opening, colours swapped: 6; the first king fell to the same side in both in 3 (south 1, north 2), to the same player in 2, and in one of them no king fell in 1\n" +
		"the same player: A  1\nthe same player: C  1\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	if err := writeOpeningRaces(&b, study.OpeningRaces{}, stats); err != nil || b.Len() != 0 {
		t.Errorf("no pairs: %q, %v", b.String(), err)
	}
}
