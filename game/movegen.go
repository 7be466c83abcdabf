package game

import "math/rand/v2"

// This file is the hot path of self-play: move generation on bitboards.
// Every line direction is a constant index shift on the board's numbering,
// so one shift of a whole bitboard moves every piece one step.
//
// Go does not unroll loops, and its register allocator spills around any
// call, including the fallback call that guards each population count on
// amd64. The generator is written for that: the eight directions are written
// out one by one, each with its shift's direction fixed (shl for those in
// upwardDirs, shr for the others, or the reverse to move a set back); the
// sets are counted in a pass of their own (moveSets.finish); and the number
// of sets so far is passed along in a register rather than kept in memory.

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
// each entry is the set of points from which a step or jump in one direction
// starts, for one group of ranks. Only non-empty sets are kept. The
// decisions, in order, are the points of each set in turn, each set read
// from its lowest point up; RandomDecision draws by position in that order,
// so the order is part of the behaviour for a given seed. (Within a set,
// start points and the points reached rise together, so the order is also
// that of the points reached.)
type moveSets struct {
	n     int
	total int // points in all sets
	from  [maxMoveSets]Bits
	// kind[i] is the low 4 bits of set i's decisions: direction·2, +1 for
	// jumps (see StepDecision and JumpDecision).
	kind [maxMoveSets]uint8
	// before[i] is the number of points in the sets before set i, which
	// are all non-empty: it rises strictly with i.
	before [maxMoveSets]uint16
	// open[d] is the set of points whose neighbour in direction d is empty:
	// the empty points moved one step back. Steps start there, and soldiers'
	// jumps start one step back from prey there. (Working space of collect.)
	open [NumDirections]Bits
}

// maxMoveSets bounds the entries of moveSets: 8 directions of soldier
// jumps, one set for each jump of a prince or king, and 8 directions of
// steps for each of at most three step groups, 48 sets in all (as many
// prince and king jumps as the other sets leave room for), and one spare
// entry, as push stores a set before it knows whether it is kept.
const maxMoveSets = 6*NumDirections + 1

// stepKind and jumpKind are moveSets.kind for steps and jumps in direction d.
func stepKind(d Direction) uint8 { return uint8(StepDecision(0, d)) }
func jumpKind(d Direction) uint8 { return uint8(JumpDecision(0, d)) }

// push stores set from as entry n and returns the number of entries: n+1,
// or n if the set is empty (the entry is then overwritten by the next push).
// Deciding after the store leaves no branch to mispredict.
func (ms *moveSets) push(n int, from Bits, kind uint8) int {
	ms.from[n], ms.kind[n] = from, kind
	if !from.Empty() {
		n++
	}
	return n
}

// finish records that the first n entries are the sets, and counts them.
func (ms *moveSets) finish(n int) {
	total := 0
	for i := range n {
		ms.before[i] = uint16(total)
		total += ms.from[i].Count()
	}
	ms.n, ms.total = n, total
}

// decision returns the decision of set i that starts from point q.
func (ms *moveSets) decision(i, q int) Decision { return Decision(q<<4 | int(ms.kind[i])) }

