//go:build goexperiment.simd && amd64

package net

// Tails shorter than a vector use scalar code (after clearing the upper
// vector halves): archsimd's SlicePart loads trip the checkptr
// instrumentation of -race builds.

import "simd/archsimd"

// vecAdd sets dst[i] += src[i] for i < len(dst); len(src) >= len(dst).
func vecAdd(dst, src []float32) {
	if !simdAvailable {
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
	for ; i < len(dst); i++ {
		dst[i] += src[i]
	}
}

// vecRelu sets x[i] = max(x[i], 0).
func vecRelu(x []float32) {
	if !simdAvailable {
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
	for ; i < len(x); i++ {
		if x[i] < 0 {
			x[i] = 0
		}
	}
}

// vecAddRelu sets dst[i] = max(dst[i]+src[i], 0).
func vecAddRelu(dst, src []float32) {
	if !simdAvailable {
		vecAddGeneric(dst, src)
		vecReluGeneric(dst)
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
	for ; i < len(dst); i++ {
		dst[i] = max(dst[i]+src[i], 0)
	}
}
