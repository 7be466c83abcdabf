package game

// PerftTurns counts the sequences of depth complete turns from p. A turn that
// ends the game ends its sequence: it counts at depth 1 and adds nothing
// deeper.
func (p *Position) PerftTurns(depth int) int64 {
	if depth <= 0 {
		return 1
	}
	if p.status.Over() {
		return 0
	}
	if depth == 1 {
		return int64(p.CountTurns())
	}
	var n int64
	p.walkTurns(func(_ []int, _ bool, after *Position) {
		n += after.PerftTurns(depth - 1)
	})
	return n
}

// PerftDecisions counts the sequences of depth decisions from p (each step,
// jump, stop and pass is one decision).
func (p *Position) PerftDecisions(depth int) int64 {
	var buf [2 * MaxPoints]Decision
	ds := p.Decisions(buf[:0])
	if depth <= 1 {
		if depth <= 0 {
			return 1
		}
		return int64(len(ds))
	}
	var n int64
	for _, d := range ds {
		q := *p
		q.Apply(d)
		n += q.PerftDecisions(depth - 1)
	}
	return n
}

// DivideTurns returns, for each legal complete turn, the number of turn
// sequences of depth depth that start with it.
func (p *Position) DivideTurns(depth int) (turns []Turn, counts []int64) {
	p.walkTurns(func(path []int, capture bool, after *Position) {
		turns = append(turns, Turn{Path: append([]int(nil), path...), Capture: capture})
		counts = append(counts, after.PerftTurns(depth-1))
	})
	return turns, counts
}

// DivideDecisions returns, for each legal decision, the number of decision
// sequences of depth depth that start with it.
func (p *Position) DivideDecisions(depth int) (ds []Decision, counts []int64) {
	var buf [2 * MaxPoints]Decision
	for _, d := range p.Decisions(buf[:0]) {
		q := *p
		q.Apply(d)
		ds = append(ds, d)
		counts = append(counts, q.PerftDecisions(depth-1))
	}
	return ds, counts
}
