package mcts

import (
	"math"
	"slices"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// countingEval is a deterministic evaluator that reads the counters too,
// and counts the positions it is asked about.
type countingEval struct{ asked int }

func (e *countingEval) Evaluate(batch []Request) error {
	for i := range batch {
		r := &batch[i]
		e.asked++
		h := r.Pos.Hash() ^ uint64(r.Pos.Quiet())*0x9e3779b97f4a7c15
		r.Value = float32(math.Sin(float64(h%1000))) * 0.9
		var sum float32
		for j := range r.Priors {
			r.Priors[j] = float32(1 + (h>>uint(j%40))&3)
			sum += r.Priors[j]
		}
		for j := range r.Priors {
			r.Priors[j] /= sum
		}
	}
	return nil
}

// TestEvalCache: a search through the cache is the same search as without
// it, with fewer positions evaluated, and a position with other counters is
// not taken for a cached one.
func TestEvalCache(t *testing.T) {
	for _, gumbel := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.Gumbel, cfg.Seed = gumbel, 5
		var plain, inner countingEval
		cache := NewEvalCache(&inner, 1<<12)
		a, err := NewSearchPlayer(&plain, cfg, Limits{Sims: 300})
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewSearchPlayer(cache, cfg, Limits{Sims: 300})
		if err != nil {
			t.Fatal(err)
		}
		p := configs.MustVariant("dablot").Start()
		for range 6 {
			if p.Status().Over() {
				break
			}
			ta, tb := turnText(t, a, p), turnText(t, b, p)
			if ta != tb {
				t.Fatalf("gumbel %v: %s: %s without the cache, %s with it", gumbel, p.FEN(), ta, tb)
			}
			if err := p.ApplyTurn(ta); err != nil {
				t.Fatal(err)
			}
		}
		if cache.Hits == 0 || inner.asked >= plain.asked || int64(inner.asked) != cache.Misses {
			t.Errorf("gumbel %v: %d hits, %d misses; inner asked %d, without cache %d", gumbel, cache.Hits, cache.Misses, inner.asked, plain.asked)
		}
	}

	// The same pieces with another quiet count are another position.
	p := mustFEN(t, "dablot", "6/5/6/5/2s3/5/6/5/SSS3/5/6/5/6 s - 3 10")
	q := mustFEN(t, "dablot", "6/5/6/5/2s3/5/6/5/SSS3/5/6/5/6 s - 4 10")
	if p.Hash() != q.Hash() {
		t.Fatalf("the hashes differ: the test needs positions that differ only in counters")
	}
	var inner countingEval
	cache := NewEvalCache(&inner, 16)
	ask := func(pos game.Position) Request {
		legal := pos.Decisions(nil)
		req := []Request{{Pos: pos, Legal: legal, Priors: make([]float32, len(legal))}}
		if err := cache.Evaluate(req); err != nil {
			t.Fatal(err)
		}
		return req[0]
	}
	first, second, again := ask(p), ask(q), ask(p)
	if cache.Hits != 1 || cache.Misses != 2 {
		t.Errorf("hits %d misses %d, want 1 and 2", cache.Hits, cache.Misses)
	}
	if first.Value == second.Value || again.Value != first.Value || !slices.Equal(again.Priors, first.Priors) {
		t.Errorf("values %g, %g, %g: the counters must tell positions apart and a hit must repeat the first answer", first.Value, second.Value, again.Value)
	}
}
