package mcts

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// BenchmarkAlphaBeta searches the start position to depth 6 (turns); the
// nodes/s metric counts every node, quiescence included.
func BenchmarkAlphaBeta(b *testing.B) {
	for _, v := range []string{"keyland", "dablot"} {
		b.Run(v, func(b *testing.B) {
			p := configs.MustVariant(v).Start()
			c := DefaultAlphaBetaConfig()
			c.Depth = 6
			var nodes int64
			var secs float64
			for b.Loop() {
				ab, err := NewAlphaBetaPlayer(c) // a fresh table each time
				if err != nil {
					b.Fatal(err)
				}
				r, err := ab.Search(context.Background(), &p)
				if err != nil {
					b.Fatal(err)
				}
				nodes += r.Nodes
				secs += ab.Elapsed.Seconds()
			}
			b.ReportMetric(float64(nodes)/secs, "nodes/s")
		})
	}
}

// BenchmarkUCT runs 1000 random-rollout playouts from the start position.
func BenchmarkUCT(b *testing.B) {
	for _, v := range []string{"keyland", "dablot"} {
		b.Run(v, func(b *testing.B) {
			p := configs.MustVariant(v).Start()
			u, err := NewUCTPlayer(UCTConfig{Playouts: 1000, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := u.Decide(context.Background(), &p); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(u.Playouts)/b.Elapsed().Seconds(), "playouts/s")
		})
	}
}

// BenchmarkSearch runs 800 PUCT or Gumbel simulations with the cheap
// evaluators, to measure the tree's own overhead.
func BenchmarkSearch(b *testing.B) {
	for _, tc := range []struct {
		name   string
		ev     Evaluator
		gumbel bool
	}{
		{"material", &MaterialEvaluator{}, false},
		{"rollout", &RolloutEvaluator{Seed: 1}, false},
		{"gumbel-material", &MaterialEvaluator{}, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p := configs.MustVariant("keyland").Start()
			cfg := DefaultConfig()
			cfg.Gumbel = tc.gumbel
			sims := 0
			for b.Loop() {
				s, err := NewSearch(tc.ev, cfg)
				if err != nil {
					b.Fatal(err)
				}
				s.SetPosition(p)
				r, err := s.Run(context.Background(), Limits{Sims: 800})
				if err != nil {
					b.Fatal(err)
				}
				sims += r.Simulations
			}
			b.ReportMetric(float64(sims)/b.Elapsed().Seconds(), "sims/s")
		})
	}
}

// slowEvaluator stands in for a network: each call costs a fixed time,
// whatever its size.
type slowEvaluator struct {
	MaterialEvaluator
	cost time.Duration
}

func (e *slowEvaluator) Evaluate(batch []Request) error {
	time.Sleep(e.cost)
	return e.MaterialEvaluator.Evaluate(batch)
}

// BenchmarkBatcher runs 8 searches at once through one Batcher, as game
// workers share a network; it reports the mean batch size. With an
// evaluator that costs 1 ms a call, the calls of all searches merge.
func BenchmarkBatcher(b *testing.B) {
	p := configs.MustVariant("keyland").Start()
	for _, cost := range []time.Duration{0, time.Millisecond} {
		b.Run(cost.String(), func(b *testing.B) {
			bt := NewBatcher(&slowEvaluator{cost: cost}, 0, 0)
			defer bt.Close()
			sims := int64(0)
			for b.Loop() {
				var wg sync.WaitGroup
				for g := range 8 {
					wg.Go(func() {
						cfg := DefaultConfig()
						cfg.Seed = uint64(g)
						s, err := NewSearch(bt, cfg)
						if err != nil {
							b.Error(err)
							return
						}
						s.SetPosition(p)
						r, err := s.Run(context.Background(), Limits{Sims: 400})
						if err != nil {
							b.Error(err)
							return
						}
						atomic.AddInt64(&sims, int64(r.Simulations))
					})
				}
				wg.Wait()
			}
			batches, reqs := bt.Stats()
			b.ReportMetric(float64(reqs)/float64(batches), "requests/batch")
			b.ReportMetric(float64(sims)/b.Elapsed().Seconds(), "sims/s")
		})
	}
}

// BenchmarkGuardDepth reports the mean depth in turns that the shipped
// guard's node budget (DefaultGuardNodes) completes over positions of
// recorded ladder games (every 12th turn of the first 6 games of each
// record file), without ordering and with it (the default):
//
//	go test ./mcts -run XXX -bench GuardDepth -benchtime 1x
func BenchmarkGuardDepth(b *testing.B) {
	for _, f := range []string{"dablot-100ms-avx2", "winther-100ms-avx2"} {
		positions := ladderPositions(b, f)
		for _, tc := range []struct {
			name  string
			order bool
		}{{"plain", false}, {"order", true}} {
			b.Run(f+"/"+tc.name, func(b *testing.B) {
				depth := 0
				for b.Loop() {
					depth = 0
					for _, p := range positions {
						g, err := NewDefaultGuard(MaxGuardDepth, Limits{Sims: 1})
						if err != nil {
							b.Fatal(err)
						}
						g.Order = tc.order
						r, err := g.Restrict(context.Background(), &p, Limits{Sims: 1})
						if err != nil {
							b.Fatal(err)
						}
						depth += r.Depth
					}
				}
				b.ReportMetric(float64(depth)/float64(len(positions)), "turns")
				b.ReportMetric(float64(len(positions)), "positions")
			})
		}
	}
}

