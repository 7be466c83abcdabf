package study

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// forcedWithin is a plain AND-OR search: whether South wins p by force
// within d turns (an independent check of the retrograde sweeps).
func forcedWithin(p game.Position, d int) bool {
	if st := p.Status(); st.Over() {
		return st.Outcome == game.SouthWins
	}
	if d == 0 {
		return false
	}
	south := p.SideToMove() == game.South
	result := !south
	p.TurnEnds(func(q *game.Position) {
		if result == south {
			return // decided
		}
		if forcedWithin(*q, d-1) == south {
			result = south
		}
	})
	return result
}

// TestLoneKingAgreesWithSearch solves two soldiers against a lone king on
// the 41-point board under keyland-like rules, then checks sampled
// placements against a plain search: the table's number of turns is the
// least depth at which the search finds a forced win, and a placement
// without one has none within 3 turns. The left-right mirror of a placement
// has the same result.
func TestLoneKingAgreesWithSearch(t *testing.T) {
	if testing.Short() {
		t.Skip("solves 2.4 million placements")
	}
	r := configs.MustVariant("daablot-king,win.lone_king=false")
	tab, err := SolveLoneKing(context.Background(), r, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Results) != 3 {
		t.Fatalf("%d results, want 3", len(tab.Results))
	}
	two := tab.Results[2]
	if two.Positions[0] != 41*40*39*38/2 || two.Positions[1] != two.Positions[0] {
		t.Errorf("placements %v: want %d a side", two.Positions, 41*40*39*38/2)
	}
	if two.Longest < 2 || two.Won[0] == 0 {
		t.Fatalf("two soldiers: longest win %d, %d won: the check below needs deeper wins", two.Longest, two.Won[0])
	}
	deepest, err := game.ParseFEN(r, two.LongestFEN)
	if err != nil {
		t.Fatal(err)
	}
	b := r.Board
	rng := rand.New(rand.NewPCG(1, 2))
	samples := []game.Position{deepest}
	for len(samples) < 300 {
		pts := rng.Perm(b.Points())[:4]
		var pc [2][game.NumRanks]game.Bits
		pc[game.South][game.King] = game.Bit(pts[0])
		pc[game.North][game.King] = game.Bit(pts[1])
		pc[game.South][game.Soldier] = game.Bit(pts[2]).Or(game.Bit(pts[3]))
		p, err := game.Setup(r, game.Side(rng.IntN(2)), pc)
		if err != nil {
			t.Fatal(err)
		}
		samples = append(samples, p)
	}
	wins := 0
	for _, p := range samples {
		plies, ok := tab.Plies(&p)
		if !ok {
			t.Fatalf("%s: not in the table", p.FEN())
		}
		if plies > 0 {
			wins++
			if forcedWithin(p, plies-1) || !forcedWithin(p, plies) {
				t.Errorf("%s: table says a win in %d turns, the search disagrees", p.FEN(), plies)
			}
		} else if plies < 0 && forcedWithin(p, 3) {
			t.Errorf("%s: table says no forced win, the search finds one within 3 turns", p.FEN())
		}
		var pc [2][game.NumRanks]game.Bits
		for s := range game.Side(2) {
			for k := range game.Rank(game.NumRanks) {
				for set := p.Pieces(s, k); !set.Empty(); {
					pc[s][k] = pc[s][k].Or(game.Bit(b.Mirror(set.PopFirst())))
				}
			}
		}
		m, err := game.Setup(r, p.SideToMove(), pc)
		if err != nil {
			t.Fatal(err)
		}
		if mp, _ := tab.Plies(&m); mp != plies {
			t.Errorf("%s: %d turns, its mirror %d", p.FEN(), plies, mp)
		}
	}
	if wins < 10 {
		t.Errorf("only %d of %d samples won: the check says little", wins, len(samples))
	}
}

// TestLoneKingErrors: out-of-range soldiers are refused, and a position that
// is not a lone-king ending is not looked up.
func TestLoneKingErrors(t *testing.T) {
	r := configs.MustVariant("keyland")
	if _, err := SolveLoneKing(context.Background(), r, MaxLoneKingSoldiers+1, nil); err == nil {
		t.Error("too many soldiers accepted")
	}
	tab, err := SolveLoneKing(context.Background(), r, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := r.Start()
	if _, ok := tab.Plies(&start); ok {
		t.Error("the start position looked up as a lone-king ending")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := SolveLoneKing(ctx, r, 1, nil); err == nil {
		t.Error("a cancelled solve returned no error")
	}
}
