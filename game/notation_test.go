package game_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

func TestParseSquare(t *testing.T) {
	b := configs.MustVariant("keyland").Board
	for _, tc := range []struct {
		in, want, err string
	}{
		{"a1", "a1", ""}, {"K13", "k13", ""}, {"b2", "b2", ""}, {"j12", "j12", ""},
		{"a2", "", "not a point"}, {"b3", "", "not a point"}, {"l1", "", "off the board"},
		{"a14", "", "off the board"}, {"a0", "", "off the board"}, {"a", "", "want a column"},
		{"", "", "want a column"}, {"1a", "", "want a column"}, {"ax", "", "not a number"}, {"a+1", "", "not a number"},
	} {
		q, err := b.ParseSquare(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one saying %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || b.Name(q) != tc.want {
			t.Errorf("%q: %v %v", tc.in, q, err)
		}
	}
}

func TestParseFENErrors(t *testing.T) {
	r := configs.MustVariant("keyland")
	start := "ssssss/sssss/ssssss/sssss/ssssss/p4/k4K/4P/SSSSSS/SSSSS/SSSSSS/SSSSS/SSSSSS"
	for _, tc := range []struct{ fen, field string }{
		{"", "side"},
		{start, "side"},
		{start + " x", "side"},
		{start + " s - 0 1 extra", "fields"},
		{"sssss/ssss/pssss/ksss/5/SSSK/SSSSP/SSSS/SSSSS s", "rows"}, // the 41-point board
		{strings.Replace(start, "p4", "p5", 1) + " s", "row 8"},
		{strings.Replace(start, "p4", "p3", 1) + " s", "row 8"},
		{strings.Replace(start, "k4K", "k4Q", 1) + " s", "row 7"},
		{start + " s e7", "chain"},  // empty point
		{start + " s a2", "chain"},  // not a point
		{start + " s a13", "chain"}, // North's piece
		{start + " s - -1", "quiet"},
		{start + " s - x", "quiet"},
		{start + " s - 0 0", "turn"},
	} {
		_, err := game.ParseFEN(r, tc.fen)
		var fe *game.FENError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%q: error %v, want one about %s", tc.fen, err, tc.field)
		}
	}
}

func TestParseTurnErrors(t *testing.T) {
	p := configs.MustVariant("winther").Start()
	for _, tc := range []struct{ move, err string }{
		{"", "empty move"},
		{"e5", "want a step"},
		{"e5-e7-e9", "exactly two squares"},
		{"e5-e7xe9", "mixes"},
		{"e5-z9", "off the board"},
		{"e6-e7", "not a point"},
		{"e7-e9", "no piece on e7"},
		{"a9-a7", "north's"},
		{"e5-e9", "not one step"},
		{"e3-e5", "occupied"},
		{"i5-i3", "occupied"},
		{"e5xe9", "no piece on e7 to capture"},
		{"pass", "passing is not allowed"},
	} {
		_, _, err := p.ParseTurn(tc.move)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: error %v, want one saying %q", tc.move, err, tc.err)
		}
	}
	// A soldier may not step backwards in winther.
	q := mustPosition(t, "winther", "S:e5 K:k1 k:k13 s:a13", "s")
	if _, _, err := q.ParseTurn("e5-e3"); err == nil || !strings.Contains(err.Error(), "straight backward") {
		t.Errorf("backward step: %v", err)
	}
	// A chain that must go on cannot stop.
	q = mustPosition(t, "dablot", "S:a1 s:a3,a7 K:k1 k:k13", "s")
	if _, _, err := q.ParseTurn("a1xa5"); err == nil || !strings.Contains(err.Error(), "must go on") {
		t.Errorf("stopped chain: %v", err)
	}
	// Compulsory capture.
	q = mustPosition(t, "dablot", "K:e5 S:a1 s:e7 k:k13", "s")
	if _, _, err := q.ParseTurn("a1-a3"); err == nil || !strings.Contains(err.Error(), "compulsory") {
		t.Errorf("ignored capture: %v", err)
	}
}

