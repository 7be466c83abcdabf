package study

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts/match"
)

// TestKingRaces: a game won by taking the king and then the last piece,
// and a game drawn by the no-capture limit with one king on the board,
// each summed for both players.
func TestKingRaces(t *testing.T) {
	r := configs.MustVariant("dablot")
	recs := []*game.Record{
		// South's king takes North's king and, the chain going on, its
		// last soldier.
		{Variant: "dablot", Setup: "6/5/2s3/5/6/5/2k3/5/2K3/5/6/5/S5 s", South: "A", North: "B", Result: "1-0",
			NoCaptureLimit: r.NoCaptureLimit, MaxPlies: r.MaxPlies, Turns: []string{"e5xe9xe13"}},
		// North alone has no king; one quiet turn reaches the limit.
		{Variant: "dablot", Setup: "s5/5/6/5/6/5/6/5/6/5/6/5/S4K s - 99", South: "B", North: "A", Result: "1/2-1/2",
			NoCaptureLimit: r.NoCaptureLimit, MaxPlies: r.MaxPlies, Turns: []string{"a1-a3"}},
	}
	// North's king takes South's and nothing else, two soldiers behind
	// beside the kings; the game ends at its ply limit.
	recs = append(recs, &game.Record{Variant: "dablot", Setup: "6/5/6/5/2k3/5/2K3/5/6/5/S5/5/S5 n - 0 500", South: "A", North: "B", Result: "1/2-1/2",
		NoCaptureLimit: r.NoCaptureLimit, MaxPlies: r.MaxPlies, Turns: []string{"e9xe5"}})
	races, err := KingRaces(recs, r)
	if err != nil {
		t.Fatal(err)
	}
	if kr := races[2]; !kr.Taken || kr.FirstLost != game.South || kr.Lead != -2 || kr.Result.Outcome != game.Draw ||
		kr.Beside != [2]int{2, 0} || kr.FromStart {
		t.Errorf("game 3: %+v", kr)
	}
	// North, holding the only king, drew with nothing beside it against two
	// soldiers: a conversion missed.
	if st := SumKingRaces(races); st[1].Player != "B" || len(st[1].OnlyKingDrawEnds) != 2 ||
		st[1].OnlyKingDrawEnds[[2]int{0, 2}] != 1 || st[1].OnlyKingDrawEnds[[2]int{1, 1}] != 1 || st[0].OnlyKingDrawEnds != nil {
		t.Errorf("draws holding the only king: A %v, B %v", st[0].OnlyKingDrawEnds, st[1].OnlyKingDrawEnds)
	}
	races = races[:2]
	if kr := races[0]; !kr.Taken || kr.FirstLost != game.North || kr.Turn != 1 || kr.Pieces != 2 || kr.Lead != 1 ||
		kr.Result.Outcome != game.SouthWins || kr.Kings != [2]bool{true, false} {
		t.Errorf("game 1: %+v", kr)
	}
	// The race ended the game: there is no position after it to play.
	if races[0].After != "" {
		t.Errorf("game 1 ended with the race, yet the position after it is %q", races[0].After)
	}
	if kr := races[1]; kr.Taken || kr.Result.Reason != game.NoCaptureLimit || kr.Kings != [2]bool{true, false} || kr.Beside != [2]int{1, 1} {
		t.Errorf("game 2: %+v", kr)
	}
	stats := SumKingRaces(races)
	if len(stats) != 2 || stats[0].Player != "A" || stats[1].Player != "B" {
		t.Fatalf("players: %+v", stats)
	}
	a, b := stats[0], stats[1]
	if a.TheirsFirst != (match.WDL{W: 1}) || a.OwnFirst != (match.WDL{}) || a.NoneTaken != (match.WDL{D: 1}) ||
		a.All != (match.WDL{W: 1, D: 1}) || len(a.TheirTurns) != 1 || a.TheirTurns[0] != 1 ||
		a.DrawsOnlyKing != 0 || a.DrawsOpponentOnlyKing != 1 || len(a.ByLead) != 1 || a.ByLead[1] != (match.WDL{W: 1}) {
		t.Errorf("A: %+v", a)
	}
	if b.OwnFirst != (match.WDL{L: 1}) || b.NoneTaken != (match.WDL{D: 1}) || b.DrawsOnlyKing != 1 || len(b.OwnTurns) != 1 || b.ByLead != nil {
		t.Errorf("B: %+v", b)
	}

	// A game played from the variant's start is told from the others.
	p := r.Start()
	start := game.NewRecord(r, &p)
	rng := rand.New(rand.NewPCG(3, 1))
	for !p.Status().Over() {
		turns := p.Turns()
		s := turns[rng.IntN(len(turns))].Format(r.Board)
		if err := p.ApplyTurn(s); err != nil {
			t.Fatal(err)
		}
		start.Turns = append(start.Turns, s)
	}
	start.Finish(p.Status())
	if rs, err := KingRaces([]*game.Record{start, recs[0]}, r); err != nil || !rs[0].FromStart || rs[1].FromStart {
		t.Errorf("from the start: %v, %+v", err, rs)
	}

	// A record that does not replay, or that is unfinished, names itself.
	bad := *recs[0]
	bad.Turns = nil
	if _, err := KingRaces([]*game.Record{recs[0], &bad}, r); err == nil {
		t.Error("an unfinished record: no error")
	} else if re, ok := err.(*RecordError); !ok || re.Record != 2 || !strings.Contains(err.Error(), "unfinished") {
		t.Errorf("an unfinished record: %v", err)
	}
	bad.Turns = []string{"e5xe11"}
	if _, err := KingRaces([]*game.Record{&bad}, r); err == nil {
		t.Error("an illegal turn: no error")
	} else if re, ok := err.(*RecordError); !ok || re.Turn != 1 {
		t.Errorf("an illegal turn: %v", err)
	}
}

