package match

import (
	"math/rand/v2"

	"github.com/dablot-zero/dablot/game"
)

// EndgameSpec says how RandomEndgame draws a reduced position.
type EndgameSpec struct {
	Soldiers     int     // each side gets 0 to Soldiers soldiers (no more than the setup has)
	KingChance   float64 // chance that a side keeps its king
	PrinceChance float64 // chance that a side keeps its prince, if the setup has one
}

// DefaultEndgame is the spec with at most soldiers soldiers a side, a king
// kept with probability 0.9 and a prince with probability 0.5.
func DefaultEndgame(soldiers int) EndgameSpec {
	return EndgameSpec{Soldiers: soldiers, KingChance: 0.9, PrinceChance: 0.5}
}

// RandomEndgame returns a random reduced position of variant r, the start of
// a curriculum game: each side keeps its king, its prince and 0 to
// e.Soldiers soldiers as e says; every piece stands on a random empty point,
// and either side may move. Positions that are already over, or where a side
// has no piece, are drawn again; after 1000 such draws the variant's setup
// is returned (ok false).
func RandomEndgame(r *game.Rules, rng *rand.Rand, e EndgameSpec) (p game.Position, ok bool) {
	start := r.Start()
	b := r.Board
	points := make([]int, 0, b.Points())
	for range 1000 {
		var pieces [2][game.NumRanks]game.Bits
		points = points[:0]
		for q := range b.Points() {
			points = append(points, q)
		}
		rng.Shuffle(len(points), func(i, j int) { points[i], points[j] = points[j], points[i] })
		used := 0
		for s := range game.Side(2) {
			place := func(k game.Rank, n int) {
				for range n {
					pieces[s][k] = pieces[s][k].Or(game.Bit(points[used]))
					used++
				}
			}
			if kings := start.Pieces(s, game.King).Count(); kings > 0 && rng.Float64() < e.KingChance {
				place(game.King, kings)
			}
			if princes := start.Pieces(s, game.Prince).Count(); princes > 0 && rng.Float64() < e.PrinceChance {
				place(game.Prince, princes)
			}
			place(game.Soldier, rng.IntN(min(e.Soldiers, start.Pieces(s, game.Soldier).Count())+1))
		}
		side := game.Side(rng.IntN(2))
		p, err := game.Setup(r, side, pieces)
		if err != nil {
			panic("train: a random endgame set up two pieces on one point: " + err.Error())
		}
		if !p.Occupied(game.South).Empty() && !p.Occupied(game.North).Empty() && !p.Status().Over() {
			return p, true
		}
	}
	return start, false
}