// ladderPositions returns positions of the ladder record file name (see
// readRecords): every 12th turn of its first 6 games, from the 6th, where
// the side to move has more than one decision.
func ladderPositions(b *testing.B, name string) []game.Position {
	var positions []game.Position
	for _, rec := range readRecords(b, name)[:6] {
		r := configs.MustVariant(rec.Variant)
		for k := 6; k < len(rec.Turns); k += 12 {
			p, err := rec.StartPosition(r)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := p.ApplyTurns(rec.Turns[:k]); err != nil {
				b.Fatal(err)
			}
			if !p.Status().Over() && len(p.Decisions(nil)) > 1 {
				positions = append(positions, p)
			}
		}
	}
	return positions
}

// BenchmarkGuardWaste measures what the guard throws away: it deepens
// until its budget runs out and keeps only the deepest search completed,
// so the nodes of the search it abandons are lost. With node budgets
// standing for its share of 100 ms and of 1 s (20,000 and 200,000 nodes,
// docs/experiments/2026-11-strength.md §21), on the positions of BenchmarkGuardDepth, it
// reports the share of the budget spent on the abandoned search
// ("wasted"), the share of those searches that had found the best score
// before they stopped ("had-best"), and the share of the decisions these
// had tested against it ("tested"). Nodes stand for time here, so the
// figures do not depend on the machine or its load. An analysis (-short
// skips it):
//
//	go test ./mcts -run XXX -bench GuardWaste -benchtime 1x
func BenchmarkGuardWaste(b *testing.B) {
	if testing.Short() {
		b.Skip("an analysis of the guard's searches, not a speed benchmark; run it without -short")
	}
	for _, f := range []string{"dablot-100ms-avx2", "winther-100ms-avx2"} {
		positions := ladderPositions(b, f)
		for _, budget := range []int64{20_000, 200_000} {
			b.Run(fmt.Sprintf("%s/%d", f, budget), func(b *testing.B) {
				var wasted, tested float64
				var abandoned, hadBest, depths int
				for b.Loop() {
					wasted, tested, abandoned, hadBest, depths = 0, 0, 0, 0, 0
					for _, p := range positions {
						g, err := NewDefaultGuard(MaxGuardDepth, Limits{Sims: 1})
						if err != nil {
							b.Fatal(err)
						}
						g.ready()
						ab := g.ab
						legal := len(p.Decisions(nil))
						for d := 1; d <= g.Depth; d++ {
							before := ab.Nodes
							if before >= budget {
								break // spent by the searches completed, as Guard.excluded stops
							}
							r, err := ab.vetoes(context.Background(), &p, vetoLimits{depth: d, margin: g.Margin, maxNodes: budget - before})
							if errors.Is(err, errGuardTime) {
								abandoned++
								wasted += float64(budget-before) / float64(budget)
								if r.tested >= 0 {
									hadBest++
									tested += float64(r.tested) / float64(legal)
								}
								break
							}
							if err != nil {
								b.Fatal(err)
							}
							depths++
						}
					}
				}
				n := float64(len(positions))
				b.ReportMetric(wasted/n, "wasted")
				b.ReportMetric(float64(depths)/n, "turns")
				b.ReportMetric(float64(abandoned)/n, "abandoned")
				if abandoned > 0 {
					b.ReportMetric(float64(hadBest)/float64(abandoned), "had-best")
				}
				if hadBest > 0 {
					b.ReportMetric(tested/float64(hadBest), "tested")
				}
			})
		}
	}
}

// BenchmarkFallBehind looks at how a winther model falls behind on the
// ladder (docs/experiments/2026-11-strength.md §17, §21). In each game of a ladder record that
// the model draws or loses behind on pieces, it takes the model's last six
// turns before it fell behind for good and asks of each played first
// decision: is it vetoed by guard searches of 1 to maxDepth turns (within
// maxNodes in all, with the margin the record was played with, a soldier),
// and by one the guard completes within reach nodes (about its half of the
// time a decision)? And how far below the best does a search of up to 6
// turns score it? Each game counts once, in the first class it fits:
// "deep", a decision vetoed by the deepest search but by none within the
// guard's reach; "reach", one vetoed within reach too; "margin", one scored
// 50 to 99 below the best (inside the record's margin, outside half of
// it, today's default); "none". The cases: the shipped model at 100 ms
// (§17) and the 4-block chain's generation 69 at 1 s (§21), where the
// guard's 500 ms reach about ten times the nodes. It is an analysis, not a speed
// measurement (the 1 s case takes about 40 minutes), so -short skips it
// and `make bench` passes -short:
//
//	go test ./mcts -run XXX -bench FallBehind/100ms -benchtime 1x -v
func BenchmarkFallBehind(b *testing.B) {
	if testing.Short() {
		b.Skip("an analysis of ladder records, not a speed benchmark; run it without -short")
	}
	const window = 6
	cases := []struct {
		name, record    string
		maxDepth        int
		maxNodes, reach int64
	}{
		{"100ms", "winther-28501c6-100ms-avx2", 8, 1_500_000, 20_000},
		{"1s", "winther-b4g69-1s", 10, 8_000_000, 200_000},
	}
	const margin = 100 // both records were played with a soldier's margin
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) { fallBehind(b, c.record, window, c.maxDepth, margin, c.maxNodes, c.reach) })
	}
}