func randomRecord(t *testing.T, variant string, seed uint64) (*game.Record, game.Position) {
	r := configs.MustVariant(variant)
	p := r.Start()
	rec := game.NewRecord(r, &p)
	rec.South, rec.North = "random", "random \"quoted\""
	rec.Tags = map[string]string{"Seed": "7"}
	rng := rand.New(rand.NewPCG(seed, 1))
	for !p.Status().Over() {
		turns := p.Turns()
		turn := turns[rng.IntN(len(turns))]
		s := turn.Format(r.Board)
		if err := p.ApplyTurn(s); err != nil {
			t.Fatal(err)
		}
		rec.Turns = append(rec.Turns, s)
	}
	rec.Finish(p.Status())
	return rec, p
}

func TestRecordRoundTrip(t *testing.T) {
	for i, v := range []string{"keyland", "dablot", "frostviken", "daablot"} {
		rec, final := randomRecord(t, v, uint64(i))
		r := configs.MustVariant(v)
		var buf bytes.Buffer
		if err := rec.WritePGN(&buf); err != nil {
			t.Fatal(err)
		}
		recs, err := game.ReadPGN(&buf)
		if err != nil || len(recs) != 1 {
			t.Fatalf("%s: read back %d records: %v", v, len(recs), err)
		}
		// ReadRecords takes both formats: PGN-like text, and JSON lines
		// (here two, with a blank line between them).
		var pgn bytes.Buffer
		rec.WritePGN(&pgn)
		fromText, err := game.ReadRecords(&pgn)
		if err != nil || len(fromText) != 1 {
			t.Fatalf("%s: ReadRecords of PGN: %d records: %v", v, len(fromText), err)
		}
		js, _ := json.Marshal(rec)
		lines := "\n" + string(js) + "\n\n" + string(js) + "\n"
		fromJSON, err := game.ReadRecords(strings.NewReader(lines))
		if err != nil || len(fromJSON) != 2 {
			t.Fatalf("%s: ReadRecords of JSON lines: %d records: %v", v, len(fromJSON), err)
		}
		for _, back := range []*game.Record{recs[0], fromText[0], fromJSON[0], fromJSON[1]} {
			p, err := back.Replay(r)
			if err != nil {
				t.Fatalf("%s: replay: %v", v, err)
			}
			if p.FEN() != final.FEN() || back.Result != rec.Result || back.Termination != rec.Termination || back.North != rec.North || back.Tags["Seed"] != "7" {
				t.Errorf("%s: round trip changed the game: %s %s %q", v, back.Result, back.Termination, back.North)
			}
		}
	}
}

func TestReadPGNErrors(t *testing.T) {
	for _, tc := range []struct{ text, err string }{
		{"e5-e7", "before any [Variant"},
		{"[Variant keyland]\n", "malformed tag"},
		{"[Result \"2-0\"]\n", "want 1-0"},
		{"[Variant \"keyland\"]\n[MaxPlies \"x\"]\n", "not a whole number"},
		{"[Variant \"keyland\"]\n[Termination \"bored\"]\n", "unknown termination"},
		{"[Variant \"keyland\"]\n[Result \"1-0\"]\n\n1. i5-i7 0-1\n", "differs"},
		{"[South \"x\"]\n\n1. i5-i7 *\n", "no Variant"},
	} {
		_, err := game.ReadPGN(strings.NewReader(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: error %v, want one saying %q", tc.text, err, tc.err)
		}
	}
	keyland := configs.MustVariant("keyland")
	rec := &game.Record{Variant: "keyland", Result: "*", NoCaptureLimit: keyland.NoCaptureLimit, MaxPlies: keyland.MaxPlies, Turns: []string{"i5-i7", "i5-i7"}}
	if _, err := rec.Replay(keyland); err == nil || !strings.Contains(err.Error(), "turn 2") {
		t.Errorf("replay of an illegal turn: %v", err)
	}
}

// TestRecordDeclared: the end a record states, and the errors of one it
// cannot state.
func TestRecordDeclared(t *testing.T) {
	for _, tc := range []struct {
		result, termination string
		want                game.Status
		err                 string
	}{
		{"*", "", game.Status{}, ""},
		{"1-0", "king-captured", game.Status{Outcome: game.SouthWins, Reason: game.KingCaptured}, ""},
		{"0-1", "adjudicated", game.Status{Outcome: game.NorthWins, Reason: game.Adjudicated}, ""},
		{"1/2-1/2", "max-plies", game.Status{Outcome: game.Draw, Reason: game.MaxPlies}, ""},
		{"1/2-1/2", "", game.Status{Outcome: game.Draw}, ""},
		{"2-0", "", game.Status{}, "want 1-0"},
		{"1-0", "bored", game.Status{}, "unknown termination"},
		{"*", "no-capture", game.Status{}, "with Result *"},
	} {
		rec := &game.Record{Variant: "keyland", Result: tc.result, Termination: tc.termination}
		got, err := rec.Declared()
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s %q: %v", tc.result, tc.termination, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s %q: error %v, want one saying %q", tc.result, tc.termination, err, tc.err)
		case tc.err == "" && got != tc.want:
			t.Errorf("%s %q: %v, want %v", tc.result, tc.termination, got, tc.want)
		}
	}
}

