//go:build !(goexperiment.simd && amd64)

package net

func vecAdd(dst, src []float32)     { vecAddGeneric(dst, src) }
func vecRelu(x []float32)           { vecReluGeneric(x) }
func vecAddRelu(dst, src []float32) { vecAddGeneric(dst, src); vecReluGeneric(dst) }

// vecReluMask sets dst[i] = g[i] where y[i] > 0, else 0.
func vecReluMask(dst, g, y []float32) { vecReluMaskGeneric(dst, g, y) }

// gatherRow writes the nine c-float rows x[tab[k]] (zeros where tab[k] <
// 0) one after another into o.
func gatherRow(o, x []float32, tab []int32, c int) { gatherRowGeneric(o, x, tab, c) }
