package endgame

import (
	"github.com/dablot-zero/dablot/game"
)

// table is one ending's values, by index: the side to move, then each
// side's pieces by rank (South's first, kings before princes before
// soldiers), the points of a rank's pieces as one combination (ascending
// points, ranked in colex order), so that identical pieces are stored
// once. Entries with two pieces on a point are notPlaced.
type table struct {
	rules  *game.Rules
	m      Material
	points int
	groups []group
	half   int     // entries with one side to move
	val    []int16 // Value, or notPlaced
}

// group is the pieces of one side and rank.
type group struct {
	side  game.Side
	rank  game.Rank
	n     int
	size  int // C(points, n)
	scale int // the index's stride for this group
}

// binom[n][k] is n choose k, for n up to game.MaxPoints and k up to
// MaxPieces.
var binom = func() [game.MaxPoints + 1][MaxPieces + 1]int {
	var b [game.MaxPoints + 1][MaxPieces + 1]int
	for n := range b {
		b[n][0] = 1
		for k := 1; k <= MaxPieces && k <= n; k++ {
			b[n][k] = b[n-1][k-1]
			if k <= n-1 {
				b[n][k] += b[n-1][k]
			}
		}
	}
	return b
}()

func newTable(r *game.Rules, m Material) *table {
	tb := &table{rules: r, m: m, points: r.Board.Points()}
	size := 1
	for s := range game.Side(2) {
		for k := game.King; ; k-- {
			if n := int(m[s][k]); n > 0 {
				g := group{side: s, rank: k, n: n, size: binom[tb.points][n]}
				tb.groups = append(tb.groups, g)
				size *= g.size
			}
			if k == game.Soldier {
				break
			}
		}
	}
	scale := 1
	for i := len(tb.groups) - 1; i >= 0; i-- {
		tb.groups[i].scale = scale
		scale *= tb.groups[i].size
	}
	tb.half = size
	tb.val = make([]int16, 2*size)
	return tb
}

// index returns the entry of p, whose material is tb's.
func (tb *table) index(p *game.Position) int {
	idx := 0
	for _, g := range tb.groups {
		set := p.Pieces(g.side, g.rank)
		rank := 0
		for i := range g.n {
			rank += binom[set.PopFirst()][i+1]
		}
		idx += rank * g.scale
	}
	return int(p.SideToMove())*tb.half + idx
}

// decode returns the position of entry idx, ok false if it places two
// pieces on a point.
func (tb *table) decode(idx int) (game.Position, bool) {
	side := game.Side(idx / tb.half)
	idx %= tb.half
	var pc [2][game.NumRanks]game.Bits
	var all game.Bits
	for _, g := range tb.groups {
		rank := idx / g.scale % g.size
		// The combination of colex rank `rank`: the largest point c with
		// C(c, i+1) ≤ what is left, from the highest piece down.
		c := tb.points
		for i := g.n - 1; i >= 0; i-- {
			c--
			for binom[c][i+1] > rank {
				c--
			}
			rank -= binom[c][i+1]
			b := game.Bit(c)
			if !all.And(b).Empty() {
				return game.Position{}, false
			}
			all = all.Or(b)
			pc[g.side][g.rank] = pc[g.side][g.rank].Or(b)
		}
	}
	p, err := game.Setup(tb.rules, side, pc)
	return p, err == nil
}
