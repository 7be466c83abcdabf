//go:build goexperiment.simd && amd64

package kernel

import (
	"simd/archsimd"
	"sync"
	"unsafe"
)

// simdAvailable reports whether the AVX-512 kernel can run on this CPU.
var simdAvailable = archsimd.X86.AVX512()

// gemmImpl names the matrix-multiply implementation compiled in.
func gemmImpl() string {
	switch {
	case simdAvailable:
		return "archsimd-avx512"
	case avx2Available:
		return "archsimd-avx2"
	}
	return "gonum-blas32"
}

// The micro-kernel computes a tile of mr x nr = 4 x 32 products. Its "S"
// operand is pre-broadcast: every scalar is stored as 16 copies, so the kernel
// needs only plain vector loads (Go's compiler keeps vector values in 15
// registers and schedules all loads of a block early; a kernel whose operands
// are loaded, used once and dropped avoids spills). Its "V" operand is packed
// as [k][32].
const (
	mr  = 4
	nr  = 32
	kc  = 128 // k-block of the pre-broadcast kernel: its S panel (kc*256 bytes) stays in L1
	kcC = 512 // k-block of the compact-S kernel
)

// kernel4x32 computes out[r][j] = sum_p S[p][r] * V[p][j] for r<4, j<32,
// where s points at k*4*16 floats (pre-broadcast) and v at k*32 floats.
// The result overwrites out.
func kernel4x32(k int, s, v unsafe.Pointer, out *[mr * nr]float32) {
	var c00, c01, c10, c11, c20, c21, c30, c31 archsimd.Float32x16
	// The pointers advance only when another step follows, so they never
	// point past the operands (checkptr would reject that).
	p := 0
	for k >= 2 {
		v0 := archsimd.LoadFloat32x16((*[16]float32)(v))
		v1 := archsimd.LoadFloat32x16((*[16]float32)(unsafe.Add(v, 64)))
		x := archsimd.LoadFloat32x16((*[16]float32)(s))
		c00 = x.MulAdd(v0, c00)
		c01 = x.MulAdd(v1, c01)
		x = archsimd.LoadFloat32x16((*[16]float32)(unsafe.Add(s, 64)))
		c10 = x.MulAdd(v0, c10)
		c11 = x.MulAdd(v1, c11)
		x = archsimd.LoadFloat32x16((*[16]float32)(unsafe.Add(s, 128)))
		c20 = x.MulAdd(v0, c20)
		c21 = x.MulAdd(v1, c21)
		x = archsimd.LoadFloat32x16((*[16]float32)(unsafe.Add(s, 192)))
		c30 = x.MulAdd(v0, c30)
		c31 = x.MulAdd(v1, c31)
		v0 = archsimd.LoadFloat32x16((*[16]float32)(unsafe.Add(v, 128)))
		v1 = archsimd.LoadFloat32x16((*[16]float32)(unsafe.Add(v, 192)))
		x = archsimd.LoadFloat32x16((*[16]float32)(unsafe.Add(s, 256)))
		c00 = x.MulAdd(v0, c00)
		c01 = x.MulAdd(v1, c01)
		x = archsimd.LoadFloat32x16((*[16]float32)(unsafe.Add(s, 320)))
		c10 = x.MulAdd(v0, c10)
		c11 = x.MulAdd(v1, c11)
		x = archsimd.LoadFloat32x16((*[16]float32)(unsafe.Add(s, 384)))
		c20 = x.MulAdd(v0, c20)
		c21 = x.MulAdd(v1, c21)
		x = archsimd.LoadFloat32x16((*[16]float32)(unsafe.Add(s, 448)))
		c30 = x.MulAdd(v0, c30)
		c31 = x.MulAdd(v1, c31)
		p += 2
		if p >= k {
			break
		}
		v = unsafe.Add(v, 256)
		s = unsafe.Add(s, 512)
		if p+2 > k {
			break
		}
	}
	if p < k {
		v0 := archsimd.LoadFloat32x16((*[16]float32)(v))
		v1 := archsimd.LoadFloat32x16((*[16]float32)(unsafe.Add(v, 64)))
		x := archsimd.LoadFloat32x16((*[16]float32)(s))
		c00 = x.MulAdd(v0, c00)
		c01 = x.MulAdd(v1, c01)
		x = archsimd.LoadFloat32x16((*[16]float32)(unsafe.Add(s, 64)))
		c10 = x.MulAdd(v0, c10)
		c11 = x.MulAdd(v1, c11)
		x = archsimd.LoadFloat32x16((*[16]float32)(unsafe.Add(s, 128)))
		c20 = x.MulAdd(v0, c20)
		c21 = x.MulAdd(v1, c21)
		x = archsimd.LoadFloat32x16((*[16]float32)(unsafe.Add(s, 192)))
		c30 = x.MulAdd(v0, c30)
		c31 = x.MulAdd(v1, c31)
	}
	c00.Store((*[16]float32)(out[0:16]))
	c01.Store((*[16]float32)(out[16:32]))
	c10.Store((*[16]float32)(out[32:48]))
	c11.Store((*[16]float32)(out[48:64]))
	c20.Store((*[16]float32)(out[64:80]))
	c21.Store((*[16]float32)(out[80:96]))
	c30.Store((*[16]float32)(out[96:112]))
	c31.Store((*[16]float32)(out[112:128]))
}

