package game

import "math/bits"

// Bits is a set of points on a board of at most 128 points: bit i is point i.
// It is the bitboard type of the move generator.
type Bits struct{ Lo, Hi uint64 }

// Bit returns the set holding only point p.
func Bit(p int) Bits {
	if p < 64 {
		return Bits{Lo: 1 << uint(p)}
	}
	return Bits{Hi: 1 << uint(p-64)}
}

// Has reports whether point p is in the set.
func (b Bits) Has(p int) bool {
	w := b.Lo
	if p >= 64 {
		w = b.Hi
	}
	return w>>(uint(p)&63)&1 != 0
}

// And returns the intersection of b and c.
func (b Bits) And(c Bits) Bits { return Bits{b.Lo & c.Lo, b.Hi & c.Hi} }

// Or returns the union of b and c.
func (b Bits) Or(c Bits) Bits { return Bits{b.Lo | c.Lo, b.Hi | c.Hi} }

// AndNot returns the points of b that are not in c.
func (b Bits) AndNot(c Bits) Bits { return Bits{b.Lo &^ c.Lo, b.Hi &^ c.Hi} }

// Xor returns the symmetric difference of b and c.
func (b Bits) Xor(c Bits) Bits { return Bits{b.Lo ^ c.Lo, b.Hi ^ c.Hi} }

// Empty reports whether the set has no points.
func (b Bits) Empty() bool { return b.Lo|b.Hi == 0 }

// Count returns the number of points in the set.
func (b Bits) Count() int { return bits.OnesCount64(b.Lo) + bits.OnesCount64(b.Hi) }

// First returns the lowest point in a non-empty set.
func (b Bits) First() int {
	if b.Lo != 0 {
		return bits.TrailingZeros64(b.Lo)
	}
	return 64 + bits.TrailingZeros64(b.Hi)
}

// PopFirst removes the lowest point from a non-empty set and returns it.
func (b *Bits) PopFirst() int {
	if b.Lo != 0 {
		p := bits.TrailingZeros64(b.Lo)
		b.Lo &= b.Lo - 1
		return p
	}
	p := 64 + bits.TrailingZeros64(b.Hi)
	b.Hi &= b.Hi - 1
	return p
}

// Nth returns the n-th lowest point (from 0) of a set with more than n points.
func (b Bits) Nth(n int) int {
	if c := bits.OnesCount64(b.Lo); n >= c {
		n -= c
		x := b.Hi
		for ; n > 0; n-- {
			x &= x - 1
		}
		return 64 + bits.TrailingZeros64(x)
	}
	x := b.Lo
	for ; n > 0; n-- {
		x &= x - 1
	}
	return bits.TrailingZeros64(x)
}

// shift moves every point by k places: towards higher indices for k > 0,
// lower for k < 0. |k| must be below 64.
func (b Bits) shift(k int) Bits {
	if k >= 0 {
		u := uint(k)
		return Bits{b.Lo << u, b.Hi<<u | b.Lo>>(64-u)}
	}
	u := uint(-k)
	return Bits{b.Lo>>u | b.Hi<<(64-u), b.Hi >> u}
}

// shl moves every point u places towards higher indices (0 < u < 64).
func (b Bits) shl(u uint) Bits { return Bits{b.Lo << u, b.Hi<<u | b.Lo>>(64-u)} }

// shr moves every point u places towards lower indices (0 < u < 64).
func (b Bits) shr(u uint) Bits { return Bits{b.Lo>>u | b.Hi<<(64-u), b.Hi >> u} }
