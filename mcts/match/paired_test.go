package match

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/game"
)

// pairRecord is a finished game of player against anchor: game k, the
// player South when south, with the player's result "w", "d" or "l".
func pairRecord(k int, player, anchor string, south bool, result string) *game.Record {
	r := &game.Record{Variant: "dablot", Setup: "fen" + strconv.Itoa((k+1)/2), Tags: map[string]string{tagGame: strconv.Itoa(k)}}
	r.South, r.North = player, anchor
	if !south {
		r.South, r.North = anchor, player
	}
	win, loss := "1-0", "0-1"
	if !south {
		win, loss = loss, win
	}
	r.Result = map[string]string{"w": win, "d": "1/2-1/2", "l": loss}[result]
	return r
}

// pairMatch is the match of player against anchor with the player's
// results in order, the player South in the odd games.
func pairMatch(player, anchor, results string) []*game.Record {
	var recs []*game.Record
	for i, c := range results {
		recs = append(recs, pairRecord(i+1, player, anchor, i%2 == 0, string(c)))
	}
	return recs
}

func TestPair(t *testing.T) {
	const anchor = "alphabeta:ms=100"
	a := pairMatch("gumbel:model=a.dbm", anchor, "wwdld")
	b := pairMatch("gumbel:model=b.dbm", anchor, "wdldl")
	p, err := Pair(a, b, "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Anchor != anchor || p.A != "gumbel:model=a.dbm" || p.B != "gumbel:model=b.dbm" {
		t.Errorf("anchor %q, A %q, B %q", p.Anchor, p.A, p.B)
	}
	if p.AWDL != (WDL{2, 2, 1}) || p.BWDL != (WDL{1, 2, 2}) {
		t.Errorf("A %v, B %v", p.AWDL, p.BWDL)
	}
	// The differences: 0, +0.5, +0.5, -0.5, +0.5.
	if p.Better != 3 || p.Same != 1 || p.Worse != 1 || p.Games() != 5 || p.Unpaired != 0 {
		t.Errorf("better %d, same %d, worse %d of %d, unpaired %d", p.Better, p.Same, p.Worse, p.Games(), p.Unpaired)
	}
	m, h := p.Diff(0.95)
	// Mean 0.2; squared deviations 0.04+0.09+0.09+0.49+0.09 = 0.8, so the
	// sample variance is 0.2 and the standard error sqrt(0.2/5) = 0.2.
	if math.Abs(m-0.2) > 1e-12 || math.Abs(h-1.959964*0.2) > 1e-6 {
		t.Errorf("diff %v ± %v, want 0.2 ± %v", m, h, 1.959964*0.2)
	}
	// Swapping the matches negates the difference.
	q, err := Pair(b, a, anchor)
	if err != nil {
		t.Fatal(err)
	}
	if m2, h2 := q.Diff(0.95); math.Abs(m2+m) > 1e-12 || math.Abs(h2-h) > 1e-12 || q.Better != p.Worse {
		t.Errorf("swapped: %v ± %v, better %d", m2, h2, q.Better)
	}
}

func TestPairUnequalMatches(t *testing.T) {
	const anchor = "alphabeta:ms=100"
	a := pairMatch("A", anchor, "wwdl")
	b := pairMatch("B", anchor, "ll")
	p, err := Pair(a, b, anchor)
	if err != nil {
		t.Fatal(err)
	}
	if p.Games() != 2 || p.Unpaired != 2 || p.Better != 2 {
		t.Errorf("%d games, %d unpaired, %d better", p.Games(), p.Unpaired, p.Better)
	}
	// Records without game numbers pair by their order.
	for _, r := range append(a, b...) {
		delete(r.Tags, tagGame)
	}
	if p, err = Pair(a, b, anchor); err != nil || p.Games() != 2 {
		t.Errorf("without game numbers: %d games, %v", p.Games(), err)
	}
}

func TestPairErrors(t *testing.T) {
	const anchor = "alphabeta:ms=100"
	good := func() ([]*game.Record, []*game.Record) {
		return pairMatch("A", anchor, "wdl"), pairMatch("B", anchor, "dll")
	}
	for _, tc := range []struct {
		name   string
		anchor string
		spoil  func(a, b []*game.Record) ([]*game.Record, []*game.Record)
		want   string
	}{
		{"empty", "", func(a, b []*game.Record) ([]*game.Record, []*game.Record) { return a, nil }, "without games"},
		{"no common player", "", func(a, b []*game.Record) ([]*game.Record, []*game.Record) {
			return a, pairMatch("B", "alphabeta:ms=1000", "dll")
		}, "no player is in every game"},
		{"the same match twice", "", func(a, b []*game.Record) ([]*game.Record, []*game.Record) { return a, a }, "name the common opponent"},
		{"anchor absent", "uct:playouts=1000", func(a, b []*game.Record) ([]*game.Record, []*game.Record) { return a, b }, "does not play in it"},
		{"two players", "", func(a, b []*game.Record) ([]*game.Record, []*game.Record) {
			b[2] = pairRecord(3, "C", anchor, true, "d")
			return a, b
		}, "two players against"},
		{"other opening", "", func(a, b []*game.Record) ([]*game.Record, []*game.Record) {
			b[1].Setup = "elsewhere"
			return a, b
		}, "game 2: the matches start from different positions"},
		{"other random turns", "", func(a, b []*game.Record) ([]*game.Record, []*game.Record) {
			b[0].Tags[tagOpening] = "a1-b2"
			return a, b
		}, "game 1: the matches open differently"},
		{"colours swapped", "", func(a, b []*game.Record) ([]*game.Record, []*game.Record) {
			b[2] = pairRecord(3, "B", anchor, false, "d")
			return a, b
		}, "plays South in one match and North in the other"},
		{"unfinished", "", func(a, b []*game.Record) ([]*game.Record, []*game.Record) {
			a[1].Result = "*"
			return a, b
		}, "match A, game 2 is unfinished"},
		{"a game twice", "", func(a, b []*game.Record) ([]*game.Record, []*game.Record) {
			b[1].Tags[tagGame] = "1"
			return a, b
		}, "match B has game 1 twice"},
		{"bad game number", "", func(a, b []*game.Record) ([]*game.Record, []*game.Record) {
			b[1].Tags[tagGame] = "two"
			return a, b
		}, `game number "two"`},
		{"no game in both", "", func(a, b []*game.Record) ([]*game.Record, []*game.Record) {
			for i, r := range b {
				r.Tags[tagGame] = strconv.Itoa(10 + i)
			}
			return a, b
		}, "no game number is in both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := tc.spoil(good())
			_, err := Pair(a, b, tc.anchor)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func ExamplePair() {
	const anchor = "alphabeta:ms=100"
	before := pairMatch("gumbel:model=old.dbm", anchor, "wdldwdld")
	after := pairMatch("gumbel:model=new.dbm", anchor, "wwddwwdd")
	p, err := Pair(after, before, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("A", p.AWDL.String())
	fmt.Println("B", p.BWDL.String())
	fmt.Println(p)
	// Output:
	// A +4 =4 -0  score 75.0% [57.7%, 92.3%]  Elo +191 [+54, +432]
	// B +2 =4 -2  score 50.0% [25.5%, 74.5%]  Elo 0 [-186, +186]
	// A − B +25.0 ± 18.5 points per 100 games (95 %): A better in 4, the same in 4, worse in 0 of 8 games
}