// kernel4x32b is kernel4x32 with a compact S operand: s points at k*4
// floats ([k][4], plus 3 readable floats of padding) and each scalar is
// broadcast in the kernel. It suits narrow products (few V tiles), where
// pre-broadcasting S would cost more than it saves.
func kernel4x32b(k int, s, v unsafe.Pointer, out *[mr * nr]float32) {
	var c00, c01, c10, c11, c20, c21, c30, c31 archsimd.Float32x16
	for p := 0; p < k; p++ {
		if p > 0 {
			v = unsafe.Add(v, 128)
			s = unsafe.Add(s, 16)
		}
		v0 := archsimd.LoadFloat32x16((*[16]float32)(v))
		v1 := archsimd.LoadFloat32x16((*[16]float32)(unsafe.Add(v, 64)))
		x := archsimd.LoadFloat32x4((*[4]float32)(s)).Broadcast1To16()
		c00 = x.MulAdd(v0, c00)
		c01 = x.MulAdd(v1, c01)
		x = archsimd.LoadFloat32x4((*[4]float32)(unsafe.Add(s, 4))).Broadcast1To16()
		c10 = x.MulAdd(v0, c10)
		c11 = x.MulAdd(v1, c11)
		x = archsimd.LoadFloat32x4((*[4]float32)(unsafe.Add(s, 8))).Broadcast1To16()
		c20 = x.MulAdd(v0, c20)
		c21 = x.MulAdd(v1, c21)
		x = archsimd.LoadFloat32x4((*[4]float32)(unsafe.Add(s, 12))).Broadcast1To16()
		c30 = x.MulAdd(v0, c30)
		c31 = x.MulAdd(v1, c31)
	}
	c00.Store((*[16]float32)(out[0:16]))
	c01.Store((*[16]float32)(out[16:32]))
	c10.Store((*[16]float32)(out[32:48]))
	c11.Store((*[16]float32)(out[48:64]))
	c20.Store((*[16]float32)(out[64:80]))
	c21.Store((*[16]float32)(out[80:96]))
	c30.Store((*[16]float32)(out[96:112]))
	c31.Store((*[16]float32)(out[112:128]))
}

// Permutation indices for transposing four 16-float rows into sixteen
// 4-float columns (see transpose4x16).
var (
	idxPairLo = [16]uint32{0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23}
	idxPairHi = [16]uint32{8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31}
	idxQuadLo = [16]uint32{0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23}
	idxQuadHi = [16]uint32{8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31}
)

// transpose4x16 interleaves four rows r0..r3 of 16 floats so that the 64
// outputs hold column k's four values at 4k..4k+3 (o0 has columns 0..3).
func transpose4x16(r0, r1, r2, r3 archsimd.Float32x16) (o0, o1, o2, o3 archsimd.Float32x16) {
	pl := archsimd.LoadUint32x16(&idxPairLo)
	ph := archsimd.LoadUint32x16(&idxPairHi)
	a01l := r0.ConcatPermute(r1, pl)
	a01h := r0.ConcatPermute(r1, ph)
	a23l := r2.ConcatPermute(r3, pl)
	a23h := r2.ConcatPermute(r3, ph)
	ql := archsimd.LoadUint32x16(&idxQuadLo)
	qh := archsimd.LoadUint32x16(&idxQuadHi)
	return a01l.ConcatPermute(a23l, ql), a01l.ConcatPermute(a23l, qh), a01h.ConcatPermute(a23h, ql), a01h.ConcatPermute(a23h, qh)
}

