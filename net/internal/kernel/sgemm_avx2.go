//go:build goexperiment.simd && amd64

package kernel

import (
	"simd/archsimd"
	"unsafe"
)

// avx2Available reports whether the 256-bit kernel runs: the CPU has AVX2
// and FMA but not AVX-512 (which runs the wider kernels of sgemm_simd.go).
// Many ordinary machines are such (AMD before Zen 4, most Intel desktops),
// and gonum's blas32 reaches a twentieth of this kernel's speed on them.
// Tests set it to run the 256-bit kernel on AVX-512 machines too.
var avx2Available = !simdAvailable && archsimd.X86.AVX2() && archsimd.X86.FMA()

// The 256-bit micro-kernel computes a tile of mr x nr2 = 4 x 16 products
// from four rows of S, read in place or packed compact ([k][4]), each
// scalar broadcast in the kernel, and a V panel packed as [k][16]. Its 8
// accumulators, 2 V vectors and the broadcast fit the 16 YMM registers.
const (
	nr2 = 16
	kc2 = 512 // k-block: a V panel (kc2*64 bytes) stays in L2, S streams
)

// kernel4x16 computes out[r*16+j] = sum_p S[p][r] * V[p][j] for r<4, j<16.
// Row r's scalar for depth p is the first float of the 4-float load at
// s_r + p*step bytes (the caller guarantees that every such load stays
// inside the operand); v points at k*16 floats.
func kernel4x16(k int, s0, s1, s2, s3 unsafe.Pointer, step uintptr, v unsafe.Pointer, out *[mr * nr2]float32) {
	var c00, c01, c10, c11, c20, c21, c30, c31 archsimd.Float32x8
	for p := 0; p < k; p++ {
		// The pointers advance only when another step follows, so they
		// never point past the operands (checkptr would reject that).
		if p > 0 {
			v = unsafe.Add(v, 64)
			s0 = unsafe.Add(s0, step)
			s1 = unsafe.Add(s1, step)
			s2 = unsafe.Add(s2, step)
			s3 = unsafe.Add(s3, step)
		}
		v0 := archsimd.LoadFloat32x8((*[8]float32)(v))
		v1 := archsimd.LoadFloat32x8((*[8]float32)(unsafe.Add(v, 32)))
		x := archsimd.LoadFloat32x4((*[4]float32)(s0)).Broadcast1To8()
		c00 = x.MulAdd(v0, c00)
		c01 = x.MulAdd(v1, c01)
		x = archsimd.LoadFloat32x4((*[4]float32)(s1)).Broadcast1To8()
		c10 = x.MulAdd(v0, c10)
		c11 = x.MulAdd(v1, c11)
		x = archsimd.LoadFloat32x4((*[4]float32)(s2)).Broadcast1To8()
		c20 = x.MulAdd(v0, c20)
		c21 = x.MulAdd(v1, c21)
		x = archsimd.LoadFloat32x4((*[4]float32)(s3)).Broadcast1To8()
		c30 = x.MulAdd(v0, c30)
		c31 = x.MulAdd(v1, c31)
	}
	c00.Store((*[8]float32)(out[0:8]))
	c01.Store((*[8]float32)(out[8:16]))
	c10.Store((*[8]float32)(out[16:24]))
	c11.Store((*[8]float32)(out[24:32]))
	c20.Store((*[8]float32)(out[32:40]))
	c21.Store((*[8]float32)(out[40:48]))
	c30.Store((*[8]float32)(out[48:56]))
	c31.Store((*[8]float32)(out[56:64]))
}

// rows2 is the row height of the 256-bit assembly kernel's tile.
const rows2 = 6

// kernel6x16asm computes a 6 x 16 tile like kernel4x16, in assembly
// (sgemm_avx2_amd64.s), with its accumulators kept in place.
//
//go:noescape
func kernel6x16asm(k int, s0, s1, s2, s3, s4, s5 unsafe.Pointer, step uintptr, v unsafe.Pointer, out *[rows2 * nr2]float32)

