package kernel

import "math"

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

func vecAddReluGeneric(dst, src []float32) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = max(dst[i]+src[i], 0)
	}
}

func vecReluMaskGeneric(dst, g, y []float32) {
	g, y = g[:len(dst)], y[:len(dst)]
	for i := range dst {
		if y[i] > 0 {
			dst[i] = g[i]
		} else {
			dst[i] = 0
		}
	}
}

// ExpNeg returns e^x for x <= 0 in float32 (Cephes' expf polynomial,
// within 2 ulp; 0 below -87.3, where the result would be subnormal).
// It is several times faster than math.Exp, which dominated the
// softmax cross-entropy of a training step.
func ExpNeg(x float32) float32 {
	if x < -87.3 {
		return 0
	}
	if x > 0 {
		x = 0
	}
	n := float32(math.Floor(float64(x*1.44269504088896341 + 0.5)))
	r := x - n*0.693359375 + n*2.12194440e-4
	p := ((((1.9875691500e-4*r+1.3981999507e-3)*r+8.3334519073e-3)*r+4.1665795894e-2)*r+1.6666665459e-1)*r + 5.0000001201e-1
	p = p*r*r + r + 1
	return p * math.Float32frombits(uint32(int32(n)+127)<<23)
}

// gatherRowGeneric writes the nine c-float rows x[tab[k]] (zeros where
// tab[k] < 0) one after another into o.
func gatherRowGeneric(o, x []float32, tab []int32, c int) {
	for k, src := range tab[:9] {
		d := o[k*c : (k+1)*c]
		if src < 0 {
			clear(d)
			continue
		}
		copy(d, x[int(src)*c:int(src)*c+c])
	}
}