// TestSumOpenings: the games of one opening are paired by their Pair key
// and players, and each pair is counted by who took the first king.
func TestSumOpenings(t *testing.T) {
	// race is a game of opening pair, south against north, in which the
	// king of the side lost fell first ("" for none).
	race := func(pair, south, north, lost string) KingRace {
		kr := KingRace{Pair: pair, South: south, North: north, Taken: lost != ""}
		if lost == "north" {
			kr.FirstLost = game.North
		}
		return kr
	}
	for _, tc := range []struct {
		name  string
		races []KingRace
		want  OpeningRaces
	}{
		{"south takes it both times", []KingRace{race("x", "A", "B", "north"), race("x", "B", "A", "north")},
			OpeningRaces{Pairs: 1, BySide: [2]int{1, 0}, ByPlayer: map[string]int{}}},
		{"north both times", []KingRace{race("x", "A", "B", "south"), race("x", "B", "A", "south")},
			OpeningRaces{Pairs: 1, BySide: [2]int{0, 1}, ByPlayer: map[string]int{}}},
		{"A both times", []KingRace{race("x", "A", "B", "north"), race("x", "B", "A", "south")},
			OpeningRaces{Pairs: 1, ByPlayer: map[string]int{"A": 1}}},
		{"no king in one game", []KingRace{race("x", "A", "B", "north"), race("x", "B", "A", "")},
			OpeningRaces{Pairs: 1, ByPlayer: map[string]int{}, NoKing: 1}},
		{"other openings do not pair", []KingRace{race("x", "A", "B", "north"), race("y", "B", "A", "north")},
			OpeningRaces{ByPlayer: map[string]int{}}},
		{"nor the same colours", []KingRace{race("x", "A", "B", "north"), race("x", "A", "B", "north")},
			OpeningRaces{ByPlayer: map[string]int{}}},
		{"nor other players", []KingRace{race("x", "A", "B", "north"), race("x", "B", "C", "north")},
			OpeningRaces{ByPlayer: map[string]int{}}},
		{"nor a player against itself", []KingRace{race("x", "S", "S", "north"), race("x", "S", "S", "south")},
			OpeningRaces{ByPlayer: map[string]int{}}},
		// First in, first paired: games 1 and 3 (south both times), 2
		// and 4 (north both times); pairing the last first would give A
		// once and B once.
		{"an opening played four times is two pairs, in order", []KingRace{
			race("x", "A", "B", "north"), race("x", "A", "B", "south"), race("x", "B", "A", "north"), race("x", "B", "A", "south"),
		}, OpeningRaces{Pairs: 2, BySide: [2]int{1, 1}, ByPlayer: map[string]int{}}},
	} {
		got := SumOpenings(tc.races)
		if got.Pairs != tc.want.Pairs || got.BySide != tc.want.BySide || got.NoKing != tc.want.NoKing || !maps.Equal(got.ByPlayer, tc.want.ByPlayer) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestRaceBook: one position for each opening, its first game's in which
// a king fell and the game went on, and no position twice.
func TestRaceBook(t *testing.T) {
	races := []KingRace{
		{Pair: "x", Taken: false},
		{Pair: "x", Taken: true}, // the race ended the game
		{Pair: "x", Taken: true, After: "p1"},
		{Pair: "x", Taken: true, After: "p2"},
		{Pair: "y", Taken: true, After: "p1"}, // y's position is x's already
		{Pair: "y", Taken: true, After: "p9"},
		{Pair: "z", Taken: true, After: "p3"},
	}
	if got, want := RaceBook(races), []string{"p1", "p3"}; !slices.Equal(got, want) {
		t.Errorf("RaceBook: %q, want %q", got, want)
	}
}