// kernel4x32d is kernel4x32b reading S in place: row r's scalar for depth p
// is the first float of the 4-float load at s_r + p*step bytes. The caller
// guarantees that every such 16-byte load stays inside the operand.
func kernel4x32d(k int, s0, s1, s2, s3 unsafe.Pointer, step uintptr, v unsafe.Pointer, out *[mr * nr]float32) {
	var c00, c01, c10, c11, c20, c21, c30, c31 archsimd.Float32x16
	for p := 0; p < k; p++ {
		if p > 0 {
			v = unsafe.Add(v, 128)
			s0 = unsafe.Add(s0, step)
			s1 = unsafe.Add(s1, step)
			s2 = unsafe.Add(s2, step)
			s3 = unsafe.Add(s3, step)
		}
		x := archsimd.LoadFloat32x4((*[4]float32)(s0)).Broadcast1To16()
		v0 := archsimd.LoadFloat32x16((*[16]float32)(v))
		v1 := archsimd.LoadFloat32x16((*[16]float32)(unsafe.Add(v, 64)))
		c00 = x.MulAdd(v0, c00)
		c01 = x.MulAdd(v1, c01)
		x = archsimd.LoadFloat32x4((*[4]float32)(s1)).Broadcast1To16()
		c10 = x.MulAdd(v0, c10)
		c11 = x.MulAdd(v1, c11)
		x = archsimd.LoadFloat32x4((*[4]float32)(s2)).Broadcast1To16()
		c20 = x.MulAdd(v0, c20)
		c21 = x.MulAdd(v1, c21)
		x = archsimd.LoadFloat32x4((*[4]float32)(s3)).Broadcast1To16()
		c30 = x.MulAdd(v0, c30)
		c31 = x.MulAdd(v1, c31)
	}
	c00.Store((*[16]float32)(out[0:16]))
	c01.Store((*[16]float32)(out[16:32]))
	c10.Store((*[16]float32)(out[32:48]))
	c11.Store((*[16]float32)(out[48:64]))
	c20.Store((*[16]float32)(out[64:80]))
	c21.Store((*[16]float32)(out[80:96]))
	c30.Store((*[16]float32)(out[96:112]))
	c31.Store((*[16]float32)(out[112:128]))
}

// packSCompact writes dst[p*4+r] = S(p0+r, k0+p) (zero for r >= np), plus
// 4 zero floats of padding for the kernel's 4-wide loads. Scalars move as
// uint32 bit patterns so that no SSE instruction runs between vector code.
func packSCompact(dst []float32, src []float32, rs, cs, p0, np, k0, kk int) {
	d := unsafe.Slice((*uint32)(unsafe.Pointer(&dst[0])), kk*mr+4)
	sv := unsafe.Slice((*uint32)(unsafe.Pointer(&src[0])), len(src))
	d[kk*mr], d[kk*mr+1], d[kk*mr+2], d[kk*mr+3] = 0, 0, 0, 0
	p := 0
	if np == mr && cs == 1 {
		// Rows contiguous along k: transpose 4x16 blocks in registers.
		b0, b1, b2, b3 := p0*rs+k0, (p0+1)*rs+k0, (p0+2)*rs+k0, (p0+3)*rs+k0
		for ; p+16 <= kk; p += 16 {
			o0, o1, o2, o3 := transpose4x16(
				archsimd.LoadFloat32x16((*[16]float32)(src[b0+p:])),
				archsimd.LoadFloat32x16((*[16]float32)(src[b1+p:])),
				archsimd.LoadFloat32x16((*[16]float32)(src[b2+p:])),
				archsimd.LoadFloat32x16((*[16]float32)(src[b3+p:])))
			o := (*[64]float32)(dst[p*mr:])
			o0.Store((*[16]float32)(o[0:16]))
			o1.Store((*[16]float32)(o[16:32]))
			o2.Store((*[16]float32)(o[32:48]))
			o3.Store((*[16]float32)(o[48:64]))
		}
	}
	if np == mr && rs == 1 {
		// Rows adjacent: each depth is one 4-float copy.
		for ; p < kk; p++ {
			base := p0 + (k0+p)*cs
			x := (*[4]uint32)(sv[base:])
			y := (*[4]uint32)(d[p*mr:])
			y[0], y[1], y[2], y[3] = x[0], x[1], x[2], x[3]
		}
		return
	}
	for r := 0; r < mr; r++ {
		if r >= np {
			for q := p; q < kk; q++ {
				d[q*mr+r] = 0
			}
			continue
		}
		base := (p0+r)*rs + k0*cs
		for q := p; q < kk; q++ {
			d[q*mr+r] = sv[base+q*cs]
		}
	}
}

