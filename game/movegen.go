package game

import "math/rand/v2"

// This file is the hot path of self-play: move generation on bitboards.
// Every line direction is a constant index shift on the board's numbering,
// so one shift of a whole bitboard moves every piece one step.

// capturable returns the enemy pieces that a piece of rank r of side s may
// capture: those of equal or lower rank.
func (p *Position) capturable(s Side, r Rank) Bits {
	switch r {
	case Soldier:
		return p.pieces[s^1][Soldier]
	case Prince:
		return p.pieces[s^1][Soldier].Or(p.pieces[s^1][Prince])
	}
	return p.occ[s^1]
}

func (p *Position) empty() Bits {
	return p.rules.Board.all.AndNot(p.occ[0].Or(p.occ[1]))
}

// moveSets holds the legal steps and jumps of a turn's start as bitboards:
// each entry is the set of destinations (steps) or landing points (jumps) in
// one direction, for one group of ranks. Only non-empty sets are kept.
type moveSets struct {
	n     int
	total int // points in all sets
	to    [6 * NumDirections]Bits
	meta  [6 * NumDirections]uint8 // direction | 8 for a jump
}

func (ms *moveSets) add(to Bits, d Direction, jump uint8) {
	if !to.Empty() {
		ms.to[ms.n], ms.meta[ms.n] = to, uint8(d)|jump
		ms.n++
		ms.total += to.Count()
	}
}

// decision returns the decision that reaches point q of set i.
func (ms *moveSets) decision(b *Board, i, q int) Decision {
	d := Direction(ms.meta[i] & 7)
	if ms.meta[i]&8 != 0 {
		return JumpDecision(q-2*b.delta[d], d)
	}
	return StepDecision(q-b.delta[d], d)
}

// Decisions appends the legal decisions to buf[:0] and returns it. It returns
// no decisions when the game is over, and also when the side to move has no
// move under a variant where that loses (Status then says so). Where a side
// with no move passes, the only decision is Pass.
func (p *Position) Decisions(buf []Decision) []Decision {
	buf = buf[:0]
	if special, ok := p.specialDecisions(buf); ok {
		return special
	}
	var ms moveSets
	p.collect(&ms)
	b := p.rules.Board
	for i := range ms.n {
		for to := ms.to[i]; !to.Empty(); {
			buf = append(buf, ms.decision(b, i, to.PopFirst()))
		}
	}
	if len(buf) == 0 && p.rules.NoMove == NoMovePasses {
		buf = append(buf, Pass)
	}
	return buf
}

// RandomDecision returns a legal decision drawn uniformly at random, the same
// draw as picking from Decisions but without listing them all; ok is false if
// there is none. scratch is working space to reuse between calls.
func (p *Position) RandomDecision(rng *rand.Rand, scratch *MoveScratch) (d Decision, ok bool) {
	if special, ok := p.specialDecisions(scratch.buf[:0]); ok {
		if len(special) == 0 {
			return 0, false
		}
		return special[rng.IntN(len(special))], true
	}
	ms := &scratch.sets
	ms.n, ms.total = 0, 0
	p.collect(ms)
	if ms.total == 0 {
		return Pass, p.rules.NoMove == NoMovePasses
	}
	k := rng.IntN(ms.total)
	for i := range ms.n {
		if c := ms.to[i].Count(); k >= c {
			k -= c
			continue
		}
		return ms.decision(p.rules.Board, i, ms.to[i].Nth(k)), true
	}
	panic("game: RandomDecision lost count") // unreachable: k < total
}

// MoveScratch is reusable working space for RandomDecision.
type MoveScratch struct {
	sets moveSets
	buf  [2 * NumDirections]Decision
}

// specialDecisions handles the positions that are not the start of an
// ordinary turn: game over, inside a chain, single combat.
func (p *Position) specialDecisions(buf []Decision) ([]Decision, bool) {
	switch {
	case p.status.Outcome != Ongoing:
		return buf, true
	case p.chain >= 0:
		return p.chainDecisions(buf), true
	case p.rules.SingleCombat && p.occ[0].Count() == 1 && p.occ[1].Count() == 1:
		s := p.side
		if mine, theirs := p.occ[s].First(), p.occ[s.Other()].First(); p.rankAt(s, mine) == p.rankAt(s.Other(), theirs) {
			return p.singleCombat(buf, mine, theirs), true
		}
	}
	return buf, false
}

// collect fills ms with the steps and jumps of an ordinary turn's start,
// applying the compulsory-capture rule.
func (p *Position) collect(ms *moveSets) {
	empty := p.empty()
	must := p.rules.mustRanks
	if must != 0 {
		p.collectJumps(ms, must, empty)
		if ms.n > 0 {
			return
		}
	}
	p.collectJumps(ms, ^must&7, empty)
	p.collectSteps(ms, empty)
}

// collectJumps adds the first jumps of capture chains by the side to move's
// pieces of the ranks in rankMask (bit r for rank r).
func (p *Position) collectJumps(ms *moveSets, rankMask uint8, empty Bits) {
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
		if r != Soldier {
			// Princes and kings are few: look at the prey next to each.
			for !mine.Empty() {
				q := mine.PopFirst()
				for near := b.adjacent[q].And(prey); !near.Empty(); {
					d := Direction(b.dirTo[q][near.PopFirst()])
					if to := b.JumpTo[q][d]; to >= 0 && empty.Has(int(to)) {
						ms.add(Bit(int(to)), d, 8)
					}
				}
			}
			continue
		}
		for d := Direction(0); d < NumDirections; d++ {
			k := b.delta[d]
			// Soldiers next to prey in direction d, seen from the prey's
			// point, then the empty points beyond: two shifts, the second
			// only when the first finds something.
			if k > 0 {
				if over := mine.And(b.jumpFrom[d]).shl(uint(k)).And(prey); !over.Empty() {
					ms.add(over.shl(uint(k)).And(empty), d, 8)
				}
			} else if over := mine.And(b.jumpFrom[d]).shr(uint(-k)).And(prey); !over.Empty() {
				ms.add(over.shr(uint(-k)).And(empty), d, 8)
			}
		}
	}
}

// collectSteps adds every step of the side to move, one pass per group of
// ranks that step in the same directions.
func (p *Position) collectSteps(ms *moveSets, empty Bits) {
	b := p.rules.Board
	s := p.side
	for _, g := range p.rules.stepGroups[s] {
		var mine Bits
		for r := range NumRanks {
			if g.ranks>>r&1 != 0 {
				mine = mine.Or(p.pieces[s][r])
			}
		}
		if mine.Empty() {
			continue
		}
		for d := Direction(0); d < NumDirections; d++ {
			if g.dirs>>d&1 == 0 {
				continue
			}
			if k := b.delta[d]; k > 0 {
				ms.add(mine.And(b.stepFrom[d]).shl(uint(k)).And(empty), d, 0)
			} else {
				ms.add(mine.And(b.stepFrom[d]).shr(uint(-k)).And(empty), d, 0)
			}
		}
	}
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
