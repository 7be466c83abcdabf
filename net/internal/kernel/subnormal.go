package kernel

// MinNormal32 is the smallest positive normal float32 (2^-126).
const MinNormal32 = 0x1p-126

// FlushSubnormal returns x, or 0 when x is subnormal: a nonzero value smaller
// in magnitude than the smallest normal float32.
//
// Subnormal operands make x86 floating-point arithmetic many times slower
// (every multiply that meets one takes a microcode assist), and Go offers no
// flush-to-zero mode. Training produces them: a weight that gets no gradient
// (an input plane a board never sets, a dead channel) is driven towards zero
// by the L2 decay, and its Adam moments decay with it. Networks with
// thousands of subnormal weights searched up to 14 times slower than without
// them. Such values contribute less than 2^-126 to any output, so flushing
// them changes nothing else.
func FlushSubnormal(x float32) float32 {
	if x < MinNormal32 && x > -MinNormal32 {
		return 0
	}
	return x
}

// FlushSubnormals applies FlushSubnormal to every element of x and returns
// how many it changed.
func FlushSubnormals(x []float32) int {
	n := 0
	for i, v := range x {
		if f := FlushSubnormal(v); f != v {
			x[i] = f
			n++
		}
	}
	return n
}

// FlushedCopy returns a copy of x with its subnormal values flushed to zero.
func FlushedCopy(x []float32) []float32 {
	c := append([]float32(nil), x...)
	FlushSubnormals(c)
	return c
}
