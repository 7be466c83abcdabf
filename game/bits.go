package game

import "math/bits"

// Bits is a set of points on a board of at most 128 points: bit i is point i.
// It is the bitboard type of the move generator.
type Bits struct{ Lo, Hi uint64 }

// Bit returns the set holding only point p.
func Bit(p int) Bits {
	w := uint64(1) << (uint(p) & 63)
	hi := -uint64(p >> 6 & 1) // all ones if p is in the high word
	return Bits{Lo: w &^ hi, Hi: w & hi}
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

// onlyIf returns b if keep is true and the empty set otherwise, without a
// branch.
func (b Bits) onlyIf(keep bool) Bits {
	var m uint64
	if keep {
		m = ^uint64(0)
	}
	return Bits{b.Lo & m, b.Hi & m}
}

// single reports whether the set has exactly one point, like Count() == 1
// but without counting.
func (b Bits) single() bool {
	if b.Lo == 0 {
		return b.Hi != 0 && b.Hi&(b.Hi-1) == 0
	}
	return b.Hi == 0 && b.Lo&(b.Lo-1) == 0
}

// First returns the lowest point in a non-empty set.
func (b Bits) First() int {
	if b.Lo != 0 {
		return bits.TrailingZeros64(b.Lo)
	}
	return 64 + bits.TrailingZeros64(b.Hi)
}

// withoutFirst returns the set without its lowest point. Loops over a set
// that use it rather than PopFirst keep the set in registers.
func (b Bits) withoutFirst() Bits {
	if b.Lo != 0 {
		return Bits{b.Lo & (b.Lo - 1), b.Hi}
	}
	return Bits{0, b.Hi & (b.Hi - 1)}
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
		return 64 + selectBit(b.Hi, n-c)
	}
	return selectBit(b.Lo, n)
}

// selectBit returns the position of the n-th lowest set bit (from 0) of x,
// which has more than n. It has no loop or branch (a loop clearing n bits
// mispredicts its exit when n is random, as in RandomDecision): it finds
// the byte holding the bit from the bytes' running bit counts, then looks
// the bit up in that byte.
func selectBit(x uint64, n int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	c := x - x>>1&0x5555555555555555
	c = c&0x3333333333333333 + c>>2&0x3333333333333333
	c = (c + c>>4) & 0x0f0f0f0f0f0f0f0f
	sums := c * ones // byte i: the set bits in bytes 0 to i
	// The high bit of each byte of atMost is set where that byte's running
	// count is at most n (no borrow crosses bytes: n < 64 and counts <= 64).
	atMost := (uint64(n)*ones | highs) - sums
	shift := uint(bits.TrailingZeros64(^atMost&highs)) &^ 7 // 8 × the bit's byte
	below := int((sums << 8 >> shift) & 0xff)               // set bits in the bytes below
	return int(shift) + int(selectInByte[x>>shift&0xff][(n-below)&7])
}

// selectInByte[x][n] is the position of the n-th lowest set bit of byte x.
var selectInByte = func() (t [256][8]uint8) {
	for x := range 256 {
		n := 0
		for i := range 8 {
			if x>>i&1 != 0 {
				t[x][n] = uint8(i)
				n++
			}
		}
	}
	return t
}()

// shl moves every point u places towards higher indices (0 < u < 64). The
// counts are masked to 6 bits so that the compiler emits plain shifts.
func (b Bits) shl(u uint) Bits {
	return Bits{b.Lo << (u & 63), b.Hi<<(u&63) | b.Lo>>((64-u)&63)}
}

// shr moves every point u places towards lower indices (0 < u < 64).
func (b Bits) shr(u uint) Bits {
	return Bits{b.Lo>>(u&63) | b.Hi<<((64-u)&63), b.Hi >> (u & 63)}
}
