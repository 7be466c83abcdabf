package game

// Symmetry is a map of the board that the rules respect.
type Symmetry uint8

// The symmetries of every variant: the identity, the left-right mirror, and
// the half-turn with the colours swapped (South's pieces become North's and
// the other side moves).
const (
	Identity Symmetry = iota
	Mirror
	HalfTurnSwap
)

func (s Symmetry) point(b *Board, q int) int {
	switch s {
	case Mirror:
		return b.Mirror(q)
	case HalfTurnSwap:
		return b.Rotate(q)
	}
	return q
}

func (s Symmetry) dir(d Direction) Direction {
	switch s {
	case Mirror:
		return d.Mirror()
	case HalfTurnSwap:
		return d.Opposite()
	}
	return d
}

// Decision returns the image of decision d under the symmetry.
func (s Symmetry) Decision(b *Board, d Decision) Decision {
	if !d.IsMove() {
		return d
	}
	return Decision(s.point(b, d.From())*16+int(s.dir(d.Dir()))*2) | d&1
}

// Position returns the image of p under the symmetry. Counters, the chain and
// the game's status carry over.
func (s Symmetry) Position(p *Position) Position {
	b := p.rules.Board
	q := Position{rules: p.rules, chain: -1, chainStart: -1, ply: p.ply, quiet: p.quiet,
		captured: p.captured, passes: p.passes, status: p.status}
	swap := Side(0)
	if s == HalfTurnSwap {
		swap = 1
		if w, ok := q.status.Outcome.Winner(); ok {
			q.status.Outcome = WinFor(w.Other())
		}
	}
	q.setSide(p.side ^ swap)
	for side := range 2 {
		for r := range NumRanks {
			for bits := p.pieces[side][r]; !bits.Empty(); {
				q.put(Side(side)^swap, Rank(r), s.point(b, bits.PopFirst()))
			}
		}
	}
	chain, start := -1, -1
	if p.chain >= 0 {
		chain = s.point(b, int(p.chain))
	}
	if p.chainStart >= 0 {
		start = s.point(b, int(p.chainStart))
	}
	q.setChain(chain, start)
	return q
}
