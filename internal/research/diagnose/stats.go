package diagnose

import (
	"math"
	"math/rand/v2"
	"slices"
)

// z95 is the normal quantile of a two-sided 95 % interval.
const z95 = 1.959963984540054

// Proportion is K successes in N trials, each trial in a cluster (the
// game it comes from): the trials of one game are not independent, so its
// interval is the wider of Wilson's and a bootstrap over the clusters.
type Proportion struct {
	K, N  float64
	items []item
}

// item is one datum x of a Proportion or Mean, in cluster c.
type item struct {
	c int
	x float64
}

// ownCluster is the cluster of a datum added without one: its own.
const ownCluster = math.MinInt

// Add counts one trial in a cluster of its own, a success worth x (1 a
// success, 0 a failure, 0.5 half of each: a coin toss).
func (p *Proportion) Add(x float64) { p.AddIn(ownCluster, x) }

// AddIn counts one trial of cluster c, a success worth x.
func (p *Proportion) AddIn(c int, x float64) {
	p.K += x
	p.N++
	p.items = append(p.items, item{c, x})
}

// Rate returns K/N (NaN without trials).
func (p Proportion) Rate() float64 {
	if p.N == 0 {
		return math.NaN()
	}
	return p.K / p.N
}

// Wilson returns the Wilson score interval of the rate at 95 %
// (NaN, NaN without trials).
func (p Proportion) Wilson() (lo, hi float64) {
	if p.N == 0 {
		return math.NaN(), math.NaN()
	}
	n, r := p.N, p.K/p.N
	d := 1 + z95*z95/n
	c := (r + z95*z95/(2*n)) / d
	h := z95 * math.Sqrt(r*(1-r)/n+z95*z95/(4*n*n)) / d
	return max(0, c-h), min(1, c+h)
}

// Interval returns the rate's 95 % interval: the wider of Wilson's and
// the percentile bootstrap over clusters (NaN, NaN without trials).
func (p Proportion) Interval() (lo, hi float64) {
	lo, hi = p.Wilson()
	if b, ok := clusterMean(p.items); ok {
		lo, hi = min(lo, b.Lo), max(hi, b.Hi)
	}
	return lo, hi
}

// Mean is a running mean, each datum in a cluster as a Proportion's.
type Mean struct {
	n, sum, sq float64
	items      []item
}

// Add adds x in a cluster of its own.
func (m *Mean) Add(x float64) { m.AddIn(ownCluster, x) }

// AddIn adds x of cluster c.
func (m *Mean) AddIn(c int, x float64) {
	m.n++
	m.sum += x
	m.sq += x * x
	m.items = append(m.items, item{c, x})
}

// N returns the count.
func (m Mean) N() int { return int(m.n) }

// Value returns the mean and its 95 % interval, the wider of the normal
// one and the bootstrap over clusters (NaN without data; the interval
// collapses to the mean with one datum).
func (m Mean) Value() (mean, lo, hi float64) {
	if m.n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	mean = m.sum / m.n
	if m.n < 2 {
		return mean, mean, mean
	}
	v := max(0, (m.sq-m.n*mean*mean)/(m.n-1))
	h := z95 * math.Sqrt(v/m.n)
	lo, hi = mean-h, mean+h
	if b, ok := clusterMean(m.items); ok {
		lo, hi = min(lo, b.Lo), max(hi, b.Hi)
	}
	return mean, lo, hi
}

// clusterMean is the percentile bootstrap interval of the mean of items,
// resampling their clusters (an item without one is its own); ok false
// with fewer than two clusters.
func clusterMean(items []item) (Interval, bool) {
	clusters := make([]int, len(items))
	for i, it := range items {
		clusters[i] = it.c
		if it.c == ownCluster {
			clusters[i] = ownCluster + 1 + i
		}
	}
	iv := BootstrapClusters(clusters, 0x636c7573, func(idx []int) float64 {
		s := 0.0
		for _, i := range idx {
			s += items[i].x
		}
		return s / float64(len(idx))
	})
	return iv, !math.IsNaN(iv.Lo)
}

