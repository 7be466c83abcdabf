package game

import "fmt"

// Decision is one step of play as the search sees it: a step (which ends the
// turn), one jump of a capture chain, "stop" (end a chain early, where the
// rules allow it) or "pass" (where a side with no move passes). Steps and
// jumps are numbered from*16 + direction*2 + (0 step, 1 jump), which is also
// their index in the network's policy.
type Decision uint16

// The two decisions that move no piece.
const (
	Stop Decision = 0xfffe
	Pass Decision = 0xffff
)

// StepDecision returns the decision to step from point from in direction d.
func StepDecision(from int, d Direction) Decision { return Decision(from*16 + int(d)*2) }

// JumpDecision returns the decision to jump from point from in direction d.
func JumpDecision(from int, d Direction) Decision { return Decision(from*16 + int(d)*2 + 1) }

// From returns the point a step or jump starts from.
func (d Decision) From() int { return int(d >> 4) }

// Dir returns the direction of a step or jump.
func (d Decision) Dir() Direction { return Direction(d >> 1 & 7) }

// IsJump reports whether d is a jump (a capture).
func (d Decision) IsJump() bool { return d < Stop && d&1 == 1 }

// IsMove reports whether d moves a piece (a step or a jump).
func (d Decision) IsMove() bool { return d < Stop }

// DecisionsPerPoint is the number of decisions that start at one point, a
// step and a jump in each direction: the entries per point of a policy.
const DecisionsPerPoint = 2 * NumDirections

// PolicyIndex returns the index of d in a policy of board b: steps and jumps
// by their number, stop and pass (which never compete) both at the last
// index, DecisionsPerPoint·points.
func (d Decision) PolicyIndex(b *Board) int {
	if d >= Stop {
		return b.Points() * DecisionsPerPoint
	}
	return int(d)
}

// PolicySize returns the number of entries of a policy over the decisions
// of a board of points points: DecisionsPerPoint for each point, then one
// that stop and pass share. It is the one definition of the policy's
// layout; the network's policy head follows it.
func PolicySize(points int) int { return points*DecisionsPerPoint + 1 }

// String formats d for debugging on the 72-point board's own numbering,
// such as "j6:NE step"; use Position.DecisionString for square names.
func (d Decision) String() string {
	switch d {
	case Stop:
		return "stop"
	case Pass:
		return "pass"
	}
	kind := "step"
	if d.IsJump() {
		kind = "jump"
	}
	return fmt.Sprintf("%d:%s %s", d.From(), d.Dir(), kind)
}

// Position is a game state, possibly in the middle of a capture chain. It is
// a plain value: copy it to keep a state, and call Apply on a copy to look
// ahead (copy-make). A Position is only valid with the Rules it was made for.
type Position struct {
	rules      *Rules
	pieces     [2][NumRanks]Bits
	occ        [2]Bits
	hash       uint64
	ply        int32 // plies (complete turns) played since the start
	quiet      int32 // plies since the last capture
	side       Side
	chain      int8  // the piece in the middle of a capture chain, or -1
	chainStart int8  // where the current chain started, or -1 if unknown
	captured   bool  // the turn in progress has captured
	passes     uint8 // passes in a row just played
	status     Status
}

// Rules returns the variant the position belongs to.
func (p *Position) Rules() *Rules { return p.rules }

// Board returns the position's board.
func (p *Position) Board() *Board { return p.rules.Board }

// SideToMove returns the side whose decision it is.
func (p *Position) SideToMove() Side { return p.side }

// Chain returns the point of the piece that is in the middle of a capture
// chain, or -1 if the turn has not started.
func (p *Position) Chain() int { return int(p.chain) }

// ChainStart returns the point where the current capture chain started, or
// -1 if there is no chain or the start is unknown (a position set up inside
// a chain).
func (p *Position) ChainStart() int { return int(p.chainStart) }

// Passes returns the number of passes played in a row just before.
func (p *Position) Passes() int { return int(p.passes) }

// Ply returns the number of complete turns played since the start.
func (p *Position) Ply() int { return int(p.ply) }

// Quiet returns the number of plies since the last capture.
func (p *Position) Quiet() int { return int(p.quiet) }

// Hash returns the Zobrist hash of the pieces, the side to move and the chain.
func (p *Position) Hash() uint64 { return p.hash }

// Pieces returns the points holding pieces of side s and rank r.
func (p *Position) Pieces(s Side, r Rank) Bits { return p.pieces[s][r] }