// packS writes the pre-broadcast S panel for rows p0..p0+np (np<=4) and
// depths k0..k0+kk: dst[(p*4+r)*16+lane] = S(p0+r, k0+p). Rows past np are
// zero. S(p, q) = src[p*rs + q*cs].
//
// Scalars are loaded with 4-wide vector loads: a scalar (SSE-encoded) load
// right after 512-bit code stalls on this hardware.
func packS(dst []float32, src []float32, rs, cs, p0, np, k0, kk int) {
	dst = dst[:kk*mr*16]
	zero := archsimd.Float32x16{}
	for r := 0; r < mr; r++ {
		if r >= np {
			for p := 0; p < kk; p++ {
				zero.Store((*[16]float32)(dst[(p*mr+r)*16:]))
			}
			continue
		}
		base := (p0+r)*rs + k0*cs
		p := 0
		for ; p < kk && base+p*cs+4 <= len(src); p++ {
			archsimd.LoadFloat32x4Slice(src[base+p*cs:]).Broadcast1To16().Store((*[16]float32)(dst[(p*mr+r)*16:]))
		}
		for ; p < kk; p++ { // the last few scalars of src
			archsimd.BroadcastFloat32x16(src[base+p*cs]).Store((*[16]float32)(dst[(p*mr+r)*16:]))
		}
	}
}

// packV writes the V panel for columns q0..q0+nq (nq<=32) and depths
// k0..k0+kk: dst[p*32+j] = V(k0+p, q0+j), zero for j>=nq.
// V(p, q) = src[p*rs + q*cs].
func packV(dst []float32, src []float32, rs, cs, q0, nq, k0, kk int) {
	dst = dst[:kk*nr]
	if cs == 1 {
		for p := 0; p < kk; p++ {
			row := src[(k0+p)*rs+q0:]
			d := dst[p*nr : p*nr+nr]
			if nq == nr {
				archsimd.LoadFloat32x16Slice(row[:16]).StoreSlice(d[:16])
				archsimd.LoadFloat32x16Slice(row[16:32]).StoreSlice(d[16:32])
				continue
			}
			n := copy(d[:nq], row[:nq])
			clear(d[n:])
		}
		return
	}
	packVPlain(dst, src, rs, cs, q0, nq, k0, kk, nr)
}

// packVPlain writes a V panel of width columns without vector code:
// dst[p*width+j] = V(k0+p, q0+j), zero for j>=nq. V(p, q) = src[p*rs + q*cs].
func packVPlain(dst []float32, src []float32, rs, cs, q0, nq, k0, kk, width int) {
	if cs == 1 {
		for p := 0; p < kk; p++ {
			row := src[(k0+p)*rs+q0:]
			d := dst[p*width : p*width+width]
			n := copy(d[:nq], row[:nq])
			clear(d[n:])
		}
		return
	}
	for j := 0; j < width; j++ {
		if j >= nq {
			for p := 0; p < kk; p++ {
				dst[p*width+j] = 0
			}
			continue
		}
		base := k0*rs + (q0+j)*cs
		for p := 0; p < kk; p++ {
			dst[p*width+j] = src[base+p*rs]
		}
	}
}

// gemmJob describes D[p][q] = sum_k S(p,k) V(k,q) stored into C as
// C[p*cps + q*cqs] = alpha*D + beta*C.
type gemmJob struct {
	P, Q, K        int
	s              []float32
	sRS, sCS       int
	v              []float32
	vRS, vCS       int
	alpha, beta    float32
	c              []float32
	cPS, cQS       int
	qTiles, pTiles int
}

// Scratch holds one worker's packing buffers.
type Scratch struct {
	s      []float32
	v      []float32
	outBuf [2*mr*nr + 16]float32
	// zero and rowPtrs serve ConvGatherFast: a row of zeros for missing
	// neighbours, and the source row of each output row and segment.
	zero    []float32
	rowPtrs [convSegs * 2 * mr]unsafe.Pointer
}

// tile returns a 64-byte aligned view of outBuf, so that the kernel's vector
// stores and the merge's loads do not split cache lines.
func (sc *Scratch) tile() *[mr * nr]float32 {
	off := int(uintptr(unsafe.Pointer(&sc.outBuf[0]))&63) / 4
	if off != 0 {
		off = 16 - off
	}
	return (*[mr * nr]float32)(sc.outBuf[off : off+mr*nr])
}

// tile8 is tile for the 8-row kernel: two tiles, one after the other.
func (sc *Scratch) tile8() *[2 * mr * nr]float32 {
	t := sc.tile()
	return (*[2 * mr * nr]float32)(unsafe.Slice(&t[0], 2*mr*nr))
}