// kernelTile2 computes the tile of the rows whose scalars start at s[r]:
// six rows in assembly when asmKernel is set, else four with the archsimd
// kernel (tests and benchmarks compare both).
func kernelTile2(k int, s *[rows2]unsafe.Pointer, step uintptr, v unsafe.Pointer, out *[rows2 * nr2]float32) {
	if asmKernel {
		kernel6x16asm(k, s[0], s[1], s[2], s[3], s[4], s[5], step, v, out)
		return
	}
	kernel4x16(k, s[0], s[1], s[2], s[3], step, v, (*[mr * nr2]float32)(out[:mr*nr2]))
}

// packS2 writes dst[p*rows+r] = S(p0+r, k0+p) for r < rows (zero for r >=
// np), plus 4 zero floats of padding for the kernel's 4-wide loads.
// S(p, q) = src[p*rs + q*cs].
func packS2(dst []float32, src []float32, rs, cs, p0, np, rows, k0, kk int) {
	d := dst[:kk*rows+4]
	clear(d[kk*rows:])
	for r := 0; r < rows; r++ {
		if r >= np {
			for q := 0; q < kk; q++ {
				d[q*rows+r] = 0
			}
			continue
		}
		base := (p0+r)*rs + k0*cs
		for q := 0; q < kk; q++ {
			d[q*rows+r] = src[base+q*cs]
		}
	}
}

// packV2 writes the V panel for columns q0..q0+nq (nq<=16) and depths
// k0..k0+kk: dst[p*16+j] = V(k0+p, q0+j), zero for j>=nq.
func packV2(dst []float32, src []float32, rs, cs, q0, nq, k0, kk int) {
	packVPlain(dst[:kk*nr2], src, rs, cs, q0, nq, k0, kk, nr2)
}

// runAVX2 is run for the 256-bit kernel: the rows of p-tiles [pt0, pt1)
// (in tiles of rows2 rows, or mr for the archsimd kernel) and the columns
// of q-tiles [qt0, qt1), each q-tile computed as 16-column halves.
func (j *gemmJob) runAVX2(sc *Scratch, pt0, pt1, qt0, qt1 int) {
	r0, r1 := pt0*mr, min(pt1*mr, j.P)
	q0, q1 := qt0*nr, min(qt1*nr, j.Q)
	halves := (q1 - q0 + nr2 - 1) / nr2
	rows := mr
	if asmKernel {
		rows = rows2
	}
	sc.ensure(min(kc2, j.K), qt1-qt0)
	firstMode := mergeScale
	switch j.beta {
	case 0:
		firstMode = mergeSet
	case 1:
		firstMode = mergeAdd
	}
	va := archsimd.BroadcastFloat32x8(j.alpha)
	vb := archsimd.BroadcastFloat32x8(j.beta)
	out := (*[rows2 * nr2]float32)(sc.tile()[:rows2*nr2])
	var s [rows2]unsafe.Pointer
	for k0 := 0; k0 < j.K; k0 += kc2 {
		kk := min(kc2, j.K-k0)
		mode := mergeAdd
		if k0 == 0 {
			mode = firstMode
		}
		vbuf := sc.v[:kk*nr2*halves]
		for h := range halves {
			c0 := q0 + h*nr2
			packV2(vbuf[h*kk*nr2:], j.v, j.vRS, j.vCS, c0, min(nr2, q1-c0), k0, kk)
		}
		sbuf := sc.s[:kk*rows+4]
		for p0 := r0; p0 < r1; p0 += rows {
			np := min(rows, r1-p0)
			// Read S in place when all the rows exist and the last 4-float
			// load stays inside the slice; otherwise pack.
			first := p0*j.sRS + k0*j.sCS
			last := first + max((rows-1)*j.sRS, 0) + (kk-1)*j.sCS + 4
			var step uintptr
			if np == rows && (j.sCS == 1 || j.sRS == 1) && last <= len(j.s) {
				s[0] = unsafe.Pointer(&j.s[first])
				step = uintptr(j.sCS) * 4
				for r := 1; r < rows; r++ {
					s[r] = unsafe.Add(s[0], uintptr(r*j.sRS)*4)
				}
			} else {
				packS2(sbuf, j.s, j.sRS, j.sCS, p0, np, rows, k0, kk)
				s[0] = unsafe.Pointer(&sbuf[0])
				step = uintptr(rows) * 4
				for r := 1; r < rows; r++ {
					s[r] = unsafe.Add(s[0], uintptr(r)*4)
				}
			}
			for h := range halves {
				c0 := q0 + h*nr2
				kernelTile2(kk, &s, step, unsafe.Pointer(&vbuf[h*kk*nr2]), out)
				j.store2(out, p0, np, c0, min(nr2, q1-c0), mode, va, vb)
			}
		}
	}
	archsimd.ClearAVXUpperBits()
}