// Occupied returns the points holding pieces of side s.
func (p *Position) Occupied(s Side) Bits { return p.occ[s] }

// PieceCount returns the pieces on the board, both sides together.
func (p *Position) PieceCount() int { return p.occ[South].Count() + p.occ[North].Count() }

// PieceAt returns the piece on point q, if any.
func (p *Position) PieceAt(q int) (s Side, r Rank, ok bool) {
	for s := South; s <= North; s++ {
		if p.occ[s].Has(q) {
			return s, p.rankAt(s, q), true
		}
	}
	return 0, 0, false
}

func (p *Position) rankAt(s Side, q int) Rank {
	switch {
	case p.pieces[s][Soldier].Has(q):
		return Soldier
	case p.pieces[s][Prince].Has(q):
		return Prince
	}
	return King
}

func (p *Position) put(s Side, r Rank, q int) {
	b := Bit(q)
	p.pieces[s][r] = p.pieces[s][r].Or(b)
	p.occ[s] = p.occ[s].Or(b)
	p.hash ^= p.rules.zobrist.piece[s][r][q]
}

func (p *Position) remove(s Side, r Rank, q int) {
	b := Bit(q)
	p.pieces[s][r] = p.pieces[s][r].AndNot(b)
	p.occ[s] = p.occ[s].AndNot(b)
	p.hash ^= p.rules.zobrist.piece[s][r][q]
}

// movePiece moves the piece of side s and rank r from point from to the
// empty point to: put and remove in one.
func (p *Position) movePiece(s Side, r Rank, from, to int) {
	both := Bit(from).Or(Bit(to))
	p.pieces[s][r] = p.pieces[s][r].Xor(both)
	p.occ[s] = p.occ[s].Xor(both)
	keys := p.rules.zobrist.piece[s][r]
	p.hash ^= keys[from] ^ keys[to]
}

func (p *Position) setChain(q, start int) {
	z := p.rules.zobrist
	if p.chain >= 0 {
		p.hash ^= z.chain[p.chain]
	}
	if p.chainStart >= 0 {
		p.hash ^= z.start[p.chainStart]
	}
	p.chain, p.chainStart = int8(q), int8(start)
	if q >= 0 {
		p.hash ^= z.chain[q]
	}
	if start >= 0 {
		p.hash ^= z.start[start]
	}
}

// Apply plays decision d, which must be legal (one of Decisions). Apply does
// not check legality; use Position.Play or ApplyTurn for untrusted input.
func (p *Position) Apply(d Decision) {
	mover := p.side
	switch {
	case d == Pass:
		p.endTurn(-1, true)
	case d == Stop:
		p.endTurn(int(p.chain), false)
	case !d.IsJump():
		from := d.From()
		to := from + p.rules.Board.delta[d.Dir()]
		p.movePiece(mover, p.rankAt(mover, from), from, to)
		p.endTurn(to, false)
	default:
		from, k := d.From(), p.rules.Board.delta[d.Dir()]
		over, to := from+k, from+2*k
		r := p.rankAt(mover, from)
		p.remove(mover.Other(), p.rankAt(mover.Other(), over), over)
		p.movePiece(mover, r, from, to)
		p.captured = true
		start := int(p.chainStart)
		if p.chain < 0 {
			start = from
		}
		if p.checkEnd(mover, false) {
			p.setChain(-1, -1)
			return
		}
		if p.canJumpFrom(mover, r, to, start) {
			p.setChain(to, start)
			return
		}
		p.endTurn(to, false)
	}
}

// endTurn finishes the turn whose moving piece stands on last (-1 for a pass).
func (p *Position) endTurn(last int, pass bool) {
	mover := p.side
	r := p.rules
	if last >= 0 && r.PromoteTo != Soldier && p.pieces[mover][Soldier].Has(last) {
		farRow := r.Board.Height - 1
		if mover == North {
			farRow = 0
		}
		if _, y := r.Board.XY(last); y == farRow {
			p.remove(mover, Soldier, last)
			p.put(mover, r.PromoteTo, last)
		}
	}
	captured := p.captured
	if captured {
		p.quiet = 0
	} else {
		p.quiet++
	}
	if pass {
		p.passes++
	} else {
		p.passes = 0
	}
	p.captured = false
	p.setChain(-1, -1)
	p.side = mover.Other()
	p.hash ^= r.zobrist.side
	p.ply++
	// Without a capture only immobilisation (of a lone piece) can end it.
	if (captured || p.occ[p.side].single()) && p.checkEnd(mover, true) {
		return
	}
	switch {
	case r.DrawTwoPasses && p.passes >= 2:
		p.status = Status{Outcome: Draw, Reason: TwoPasses}
	case r.NoCaptureLimit > 0 && int(p.quiet) >= r.NoCaptureLimit:
		p.status = Status{Outcome: Draw, Reason: NoCaptureLimit, Limit: r.NoCaptureLimit}
	case r.MaxPlies > 0 && int(p.ply) >= r.MaxPlies:
		p.status = Status{Outcome: Draw, Reason: MaxPlies, Limit: r.MaxPlies}
	}
}

