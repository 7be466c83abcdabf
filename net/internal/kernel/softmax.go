package kernel

import "math"

// Softmax writes to dst the softmax of the logits at the indices idx:
// dst[k] is the probability of logits[idx[k]] among them. With idx nil it
// is the softmax of all the logits, dst[i] that of logits[i]. dst may alias
// logits when idx is nil. With no index at all dst is left as it is.
func Softmax(dst, logits []float32, idx []int32) {
	at := func(k int) float32 {
		if idx == nil {
			return logits[k]
		}
		return logits[idx[k]]
	}
	n := len(idx)
	if idx == nil {
		n = len(logits)
	}
	if n == 0 {
		return
	}
	maxv := float32(math.Inf(-1))
	for k := 0; k < n; k++ {
		maxv = max(maxv, at(k))
	}
	var sum float32
	for k := 0; k < n; k++ {
		ev := float32(math.Exp(float64(at(k) - maxv)))
		dst[k] = ev
		sum += ev
	}
	for k := range dst[:n] {
		dst[k] /= sum
	}
}