// nth returns decision k (from 0, below total) in the sets' order.
func (ms *moveSets) nth(k int) Decision {
	// Decision k is in the last set that starts at or before it. Counting
	// those sets, rather than walking to the set and stopping there, leaves
	// no branch that depends on k.
	i := -1
	for _, start := range ms.before[:ms.n] {
		i += int(uint(int(start)-k-1) >> 63) // 1 if start <= k
	}
	return ms.decision(i, ms.from[i].Nth(k-int(ms.before[i])))
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
	for i := range ms.n {
		for from := ms.from[i]; !from.Empty(); from = from.withoutFirst() {
			buf = append(buf, ms.decision(i, from.First()))
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
	p.collect(ms)
	if ms.total == 0 {
		return Pass, p.rules.NoMove == NoMovePasses
	}
	return ms.nth(rng.IntN(ms.total)), true
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
	case p.rules.SingleCombat && p.occ[0].single() && p.occ[1].single():
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
	b := p.rules.Board
	empty := p.empty()
	open, u, from := &ms.open, &b.shift, &b.stepFrom
	open[DirN] = empty.shr(u[DirN]).And(from[DirN])
	open[DirNE] = empty.shr(u[DirNE]).And(from[DirNE])
	open[DirE] = empty.shr(u[DirE]).And(from[DirE])
	open[DirSE] = empty.shl(u[DirSE]).And(from[DirSE])
	open[DirS] = empty.shl(u[DirS]).And(from[DirS])
	open[DirSW] = empty.shl(u[DirSW]).And(from[DirSW])
	open[DirW] = empty.shl(u[DirW]).And(from[DirW])
	open[DirNW] = empty.shr(u[DirNW]).And(from[DirNW])
	must := p.rules.mustRanks
	n := 0
	if must != 0 {
		if n = p.collectJumps(ms, n, must, empty); n > 0 {
			ms.finish(n)
			return
		}
	}
	n = p.collectJumps(ms, n, ^must&7, empty)
	n = p.collectSteps(ms, n)
	ms.finish(n)
}

// collectJumps pushes the first jumps of capture chains by the side to move's
// pieces of the ranks in rankMask (bit r for rank r) after the n sets so far,
// and returns the new number: the soldiers' jumps by direction, then each
// prince's and each king's, piece by piece. It needs ms.open.
func (p *Position) collectJumps(ms *moveSets, n int, rankMask uint8, empty Bits) int {
	b, open := p.rules.Board, &ms.open
	s := p.side
	if mine, prey := p.pieces[s][Soldier], p.capturable(s, Soldier); rankMask&(1<<Soldier) != 0 && !mine.Empty() && !prey.Empty() {
		// The soldiers that can jump that way, next to prey with an empty
		// point beyond it (the prey moved one step back).
		u, from := &b.shift, &b.jumpFrom
		n = ms.push(n, mine.And(from[DirN]).And(prey.And(open[DirN]).shr(u[DirN])), jumpKind(DirN))
		n = ms.push(n, mine.And(from[DirNE]).And(prey.And(open[DirNE]).shr(u[DirNE])), jumpKind(DirNE))
		n = ms.push(n, mine.And(from[DirE]).And(prey.And(open[DirE]).shr(u[DirE])), jumpKind(DirE))
		n = ms.push(n, mine.And(from[DirSE]).And(prey.And(open[DirSE]).shl(u[DirSE])), jumpKind(DirSE))
		n = ms.push(n, mine.And(from[DirS]).And(prey.And(open[DirS]).shl(u[DirS])), jumpKind(DirS))
		n = ms.push(n, mine.And(from[DirSW]).And(prey.And(open[DirSW]).shl(u[DirSW])), jumpKind(DirSW))
		n = ms.push(n, mine.And(from[DirW]).And(prey.And(open[DirW]).shl(u[DirW])), jumpKind(DirW))
		n = ms.push(n, mine.And(from[DirNW]).And(prey.And(open[DirNW]).shr(u[DirNW])), jumpKind(DirNW))
	}
	if rankMask&(1<<Prince) != 0 {
		n = ms.pushPieceJumps(n, b, p.pieces[s][Prince], p.capturable(s, Prince), empty)
	}
	if rankMask&(1<<King) != 0 {
		n = ms.pushPieceJumps(n, b, p.pieces[s][King], p.capturable(s, King), empty)
	}
	return n
}

// pushPieceJumps pushes the jumps of the pieces mine over prey after the n
// sets so far, one set of one point for each, and returns the new number.
// It suits princes and kings, which are few: it looks at the prey next to
// each piece, in point order (which is also the order of the landing points).
func (ms *moveSets) pushPieceJumps(n int, b *Board, mine, prey, empty Bits) int {
	for ; !mine.Empty(); mine = mine.withoutFirst() {
		q := mine.First()
		for near := b.jumpOver[q].And(prey); !near.Empty(); near = near.withoutFirst() {
			over := near.First()
			n = ms.push(n, Bit(q).onlyIf(empty.Has(2*over-q)), jumpKind(b.jumpDir(over-q)))
		}
	}
	return n
}

// collectSteps pushes every step of the side to move after the n sets so
// far and returns the new number: one pass per group of ranks that step in
// the same directions.
func (p *Position) collectSteps(ms *moveSets, n int) int {
	s, open := p.side, &ms.open
	for gi := range p.rules.stepGroups[s] {
		g := &p.rules.stepGroups[s][gi]
		mine := p.occ[s]
		if g.ranks != 1<<NumRanks-1 {
			mine = Bits{}
			for r := range NumRanks {
				if g.ranks>>r&1 != 0 {
					mine = mine.Or(p.pieces[s][r])
				}
			}
		}
		from := &g.from
		n = ms.push(n, mine.And(from[DirN]).And(open[DirN]), stepKind(DirN))
		n = ms.push(n, mine.And(from[DirNE]).And(open[DirNE]), stepKind(DirNE))
		n = ms.push(n, mine.And(from[DirE]).And(open[DirE]), stepKind(DirE))
		n = ms.push(n, mine.And(from[DirSE]).And(open[DirSE]), stepKind(DirSE))
		n = ms.push(n, mine.And(from[DirS]).And(open[DirS]), stepKind(DirS))
		n = ms.push(n, mine.And(from[DirSW]).And(open[DirSW]), stepKind(DirSW))
		n = ms.push(n, mine.And(from[DirW]).And(open[DirW]), stepKind(DirW))
		n = ms.push(n, mine.And(from[DirNW]).And(open[DirNW]), stepKind(DirNW))
	}
	return n
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
