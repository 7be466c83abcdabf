//go:build goexperiment.simd && amd64

package kernel

import "simd/archsimd"

// The vector operations of vec_simd.go in 256-bit form, for CPUs with AVX2
// but not AVX-512 (avx2Available). Tails shorter than a vector use scalar
// code after the upper halves are cleared.

func vecAdd8(dst, src []float32) {
	src = src[:len(dst)]
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		d := (*[8]float32)(dst[i:])
		archsimd.LoadFloat32x8(d).Add(archsimd.LoadFloat32x8((*[8]float32)(src[i:]))).Store(d)
	}
	archsimd.ClearAVXUpperBits()
	vecAddGeneric(dst[i:], src[i:])
}

func vecRelu8(x []float32) {
	var z archsimd.Float32x8
	i := 0
	for ; i+8 <= len(x); i += 8 {
		d := (*[8]float32)(x[i:])
		archsimd.LoadFloat32x8(d).Max(z).Store(d)
	}
	archsimd.ClearAVXUpperBits()
	vecReluGeneric(x[i:])
}

func vecAddRelu8(dst, src []float32) {
	src = src[:len(dst)]
	var z archsimd.Float32x8
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		d := (*[8]float32)(dst[i:])
		archsimd.LoadFloat32x8(d).Add(archsimd.LoadFloat32x8((*[8]float32)(src[i:]))).Max(z).Store(d)
	}
	archsimd.ClearAVXUpperBits()
	vecAddReluGeneric(dst[i:], src[i:])
}

func vecReluMask8(dst, g, y []float32) {
	g, y = g[:len(dst)], y[:len(dst)]
	var z archsimd.Float32x8
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		m := archsimd.LoadFloat32x8((*[8]float32)(y[i:])).Greater(z)
		archsimd.LoadFloat32x8((*[8]float32)(g[i:])).Masked(m).Store((*[8]float32)(dst[i:]))
	}
	archsimd.ClearAVXUpperBits()
	vecReluMaskGeneric(dst[i:], g[i:], y[i:])
}

// gatherRow8 is GatherRow for c a multiple of 8.
func gatherRow8(o, x []float32, tab []int32, c int) {
	o = o[:9*c]
	var z archsimd.Float32x8
	for k, src := range tab[:9] {
		d := o[k*c : (k+1)*c]
		if src < 0 {
			for i := 0; i+8 <= c; i += 8 {
				z.Store((*[8]float32)(d[i:]))
			}
			continue
		}
		s := x[int(src)*c : int(src)*c+c]
		for i := 0; i+8 <= c; i += 8 {
			archsimd.LoadFloat32x8((*[8]float32)(s[i:])).Store((*[8]float32)(d[i:]))
		}
	}
	archsimd.ClearAVXUpperBits()
}
