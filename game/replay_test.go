package game_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// keylandOver is a finished game of keyland: North has no pieces left.
const keylandOver = "6/5/6/5/6/5/6/5/6/5/6/5/S5 n"

// overPosition returns the position of keylandOver.
func overPosition(t *testing.T) game.Position {
	t.Helper()
	p, err := game.ParseFEN(configs.MustVariant("keyland"), keylandOver)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSortedTurns(t *testing.T) {
	keyland := configs.MustVariant("keyland")
	over := overPosition(t)
	for _, tc := range []struct {
		name string
		p    game.Position
		want []string
	}{
		// In the order of the notation, not of the move generator.
		{"start", keyland.Start(), strings.Fields("a5-b6 c5-b6 c5-c7 c5-d6 e5-d6 e5-e7 e5-f6 g5-f6 g5-g7 g5-h6 i5-h6 i5-i7 j6-i7 k7-i7 k7-j8")},
		{"compulsory capture", mustPosition(t, "dablot", "K:e5 S:a1 s:e7 k:k13", "s"), []string{"e5xe9"}},
		{"chain may stop", mustPosition(t, "keyland", "S:a1 s:a3,a7 K:k1 k:k13", "s"), []string{"a1-b2", "a1-c1", "a1xa5", "a1xa5xa9", "k1-i1", "k1-j2", "k1-k3"}},
		{"game over", over, []string{}},
	} {
		turns, texts := tc.p.SortedTurns()
		if !slices.Equal(texts, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, texts, tc.want)
		}
		if len(turns) != len(texts) {
			t.Fatalf("%s: %d turns, %d texts", tc.name, len(turns), len(texts))
		}
		for i, turn := range turns {
			if turn.Format(tc.p.Board()) != texts[i] {
				t.Errorf("%s: turn %d is %s, its text %s", tc.name, i, turn.Format(tc.p.Board()), texts[i])
			}
			if _, err := tc.p.TurnDecisions(turn); err != nil {
				t.Errorf("%s: %s: %v", tc.name, texts[i], err)
			}
		}
	}
}

func TestApplyTurns(t *testing.T) {
	keyland := configs.MustVariant("keyland")
	start := keyland.Start()
	after := start
	for _, s := range []string{"i5-i7", "i9xi5"} {
		if err := after.ApplyTurn(s); err != nil {
			t.Fatal(err)
		}
	}
	over := overPosition(t)
	for _, tc := range []struct {
		name  string
		from  game.Position
		turns []string
		want  []string         // the turns as played, in the notation
		end   game.Position    // the position after them
		err   string           // the error's start, if the turns are bad
		is    func(error) bool // what else the error must say
	}{
		{name: "none", from: start, turns: nil, want: []string{}, end: start},
		{name: "two", from: start, turns: []string{"i5-i7", "i9xi5"}, want: []string{"i5-i7", "i9xi5"}, end: after},
		{name: "canonical notation", from: start, turns: []string{" I5-I7", "I9XI5 "}, want: []string{"i5-i7", "i9xi5"}, end: after},
		{name: "not a turn", from: start, turns: []string{"i5-i7", "zz"}, err: `turn 2: move "zz": want a step`},
		{name: "not legal", from: start, turns: []string{"i5-i9"}, err: `turn 1: move "i5-i9": i9 is not one step from i5`},
		{name: "legal only later", from: start, turns: []string{"i9xi5", "i5-i7"}, err: `turn 1: move "i9xi5": `},
		{name: "empty", from: start, turns: []string{"i5-i7", ""}, err: "turn 2: empty move"},
		{name: "after the end", from: over, turns: []string{"a1-a3"}, err: `turn 1: move "a1-a3": the game is over (south wins`},
	} {
		p := tc.from
		played, err := p.ApplyTurns(tc.turns)
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one starting %q", tc.name, err, tc.err)
			}
			if p.FEN() != tc.from.FEN() || p.Ply() != tc.from.Ply() {
				t.Errorf("%s: the position changed to %s on an error", tc.name, p.FEN())
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		got := []string{}
		for _, turn := range played {
			got = append(got, turn.Format(p.Board()))
		}
		if !slices.Equal(got, tc.want) || p.FEN() != tc.end.FEN() || p.Hash() != tc.end.Hash() {
			t.Errorf("%s: played %q to %s, want %q to %s", tc.name, got, p.FEN(), tc.want, tc.end.FEN())
		}
	}
}

func TestParseSetup(t *testing.T) {
	keyland := configs.MustVariant("keyland")
	start := keyland.Start()
	for _, tc := range []struct {
		setup, want string // want: the FEN of the position, "" for an error
	}{
		{"", start.FEN()},
		{"startpos", start.FEN()},
		{keylandOver, keylandOver},
		{"x", ""},
		{"sssss/ssss/pssss/ksss/5/SSSK/SSSSP/SSSS/SSSSS s", ""}, // another board
		{"STARTPOS", ""},
	} {
		p, err := game.ParseSetup(keyland, tc.setup)
		var fe *game.FENError
		switch {
		case tc.want == "" && !errors.As(err, &fe):
			t.Errorf("%q: error %v, want a FEN error", tc.setup, err)
		case tc.want != "" && (err != nil || p.FEN() != tc.want):
			t.Errorf("%q: %s (%v), want %s", tc.setup, p.FEN(), err, tc.want)
		}
	}
}
