package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/game"
)

// TestArena runs small matches through the command line: the statistics
// printed, the records written, a model player, and the errors.
func TestArena(t *testing.T) {
	dir := t.TempDir()
	pgn := filepath.Join(dir, "games.pgn")
	out, err := runCmd(t, "arena", "--variant", "frostviken", "--a", "alphabeta:depth=2", "--b", "random",
		"--games", "4", "--threads", "2", "--seed", "3", "--out", pgn)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	wantOutput(t, out, "A W/D/L", "score", "95% CI", "Elo", "records written")
	// Not a terminal: no bar, but a line per game, in order, with the
	// score so far; the last one's score is the match's.
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "game ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "game 1/4: A as South, ") || !strings.HasPrefix(lines[1], "game 2/4: A as North, ") {
		t.Fatalf("game lines %q", lines)
	}
	var w, d, l int
	if _, err := fmt.Sscanf(lines[3][strings.LastIndex(lines[3], "A +"):], "A +%d =%d -%d", &w, &d, &l); err != nil || w+d+l != 4 ||
		!strings.Contains(out, fmt.Sprintf("A W/D/L %d/%d/%d", w, d, l)) {
		t.Errorf("the last game line %q does not end with the match's W/D/L (%v):\n%s", lines[3], err, out)
	}
	recs := readPGNFile(t, pgn)
	if len(recs) != 4 {
		t.Fatalf("records: %d", len(recs))
	}
	// Sides alternate: A is South in the first game and North in the second.
	if recs[0].South != recs[1].North || recs[0].South == recs[0].North {
		t.Errorf("sides do not alternate: %q/%q then %q/%q", recs[0].South, recs[0].North, recs[1].South, recs[1].North)
	}
	// The same seed plays the same games.
	pgn2 := filepath.Join(dir, "again.pgn")
	if _, err := runCmd(t, "arena", "--variant", "frostviken", "--a", "alphabeta:depth=2", "--b", "random",
		"--games", "4", "--threads", "1", "--seed", "3", "--out", pgn2); err != nil {
		t.Fatal(err)
	}
	// (All but the time each game took.)
	untimed := func(path string) string {
		var b strings.Builder
		for _, rec := range readPGNFile(t, path) {
			delete(rec.Tags, "Seconds")
			delete(rec.Tags, "MatchSeconds")
			rec.WritePGN(&b)
		}
		return b.String()
	}
	if a, b := untimed(pgn), untimed(pgn2); a != b {
		t.Errorf("the same seed gave other games with another thread count:\n%s\n%s", a, b)
	}

	// Endgames: each pair starts from its own random reduced position.
	eg := filepath.Join(dir, "endgames.pgn")
	if out, err := runCmd(t, "arena", "--variant", "frostviken", "--a", "alphabeta:depth=1", "--b", "greedy",
		"--games", "4", "--endgames", "3", "--out", eg); err != nil || !strings.Contains(out, "random endgames") {
		t.Fatalf("endgames: %v\n%s", err, out)
	}
	recs = readPGNFile(t, eg)
	if len(recs) != 4 || recs[0].Setup == "" || recs[0].Setup != recs[1].Setup || recs[1].Setup == recs[2].Setup {
		t.Fatalf("endgame records: %d, setups %q", len(recs), []string{recs[0].Setup, recs[1].Setup, recs[2].Setup})
	}

	// A book: games 2k and 2k+1 start from opening k+1, colours swapped;
	// a book longer than the match is played from its start.
	book := filepath.Join(dir, "book.txt")
	fens := bookFENs(t, "winther", 3)
	if err := os.WriteFile(book, []byte("# three openings\n"+strings.Join(fens, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bk := filepath.Join(dir, "book.pgn")
	out, err = runCmd(t, "arena", "--variant", "winther", "--a", "alphabeta:depth=1", "--b", "greedy",
		"--games", "4", "--book", book, "--out", bk)
	if err != nil || !strings.Contains(out, "openings: the first 2 of the 3 in "+book) {
		t.Fatalf("book: %v\n%s", err, out)
	}
	recs = readPGNFile(t, bk)
	if len(recs) != 4 {
		t.Fatalf("book records: %d", len(recs))
	}
	for i, rec := range recs {
		if rec.Setup != fens[i/2] || rec.Tags["Book"] != fmt.Sprint(i/2+1) {
			t.Errorf("book game %d starts from %q (book %q), want opening %d, %q", i+1, rec.Setup, rec.Tags["Book"], i/2+1, fens[i/2])
		}
	}

	// Draws are summarised: South's three pieces against North's two, too
	// far apart to meet before a six-ply no-capture limit.
	out, err = runCmd(t, "arena", "--variant", "keyland,no_capture_limit=6", "--fen", "ks4/5/6/5/6/5/6/5/6/5/6/5/KSS3 s",
		"--a", "random", "--b", "random", "--games", "4")
	if want := "draws   4 (no-capture 4): A ahead on pieces in 2, level in 0, behind in 2; pieces left 2.5 to 2.5"; err != nil || !strings.Contains(out, want) {
		t.Errorf("draws: %v; output lacks %q:\n%s", err, want, out)
	}

	// A network player from a model file, and a model for other rules.
	model := testModel(t, "frostviken")
	out, err = runCmd(t, "arena", "--variant", "frostviken", "--a", "gumbel:model="+model+",sims=8", "--b", "greedy", "--games", "2")
	if err != nil {
		t.Fatalf("model player: %v\n%s", err, out)
	}
	badBook := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(badBook, []byte(fens[0]+"\nnot a position\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"arena", "--variant", "keyland", "--a", "mcts:model=" + model, "--b", "random"}, "plays frostviken, not keyland"},
		{[]string{"arena", "--variant", "keyland", "--a", "alphabeta:depht=2", "--b", "random"}, "depht"},
		{[]string{"arena", "--variant", "keyland", "--a", "random"}, "--a and --b are required"},
		// An unknown variant is named before any other complaint.
		{[]string{"arena", "--variant", "nosuch"}, `unknown variant "nosuch"`},
		{[]string{"arena", "--variant", "nosuch", "--a", "random", "--b", "nobody", "--games", "0", "--sprt", "x"}, `unknown variant "nosuch"`},
		{[]string{"arena", "--variant", "keyland", "--a", "random", "--b", "greedy", "--sprt", "x"}, "--sprt"},
		{[]string{"arena", "--variant", "keyland", "--a", "mcts:model=/nonexistent.dbm", "--b", "random"}, "nonexistent"},
		{[]string{"arena", "--variant", "keyland", "--a", "random", "--b", "greedy", "--endgames", "4", "--fen", "6/5/6/5/6/5/6/5/6/5/s5/5/S5 s"}, "exclude"},
		{[]string{"arena", "--variant", "keyland", "--a", "random", "--b", "greedy", "--endgames", "-3"}, "--endgames -3"},
		{[]string{"arena", "--variant", "winther", "--a", "random", "--b", "greedy", "--book", "configs/books/winther.txt", "--endgames", "3"}, "--book excludes"},
		{[]string{"arena", "--variant", "winther", "--a", "random", "--b", "greedy", "--book", "/nonexistent/book.txt"}, "--book"},
		{[]string{"arena", "--variant", "winther", "--a", "random", "--b", "greedy", "--book", badBook}, badBook + ":2"},
	} {
		got, err := runCmd(t, tc.args...)
		if err == nil || !strings.Contains(got+err.Error(), tc.want) {
			t.Errorf("%v: got %v\n%s\nwant an error with %q", tc.args, err, got, tc.want)
		}
	}
}

// bookFENs returns the first n openings of a variant's shipped book.
func bookFENs(t *testing.T, variant string, n int) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "configs", "books", variant+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	var fens []string
	for line := range strings.Lines(string(data)) {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line != "" && len(fens) < n {
			fens = append(fens, line)
		}
	}
	if len(fens) < n {
		t.Fatalf("%s's book has %d openings, want %d", variant, len(fens), n)
	}
	return fens
}

// readPGNFile reads the game records of a file arena wrote.
func readPGNFile(t *testing.T, path string) []*game.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := game.ReadPGN(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}
