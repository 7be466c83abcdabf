package match

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/dablot-zero/dablot/internal/numeric"
)

// WDL counts the games of a match from one player's point of view.
type WDL struct{ W, D, L int }

// Games returns the number of games.
func (r WDL) Games() int { return r.W + r.D + r.L }

// Add counts one game with score 1 (win), 0.5 (draw) or 0 (loss).
func (r *WDL) Add(score float64) {
	switch {
	case score > 0.75:
		r.W++
	case score < 0.25:
		r.L++
	default:
		r.D++
	}
}

// Score returns the mean score per game (a draw is half a point), or NaN
// with no games.
func (r WDL) Score() float64 {
	n := float64(r.Games())
	if n == 0 {
		return math.NaN()
	}
	return (float64(r.W) + 0.5*float64(r.D)) / n
}

// Variance returns the variance of one game's score, estimated from the
// trinomial frequencies of wins, draws and losses.
func (r WDL) Variance() float64 {
	n := float64(r.Games())
	if n == 0 {
		return math.NaN()
	}
	s := r.Score()
	return (float64(r.W)*(1-s)*(1-s) + float64(r.D)*(0.5-s)*(0.5-s) + float64(r.L)*s*s) / n
}

// zFor returns the two-sided normal quantile for confidence level conf
// (1.96 for 0.95).
func zFor(conf float64) float64 {
	return distuv.UnitNormal.Quantile(0.5 + conf/2)
}

// ScoreCI returns the confidence interval of the mean score at level conf
// (0.95 for 95 %), by the normal approximation with the trinomial
// variance, clamped to [0, 1]. When every game has the same result that
// approximation has zero width, and Wilson's interval for a proportion s
// out of n is used instead (for n straight wins: [n/(n+z²), 1]).
func (r WDL) ScoreCI(conf float64) (lo, hi float64) {
	n := float64(r.Games())
	if n == 0 {
		return 0, 1
	}
	s := r.Score()
	z := zFor(conf)
	if v := r.Variance(); v > 0 {
		h := z * math.Sqrt(v/n)
		return max(0, s-h), min(1, s+h)
	}
	z2 := z * z
	centre := (s + z2/(2*n)) / (1 + z2/n)
	h := z / (1 + z2/n) * math.Sqrt(s*(1-s)/n+z2/(4*n*n))
	lo, hi = max(0, centre-h), min(1, centre+h)
	if s == 1 {
		hi = 1
	}
	if s == 0 {
		lo = 0
	}
	return lo, hi
}

// EloFromScore returns the logistic Elo difference that gives expected
// score s: -400·log10(1/s - 1); ±Inf at 1 and 0.
func EloFromScore(s float64) float64 {
	switch {
	case s <= 0:
		return math.Inf(-1)
	case s >= 1:
		return math.Inf(1)
	}
	return -400 * math.Log10(1/s-1)
}

// ScoreFromElo returns the expected score of a player elo points stronger.
func ScoreFromElo(elo float64) float64 { return 1 / (1 + math.Pow(10, -elo/400)) }

// Elo returns the Elo difference and its confidence interval at level conf,
// mapped from the score and its interval.
func (r WDL) Elo(conf float64) (elo, lo, hi float64) {
	slo, shi := r.ScoreCI(conf)
	return EloFromScore(r.Score()), EloFromScore(slo), EloFromScore(shi)
}

// LOS returns the likelihood of superiority: the probability that the
// player is the stronger, from wins and losses (draws carry no information
// here), Φ((W−L)/√(W+L)).
func (r WDL) LOS() float64 {
	if r.W+r.L == 0 {
		return 0.5
	}
	return distuv.UnitNormal.CDF(float64(r.W-r.L) / math.Sqrt(float64(r.W+r.L)))
}

// String formats the counts, score with 95 % interval and Elo difference.
func (r WDL) String() string {
	if r.Games() == 0 {
		return "no games"
	}
	lo, hi := r.ScoreCI(0.95)
	elo, elo0, elo1 := r.Elo(0.95)
	return fmt.Sprintf("+%d =%d -%d  score %.1f%% [%.1f%%, %.1f%%]  Elo %s [%s, %s]",
		r.W, r.D, r.L, 100*r.Score(), 100*lo, 100*hi, FormatElo(elo), FormatElo(elo0), FormatElo(elo1))
}

// FormatElo writes an Elo difference with a sign, "+inf" and "-inf" for the
// infinite ones.
func FormatElo(e float64) string {
	switch {
	case math.IsInf(e, 1):
		return "+inf"
	case math.IsInf(e, -1):
		return "-inf"
	case math.IsNaN(e):
		return "nan"
	case math.Abs(e) < 0.5:
		return "0"
	}
	return fmt.Sprintf("%+.0f", e)
}