// checkEnd applies the end conditions that follow a capture or a turn by
// mover, records the result and reports whether the game is over.
// Immobilisation is judged only when the turn has ended.
func (p *Position) checkEnd(mover Side, turnEnded bool) bool {
	r := p.rules
	opp := mover.Other()
	oppOcc, oppKings := p.occ[opp], p.pieces[opp][King]
	onlyKings := func(s Side) bool { return p.occ[s] == p.pieces[s][King] }
	win := func(reason Reason) bool {
		p.status = Status{Outcome: WinFor(mover), Reason: reason}
		return true
	}
	switch {
	case oppOcc.Empty():
		if r.WinNoPieces {
			return win(NoPieces)
		}
	case r.WinKingCaptured && oppKings.Empty():
		return win(KingCaptured)
	case onlyKings(opp) && onlyKings(mover) && !p.occ[mover].Empty():
		if r.DrawKingsOnly {
			p.status = Status{Outcome: Draw, Reason: KingsOnly}
			return true
		}
	case r.WinLoneKing && onlyKings(opp):
		return win(LoneKing)
	}
	if turnEnded && r.WinImmobilised && oppOcc.Count() == 1 {
		q := oppOcc.First()
		rank := p.rankAt(opp, q)
		if rank > p.highestRank(mover) && !p.hasMove(opp) {
			return win(Immobilised)
		}
	}
	return false
}

func (p *Position) highestRank(s Side) Rank {
	for r := King; r > Soldier; r-- {
		if !p.pieces[s][r].Empty() {
			return r
		}
	}
	return Soldier
}

// TurnOf returns the position at the start of a turn of side s, as if s
// were to move now: a capture chain in progress ends where it stands, the
// result is cleared (not judged again) and the counters carry over. With
// s the side not to move, its legal turns are what it threatens.
func (p *Position) TurnOf(s Side) Position {
	q := *p
	if q.side != s {
		q.side = s
		q.hash ^= p.rules.zobrist.side
	}
	q.setChain(-1, -1)
	q.captured, q.status = false, Status{}
	return q
}

// hasMove reports whether side s, starting a turn, would have a step or jump.
func (p *Position) hasMove(s Side) bool {
	q := p.TurnOf(s)
	var buf [MaxPoints * 2]Decision
	ds := q.Decisions(buf[:0])
	return len(ds) > 0 && ds[0] != Pass
}

// Status returns whether the game is over, who won and why.
func (p *Position) Status() Status {
	if p.status.Outcome == Ongoing && p.rules.NoMove == NoMoveLoses && p.chain < 0 && !p.hasMove(p.side) {
		return Status{Outcome: WinFor(p.side.Other()), Reason: NoMove}
	}
	return p.status
}

// refreshStatus sets the result of a position that was set up rather than
// played into (from FEN): the end conditions are checked as if the side not
// to move had just finished its turn (or, inside a chain, as if the side to
// move had just jumped), and then the other way round.
func (p *Position) refreshStatus() {
	p.status = Status{}
	if p.chain >= 0 {
		p.checkEnd(p.side, false)
	} else if !p.checkEnd(p.side.Other(), true) {
		p.checkEnd(p.side, false)
	}
	r := p.rules
	switch {
	case p.status.Over() || p.chain >= 0:
	case r.NoCaptureLimit > 0 && int(p.quiet) >= r.NoCaptureLimit:
		p.status = Status{Outcome: Draw, Reason: NoCaptureLimit, Limit: r.NoCaptureLimit}
	case r.MaxPlies > 0 && int(p.ply) >= r.MaxPlies:
		p.status = Status{Outcome: Draw, Reason: MaxPlies, Limit: r.MaxPlies}
	}
}
