package study

import (
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts/match"
)

func TestAnalyseGames(t *testing.T) {
	r := configs.MustVariant("keyland")
	// South's king on a7 can take North's on c7; South has two soldiers
	// and North one, so South leads by one while both kings stand.
	const kings = "s5/5/6/5/6/5/Kk4/5/6/5/6/5/SS4 s"
	recs := []*game.Record{
		{Variant: "keyland", Setup: kings, Result: "1-0", Turns: []string{"a7xe7"}},
		{Variant: "keyland", Setup: kings, Result: "1/2-1/2", Turns: []string{"a1-b2"}},
		{Variant: "keyland", Result: "0-1", Turns: []string{"a5-b6"}},
		{Variant: "keyland", Result: "*", Turns: []string{"a5-b6"}}, // unfinished: left out
	}
	f, err := AnalyseGames(recs, r, 0, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if f.Games != 3 {
		t.Errorf("games %d, want 3", f.Games)
	}
	if want := (match.WDL{L: 1}); f.KingFirst != want {
		t.Errorf("king taken first: %+v, want %+v (North lost its king and the game)", f.KingFirst, want)
	}
	if want := (match.WDL{D: 1, L: 1}); f.NoKingTaken != want {
		t.Errorf("no king taken: %+v, want %+v for South", f.NoKingTaken, want)
	}
	tests := []struct {
		min, max, positions int
		result              match.WDL
		later               float64
	}{
		{0, 0, 1, match.WDL{L: 1}, 0},
		{1, 2, 2, match.WDL{W: 1, D: 1}, 1}, // the position after a7xe7 has one king: not counted
		{3, 5, 0, match.WDL{}, 0},
		{6, 9, 0, match.WDL{}, 0},
		{10, -1, 0, match.WDL{}, 0},
	}
	if len(f.Leads) != len(tests) {
		t.Fatalf("%d lead buckets, want %d", len(f.Leads), len(tests))
	}
	for i, tt := range tests {
		b := f.Leads[i]
		if b.Min != tt.min || b.Max != tt.max || b.Positions != tt.positions || b.Result != tt.result || b.Later != tt.later {
			t.Errorf("bucket %d: %+v, want %+v", i, b, tt)
		}
	}
	if f.Persistence != 1 {
		t.Errorf("persistence %v, want 1", f.Persistence)
	}

	// A lead of North's counts for North: the mirror game, North to move
	// and ahead, North winning.
	north := []*game.Record{{Variant: "keyland", Setup: "ss4/5/6/5/6/5/4Kk/5/6/5/6/5/5S n", Result: "0-1", Turns: []string{"k7xg7"}}}
	if f, err = AnalyseGames(north, r, 0, 1, 1); err != nil {
		t.Fatal(err)
	}
	if b := f.Leads[1]; b.Positions != 1 || b.Result != (match.WDL{W: 1}) || b.Later != 1 || f.KingFirst != (match.WDL{L: 1}) {
		t.Errorf("North ahead: lead bucket %+v, king first %+v", b, f.KingFirst)
	}
}

func TestAnalyseGamesErrors(t *testing.T) {
	r := configs.MustVariant("keyland")
	for _, tt := range []struct {
		recs                 []*game.Record
		from, every, horizon int
		want                 string
	}{
		{nil, 0, 0, 1, "every 0"},
		{nil, -1, 1, 1, "from -1"},
		{nil, 0, 1, 0, "horizon 0"},
		{[]*game.Record{{Variant: "dablot", Result: "1-0"}}, 0, 1, 1, `record 1: record is of variant "dablot"`},
		{[]*game.Record{{Variant: "keyland", Result: "1-0", Turns: []string{"a5-b6", "a5-b6"}}}, 0, 1, 1, `record 1, turn 2 "a5-b6"`},
	} {
		_, err := AnalyseGames(tt.recs, r, tt.from, tt.every, tt.horizon)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("error %v, want one containing %q", err, tt.want)
		}
	}
}