// SPRT is a sequential probability ratio test between H0: the Elo
// difference is Elo0 and H1: it is Elo1 (logistic Elo), with error rates
// Alpha (accepting H1 when H0 holds) and Beta. It is the generalised SPRT
// on the trinomial win/draw/loss model: the log-likelihood ratio compares
// the maximum-likelihood distributions of the outcomes whose mean score is
// that of Elo1 and Elo0.
type SPRT struct {
	Elo0, Elo1  float64
	Alpha, Beta float64
}

// Verdict is the state of an SPRT.
type Verdict int

// The verdicts.
const (
	Continue Verdict = iota // no decision yet
	AcceptH0                // the difference is Elo0 or less
	AcceptH1                // the difference is Elo1 or more
)

// String describes the verdict, such as "H1 accepted".
func (v Verdict) String() string {
	return [...]string{"continue", "H0 accepted", "H1 accepted"}[v]
}

// Validate checks the test's parameters.
func (t SPRT) Validate() error {
	switch {
	case !numeric.Finite(t.Elo0) || !numeric.Finite(t.Elo1):
		return fmt.Errorf("SPRT bounds %g, %g: want finite Elo values", t.Elo0, t.Elo1)
	case !(t.Elo1 > t.Elo0):
		return fmt.Errorf("SPRT bounds %g, %g: elo1 must be greater than elo0", t.Elo0, t.Elo1)
	case !(t.Alpha > 0 && t.Alpha < 0.5) || !(t.Beta > 0 && t.Beta < 0.5):
		return fmt.Errorf("SPRT error rates %g, %g: want each in (0, 0.5)", t.Alpha, t.Beta)
	}
	return nil
}

// Bounds returns the log-likelihood ratios at which the test stops:
// ln(β/(1−α)) (accept H0) and ln((1−β)/α) (accept H1).
func (t SPRT) Bounds() (lower, upper float64) {
	return math.Log(t.Beta / (1 - t.Alpha)), math.Log((1 - t.Beta) / t.Alpha)
}

// LLR returns the log-likelihood ratio of H1 against H0 after the games r.
func (t SPRT) LLR(r WDL) float64 {
	n := float64(r.Games())
	if n == 0 {
		return 0
	}
	// Empirical frequencies, with zeros replaced by a tiny count so that
	// the maximum-likelihood problems keep a solution (as fishtest does).
	const tiny = 1e-3
	counts := [3]float64{float64(r.L), float64(r.D), float64(r.W)}
	var total float64
	for i := range counts {
		if counts[i] == 0 {
			counts[i] = tiny
		}
		total += counts[i]
	}
	var freq [3]float64
	for i := range counts {
		freq[i] = counts[i] / total
	}
	scores := [3]float64{0, 0.5, 1}
	p0 := mleWithMean(freq, scores, ScoreFromElo(t.Elo0))
	p1 := mleWithMean(freq, scores, ScoreFromElo(t.Elo1))
	var llr float64
	for i := range freq {
		llr += freq[i] * math.Log(p1[i]/p0[i])
	}
	return n * llr
}

// mleWithMean returns the distribution over scores closest to freq (in the
// maximum-likelihood sense) whose mean is s: p_i = f_i / (1 + λ(x_i − s)),
// with λ found by bisection so that the mean is s.
func mleWithMean(freq, x [3]float64, s float64) [3]float64 {
	// λ must keep every 1 + λ(x_i − s) positive.
	lo, hi := math.Inf(-1), math.Inf(1)
	for i := range x {
		d := x[i] - s
		switch {
		case d > 0:
			lo = max(lo, -1/d)
		case d < 0:
			hi = min(hi, -1/d)
		}
	}
	f := func(l float64) float64 {
		var v float64
		for i := range x {
			v += freq[i] * (x[i] - s) / (1 + l*(x[i]-s))
		}
		return v
	}
	// f is decreasing in λ; bisect on the open interval.
	a, b := lo+1e-12*math.Max(1, math.Abs(lo)), hi-1e-12*math.Max(1, math.Abs(hi))
	for range 200 {
		m := (a + b) / 2
		if f(m) > 0 {
			a = m
		} else {
			b = m
		}
	}
	l := (a + b) / 2
	var p [3]float64
	var sum float64
	for i := range x {
		p[i] = freq[i] / (1 + l*(x[i]-s))
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}

// Test returns the log-likelihood ratio after the games r and the verdict.
func (t SPRT) Test(r WDL) (llr float64, v Verdict) {
	llr = t.LLR(r)
	lower, upper := t.Bounds()
	switch {
	case llr >= upper:
		return llr, AcceptH1
	case llr <= lower:
		return llr, AcceptH0
	}
	return llr, Continue
}

// finite reports whether x is neither infinite nor NaN.
