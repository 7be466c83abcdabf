package net

func vecAddGeneric(dst, src []float32) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] += src[i]
	}
}

func vecReluGeneric(x []float32) {
	for i, v := range x {
		if v < 0 {
			x[i] = 0
		}
	}
}