func (sc *Scratch) ensure(kk, qTiles int) {
	if n := kk * mr * 16; cap(sc.s) < n {
		sc.s = make([]float32, n)
	}
	if n := kk * nr * qTiles; cap(sc.v) < n {
		sc.v = make([]float32, n)
	}
}

// run computes the tiles with p-tile in [pt0, pt1) and q-tile in [qt0, qt1).
func (j *gemmJob) run(sc *Scratch, pt0, pt1, qt0, qt1 int) {
	if !simdAvailable {
		j.runAVX2(sc, pt0, pt1, qt0, qt1)
		return
	}
	nq := qt1 - qt0
	// The assembly kernels broadcast from memory: a pre-broadcast S would
	// only waste cache, so they always read S compact (or in place).
	compact := forceCompact == 1 || forceCompact == 0 && (asmKernel || nq <= compactMaxTiles)
	kb := kc
	if compact {
		kb = kcC
	}
	sc.ensure(min(kb, j.K), nq)
	firstMode := mergeScale
	switch j.beta {
	case 0:
		firstMode = mergeSet
	case 1:
		firstMode = mergeAdd
	}
	va := archsimd.BroadcastFloat32x16(j.alpha)
	vb := archsimd.BroadcastFloat32x16(j.beta)
	for k0 := 0; k0 < j.K; k0 += kb {
		kk := min(kb, j.K-k0)
		mode := mergeAdd
		if k0 == 0 {
			mode = firstMode
		}
		vbuf := sc.v[:kk*nr*nq]
		for qt := qt0; qt < qt1; qt++ {
			q0 := qt * nr
			packV(vbuf[(qt-qt0)*kk*nr:], j.v, j.vRS, j.vCS, q0, min(nr, j.Q-q0), k0, kk)
		}
		sbuf := sc.s[:kk*mr*16]
		out := sc.tile()
		if compact {
			for pt := pt0; pt < pt1; pt++ {
				p0 := pt * mr
				np := min(mr, j.P-p0)
				if j.pair(pt, pt1, k0, kk) {
					// Two full tiles read in place: the 8-row kernel.
					base := unsafe.Pointer(&j.s[p0*j.sRS+k0*j.sCS])
					out8 := sc.tile8()
					lo, hi := (*[mr * nr]float32)(out8[:mr*nr]), (*[mr * nr]float32)(out8[mr*nr:])
					for qt := qt0; qt < qt1; qt++ {
						q0 := qt * nr
						vp := unsafe.Pointer(&vbuf[(qt-qt0)*kk*nr])
						kernel8x32asm(kk, base, uintptr(j.sRS)*4, uintptr(j.sCS)*4, vp, out8)
						j.store(lo, p0, mr, q0, min(nr, j.Q-q0), mode, va, vb)
						j.store(hi, p0+mr, mr, q0, min(nr, j.Q-q0), mode, va, vb)
					}
					pt++
					continue
				}
				// Read S in place when all four rows exist and the last
				// 4-float load stays inside the slice; otherwise pack.
				first := p0*j.sRS + k0*j.sCS
				last := first + max(3*j.sRS, 0) + (kk-1)*j.sCS + 4
				direct := np == mr && (j.sCS == 1 || j.sRS == 1) && last <= len(j.s)
				if !direct {
					packSCompact(sbuf, j.s, j.sRS, j.sCS, p0, np, k0, kk)
				}
				for qt := qt0; qt < qt1; qt++ {
					q0 := qt * nr
					vp := unsafe.Pointer(&vbuf[(qt-qt0)*kk*nr])
					switch {
					case direct:
						base := unsafe.Pointer(&j.s[first])
						rs := uintptr(j.sRS) * 4
						kernelRows(kk, base, unsafe.Add(base, rs), unsafe.Add(base, 2*rs), unsafe.Add(base, 3*rs), uintptr(j.sCS)*4, vp, out)
					case asmKernel:
						s := unsafe.Pointer(&sbuf[0])
						kernel4x32asm(kk, s, unsafe.Add(s, 4), unsafe.Add(s, 8), unsafe.Add(s, 12), 16, vp, out)
					default:
						kernel4x32b(kk, unsafe.Pointer(&sbuf[0]), vp, out)
					}
					j.store(out, p0, np, q0, min(nr, j.Q-q0), mode, va, vb)
				}
			}
			continue
		}
		for pt := pt0; pt < pt1; pt++ {
			p0 := pt * mr
			np := min(mr, j.P-p0)
			packS(sbuf, j.s, j.sRS, j.sCS, p0, np, k0, kk)
			for qt := qt0; qt < qt1; qt++ {
				q0 := qt * nr
				kernel4x32(kk, unsafe.Pointer(&sbuf[0]), unsafe.Pointer(&vbuf[(qt-qt0)*kk*nr]), out)
				j.store(out, p0, np, q0, min(nr, j.Q-q0), mode, va, vb)
			}
		}
	}
	archsimd.ClearAVXUpperBits()
}