func TestReadRecordsErrors(t *testing.T) {
	for _, tc := range []struct{ text, err string }{
		{`{"variant": "keyland", "turns": ["i5-i7"]}` + "\n{\"turns\": 3}\n", "record line 2"},
		{`{"turns": []}`, "record line 1: no variant"},
		{"  \n[South \"x\"]\n\n1. i5-i7 *\n", "no Variant"},
	} {
		_, err := game.ReadRecords(strings.NewReader(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: error %v, want one saying %q", tc.text, err, tc.err)
		}
	}
	if recs, err := game.ReadRecords(strings.NewReader(" \n")); err != nil || len(recs) != 0 {
		t.Errorf("blank input: %d records, %v", len(recs), err)
	}
}

// endless is a reader that never ends, as /dev/zero (blanks here, so that
// the text parses for as long as it is read).
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '\n'
	}
	e.n += int64(len(p))
	return len(p), nil
}

// TestReadRecordsBounded: a text of records that never ends is refused
// once it passes the bound, instead of filling the memory.
func TestReadRecordsBounded(t *testing.T) {
	const limit = 1 << 20
	for name, read := range map[string]func(io.Reader, int64) ([]*game.Record, error){
		"ReadRecords": game.ReadRecordsWithin, "ReadPGN": game.ReadPGNWithin} {
		src := &endless{}
		_, err := read(src, limit)
		if err == nil || !strings.Contains(err.Error(), "more than 1048576 bytes") {
			t.Errorf("%s of an endless text: %v, want an error naming the bound", name, err)
		}
		if src.n > 2*limit {
			t.Errorf("%s read %d bytes of an endless text with a bound of %d", name, src.n, limit)
		}
		// Within the bound, the same text is read.
		if recs, err := read(io.LimitReader(&endless{}, limit), limit); err != nil || len(recs) != 0 {
			t.Errorf("%s of %d blank bytes: %d records, %v", name, limit, len(recs), err)
		}
	}
	if game.MaxRecordsBytes < 64<<20 {
		t.Errorf("MaxRecordsBytes %d: too small for a long run's records", game.MaxRecordsBytes)
	}
}

