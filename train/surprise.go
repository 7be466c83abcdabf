package train

import (
	"math"
	"math/rand/v2"

	"github.com/dablot-zero/dablot/train/samples"
)

// surpriseShare is the share of a game's sample weight spread in
// proportion to the samples' policy surprise (KataGo's
// policySurpriseDataWeight); the rest is spread evenly.
const surpriseShare = 0.5

// surpriseWeights returns the frequency weight of each full search of a
// game under KataGo's policy surprise weighting (selfplay.policy_surprise),
// given their policy surprise (mcts.Result.PolicySurprise): of their
// total weight n (one each without the weighting), half is spread evenly
// (0.5 each) and half in proportion to their surprise, so the weights
// still add up to n. A game without any surprise keeps the weight 1 for
// each (where KataGo would halve them all).
//
// KataGo also gives a fast search a weight when its surprise exceeds 1.5
// times the full searches' mean; fast searches write no samples here
// (their 8-simulation Gumbel targets are sharp but noisy, and with that
// rule they made a fifth to two fifths of the samples of dablot's games).
func surpriseWeights(surprise []float64) []float64 {
	w := make([]float64, len(surprise))
	total := 0.0
	for _, s := range surprise {
		total += s
	}
	n := float64(len(surprise))
	for i, s := range surprise {
		w[i] = 1
		if total > 0 && !math.IsInf(total, 0) {
			w[i] = 1 - surpriseShare + surpriseShare*s*n/total
		}
	}
	return w
}

// replicate returns the samples ss with sample i written floor(w[i])
// times and once more with probability w[i] - floor(w[i]) (a draw from
// rng), the copies of a sample together and the samples in their order.
// The copies share their slices.
func replicate(ss []samples.Sample, w []float64, rng *rand.Rand) []samples.Sample {
	out := make([]samples.Sample, 0, len(ss))
	for i, s := range ss {
		whole, frac := math.Modf(max(w[i], 0))
		n := int(whole)
		if frac > 0 && rng.Float64() < frac {
			n++
		}
		for range n {
			out = append(out, s)
		}
	}
	return out
}
