package ladder

import (
	"fmt"
	"github.com/dablot-zero/dablot/mcts/match"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func testRow(w, d, l int) Row {
	return Row{Time: time.Date(2026, 11, 24, 10, 30, 0, 0, time.UTC), Code: "v0.0.0 abc123", Model: "models/dablot.dbm",
		ModelSHA256: "eaf43a52", Variant: "dablot", Player: "gumbel:model=models/dablot.dbm,ms=100", Opponent: "alphabeta:ms=100",
		MS: 100, WDL: match.WDL{W: w, D: d, L: l}, AsSouth: match.WDL{W: w, D: d}, AsNorth: match.WDL{L: l}, Book: "configs/books/dablot.txt",
		Threads: 2, Seed: 7, Wall: 1234 * time.Second}
}

func columnIndex(t *testing.T, name string) int {
	t.Helper()
	for i, c := range Columns {
		if c == name {
			return i
		}
	}
	t.Fatalf("no column %s", name)
	return -1
}

// TestLadderRow: a row formats as one tab-separated field per column and
// reads back; the derived columns are those of the counts.
func TestLadderRow(t *testing.T) {
	for _, row := range []Row{testRow(3, 14, 3), testRow(0, 0, 20), testRow(5, 0, 0)} {
		line := row.Format()
		f := strings.Split(line, "\t")
		if len(f) != len(Columns) || strings.Contains(line, "\n") {
			t.Fatalf("%q: %d fields", line, len(f))
		}
		lo, hi := row.WDL.ScoreCI(0.95)
		elo, elo0, elo1 := row.WDL.Elo(0.95)
		for col, want := range map[string]string{
			"games": fmt.Sprint(row.WDL.Games()), "wins": fmt.Sprint(row.WDL.W), "ms_per_move": "100", "wall_s": "1234",
			"score": fmt.Sprintf("%.4f", row.WDL.Score()), "score_lo95": fmt.Sprintf("%.4f", lo), "score_hi95": fmt.Sprintf("%.4f", hi),
			"elo": match.FormatElo(elo), "elo_lo95": match.FormatElo(elo0), "elo_hi95": match.FormatElo(elo1),
			"date_utc": "2026-11-24T10:30:00Z", "south_wdl": formatWDL(row.AsSouth), "model_sha256": "eaf43a52",
		} {
			if got := f[columnIndex(t, col)]; got != want {
				t.Errorf("%s = %q, want %q", col, got, want)
			}
		}
		back, err := ParseRow(line)
		if err != nil {
			t.Fatal(err)
		}
		if back != row {
			t.Errorf("read back as %+v, want %+v", back, row)
		}
	}
	// Tabs in a text field cannot split the row.
	row := testRow(1, 0, 0)
	row.Player = "gumbel:model=a\tb.dbm"
	if f := strings.Split(row.Format(), "\t"); len(f) != len(Columns) {
		t.Errorf("a tab in a spec gave %d fields", len(f))
	}
	// A bad line names the column.
	line := testRow(1, 2, 3).Format()
	for _, tc := range []struct{ from, to, want string }{
		{"\t6\t1\t2\t3\t", "\t7\t1\t2\t3\t", "column games"},
		{"\t0.3333\t", "\t0.5\t", "column score"},
		{"\t1/2/0\t", "\t1-2-0\t", "column south_wdl"},
		{"2026-11-24T10:30:00Z", "yesterday", "column date_utc"},
		{"\t100\t", "\tfast\t", "column ms_per_move"},
	} {
		bad := strings.Replace(line, tc.from, tc.to, 1)
		if bad == line {
			t.Fatalf("%q not in %q", tc.from, line)
		}
		if _, err := ParseRow(bad); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", bad, err, tc.want)
		}
	}
	if _, err := ParseRow("a\tb"); err == nil || !strings.Contains(err.Error(), "2 fields") {
		t.Errorf("short line: %v", err)
	}
}