func TestVariantErrors(t *testing.T) {
	good, err := configs.VariantYAML("keyland")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ from, to, field string }{
		{"name: keyland", "name: Key Land", "name"},
		{"board: {columns: 6, rows: 7}", "board: {columns: 1, rows: 7}", "board"},
		{"board: {columns: 6, rows: 7}", "board: {columns: 20, rows: 20}", "board"},
		{"board: {columns: 6, rows: 7}", "board: {rows: 7}", "board.columns"},
		{"first: south", "first: east", "first"},
		{"soldier: {step: all,", "soldier: {step: sideway,", "ranks.soldier.step"},
		{"soldier: {step: all,", "soldier: {step: [],", "ranks.soldier.step"},
		{"king:    {step: all, must_capture: false, chain_must_continue: false}", "king:    {step: all, chain_must_continue: false}", "ranks.king.must_capture"},
		{"promotion: none", "promotion: queen", "promotion"},
		{"no_move: pass", "no_move: cry", "no_move"},
		{"no_capture_limit: 400", "no_capture_limit: -1", "no_capture_limit"},
		{"max_plies: 1000", "", "max_plies"},
		{"setup: ssssss", "setup: sssss", "setup"},
		{"  two_passes: true", "", "draw.two_passes"},
	} {
		text := strings.Replace(string(good), tc.from, tc.to, 1)
		if text == string(good) {
			t.Fatalf("%q not found in keyland.yaml", tc.from)
		}
		_, err := game.ParseVariant([]byte(text), configs.VariantYAML)
		var fe *game.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%s → %s: error %v, want one naming %s", tc.from, tc.to, err, tc.field)
		}
	}
	long := func(n int) string { return strings.Repeat("x", n) }
	for _, tc := range []struct{ text, err string }{
		{"", "empty"},
		{"name: x\ncolour: red\n", "colour"},
		{"base: nosuch\n", "unknown variant"},
		{"name: [\n", "yaml"},
		// Repeated keys are errors, not the last one winning.
		{string(good) + "no_return: true\n", `mapping key "no_return" already defined`},
		{strings.Replace(string(good), "board: {columns: 6, rows: 7}", "board: {columns: 6, rows: 7, rows: 9}", 1), `mapping key "rows" already defined`},
		// Texts are bounded: a 50 MB string is refused before it is parsed.
		{"base: keyland\nname: x\ndescription: " + long(50<<20) + "\n", "the file has 52428836 bytes, more than the 65536 a variant file may have"},
		{"base: keyland\nname: x\ndescription: " + long(5000) + "\n", "description: 5000 bytes: want at most 4096"},
		{"base: keyland\nname: x\nsource: " + long(4097) + "\n", "source: 4097 bytes: want at most 4096"},
		{"base: keyland\nname: " + long(300) + "\n", "name: 300 bytes: want at most 256"},
		{"base: keyland\nname: x\nassumed: [" + strings.Repeat("a, ", 32) + "a]\n", "assumed: 36 entries: want at most 32"},
		{"base: keyland\nname: x\nassumed: [a, " + long(4097) + "]\n", "assumed[4]: 4097 bytes: want at most 4096"},
	} {
		_, err := game.ParseVariant([]byte(tc.text), configs.VariantYAML)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%.80q (%d bytes): error %.200v, want one saying %q", tc.text, len(tc.text), err, tc.err)
		}
	}
}

func FuzzParseFEN(f *testing.F) {
	r := configs.MustVariant("keyland")
	small := configs.MustVariant("frostviken")
	f.Add(r.Setup)
	f.Add(small.Setup)
	f.Add("ssssss/sssss/ssssss/sssss/ssssss/p4/k4K/4P/SSSSSS/SSSSS/SSSSSS/SSSSS/SSSSSS s e5 3 12")
	f.Add("99/1/1 n")
	f.Fuzz(func(t *testing.T, fen string) {
		for _, rules := range []*game.Rules{r, small} {
			p, err := game.ParseFEN(rules, fen)
			if err != nil {
				continue
			}
			// A position that parses formats to one that parses the same.
			q, err := game.ParseFEN(rules, p.FEN())
			if err != nil || q.FEN() != p.FEN() {
				t.Fatalf("%q → %q → %v", fen, p.FEN(), err)
			}
			p.Decisions(nil)
			p.Status()
		}
	})
}

func FuzzParseTurn(f *testing.F) {
	r := configs.MustVariant("keyland")
	f.Add("i5-i7")
	f.Add("a7xe7xg5")
	f.Add("pass")
	f.Add("E5-e7")
	f.Add("x")
	f.Fuzz(func(t *testing.T, s string) {
		p := r.Start()
		if err := p.ApplyTurn(s); err == nil && p.Ply() != 1 {
			t.Fatalf("%q accepted but %d plies played", s, p.Ply())
		}
	})
}

func FuzzParseVariant(f *testing.F) {
	for _, name := range configs.VariantNames() {
		data, _ := configs.VariantYAML(name)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := game.ParseVariant(data, configs.VariantYAML)
		if err != nil {
			return
		}
		p := r.Start()
		p.Decisions(nil)
	})
}

func FuzzReadPGN(f *testing.F) {
	rec, _ := randomRecord(&testing.T{}, "daablot", 3)
	var buf bytes.Buffer
	rec.WritePGN(&buf)
	f.Add(buf.String())
	f.Fuzz(func(t *testing.T, text string) {
		recs, err := game.ReadPGN(strings.NewReader(text))
		if err != nil {
			return
		}
		// ReadRecords reads the same text the same way.
		if again, err := game.ReadRecords(strings.NewReader(text)); err != nil || len(again) != len(recs) {
			t.Fatalf("ReadRecords: %d records, %v; ReadPGN: %d", len(again), err, len(recs))
		}
		for _, rec := range recs {
			if r, err := configs.Variant(rec.Variant); err == nil {
				rec.Replay(r)
			}
		}
	})
}
