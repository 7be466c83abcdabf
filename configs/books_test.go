package configs

import (
	"strings"
	"testing"
)

// TestParseBook: comments and blank lines are skipped, and every mistake
// is an error that names the book and the line.
func TestParseBook(t *testing.T) {
	r := MustVariant("dablot")
	start := r.Start()
	good := "# a book\n\n" + start.FEN() + "  # the start\n" +
		"5s/5/6/5/6/5/6/5/6/5/s5/5/S4S n - 4 9\n"
	ps, err := ParseBook(r, "good.txt", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].FEN() != start.FEN() || ps[1].FEN() != "5s/5/6/5/6/5/6/5/6/5/s5/5/S4S n - 4 9" {
		t.Errorf("openings %d: %v", len(ps), ps)
	}
	for _, tc := range []struct {
		text, want string
	}{
		{"", "b.txt: no openings"},
		{"# only comments\n\n", "b.txt: no openings"},
		{"# header\n" + start.FEN() + "\nsssss/ssss/5 s\n", "b.txt:3: FEN"},
		{start.FEN() + "\n" + start.FEN() + " # again\n", "b.txt:2: the same opening as line 1"},
		{"6/5/6/5/6/5/6/5/6/5/6/5/SS4 s\n", "b.txt:1: the game is already over"},
		{start.FEN() + "\n" + strings.Replace(start.FEN(), " s", " x", 1) + "\n", "b.txt:2: FEN"},
	} {
		if _, err := ParseBook(r, "b.txt", []byte(tc.text)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.text, err, tc.want)
		}
	}
}

// TestBook: a built-in variant with a book gets it; other rules, even
// under a book's name, and variants without one get none.
func TestBook(t *testing.T) {
	for _, tc := range []struct {
		spec string
		ok   bool
	}{
		{"dablot", true},
		{"keyland", true},
		{"dablot,no_capture_limit=6", false},
		{"daablot", true},
		{"daablot,no_return=true", false},
	} {
		ps, ok, err := Book(MustVariant(tc.spec))
		if err != nil || ok != tc.ok || (len(ps) > 0) != tc.ok {
			t.Errorf("%s: %d openings, %v, %v; want ok %v", tc.spec, len(ps), ok, err, tc.ok)
		}
	}
	if _, err := BookText("../variants/dablot"); err == nil {
		t.Error("a path as a book name was accepted")
	}
	if _, err := BookText("nosuch"); err == nil || !strings.Contains(err.Error(), "books: cyningstan, ") {
		t.Errorf("unknown book: %v", err)
	}
}