// pair reports whether p-tiles pt and pt+1 (both below pt1) are full and
// can be read in place by kernel8x32asm for depths k0..k0+kk.
func (j *gemmJob) pair(pt, pt1, k0, kk int) bool {
	p0 := pt * mr
	if !asmKernel || pt+1 >= pt1 || p0+2*mr > j.P || j.sCS != 1 && j.sRS != 1 {
		return false
	}
	last := p0*j.sRS + k0*j.sCS + (2*mr-1)*j.sRS + (kk-1)*j.sCS
	return last < len(j.s)
}

// Tile merge modes: C = alpha*T, C = alpha*T + C, C = alpha*T + beta*C.
const (
	mergeSet = iota
	mergeAdd
	mergeScale
)

// store merges a finished tile into C. It does no scalar float arithmetic
// on the vector path: a scalar (SSE-encoded) float instruction right after
// 512-bit code stalls while the upper register halves are dirty.
func (j *gemmJob) store(t *[mr * nr]float32, p0, np, q0, nq int, mode int, va, vb archsimd.Float32x16) {
	c := j.c
	if j.cQS == 1 {
		full := nq &^ 15
		for r := 0; r < np; r++ {
			row := c[(p0+r)*j.cPS+q0 : (p0+r)*j.cPS+q0+nq]
			tr := t[r*nr : r*nr+nq]
			for h := 0; h < full; h += 16 {
				tv := archsimd.LoadFloat32x16((*[16]float32)(tr[h:]))
				var cv archsimd.Float32x16
				if mode != mergeSet {
					cv = archsimd.LoadFloat32x16((*[16]float32)(row[h:]))
					if mode == mergeScale {
						cv = cv.Mul(vb)
					}
				}
				tv.MulAdd(va, cv).Store((*[16]float32)(row[h:]))
			}
		}
		if full == nq {
			return
		}
		// Ragged right edge: scalar code for the last nq%16 columns.
		q0, nq = q0+full, nq-full
		archsimd.ClearAVXUpperBits()
		alpha, beta := j.alpha, j.beta
		for r := 0; r < np; r++ {
			for q := 0; q < nq; q++ {
				i := (p0+r)*j.cPS + q0 + q
				tv := t[r*nr+full+q]
				switch mode {
				case mergeSet:
					c[i] = alpha * tv
				case mergeAdd:
					c[i] += alpha * tv
				default:
					c[i] = alpha*tv + beta*c[i]
				}
			}
		}
		return
	}
	archsimd.ClearAVXUpperBits()
	alpha, beta := j.alpha, j.beta
	for r := 0; r < np; r++ {
		for q := 0; q < nq; q++ {
			i := (p0+r)*j.cPS + (q0+q)*j.cQS
			switch mode {
			case mergeSet:
				c[i] = alpha * t[r*nr+q]
			case mergeAdd:
				c[i] += alpha * t[r*nr+q]
			default:
				c[i] = alpha*t[r*nr+q] + beta*c[i]
			}
		}
	}
}

// compactMaxTiles is the widest product (in 32-column tiles) that uses
// the compact-S kernel.
const compactMaxTiles = 4

// forceCompact overrides the kernel choice in benchmarks: 0 by width,
// 1 compact S, 2 pre-broadcast S.
var forceCompact int

// forceOrientation overrides the orientation choice in tests and
// benchmarks: 0 chooses by cost, 1 normal, 2 transposed.
var forceOrientation int