// fallBehind is one case of BenchmarkFallBehind.
func fallBehind(b *testing.B, record string, window, maxDepth, margin int, maxNodes, reach int64) {
	recs := readRecords(b, record)
	for b.Loop() {
		counts := map[string]int{}
		var reached, turns int
		for gi, rec := range recs {
			r := configs.MustVariant(rec.Variant)
			me, won := game.North, "0-1"
			if !strings.HasPrefix(rec.South, "alphabeta") {
				me, won = game.South, "1-0"
			}
			if rec.Result == won {
				continue
			}
			p, err := rec.StartPosition(r)
			if err != nil {
				b.Fatal(err)
			}
			lead := func(q *game.Position) int { return q.Occupied(me).Count() - q.Occupied(me.Other()).Count() }
			var before []game.Position // the position before each turn
			var leads []int            // the model's lead before each turn, and at the end
			for _, t := range rec.Turns {
				before = append(before, p)
				leads = append(leads, lead(&p))
				if err := p.ApplyTurn(t); err != nil {
					b.Fatal(err)
				}
			}
			leads = append(leads, lead(&p))
			behind := len(leads) // the turn from which the model stays behind
			for behind > 0 && leads[behind-1] < 0 {
				behind--
			}
			if behind == len(leads) {
				continue
			}
			class := "none"
			var marks []string
			for i, k := behind-1, 0; i >= 0 && k < window; i-- {
				q := before[i]
				if q.SideToMove() != me {
					continue
				}
				k++
				_, ds, err := q.ParseTurn(rec.Turns[i])
				if err != nil {
					b.Fatal(err)
				}
				if len(q.Decisions(nil)) < 2 {
					continue
				}
				vetoed, diff, within := fallBehindJudge(b, &q, ds[0], maxDepth, margin, maxNodes, reach)
				turns++
				reached += within
				mark := make([]byte, len(vetoed))
				for d, v := range vetoed {
					mark[d] = ".X"[b2i(v)]
				}
				marks = append(marks, fmt.Sprintf("t%d[%s within %d, %+d]", i, mark, within, -diff))
				switch deepest := len(vetoed) > 0 && vetoed[len(vetoed)-1]; {
				case deepest && !slices.Contains(vetoed[:within], true):
					class = "deep"
				case deepest && class != "deep":
					class = "reach"
				case diff >= margin/2 && diff < margin && class == "none":
					class = "margin"
				}
			}
			counts[class]++
			b.Logf("game %d (%s, %s): %s: %s", gi+1, rec.Result, rec.Termination, class, strings.Join(marks, " "))
		}
		for _, c := range []string{"deep", "reach", "margin", "none"} {
			b.ReportMetric(float64(counts[c]), c)
		}
		b.ReportMetric(float64(reached)/float64(turns), "turns-within-reach")
	}
}

// fallBehindJudge searches q with a guard of the given margin from 1 turn
// to maxDepth within maxNodes, and returns for each depth completed
// whether it vetoes d, how far below the best a search of up to 6 turns
// scores d, and the deepest search completed within reach nodes.
func fallBehindJudge(b *testing.B, q *game.Position, d game.Decision, maxDepth, margin int, maxNodes, reach int64) (vetoed []bool, diff, within int) {
	g, err := NewGuard(maxDepth, margin, 1)
	if err != nil {
		b.Fatal(err)
	}
	g.ready()
	ab := g.ab
	for depth := 1; depth <= maxDepth && ab.Nodes < maxNodes; depth++ {
		r, err := ab.vetoes(context.Background(), q, vetoLimits{depth: depth, margin: g.Margin, maxNodes: maxNodes - ab.Nodes})
		if err != nil {
			break
		}
		vetoed = append(vetoed, slices.Contains(r.excluded, d))
		if ab.Nodes <= reach {
			within = depth
		}
	}
	if depth := min(len(vetoed), 6); depth > 0 {
		ab.begin(context.Background(), q)
		ab.deadline, ab.maxNodes = time.Time{}, 0
		ab.rootBest = nullMove
		ab.extLimit = extLimit(depth)
		diff = ab.search(q, depth, -infScore, infScore, 0) - ab.searchChild(q, d, depth, -infScore, infScore, 0)
	}
	return vetoed, diff, within
}

// readRecords reads the game records docs/experiments/records/NAME.jsonl.
func readRecords(tb testing.TB, name string) []*game.Record {
	tb.Helper()
	fh, err := os.Open("../docs/experiments/records/" + name + ".jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	defer fh.Close()
	recs, err := game.ReadRecords(fh)
	if err != nil {
		tb.Fatal(err)
	}
	return recs
}
