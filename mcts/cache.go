package mcts

import "github.com/dablot-zero/dablot/game"

// EvalCache remembers what an evaluator said of recent positions, so that a
// search meeting a position again does not evaluate it twice. Positions
// recur by transposition within a search, and across decisions: a Gumbel
// search starts afresh at each decision and walks much of the subtree it
// searched the turn before.
//
// A position is keyed by its hash (pieces, side to move, chain) mixed with
// the counters an evaluator may read (plies, quiet plies, passes), so a hit
// returns exactly what Inner returned for the same inputs. The table is
// direct-mapped: a new position replaces whatever shared its slot.
//
// An EvalCache is not safe for concurrent use: give each search its own,
// in front of a shared evaluator (such as a Batcher).
type EvalCache struct {
	Inner Evaluator
	// Hits and Misses count the requests answered from the table and those
	// passed to Inner.
	Hits, Misses int64

	slots  []cacheSlot
	mask   uint64
	miss   []Request
	missAt []int
}

// defaultCacheSize is the cache of a model player made from a spec; a few
// hundred bytes a position. maxCacheSize bounds the spec key cache=.
const (
	defaultCacheSize = 1 << 16
	maxCacheSize     = 1 << 22
)

type cacheSlot struct {
	key    uint64
	full   bool
	value  float32
	wdl    [3]float32
	priors []float32
}

// NewEvalCache returns a cache of at least size positions (rounded up to a
// power of two, at least 1) in front of inner.
func NewEvalCache(inner Evaluator, size int) *EvalCache {
	n := 1
	for n < size {
		n <<= 1
	}
	return &EvalCache{Inner: inner, slots: make([]cacheSlot, n), mask: uint64(n - 1)}
}

// cacheKey is p's hash mixed with the counters that the hash leaves out.
func cacheKey(p *game.Position) uint64 {
	counters := uint64(p.Ply())<<32 ^ uint64(p.Quiet())<<8 ^ uint64(p.Passes())
	return p.Hash() ^ splitmix64(counters)
}

// Evaluate implements Evaluator.
func (c *EvalCache) Evaluate(batch []Request) error {
	c.miss, c.missAt = c.miss[:0], c.missAt[:0]
	for i := range batch {
		r := &batch[i]
		k := cacheKey(&r.Pos)
		if s := &c.slots[k&c.mask]; s.full && s.key == k && len(s.priors) == len(r.Legal) {
			copy(r.Priors, s.priors)
			r.Value, r.WDL = s.value, s.wdl
			c.Hits++
			continue
		}
		c.miss = append(c.miss, *r) // shares r.Priors: Inner writes them in place
		c.missAt = append(c.missAt, i)
	}
	if len(c.miss) == 0 {
		return nil
	}
	c.Misses += int64(len(c.miss))
	if err := c.Inner.Evaluate(c.miss); err != nil {
		return err
	}
	for j, m := range c.miss {
		r := &batch[c.missAt[j]]
		r.Value, r.WDL = m.Value, m.WDL
		k := cacheKey(&r.Pos)
		s := &c.slots[k&c.mask]
		s.key, s.full, s.value, s.wdl = k, true, r.Value, r.WDL
		s.priors = append(s.priors[:0], r.Priors...)
	}
	return nil
}