// sgemmFast runs the product with the archsimd kernels: the AVX-512 ones,
// or on a CPU with AVX2 and FMA alone the 256-bit one (sgemm_avx2.go). It
// returns false when the CPU has neither, in which case the caller falls
// back to gonum. Arguments have been validated; m, n, k > 0.
func sgemmFast(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, threads int, sc *Scratch) bool {
	if !simdAvailable && !avx2Available {
		return false
	}
	aI, aK := lda, 1
	if tA {
		aI, aK = 1, lda
	}
	bK, bJ := ldb, 1
	if tB {
		bK, bJ = 1, ldb
	}
	// Estimate the cycles of both orientations. The kernel does 8 FMAs per
	// depth step (4 cycles; 5.5 for the compact-S kernel, which broadcasts
	// in the loop). Packing V costs little when it is contiguous along the
	// vector direction; S costs one 64-byte store per element when
	// pre-broadcast, little when compact. A transposed C is stored by scalar
	// code (measured: several times slower than the kernel).
	ceil := func(x, d int) int { return (x + d - 1) / d }
	cost := func(P, Q, sRS, sCS, vCS int, transposedC bool) float64 {
		pt, qt := ceil(P, mr), ceil(Q, nr)
		compute, spack := 4.0, 1.0
		kb := kc
		if qt <= compactMaxTiles {
			kb = kcC
			compute, spack = 5.5, 0.5
			if sCS == 1 || sRS == 1 {
				spack = 0.15
			}
		}
		vpack := 0.6
		if vCS == 1 {
			vpack = 0.15
		}
		c := float64(pt*qt*k)*compute + float64(pt*mr*k)*spack + float64(Q*k)*vpack
		if transposedC {
			c += float64(P*Q*ceil(k, kb)) * 8
		}
		return c
	}
	costN := cost(m, n, aI, aK, bJ, false)
	costT := cost(n, m, bJ, bK, aI, true)
	var j gemmJob
	if forceOrientation == 1 || forceOrientation == 0 && costN <= costT {
		j = gemmJob{P: m, Q: n, K: k, s: a, sRS: aI, sCS: aK, v: b, vRS: bK, vCS: bJ, cPS: ldc, cQS: 1}
	} else {
		j = gemmJob{P: n, Q: m, K: k, s: b, sRS: bJ, sCS: bK, v: a, vRS: aK, vCS: aI, cPS: 1, cQS: ldc}
	}
	j.alpha, j.beta, j.c = alpha, beta, c
	j.pTiles, j.qTiles = ceil(j.P, mr), ceil(j.Q, nr)
	parallel(j, threads, sc)
	return true
}

// parallel splits the tiles over up to threads goroutines. sc, if not nil,
// is the caller's scratch for the single-threaded case. j is passed by value
// so that the serial path does not move the caller's job to the heap.
func parallel(j gemmJob, threads int, sc *Scratch) {
	flops := 2 * float64(j.P) * float64(j.Q) * float64(j.K)
	if threads > 1 && flops < 4e6 {
		threads = 1
	}
	splitP := j.pTiles >= j.qTiles || j.pTiles >= 8*threads
	tiles := j.qTiles
	if splitP {
		tiles = j.pTiles
	}
	threads = min(threads, tiles)
	if threads <= 1 {
		if sc == nil {
			sc = scratchPool.Get().(*Scratch)
			defer scratchPool.Put(sc)
		}
		j.run(sc, 0, j.pTiles, 0, j.qTiles)
		return
	}
	runThreads(j, threads, tiles, splitP)
}

// runThreads takes the job by value: only this path moves it to the heap.
func runThreads(j gemmJob, threads, tiles int, splitP bool) {
	done := make(chan struct{}, threads)
	for t := 0; t < threads; t++ {
		lo, hi := tiles*t/threads, tiles*(t+1)/threads
		go func() {
			sc := scratchPool.Get().(*Scratch)
			if splitP {
				j.run(sc, lo, hi, 0, j.qTiles)
			} else {
				j.run(sc, 0, j.pTiles, lo, hi)
			}
			scratchPool.Put(sc)
			done <- struct{}{}
		}()
	}
	for t := 0; t < threads; t++ {
		<-done
	}
}

var scratchPool = sync.Pool{New: func() any { return new(Scratch) }}

// asmKernel selects the assembly micro-kernel (true) or the archsimd ones
// (tests and benchmarks compare both).
var asmKernel = true

// kernelRows is kernel4x32d, in assembly when asmKernel is set.
func kernelRows(k int, s0, s1, s2, s3 unsafe.Pointer, step uintptr, v unsafe.Pointer, out *[mr * nr]float32) {
	if asmKernel {
		kernel4x32asm(k, s0, s1, s2, s3, step, v, out)
		return
	}
	kernel4x32d(k, s0, s1, s2, s3, step, v, out)
}

// kernel8x32asm multiplies 8 rows of S, row r at s + r*rs, in assembly.
//
//go:noescape
func kernel8x32asm(k int, s unsafe.Pointer, rs, step uintptr, v unsafe.Pointer, out *[2 * mr * nr]float32)

// kernel4x32asm is kernel4x32d in assembly (sgemm_amd64.s). The archsimd
// kernels compile to a broadcast through the shuffle port and register
// moves around every fused multiply-add (Go's register allocator puts the
// result of VFMADD213PS in the multiplicand's register); this one broadcasts
// from memory and accumulates in place.
//
//go:noescape
func kernel4x32asm(k int, s0, s1, s2, s3 unsafe.Pointer, step uintptr, v unsafe.Pointer, out *[mr * nr]float32)