// TestLadderFile: the first row creates the file with its header, later
// rows are appended after it, a torn last line is mended or cut off, and
// a file of something else is refused without being touched.
func TestLadderFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ladder.tsv")
	if err := CheckFile(path); err != nil {
		t.Fatal(err)
	}
	r1, r2, r3 := testRow(1, 2, 3), testRow(4, 5, 6), testRow(7, 8, 9)
	for _, r := range []*Row{&r1, &r2} {
		if err := AppendRow(path, *r); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(path)
	if want := Header() + "\n" + r1.Format() + "\n" + r2.Format() + "\n"; string(data) != want {
		t.Fatalf("file:\n%s\nwant:\n%s", data, want)
	}
	// A crash in the middle of a row: the torn row is cut off, the earlier
	// ones stay, and reading ignores a torn last line.
	torn := r3.Format()[:40]
	os.WriteFile(path, append(data, torn...), 0o644)
	if rows, err := Read(path); err != nil || len(rows) != 2 {
		t.Fatalf("with a torn line: %d rows, %v", len(rows), err)
	}
	if err := AppendRow(path, r3); err != nil {
		t.Fatal(err)
	}
	rows, err := Read(path)
	if err != nil || len(rows) != 3 || rows[0] != r1 || rows[1] != r2 || rows[2] != r3 {
		t.Fatalf("rows %+v, %v", rows, err)
	}
	// A whole row without its newline is kept.
	data, _ = os.ReadFile(path)
	os.WriteFile(path, data[:len(data)-1], 0o644)
	if err := AppendRow(path, r1); err != nil {
		t.Fatal(err)
	}
	if rows, err := Read(path); err != nil || len(rows) != 4 {
		t.Fatalf("after a row without its newline: %d rows, %v", len(rows), err)
	}
	// A bad row in the middle is an error naming the line.
	os.WriteFile(path, []byte(Header()+"\n"+r1.Format()+"\nnonsense\n"+r2.Format()+"\n"), 0o644)
	if _, err := Read(path); err == nil || !strings.Contains(err.Error(), "ladder.tsv:3:") {
		t.Errorf("bad middle row: %v", err)
	}

	// Someone else's file.
	other := filepath.Join(dir, "notes.tsv")
	os.WriteFile(other, []byte("name\tvalue\nx\t1\n"), 0o644)
	for _, err := range []error{CheckFile(other), AppendRow(other, r1)} {
		if err == nil || !strings.Contains(err.Error(), "not the ladder's header") {
			t.Errorf("foreign file: %v", err)
		}
	}
	if data, _ := os.ReadFile(other); string(data) != "name\tvalue\nx\t1\n" {
		t.Errorf("the foreign file was changed: %q", data)
	}
	// A file in a directory that does not exist.
	if err := CheckFile(filepath.Join(dir, "nosuch", "l.tsv")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing directory: %v", err)
	}
	// An empty file gets the header.
	empty := filepath.Join(dir, "empty.tsv")
	os.WriteFile(empty, nil, 0o644)
	if err := AppendRow(empty, r1); err != nil {
		t.Fatal(err)
	}
	if rows, err := Read(empty); err != nil || len(rows) != 1 {
		t.Errorf("empty file: %d rows, %v", len(rows), err)
	}
}

// TestSameMatch: rows of one match may differ in when and how fast it was
// played, never in who played, how, or the result.
func TestSameMatch(t *testing.T) {
	a := testRow(3, 14, 3)
	for _, tc := range []struct {
		name string
		edit func(*Row)
		same bool
	}{
		{"itself", func(*Row) {}, true},
		{"later, by another program, on one thread", func(r *Row) {
			r.Time, r.Code, r.Threads, r.Wall = r.Time.Add(time.Hour), "v0.0.1", 1, 99*time.Second
		}, true},
		{"another result", func(r *Row) { r.WDL.W, r.WDL.D = 4, 13 }, false},
		{"the colours' split", func(r *Row) { r.AsSouth, r.AsNorth = r.AsNorth, r.AsSouth }, false},
		{"another model", func(r *Row) { r.ModelSHA256 = "0000" }, false},
		{"another player", func(r *Row) { r.Player += ",guard=0" }, false},
		{"another opponent", func(r *Row) { r.Opponent = "alphabeta:ms=1000" }, false},
		{"another time", func(r *Row) { r.MS = 1000 }, false},
		{"another book", func(r *Row) { r.Book = "book2.txt" }, false},
		{"another seed", func(r *Row) { r.Seed = 8 }, false},
		{"another variant", func(r *Row) { r.Variant = "winther" }, false},
	} {
		b := a
		tc.edit(&b)
		if got := a.SameMatch(b); got != tc.same {
			t.Errorf("%s: SameMatch %v, want %v", tc.name, got, tc.same)
		}
	}
}

// TestDocsLadder: the repository's results file reads, and each row's
// colour split adds up to its score.
func TestDocsLadder(t *testing.T) {
	rows, err := Read("../../../docs/ladder.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("docs/ladder.tsv has no rows")
	}
	for i, r := range rows {
		s, n := r.AsSouth, r.AsNorth
		if s.W+n.W != r.WDL.W || s.D+n.D != r.WDL.D || s.L+n.L != r.WDL.L {
			t.Errorf("row %d (%s, %s): %v as South and %v as North do not add up to %v", i+1, r.Model, r.Player, s, n, r.WDL)
		}
	}
}
