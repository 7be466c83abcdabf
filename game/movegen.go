package game

// This file is the hot path of self-play: move generation on bitboards.
// Every line direction is a constant index shift on the board's numbering,
// so one shift of a whole bitboard moves every piece one step.

// capturable returns the enemy pieces that a piece of rank r of side s may
// capture: those of equal or lower rank.
func (p *Position) capturable(s Side, r Rank) Bits {
	e := p.pieces[s.Other()]
	c := e[Soldier]
	if r >= Prince {
		c = c.Or(e[Prince])
	}
	if r == King {
		c = c.Or(e[King])
	}
	return c
}

func (p *Position) empty() Bits {
	return p.rules.Board.all.AndNot(p.occ[0].Or(p.occ[1]))
}

// Decisions appends the legal decisions to buf[:0] and returns it. It returns
// no decisions when the game is over, and also when the side to move has no
// move under a variant where that loses (Status then says so). Where a side
// with no move passes, the only decision is Pass. buf needs no more than
// 2·MaxPoints entries in practice; it grows if needed.
func (p *Position) Decisions(buf []Decision) []Decision {
	buf = buf[:0]
	if p.status.Outcome != Ongoing {
		return buf
	}
	if p.chain >= 0 {
		return p.chainDecisions(buf)
	}
	r := p.rules
	s := p.side
	if r.SingleCombat && p.occ[0].Count() == 1 && p.occ[1].Count() == 1 {
		if mine, theirs := p.occ[s].First(), p.occ[s.Other()].First(); p.rankAt(s, mine) == p.rankAt(s.Other(), theirs) {
			return p.singleCombat(buf, mine, theirs)
		}
	}
	empty := p.empty()
	if r.mustRanks != 0 {
		buf = p.appendJumps(buf, r.mustRanks, empty)
		if len(buf) > 0 {
			return buf
		}
		buf = p.appendJumps(buf, ^r.mustRanks&7, empty)
	} else {
		buf = p.appendJumps(buf, 7, empty)
	}
	buf = p.appendSteps(buf, empty)
	if len(buf) == 0 && r.NoMove == NoMovePasses {
		buf = append(buf, Pass)
	}
	return buf
}

// appendJumps appends the first jumps of capture chains by the side to move's
// pieces of the ranks in rankMask (bit r for rank r).
func (p *Position) appendJumps(buf []Decision, rankMask uint8, empty Bits) []Decision {
	b := p.rules.Board
	s := p.side
	for r := Soldier; r < NumRanks; r++ {
		mine := p.pieces[s][r]
		if rankMask>>r&1 == 0 || mine.Empty() {
			continue
		}
		prey := p.capturable(s, r)
		if prey.Empty() {
			continue
		}
		for d := Direction(0); d < NumDirections; d++ {
			k := b.delta[d]
			from := mine.And(b.jumpFrom[d]).And(prey.shift(-k)).And(empty.shift(-2 * k))
			for !from.Empty() {
				buf = append(buf, JumpDecision(from.PopFirst(), d))
			}
		}
	}
	return buf
}

// appendSteps appends every step of the side to move.
func (p *Position) appendSteps(buf []Decision, empty Bits) []Decision {
	b := p.rules.Board
	s := p.side
	for r := Soldier; r < NumRanks; r++ {
		mine := p.pieces[s][r]
		if mine.Empty() {
			continue
		}
		dirs := p.rules.stepDirs[s][r]
		for d := Direction(0); d < NumDirections; d++ {
			if dirs>>d&1 == 0 {
				continue
			}
			k := b.delta[d]
			to := mine.And(b.stepFrom[d]).shift(k).And(empty)
			for !to.Empty() {
				buf = append(buf, StepDecision(to.PopFirst()-k, d))
			}
		}
	}
	return buf
}

// canJumpFrom reports whether a piece of side s and rank r on point q could
// jump now (a chain that started on start goes on).
func (p *Position) canJumpFrom(s Side, r Rank, q, start int) bool {
	b := p.rules.Board
	prey := p.capturable(s, r)
	empty := p.empty()
	for d := range NumDirections {
		to := b.JumpTo[q][d]
		if to >= 0 && prey.Has(int(b.Neighbor[q][d])) && empty.Has(int(to)) && !(p.rules.NoReturn && int(to) == start) {
			return true
		}
	}
	return false
}

// chainDecisions appends the decisions of a piece in the middle of a chain:
// its further jumps, and Stop where the chain may stop (always, if it cannot
// jump, which happens only in positions set up by hand).
func (p *Position) chainDecisions(buf []Decision) []Decision {
	b := p.rules.Board
	s, q := p.side, int(p.chain)
	r := p.rankAt(s, q)
	prey := p.capturable(s, r)
	empty := p.empty()
	for d := Direction(0); d < NumDirections; d++ {
		to := b.JumpTo[q][d]
		if to >= 0 && prey.Has(int(b.Neighbor[q][d])) && empty.Has(int(to)) && !(p.rules.NoReturn && to == p.chainStart) {
			buf = append(buf, JumpDecision(q, d))
		}
	}
	if len(buf) == 0 || !p.rules.Ranks[r].ChainMustContinue {
		buf = append(buf, Stop)
	}
	return buf
}

// singleCombat appends the decisions of the single-combat rule: capture the
// enemy piece if possible, else step strictly closer to it.
func (p *Position) singleCombat(buf []Decision, mine, theirs int) []Decision {
	b := p.rules.Board
	empty := p.empty()
	for d := Direction(0); d < NumDirections; d++ {
		if int(b.Neighbor[mine][d]) == theirs && b.JumpTo[mine][d] >= 0 {
			return append(buf, JumpDecision(mine, d))
		}
	}
	dirs := p.rules.stepDirs[p.side][p.rankAt(p.side, mine)]
	now := b.dist[mine][theirs]
	for d := Direction(0); d < NumDirections; d++ {
		to := b.Neighbor[mine][d]
		if dirs>>d&1 != 0 && to >= 0 && empty.Has(int(to)) && b.dist[to][theirs] < now {
			buf = append(buf, StepDecision(mine, d))
		}
	}
	if len(buf) == 0 && p.rules.NoMove == NoMovePasses {
		buf = append(buf, Pass)
	}
	return buf
}
