package match

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// TestRandomEndgame checks the curriculum's positions on every variant:
// playable, within the piece limits, readable back from their FEN, varied,
// and the same for the same seed.
func TestRandomEndgame(t *testing.T) {
	const maxSoldiers = 5
	for _, name := range configs.VariantNames() {
		r := configs.MustVariant(name)
		start := r.Start()
		draw := func(seed uint64) []string {
			rng := rand.New(rand.NewPCG(seed, 1))
			var fens []string
			for range 200 {
				p, ok := RandomEndgame(r, rng, DefaultEndgame(maxSoldiers))
				if !ok {
					t.Fatalf("%s: no endgame found", name)
				}
				fens = append(fens, p.FEN())
			}
			return fens
		}
		fens := draw(1)
		if !slices.Equal(fens, draw(1)) {
			t.Fatalf("%s: the same seed drew different endgames", name)
		}
		if slices.Equal(fens, draw(2)) {
			t.Fatalf("%s: seeds 1 and 2 drew the same endgames", name)
		}
		toMove := map[game.Side]int{}
		soldiers := map[int]int{}
		kingless := 0
		for _, fen := range fens {
			p, err := game.ParseFEN(r, fen)
			if err != nil {
				t.Fatalf("%s: %s does not read back: %v", name, fen, err)
			}
			if p.Status().Over() {
				t.Fatalf("%s: %s is already over", name, fen)
			}
			toMove[p.SideToMove()]++
			for s := range game.Side(2) {
				if p.Occupied(s).Empty() {
					t.Fatalf("%s: %s leaves %s no piece", name, fen, s)
				}
				n := p.Pieces(s, game.Soldier).Count()
				if n > maxSoldiers {
					t.Fatalf("%s: %s gives %s %d soldiers, more than %d", name, fen, s, n, maxSoldiers)
				}
				soldiers[n]++
				for _, k := range []game.Rank{game.Prince, game.King} {
					if p.Pieces(s, k).Count() > start.Pieces(s, k).Count() {
						t.Fatalf("%s: %s gives %s more %ss than the setup", name, fen, s, k)
					}
				}
				if p.Pieces(s, game.King).Empty() {
					kingless++
				}
			}
		}
		if toMove[game.South] < 50 || toMove[game.North] < 50 {
			t.Errorf("%s: side to move South %d, North %d times in 200", name, toMove[game.South], toMove[game.North])
		}
		// A side without soldiers is lost where a lone king loses; a side
		// without its king, where the king's capture loses.
		if counts := len(soldiers); counts < maxSoldiers || (!r.WinLoneKing && counts != maxSoldiers+1) {
			t.Errorf("%s: soldier counts %v: not varied", name, soldiers)
		}
		if (kingless > 0) == r.WinKingCaptured {
			t.Errorf("%s: %d kingless sides in 200 endgames (the king's capture wins: %v)", name, kingless, r.WinKingCaptured)
		}
	}
}

// TestRandomEndgameChances checks that the spec's chances of keeping the
// king and the prince are obeyed.
func TestRandomEndgameChances(t *testing.T) {
	r := configs.MustVariant("keyland") // a kingless side is not lost here
	for _, tc := range []struct {
		king, prince float64
	}{{0, 0}, {1, 1}, {0, 1}, {1, 0}} {
		rng := rand.New(rand.NewPCG(7, 1))
		for range 100 {
			p, ok := RandomEndgame(r, rng, EndgameSpec{Soldiers: 3, KingChance: tc.king, PrinceChance: tc.prince})
			if !ok {
				t.Fatalf("king %g prince %g: no endgame found", tc.king, tc.prince)
			}
			for s := range game.Side(2) {
				hasKing, hasPrince := !p.Pieces(s, game.King).Empty(), !p.Pieces(s, game.Prince).Empty()
				if hasKing != (tc.king == 1) || hasPrince != (tc.prince == 1) {
					t.Fatalf("king %g prince %g: %s has king %v, prince %v in %s", tc.king, tc.prince, s, hasKing, hasPrince, p.FEN())
				}
			}
		}
	}
}
