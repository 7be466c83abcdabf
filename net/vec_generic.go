//go:build !(goexperiment.simd && amd64)

package net

func vecAdd(dst, src []float32)     { vecAddGeneric(dst, src) }
func vecRelu(x []float32)           { vecReluGeneric(x) }
func vecAddRelu(dst, src []float32) { vecAddGeneric(dst, src); vecReluGeneric(dst) }
