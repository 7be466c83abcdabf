//go:build goexperiment.simd && amd64

package kernel

// Tails shorter than a vector use scalar code (after clearing the upper
// vector halves): archsimd's SlicePart loads trip the checkptr
// instrumentation of -race builds.

import "simd/archsimd"

// VecAdd sets dst[i] += src[i] for i < len(dst); len(src) >= len(dst).
func VecAdd(dst, src []float32) {
	if !simdAvailable {
		if avx2Available {
			vecAdd8(dst, src)
			return
		}
		vecAddGeneric(dst, src)
		return
	}
	src = src[:len(dst)]
	i := 0
	for ; i+16 <= len(dst); i += 16 {
		d := (*[16]float32)(dst[i:])
		archsimd.LoadFloat32x16(d).Add(archsimd.LoadFloat32x16((*[16]float32)(src[i:]))).Store(d)
	}
	archsimd.ClearAVXUpperBits()
	vecAddGeneric(dst[i:], src[i:])
}

// VecRelu sets x[i] = max(x[i], 0).
func VecRelu(x []float32) {
	if !simdAvailable {
		if avx2Available {
			vecRelu8(x)
			return
		}
		vecReluGeneric(x)
		return
	}
	var z archsimd.Float32x16
	i := 0
	for ; i+16 <= len(x); i += 16 {
		d := (*[16]float32)(x[i:])
		archsimd.LoadFloat32x16(d).Max(z).Store(d)
	}
	archsimd.ClearAVXUpperBits()
	vecReluGeneric(x[i:])
}

// VecAddRelu sets dst[i] = max(dst[i]+src[i], 0).
func VecAddRelu(dst, src []float32) {
	if !simdAvailable {
		if avx2Available {
			vecAddRelu8(dst, src)
			return
		}
		vecAddReluGeneric(dst, src)
		return
	}
	src = src[:len(dst)]
	var z archsimd.Float32x16
	i := 0
	for ; i+16 <= len(dst); i += 16 {
		d := (*[16]float32)(dst[i:])
		archsimd.LoadFloat32x16(d).Add(archsimd.LoadFloat32x16((*[16]float32)(src[i:]))).Max(z).Store(d)
	}
	archsimd.ClearAVXUpperBits()
	vecAddReluGeneric(dst[i:], src[i:])
}

// VecReluMask sets dst[i] = g[i] where y[i] > 0, else 0 (the gradient of
// a ReLU whose output is y).
func VecReluMask(dst, g, y []float32) {
	if !simdAvailable {
		if avx2Available {
			vecReluMask8(dst, g, y)
			return
		}
		vecReluMaskGeneric(dst, g, y)
		return
	}
	g, y = g[:len(dst)], y[:len(dst)]
	var z archsimd.Float32x16
	i := 0
	for ; i+16 <= len(dst); i += 16 {
		m := archsimd.LoadFloat32x16((*[16]float32)(y[i:])).Greater(z)
		archsimd.LoadFloat32x16((*[16]float32)(g[i:])).Masked(m).Store((*[16]float32)(dst[i:]))
	}
	archsimd.ClearAVXUpperBits()
	vecReluMaskGeneric(dst[i:], g[i:], y[i:])
}

// GatherRow writes the nine c-float rows x[tab[k]] (zeros where tab[k] <
// 0) one after another into o.
func GatherRow(o, x []float32, tab []int32, c int) {
	if !simdAvailable || c%16 != 0 {
		if avx2Available && c%8 == 0 {
			gatherRow8(o, x, tab, c)
			return
		}
		gatherRowGeneric(o, x, tab, c)
		return
	}
	o = o[:9*c]
	var z archsimd.Float32x16
	for k, src := range tab[:9] {
		d := o[k*c : (k+1)*c]
		if src < 0 {
			for i := 0; i+16 <= c; i += 16 {
				z.Store((*[16]float32)(d[i:]))
			}
			continue
		}
		s := x[int(src)*c : int(src)*c+c]
		for i := 0; i+16 <= c; i += 16 {
			archsimd.LoadFloat32x16((*[16]float32)(s[i:])).Store((*[16]float32)(d[i:]))
		}
	}
	archsimd.ClearAVXUpperBits()
}
