//go:build !(goexperiment.simd && amd64)

package kernel

func VecAdd(dst, src []float32)     { vecAddGeneric(dst, src) }
func VecRelu(x []float32)           { vecReluGeneric(x) }
func VecAddRelu(dst, src []float32) { vecAddReluGeneric(dst, src) }

// VecReluMask sets dst[i] = g[i] where y[i] > 0, else 0.
func VecReluMask(dst, g, y []float32) { vecReluMaskGeneric(dst, g, y) }

// GatherRow writes the nine c-float rows x[tab[k]] (zeros where tab[k] <
// 0) one after another into o.
func GatherRow(o, x []float32, tab []int32, c int) { gatherRowGeneric(o, x, tab, c) }