// ranks returns the ranks of xs from 1, ties given their mean rank.
func ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case xs[a] < xs[b]:
			return -1
		case xs[a] > xs[b]:
			return 1
		}
		return 0
	})
	out := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && xs[idx[j+1]] == xs[idx[i]] {
			j++
		}
		r := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			out[idx[k]] = r
		}
		i = j + 1
	}
	return out
}

// Pearson returns the correlation of x and y (NaN if either is
// constant or they have fewer than two points).
func Pearson(x, y []float64) float64 {
	n := float64(len(x))
	if len(x) < 2 || len(x) != len(y) {
		return math.NaN()
	}
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= n
	my /= n
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// Spearman returns the rank correlation of x and y: Pearson's of their
// ranks, ties at their mean rank.
func Spearman(x, y []float64) float64 { return Pearson(ranks(x), ranks(y)) }

// PartialSpearman returns the rank correlation of x and y with z held
// fixed: the partial correlation of their ranks,
// (ρxy − ρxz·ρyz) / √((1 − ρxz²)(1 − ρyz²)). It says how much x knows of
// y beyond what z knows (NaN if z ranks either of them perfectly).
func PartialSpearman(x, y, z []float64) float64 {
	rx, ry, rz := ranks(x), ranks(y), ranks(z)
	xy, xz, yz := Pearson(rx, ry), Pearson(rx, rz), Pearson(ry, rz)
	d := (1 - xz*xz) * (1 - yz*yz)
	if !(d > 0) {
		return math.NaN()
	}
	return (xy - xz*yz) / math.Sqrt(d)
}

// Interval is an estimate with its 95 % interval.
type Interval struct{ Est, Lo, Hi float64 }

// bootstrapReps is the resamples of Bootstrap.
const bootstrapReps = 1000

// Bootstrap returns stat over the n items and its percentile bootstrap
// interval at 95 % (bootstrapReps resamples drawn from seed): stat gets
// the indices of the items to use, with repeats.
func Bootstrap(n int, seed uint64, stat func(idx []int) float64) Interval {
	clusters := make([]int, n)
	for i := range clusters {
		clusters[i] = i
	}
	return BootstrapClusters(clusters, seed, stat)
}

// BootstrapClusters is Bootstrap of items in clusters (clusters[i] is
// item i's): each resample draws whole clusters, as many as there are,
// with repeats, so that items that are not independent (positions of one
// game) count as what they are. The interval is NaN with fewer than two
// clusters.
func BootstrapClusters(clusters []int, seed uint64, stat func(idx []int) float64) Interval {
	all := make([]int, len(clusters))
	members := map[int][]int{}
	var order []int
	for i, c := range clusters {
		all[i] = i
		if _, ok := members[c]; !ok {
			order = append(order, c)
		}
		members[c] = append(members[c], i)
	}
	est := stat(all)
	if len(order) < 2 {
		return Interval{est, math.NaN(), math.NaN()}
	}
	rng := rand.New(rand.NewPCG(seed, 0x626f6f74))
	vals := make([]float64, 0, bootstrapReps)
	idx := make([]int, 0, len(clusters))
	for range bootstrapReps {
		idx = idx[:0]
		for range order {
			idx = append(idx, members[order[rng.IntN(len(order))]]...)
		}
		if v := stat(idx); !math.IsNaN(v) {
			vals = append(vals, v)
		}
	}
	if len(vals) < bootstrapReps/2 {
		return Interval{est, math.NaN(), math.NaN()}
	}
	slices.Sort(vals)
	q := func(p float64) float64 { return vals[min(len(vals)-1, int(p*float64(len(vals))))] }
	return Interval{est, q(0.025), q(0.975)}
}

// pick returns xs at idx.
func pick(xs []float64, idx []int) []float64 {
	out := make([]float64, len(idx))
	for k, i := range idx {
		out[k] = xs[i]
	}
	return out
}
