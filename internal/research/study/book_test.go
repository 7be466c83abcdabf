package study

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/net/model/modeltest"
)

// checkBook asserts that every opening of a book is legal (reached from
// the start by its turns, not over), level (equal pieces of every rank, and
// cfg.Check passes with the score recorded) and distinct up to symmetry.
func checkBook(t *testing.T, r *game.Rules, cfg BookConfig, ops []BookOpening) {
	t.Helper()
	seen := map[string]int{}
	for i, o := range ops {
		p := r.Start()
		for _, turn := range o.Turns {
			if err := p.ApplyTurn(turn); err != nil {
				t.Fatalf("opening %d: turn %s: %v", i, turn, err)
			}
		}
		if p.FEN() != o.Position.FEN() {
			t.Errorf("opening %d: its turns reach %s, not %s", i, p.FEN(), o.Position.FEN())
		}
		if len(o.Turns) != cfg.Turns+i%2 {
			t.Errorf("opening %d: %d turns, want %d", i, len(o.Turns), cfg.Turns+i%2)
		}
		start := r.Start()
		want := start.SideToMove()
		if (cfg.Turns+i%2)%2 == 1 {
			want = want.Other()
		}
		if p.SideToMove() != want {
			t.Errorf("opening %d: %v to move, want %v (openings alternate the side to move)", i, p.SideToMove(), want)
		}
		if len(p.Decisions(nil)) == 0 || p.Status().Over() {
			t.Errorf("opening %d is over: %s", i, p.FEN())
		}
		for rank := range game.Rank(game.NumRanks) {
			if s, n := p.Pieces(game.South, rank).Count(), p.Pieces(game.North, rank).Count(); s != n {
				t.Errorf("opening %d: %d South %ss, %d North", i, s, rank, n)
			}
		}
		score, err := cfg.Check(context.Background(), &p)
		if err != nil || score != o.Score || score > cfg.Margin || score < -cfg.Margin {
			t.Errorf("opening %d: check %d, %v; recorded %d", i, score, err, o.Score)
		}
		key := OpeningKey(&p)
		if j, dup := seen[key]; dup {
			t.Errorf("openings %d and %d are the same up to symmetry", j, i)
		}
		seen[key] = i
	}
}

// TestMakeBook: the generator is deterministic (the same seed writes the
// same book, another seed another), and yields legal, level, distinct
// openings on every kind of rules.
func TestMakeBook(t *testing.T) {
	for _, v := range []string{"dablot", "winther", "frostviken", "keyland"} {
		r := configs.MustVariant(v)
		cfg := BookConfig{Openings: 12, Turns: 6, Depth: 2, Margin: 40, Seed: 3}
		write := func(cfg BookConfig) (*Book, string) {
			b, err := MakeBook(context.Background(), r, cfg)
			if err != nil {
				t.Fatalf("%s: %v", v, err)
			}
			var buf bytes.Buffer
			if err := b.Write(&buf, "dablot analyse book ..."); err != nil {
				t.Fatal(err)
			}
			return b, buf.String()
		}
		b, text := write(cfg)
		if len(b.Openings) != cfg.Openings || b.Tries < cfg.Openings {
			t.Fatalf("%s: %d openings in %d tries", v, len(b.Openings), b.Tries)
		}
		checkBook(t, r, cfg, b.Openings)
		if _, again := write(cfg); again != text {
			t.Errorf("%s: the same seed wrote another book", v)
		}
		other := cfg
		other.Seed = 4
		if _, text4 := write(other); text4 == text {
			t.Errorf("%s: seeds 3 and 4 wrote the same book", v)
		}
		// The book reads back as its positions.
		ps, err := configs.ParseBook(r, "book.txt", []byte(text))
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		for i := range ps {
			if ps[i].FEN() != b.Openings[i].Position.FEN() || ps[i].Hash() != b.Openings[i].Position.Hash() {
				t.Errorf("%s: opening %d reads back as %s, not %s", v, i, ps[i].FEN(), b.Openings[i].Position.FEN())
			}
		}
	}
}

