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

// kernel4x16asm is kernel4x16 in assembly (sgemm_avx2_amd64.s), which
// keeps the accumulators in place.
//
//go:noescape
func kernel4x16asm(k int, s0, s1, s2, s3 unsafe.Pointer, step uintptr, v unsafe.Pointer, out *[mr * nr2]float32)

// kernelRows2 is kernel4x16, in assembly when asmKernel is set.
func kernelRows2(k int, s0, s1, s2, s3 unsafe.Pointer, step uintptr, v unsafe.Pointer, out *[mr * nr2]float32) {
	if asmKernel {
		kernel4x16asm(k, s0, s1, s2, s3, step, v, out)
		return
	}
	kernel4x16(k, s0, s1, s2, s3, step, v, out)
}

// packS2 writes dst[p*4+r] = S(p0+r, k0+p) (zero for r >= np), plus 4
// zero floats of padding for the kernel's 4-wide loads. S(p, q) =
// src[p*rs + q*cs].
func packS2(dst []float32, src []float32, rs, cs, p0, np, k0, kk int) {
	d := dst[:kk*mr+4]
	clear(d[kk*mr:])
	for r := 0; r < mr; r++ {
		if r >= np {
			for q := 0; q < kk; q++ {
				d[q*mr+r] = 0
			}
			continue
		}
		base := (p0+r)*rs + k0*cs
		for q := 0; q < kk; q++ {
			d[q*mr+r] = src[base+q*cs]
		}
	}
}

// packV2 writes the V panel for columns q0..q0+nq (nq<=16) and depths
// k0..k0+kk: dst[p*16+j] = V(k0+p, q0+j), zero for j>=nq.
// V(p, q) = src[p*rs + q*cs].
func packV2(dst []float32, src []float32, rs, cs, q0, nq, k0, kk int) {
	dst = dst[:kk*nr2]
	if cs == 1 {
		for p := 0; p < kk; p++ {
			row := src[(k0+p)*rs+q0:]
			d := dst[p*nr2 : p*nr2+nr2]
			n := copy(d[:nq], row[:nq])
			clear(d[n:])
		}
		return
	}
	for j := 0; j < nr2; j++ {
		if j >= nq {
			for p := 0; p < kk; p++ {
				dst[p*nr2+j] = 0
			}
			continue
		}
		base := k0*rs + (q0+j)*cs
		for p := 0; p < kk; p++ {
			dst[p*nr2+j] = src[base+p*rs]
		}
	}
}

// runAVX2 is run for the 256-bit kernel: the tiles with p-tile in [pt0,
// pt1) and q-tile (of nr columns) in [qt0, qt1), each q-tile computed as
// 16-column halves.
func (j *gemmJob) runAVX2(sc *Scratch, pt0, pt1, qt0, qt1 int) {
	q0, q1 := qt0*nr, min(qt1*nr, j.Q)
	halves := (q1 - q0 + nr2 - 1) / nr2
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
	out := (*[mr * nr2]float32)(sc.tile()[:mr*nr2])
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
		sbuf := sc.s[:kk*mr+4]
		for pt := pt0; pt < pt1; pt++ {
			p0 := pt * mr
			np := min(mr, j.P-p0)
			// Read S in place when all four rows exist and the last
			// 4-float load stays inside the slice; otherwise pack.
			first := p0*j.sRS + k0*j.sCS
			last := first + max(3*j.sRS, 0) + (kk-1)*j.sCS + 4
			var s0, s1, s2, s3 unsafe.Pointer
			var step uintptr
			if np == mr && (j.sCS == 1 || j.sRS == 1) && last <= len(j.s) {
				rs := uintptr(j.sRS) * 4
				s0 = unsafe.Pointer(&j.s[first])
				s1, s2, s3 = unsafe.Add(s0, rs), unsafe.Add(s0, 2*rs), unsafe.Add(s0, 3*rs)
				step = uintptr(j.sCS) * 4
			} else {
				packS2(sbuf, j.s, j.sRS, j.sCS, p0, np, k0, kk)
				s0 = unsafe.Pointer(&sbuf[0])
				s1, s2, s3 = unsafe.Add(s0, 4), unsafe.Add(s0, 8), unsafe.Add(s0, 12)
				step = 16
			}
			for h := range halves {
				c0 := q0 + h*nr2
				kernelRows2(kk, s0, s1, s2, s3, step, unsafe.Pointer(&vbuf[h*kk*nr2]), out)
				j.store2(out, p0, np, c0, min(nr2, q1-c0), mode, va, vb)
			}
		}
	}
	archsimd.ClearAVXUpperBits()
}

// store2 merges a finished 4 x 16 tile into C (store for the 256-bit
// kernel).
func (j *gemmJob) store2(t *[mr * nr2]float32, p0, np, q0, nq int, mode int, va, vb archsimd.Float32x8) {
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
