package main

import (
	"errors"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// TestReadInput: the lines of an input as the front ends get them: without
// their ends, over-long lines flagged and emptied, then the read error.
func TestReadInput(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name  string
		in    string
		limit int
		fail  bool     // the input fails with boom after in
		want  []string // the lines, "!" for one too long
	}{
		{"empty", "", 10, false, nil},
		{"one line", "uci\n", 10, false, []string{"uci"}},
		{"no final end", "uci\nisready", 10, false, []string{"uci", "isready"}},
		{"blank lines kept", "a\n\n  \nb\n", 10, false, []string{"a", "", "  ", "b"}},
		{"CRLF", "a\r\nb\r\n", 10, false, []string{"a", "b"}},
		{"at the limit", "0123456789\n", 10, false, []string{"0123456789"}},
		{"over the limit", "0123456789x\nnext\n", 10, false, []string{"!", "next"}},
		{"over the limit at the end", "ok\n" + strings.Repeat("y", 100), 10, false, []string{"ok", "!"}},
		{"longer than the reader's buffer", strings.Repeat("z", 100<<10) + "\nafter\n", 1 << 20, false, []string{strings.Repeat("z", 100<<10), "after"}},
		{"read error", "a\nb", 10, true, []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r io.Reader = strings.NewReader(tc.in)
			if tc.fail {
				r = &failAfter{r: r, err: boom}
			}
			done := make(chan struct{})
			defer close(done)
			lines, errc := readInput(r, tc.limit, done)
			var got []string
			for l := range lines {
				if l.tooLong {
					if l.text != "" {
						t.Errorf("a long line with text %q", l.text)
					}
					got = append(got, "!")
					continue
				}
				got = append(got, l.text)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("lines %q, want %q", got, tc.want)
			}
			if err := <-errc; (err == boom) != tc.fail || (err != nil && err != boom) {
				t.Errorf("read error %v, want boom: %v", err, tc.fail)
			}
		})
	}
}

// failAfter reads r, then fails with err instead of io.EOF.
type failAfter struct {
	r   io.Reader
	err error
}

func (f *failAfter) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err != nil {
		err = f.err
	}
	return n, err
}

// TestGameRecord: the record play and serve write, for a game going on and
// one over, from the start and from a set-up position.
func TestGameRecord(t *testing.T) {
	r := configs.MustVariant("keyland")
	start := r.Start()
	after := start
	if err := after.ApplyTurn("i5-i7"); err != nil {
		t.Fatal(err)
	}
	over, err := game.ParseFEN(r, "6/5/6/5/6/5/6/5/6/5/6/5/S5 n") // North has no pieces left
	if err != nil {
		t.Fatal(err)
	}
	date := regexp.MustCompile(`^20[0-9]{2}\.[01][0-9]\.[0-3][0-9]$`)
	for _, tc := range []struct {
		name                string
		start, end          game.Position
		turns               []string
		tags                map[string]string
		setup, result, term string
	}{
		{"going on", start, after, []string{"i5-i7"}, nil, "", "*", ""},
		{"with tags", start, after, []string{"i5-i7"}, map[string]string{"Search": "PUCT, 8 sims per decision"}, "", "*", ""},
		{"set up and over", over, over, nil, nil, over.FEN(), "1-0", "no-pieces"},
		{"no turns", start, start, []string{}, nil, "", "*", ""},
	} {
		turns := slices.Clone(tc.turns)
		rec := gameRecord(&tc.start, &tc.end, turns, "person", "model", tc.tags)
		if len(turns) > 0 {
			turns[0] = "changed" // the record keeps its own copy
		}
		if rec.Variant != "keyland" || rec.Setup != tc.setup || rec.Result != tc.result || rec.Termination != tc.term ||
			rec.South != "person" || rec.North != "model" || !slices.Equal(rec.Turns, tc.turns) {
			t.Errorf("%s: record %+v", tc.name, rec)
		}
		if !date.MatchString(rec.Tags["Date"]) || len(rec.Tags) != 1+len(tc.tags) {
			t.Errorf("%s: tags %v, want a Date and %v", tc.name, rec.Tags, tc.tags)
		}
		for k, v := range tc.tags {
			if rec.Tags[k] != v {
				t.Errorf("%s: tag %s = %q, want %q", tc.name, k, rec.Tags[k], v)
			}
		}
		if end, err := rec.Replay(r); err != nil || end.FEN() != tc.end.FEN() {
			t.Errorf("%s: the record replays to %s (%v), want %s", tc.name, end.FEN(), err, tc.end.FEN())
		}
	}
}

func TestSideName(t *testing.T) {
	for s, want := range map[game.Side]string{game.South: "South", game.North: "North"} {
		if got := sideName(s); got != want {
			t.Errorf("sideName(%v) = %q, want %q", s, got, want)
		}
	}
}