// store2 merges the first np rows of a finished tile (rows of 16) into C (store for the 256-bit
// kernel).
func (j *gemmJob) store2(t *[rows2 * nr2]float32, p0, np, q0, nq int, mode int, va, vb archsimd.Float32x8) {
	c := j.c
	if j.cQS == 1 && nq == nr2 {
		for r := 0; r < np; r++ {
			row := c[(p0+r)*j.cPS+q0 : (p0+r)*j.cPS+q0+nr2]
			for h := 0; h < nr2; h += 8 {
				tv := archsimd.LoadFloat32x8((*[8]float32)(t[r*nr2+h:]))
				var cv archsimd.Float32x8
				if mode != mergeSet {
					cv = archsimd.LoadFloat32x8((*[8]float32)(row[h:]))
					if mode == mergeScale {
						cv = cv.Mul(vb)
					}
				}
				tv.MulAdd(va, cv).Store((*[8]float32)(row[h:]))
			}
		}
		return
	}
	alpha, beta := j.alpha, j.beta
	for r := 0; r < np; r++ {
		for q := 0; q < nq; q++ {
			i := (p0+r)*j.cPS + (q0+q)*j.cQS
			tv := t[r*nr2+q]
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
}

// kernelConv6x16asm is the implicit-gather convolution kernel of the
// 256-bit path (sgemm_avx2_amd64.s): 6 rows, 16 columns, segs segments of
// c depths, row r of segment s read from rows[s*6+r].
//
//go:noescape
func kernelConv6x16asm(segs, c int, rows *[convSegs * rows2]unsafe.Pointer, v unsafe.Pointer, out *[rows2 * nr2]float32)

// convGatherAVX2 is ConvGatherFast on the 256-bit path.
func convGatherAVX2(rows, points int, tab []int32, x []float32, cin int, w []float32, cout int, out []float32, sc *Scratch) {
	K := convSegs * cin
	halves := (cout + nr2 - 1) / nr2
	sc.ensure(K, (cout+nr-1)/nr)
	if cap(sc.zero) < cin {
		sc.zero = make([]float32, cin)
	}
	zero := unsafe.Pointer(&sc.zero[0])
	vbuf := sc.v[:K*nr2*halves]
	for h := range halves {
		q0 := h * nr2
		packV2(vbuf[h*K*nr2:], w, cout, 1, q0, min(nr2, cout-q0), 0, K)
	}
	j := gemmJob{P: rows, Q: cout, K: K, c: out, cPS: cout, cQS: 1, alpha: 1, beta: 1}
	one := archsimd.BroadcastFloat32x8(1)
	tile := (*[rows2 * nr2]float32)(sc.tile()[:rows2*nr2])
	ptrs := (*[convSegs * rows2]unsafe.Pointer)(sc.rowPtrs[:convSegs*rows2])
	var cur convCursor
	for r0 := 0; r0 < rows; r0 += rows2 {
		np := min(rows2, rows-r0)
		cur.rowPtrs(ptrs[:], rows2, np, points, tab, x, cin, zero)
		for h := range halves {
			q0 := h * nr2
			kernelConv6x16asm(convSegs, cin, ptrs, unsafe.Pointer(&vbuf[h*K*nr2]), tile)
			j.store2(tile, r0, np, q0, min(nr2, cout-q0), mergeAdd, one, one)
		}
	}
	archsimd.ClearAVXUpperBits()
}
