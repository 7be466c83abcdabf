package game

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// PositionSize is the length of a position's binary form.
const PositionSize = 2*NumRanks*16 + 16

// AppendBinary appends the position's compact binary form (PositionSize
// bytes: the six piece sets, then side, chain, chain start, flags, quiet,
// ply and the status) to dst. The variant is not included: the reader must
// know it, as a sample shard does.
func (p *Position) AppendBinary(dst []byte) []byte {
	for s := range 2 {
		for r := range NumRanks {
			dst = binary.LittleEndian.AppendUint64(dst, p.pieces[s][r].Lo)
			dst = binary.LittleEndian.AppendUint64(dst, p.pieces[s][r].Hi)
		}
	}
	flags := p.passes & 3
	if p.captured {
		flags |= 4
	}
	dst = append(dst, byte(p.side), byte(p.chain), byte(p.chainStart), flags)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(p.quiet))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(p.ply))
	dst = append(dst, byte(p.status.Outcome), byte(p.status.Reason))
	return binary.LittleEndian.AppendUint16(dst, uint16(min(p.status.Limit, 65535)))
}

// DecodePosition reads a position of variant r from its binary form. Every
// field is checked, so corrupt data is an error, not a bad position.
func DecodePosition(r *Rules, data []byte) (Position, error) {
	if len(data) != PositionSize {
		return Position{}, fmt.Errorf("position: %d bytes, want %d", len(data), PositionSize)
	}
	p := Position{rules: r}
	all := r.Board.All()
	var seen Bits
	for s := range 2 {
		for rank := range NumRanks {
			off := (s*NumRanks + rank) * 16
			b := Bits{binary.LittleEndian.Uint64(data[off:]), binary.LittleEndian.Uint64(data[off+8:])}
			if !b.AndNot(all).Empty() {
				return Position{}, errors.New("position: a piece off the board")
			}
			if !b.And(seen).Empty() {
				return Position{}, errors.New("position: two pieces on one point")
			}
			seen = seen.Or(b)
			for q := b; !q.Empty(); {
				p.put(Side(s), Rank(rank), q.PopFirst())
			}
		}
	}
	rest := data[2*NumRanks*16:]
	side, chain, start, flags := rest[0], int8(rest[1]), int8(rest[2]), rest[3]
	quiet, ply := binary.LittleEndian.Uint32(rest[4:]), binary.LittleEndian.Uint32(rest[8:])
	outcome, reason, limit := Outcome(rest[12]), Reason(rest[13]), int(binary.LittleEndian.Uint16(rest[14:]))
	n := int8(r.Board.Points())
	switch {
	case side > 1:
		return Position{}, fmt.Errorf("position: side %d", side)
	case chain < -1 || chain >= n || start < -1 || start >= n:
		return Position{}, errors.New("position: chain point off the board")
	case chain >= 0 && !p.occ[side].Has(int(chain)):
		return Position{}, errors.New("position: the chain point holds no piece of the side to move")
	case flags > 7 || quiet > 1_000_000 || ply > 1_000_000:
		return Position{}, errors.New("position: counters out of range")
	case outcome > Draw || reason > Adjudicated || (outcome == Ongoing) != (reason == NotOver):
		return Position{}, errors.New("position: bad status")
	}
	p.setSide(Side(side))
	p.chain, p.chainStart = -1, -1
	p.setChain(int(chain), int(start))
	p.passes, p.captured = flags&3, flags&4 != 0
	p.quiet, p.ply = int32(quiet), int32(ply)
	p.status = Status{Outcome: outcome, Reason: reason, Limit: limit}
	return p, nil
}