// TestMakeBookRejects: openings that are not level are left out, and a
// book that cannot be filled is an error that says what to change.
func TestMakeBookRejects(t *testing.T) {
	r := configs.MustVariant("dablot")
	// Margin 0 at depth 1 keeps only openings scored exactly level.
	cfg := BookConfig{Openings: 3, Turns: 6, Depth: 1, Margin: 0, Seed: 1}
	b, err := MakeBook(context.Background(), r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range b.Openings {
		if o.Score != 0 {
			t.Errorf("score %d beyond a margin of 0", o.Score)
		}
	}
	if b.Tries <= len(b.Openings) {
		t.Errorf("%d tries for %d openings: nothing was rejected", b.Tries, len(b.Openings))
	}
	// There is only one position after 0 turns, and openings alternate
	// between 0 and 1 turns: no book of three.
	_, err = MakeBook(context.Background(), r, BookConfig{Openings: 3, Turns: 0, Depth: 1, Margin: 50, Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "only 2 of 3 openings") || !strings.Contains(err.Error(), "fewer turns or a larger margin") {
		t.Errorf("error %v", err)
	}
}

// TestBookCheck: the balance check names why a position is not level.
func TestBookCheck(t *testing.T) {
	r := configs.MustVariant("dablot")
	cfg := DefaultBookConfig(1, 1)
	for _, tc := range []struct {
		fen, want string
	}{
		{"6/5/6/5/6/5/6/5/6/5/6/5/SS4 s", "the game is over"},
		// North has a soldier fewer.
		{"ssssss/sssss/ssssss/sssss/sssss1/p4/k4K/4P/SSSSSS/SSSSS/SSSSSS/SSSSS/SSSSSS s", "South has 28 soldiers, North 27"},
		// Level in material, but South to move takes a soldier (a1xa5).
		{"5s/5/6/5/6/5/6/5/6/5/s5/5/S4S s", "scores +"},
	} {
		p, err := game.ParseFEN(r, tc.fen)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cfg.Check(context.Background(), &p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.fen, err, tc.want)
		}
	}
}

// TestOpeningKey: an opening, its mirror image and its colour swap share a
// key; other positions do not.
func TestOpeningKey(t *testing.T) {
	r := configs.MustVariant("dablot")
	ps := modeltest.RandomPositions(r, 30, 5)
	keys := map[string]string{}
	for _, p := range ps {
		k := OpeningKey(&p)
		for _, s := range []game.Symmetry{game.Mirror, game.HalfTurnSwap} {
			q := s.Position(&p)
			if OpeningKey(&q) != k {
				t.Errorf("%s and its image %s have other keys", p.FEN(), q.FEN())
			}
		}
		if prev, ok := keys[k]; ok && prev != p.BoardFEN() {
			// Another picture with the same key must be one of p's images.
			same := false
			for _, s := range []game.Symmetry{game.Mirror, game.HalfTurnSwap} {
				q := s.Position(&p)
				m := game.Mirror.Position(&q)
				same = same || q.BoardFEN() == prev || m.BoardFEN() == prev
			}
			if !same {
				t.Errorf("%s and %s share a key", p.BoardFEN(), prev)
			}
		}
		keys[k] = p.BoardFEN()
	}
}

// TestBookConfigValidate names the setting out of range.
func TestBookConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		edit func(*BookConfig)
		want string
	}{
		{func(c *BookConfig) { c.Openings = 0 }, "openings 0"},
		{func(c *BookConfig) { c.Turns = -1 }, "turns -1"},
		{func(c *BookConfig) { c.Depth = 0 }, "depth 0"},
		{func(c *BookConfig) { c.Depth = 9 }, "depth 9"},
		{func(c *BookConfig) { c.Margin = -5 }, "margin -5"},
	} {
		c := DefaultBookConfig(10, 1)
		tc.edit(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", c, err, tc.want)
		}
		if _, err := MakeBook(context.Background(), configs.MustVariant("dablot"), c); err == nil {
			t.Errorf("MakeBook accepted %+v", c)
		}
	}
	if c := DefaultBookConfig(10, 1); c.Validate() != nil {
		t.Error(c.Validate())
	}
}

// TestShippedBooks: the books of configs/books/ are those the book command
// makes with the default settings, 50 level, distinct openings each, one
// for every built-in variant. The balance of the first few is checked
// again (the book command's test checks that one regenerates).
func TestShippedBooks(t *testing.T) {
	names := configs.BookNames()
	if want := configs.VariantNames(); !slices.Equal(names, want) {
		t.Errorf("books %v, want one for each variant %v", names, want)
	}
	for _, v := range names {
		r := configs.MustVariant(v)
		cfg := DefaultBookConfig(50, 1)
		ps, ok, err := configs.Book(r)
		if err != nil || !ok || len(ps) != cfg.Openings {
			t.Fatalf("%s: %d openings, %v, %v", v, len(ps), ok, err)
		}
		data, err := configs.BookText(v)
		if err != nil {
			t.Fatal(err)
		}
		made := fmt.Sprintf("# Made by: dablot analyse book --variant %s --openings %d --turns %d --depth %d --margin %d --seed %d\n",
			v, cfg.Openings, cfg.Turns, cfg.Depth, cfg.Margin, cfg.Seed)
		if !strings.Contains(string(data), made) {
			t.Errorf("%s: the header lacks %q", v, made)
		}
		seen := map[string]bool{}
		for i, p := range ps {
			for rank := range game.Rank(game.NumRanks) {
				if s, n := p.Pieces(game.South, rank).Count(), p.Pieces(game.North, rank).Count(); s != n {
					t.Errorf("%s opening %d: %d South %ss, %d North", v, i+1, s, rank, n)
				}
			}
			if seen[OpeningKey(&p)] {
				t.Errorf("%s opening %d repeats an earlier one up to symmetry", v, i+1)
			}
			seen[OpeningKey(&p)] = true
			if i < 3 {
				if _, err := cfg.Check(context.Background(), &p); err != nil {
					t.Errorf("%s opening %d: %v", v, i+1, err)
				}
			}
		}
	}
}
