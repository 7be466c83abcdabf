package game

import "fmt"

// Setup returns the position of variant r with the given pieces
// (pieces[side][rank]) and side to move, at the start of a turn: no chain,
// no quiet plies, turn 1 for the side that moves first. Its status is
// checked as for a position read from FEN, so a setup may already be over.
// It is an error for two pieces to share a point, or for a piece to lie off
// the board.
func Setup(r *Rules, side Side, pieces [2][NumRanks]Bits) (Position, error) {
	p := Position{rules: r, chain: -1, chainStart: -1}
	p.setSide(side)
	p.ply = r.startPly(side, 1)
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
	p.refreshStatus()
	return p, nil
}

// setSide sets the side to move of a position being built, whose side so
// far is the zero value (South), and keeps its hash in step.
func (p *Position) setSide(s Side) {
	p.side = s
	if s == North {
		p.hash ^= p.rules.zobrist.side
	}
}

// startPly is the ply at the start of turn number turn (from 1) with side
// to move: each turn number covers a move by the first side, then one by
// the other.
func (r *Rules) startPly(side Side, turn int) int32 {
	ply := int32(2 * (turn - 1))
	if side != r.First {
		ply++
	}
	return ply
}
