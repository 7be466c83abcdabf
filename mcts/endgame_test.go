package mcts

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/game/endgame"
)

// TestEndgameTablesWin: from a dablot ending the tables call won (king
// and prince against a soldier, the 1 s ladder's game 36, which the model
// drew), a player with eg=3 wins against alpha-beta, playing the tables'
// turn at every turn; with more pieces than its tables hold it searches.
func TestEndgameTablesWin(t *testing.T) {
	r := configs.MustVariant("dablot")
	p, err := game.ParseFEN(r, "1p4/5/4k1/5/6/5/6/5/1S4/5/6/5/6 s - 0 264")
	if err != nil {
		t.Fatal(err)
	}
	tables, err := solvedEnding(context.Background(), r, endgame.MaterialOf(&p))
	if err != nil {
		t.Fatal(err)
	}
	if res, ok := tables.Probe(&p); !ok || res.Outcome != endgame.Loss {
		t.Fatalf("the tables give %v, %v for the soldier to move; want a loss", res, ok)
	}
	north := mustPlayer(t, "gumbel:eval=material,sims=16,eg=3", 1)
	south := mustPlayer(t, "alphabeta:depth=4", 2)
	ctx := context.Background()
	turns := 0
	for ; !p.Status().Over(); turns++ {
		if turns > 2*r.NoCaptureLimit {
			t.Fatalf("not over after %d turns: %s", turns, p.FEN())
		}
		pl := south
		if p.SideToMove() == game.North {
			pl = north
			want, _, _ := tables.BestTurn(&p)
			wantDs, err := p.TurnDecisions(want)
			if err != nil {
				t.Fatal(err)
			}
			ds, err := PlayTurn(ctx, pl, &p)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ds, wantDs) {
				t.Fatalf("in %s the player plays %v, the tables %v", p.FEN(), ds, wantDs)
			}
			continue
		}
		if _, err := PlayTurn(ctx, pl, &p); err != nil {
			t.Fatal(err)
		}
	}
	if w, ok := p.Status().Outcome.Winner(); !ok || w != game.North {
		t.Fatalf("the game ended %v in %s; want North's win", p.Status(), p.FEN())
	}
	t.Logf("won in %d turns", turns)
	// Four pieces: the search plays (the tables hold three).
	q, err := game.ParseFEN(r, "6/5/6/5/1sKS2/5/6/5/6/5/4s1/5/6 s - 0 152")
	if err != nil {
		t.Fatal(err)
	}
	e := &EndgameTables{Pieces: 3}
	if _, ok, err := e.Turn(ctx, &q); ok || err != nil {
		t.Fatalf("tables of 3 pieces play a position of 4: %v", err)
	}
}

// TestEndgameTablesShared: players of several games at once solve an
// ending once (the one TestEndgameTablesWin solved, if it ran first) and
// agree; rules the tables cannot follow are an error.
func TestEndgameTablesShared(t *testing.T) {
	r := configs.MustVariant("dablot")
	p, err := game.ParseFEN(r, "1p4/5/6/5/4k1/5/6/5/1S4/5/6/5/6 n - 0 265")
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEndgameTables(3)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	got := make([][]game.Decision, 4)
	for i := range got {
		wg.Go(func() {
			ds, ok, err := e.Turn(context.Background(), &p)
			if err != nil || !ok {
				t.Errorf("player %d: ok %v, %v", i, ok, err)
			}
			got[i] = ds
		})
	}
	wg.Wait()
	for i := range got {
		if len(got[i]) == 0 || !slices.Equal(got[i], got[0]) {
			t.Fatalf("players disagree: %v", got)
		}
	}
	k := configs.MustVariant("keyland")
	kp := k.Start()
	small := &EndgameTables{Pieces: 64}
	if _, _, err := small.Turn(context.Background(), &kp); err == nil || !strings.Contains(err.Error(), "passes") {
		t.Errorf("keyland: %v, want an error that a side with no move passes", err)
	}
	for _, n := range []int{1, 4} {
		if _, err := NewEndgameTables(n); err == nil {
			t.Errorf("tables of %d pieces made", n)
		}
	}
	// Where the rules are known, eg= on rules the tables refuse fails at
	// once; on rules they follow, or unknown ones, it is a player.
	for _, tc := range []struct {
		rules *game.Rules
		want  string
	}{{k, "eg=3: endgame: keyland"}, {r, ""}, {nil, ""}} {
		f, err := ParseFactory("gumbel:eval=material,sims=8,eg=3", SpecOptions{Rules: tc.rules})
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("rules %v: %v, want %q", tc.rules != nil, err, tc.want)
		}
		if f != nil {
			f.Close()
		}
	}
}

// mustPlayer makes a player of spec s, seeded with seed.
func mustPlayer(t *testing.T, s string, seed uint64) Player {
	t.Helper()
	f, err := ParseFactory(s, SpecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	pl, err := f.New(seed)
	if err != nil {
		t.Fatal(err)
	}
	return pl
}
