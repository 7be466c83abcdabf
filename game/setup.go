package game

import "fmt"

// Setup returns the position of variant r with the given pieces
// (pieces[side][rank]) and side to move, at the start of a turn: no chain,
// no quiet plies, turn 1 for the side that moves first. Its status is
// checked as for a position read from FEN, so a setup may already be over.
// It is an error for two pieces to share a point, or for a piece to lie off
// the board.
func Setup(r *Rules, side Side, pieces [2][NumRanks]Bits) (Position, error) {
	p := Position{rules: r, chain: -1, chainStart: -1, side: side}
	var all Bits
	for s := range Side(2) {
		for k := range Rank(NumRanks) {
			set := pieces[s][k]
			if off := set.AndNot(r.Board.All()); !off.Empty() {
				return Position{}, fmt.Errorf("setup: a %s %s off the %d-point board (point %d)", s, k, r.Board.Points(), off.PopFirst())
			}
			if both := set.And(all); !both.Empty() {
				return Position{}, fmt.Errorf("setup: two pieces on %s", r.Board.Name(both.PopFirst()))
			}
			all = all.Or(set)
			for set := set; !set.Empty(); {
				p.put(s, k, set.PopFirst())
			}
		}
	}
	if side == North {
		p.hash ^= r.zobrist.side
	}
	if side != r.First {
		p.ply = 1
	}
	p.refreshStatus()
	return p, nil
}