// kernelConv8x32asm is the implicit-gather convolution kernel
// (sgemm_amd64.s): 8 rows, 32 columns, segs segments of c depths, row r of
// segment s read from rows[s*8+r].
//
//go:noescape
func kernelConv8x32asm(segs, c int, rows *[convSegs * 2 * mr]unsafe.Pointer, v unsafe.Pointer, out *[2 * mr * nr]float32)

// convSegs is the number of gather slots of a graph convolution: the point
// itself and its 8 line directions.
const convSegs = 9

// convCursor walks the rows of a graph convolution's input in order,
// keeping the point p of the current row and the first row base of its
// position, so that no row needs a division to find them.
type convCursor struct{ p, base int }

// rowPtrs sets ptrs[s*n+r], for the next n rows of the convolution (the
// first np of them real, the rest padding), to the start of the input row
// that segment s of row r reads: x's row base+tab[p*convSegs+s], or zero
// where the neighbour is missing (tab < 0) and for the padding. It moves
// the cursor on by np rows.
func (c *convCursor) rowPtrs(ptrs []unsafe.Pointer, n, np, points int, tab []int32, x []float32, cin int, zero unsafe.Pointer) {
	for r := range n {
		if r >= np {
			for s := range convSegs {
				ptrs[s*n+r] = zero
			}
			continue
		}
		xb := x[c.base*cin:]
		for s, src := range tab[c.p*convSegs : (c.p+1)*convSegs] {
			ptr := zero
			if src >= 0 {
				ptr = unsafe.Pointer(&xb[int(src)*cin])
			}
			ptrs[s*n+r] = ptr
		}
		if c.p++; c.p == points {
			c.p, c.base = 0, c.base+points
		}
	}
}

// ConvGatherFast computes out[r] += sum_s x[src(r, s)]·W[s*cin:(s+1)*cin]
// for the rows r < rows of whole positions of points points each, where
// src(r, s) is the row of the same position at point tab[(r%points)*9+s]
// (no contribution when it is negative). It is the graph convolution
// gather(x)·W without writing the gathered matrix: the kernel reads each
// neighbour's channels in place. out holds rows×cout floats (usually the
// bias already); w is [9*cin][cout]. It returns false, doing nothing, when
// no assembly kernel (AVX-512, or AVX2 and FMA) can run.
func ConvGatherFast(rows, points int, tab []int32, x []float32, cin int, w []float32, cout int, out []float32, sc *Scratch) bool {
	if !asmKernel || rows <= 0 || cin <= 0 {
		return false
	}
	if !simdAvailable {
		if !avx2Available {
			return false
		}
		convGatherAVX2(rows, points, tab, x, cin, w, cout, out, sc)
		return true
	}
	K := convSegs * cin
	qTiles := (cout + nr - 1) / nr
	sc.ensure(K, qTiles)
	if cap(sc.zero) < cin {
		sc.zero = make([]float32, cin)
	}
	zero := unsafe.Pointer(&sc.zero[0])
	vbuf := sc.v[:K*nr*qTiles]
	for qt := range qTiles {
		q0 := qt * nr
		packV(vbuf[qt*K*nr:], w, cout, 1, q0, min(nr, cout-q0), 0, K)
	}
	j := gemmJob{P: rows, Q: cout, K: K, c: out, cPS: cout, cQS: 1, alpha: 1, beta: 1}
	va := archsimd.BroadcastFloat32x16(1)
	out8 := sc.tile8()
	lo, hi := (*[mr * nr]float32)(out8[:mr*nr]), (*[mr * nr]float32)(out8[mr*nr:])
	ptrs := &sc.rowPtrs
	var cur convCursor
	for r0 := 0; r0 < rows; r0 += 2 * mr {
		np := min(2*mr, rows-r0)
		cur.rowPtrs(ptrs[:], 2*mr, np, points, tab, x, cin, zero)
		for qt := range qTiles {
			q0 := qt * nr
			nq := min(nr, cout-q0)
			kernelConv8x32asm(convSegs, cin, ptrs, unsafe.Pointer(&vbuf[qt*K*nr]), out8)
			j.store(lo, r0, min(mr, np), q0, nq, mergeAdd, va, va)
			if np > mr {
				j.store(hi, r0+mr, np-mr, q0, nq, mergeAdd, va, va)
			}
		}
	}
	archsimd.ClearAVXUpperBits()
	return true
}
