package train

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/net/model/modeltest"
	"github.com/dablot-zero/dablot/train/rundir"
	"github.com/dablot-zero/dablot/train/runlog"
	"github.com/dablot-zero/dablot/train/samples"
)

// TestSurpriseWeights: KataGo's policy surprise weights, worked out by
// hand. Whatever the surprises, the weights add up to the number of full
// searches, each keeps at least half a weight, and more surprise never
// weighs less.
func TestSurpriseWeights(t *testing.T) {
	for _, tc := range []struct {
		name     string
		surprise []float64
		want     []float64
	}{
		{"equal surprise: uniform", []float64{0.3, 0.3, 0.3}, []float64{1, 1, 1}},
		{"no surprise: uniform", []float64{0, 0}, []float64{1, 1}},
		{"a surprising one gets more copies", []float64{0.1, 0.1, 0.1, 2.9},
			[]float64{0.5 + 0.5*0.1*4/3.2, 0.5 + 0.5*0.1*4/3.2, 0.5 + 0.5*0.1*4/3.2, 0.5 + 0.5*2.9*4/3.2}},
		{"all the surprise in one", []float64{0, 5, 0}, []float64{0.5, 2, 0.5}},
		{"one search", []float64{0.7}, []float64{1}},
		{"infinite surprise: uniform", []float64{math.Inf(1), 1}, []float64{1, 1}},
		{"no searches", nil, []float64{}},
	} {
		got := surpriseWeights(tc.surprise)
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %d weights, want %d", tc.name, len(got), len(tc.want))
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-9 {
				t.Errorf("%s: weights %v, want %v", tc.name, got, tc.want)
				break
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 1000 {
		n := 1 + rng.IntN(40)
		surprise := make([]float64, n)
		for i := range n {
			surprise[i] = rng.ExpFloat64() * float64(rng.IntN(3))
		}
		w := surpriseWeights(surprise)
		total := 0.0
		for i := range n {
			total += w[i]
			if w[i] < 0.5-1e-12 {
				t.Fatalf("trial %d: a full search of weight %v", trial, w[i])
			}
			for j := range n {
				if surprise[i] > surprise[j] && w[i] < w[j] {
					t.Fatalf("trial %d: surprise %v weighs %v, less than %v for %v", trial, surprise[i], w[i], w[j], surprise[j])
				}
			}
		}
		if math.Abs(total-float64(n)) > 1e-9*float64(n) {
			t.Fatalf("trial %d: %d full searches, weights adding up to %v: %v", trial, n, total, w)
		}
	}
}

// TestReplicate: a sample of weight w is written floor(w) times or once
// more, w on average, its copies together and the samples in their order;
// the same seed makes the same copies.
func TestReplicate(t *testing.T) {
	w := []float64{0, 1, 2.5, 0.25, 3, 0.9}
	ss := make([]samples.Sample, len(w))
	for i := range ss {
		ss[i].Value = float32(i)
	}
	const trials = 20000
	rng := rand.New(rand.NewPCG(5, 6))
	mean := make([]float64, len(w))
	for range trials {
		out := replicate(ss, w, rng)
		counts := make([]float64, len(w))
		for k, s := range out {
			if k > 0 && s.Value < out[k-1].Value {
				t.Fatalf("samples out of order: %v", out)
			}
			counts[int(s.Value)]++
		}
		for i, c := range counts {
			if c != math.Floor(w[i]) && c != math.Floor(w[i])+1 {
				t.Fatalf("sample of weight %v written %v times", w[i], c)
			}
			mean[i] += c / trials
		}
	}
	for i := range w {
		if math.Abs(mean[i]-w[i]) > 0.02 {
			t.Errorf("sample of weight %v written %v times on average", w[i], mean[i])
		}
	}
	a := replicate(ss, w, rand.New(rand.NewPCG(7, 8)))
	b := replicate(ss, w, rand.New(rand.NewPCG(7, 8)))
	if !slices.EqualFunc(a, b, func(x, y samples.Sample) bool { return x.Value == y.Value }) {
		t.Error("the same seed made different copies")
	}
}

// TestSelfPlayPolicySurprise: with selfplay.policy_surprise the games are
// those played without it; their full searches' samples, targets
// included, come in the same order, some written more than once, some not
// at all, and no fast search writes one; about as many samples are
// written; and the same seed writes the same samples however many workers
// play.
func TestSelfPlayPolicySurprise(t *testing.T) {
	m := modeltest.NewModel(t, "frostviken", 2)
	sp := testConfig(t, 1).SelfPlay
	play := func(weigh bool, workers int) []*SelfPlayGame {
		sp.PolicySurprise, sp.Workers = weigh, workers
		games, err := SelfPlay(context.Background(), m, sp, 11, 0, 4, nil)
		if err != nil {
			t.Fatal(err)
		}
		return games
	}
	plain, weighed := play(false, 3), play(true, 1)
	same := func(a, b samples.Sample) bool {
		return a.Position == b.Position && a.Full == b.Full && a.Target == b.Target && a.Value == b.Value &&
			slices.Equal(a.Policy, b.Policy) && slices.Equal(a.ShortTerm, b.ShortTerm)
	}
	more, dropped, rows, full := 0, 0, 0, 0
	for i, g := range weighed {
		rows += len(g.Samples)
		full += g.FullSearches
		p := plain[i]
		if !slices.Equal(g.Record.Turns, p.Record.Turns) {
			t.Fatalf("game %d: the weighting changed the game", i)
		}
		if g.FullSearches != len(p.Samples) || p.FullSearches != len(p.Samples) || g.Surprise != p.Surprise || !(g.Surprise > 0) {
			t.Fatalf("game %d: %d and %d full searches, surprise %v and %v; %d samples without the weighting",
				i, g.FullSearches, p.FullSearches, g.Surprise, p.Surprise, len(p.Samples))
		}
		// copies[j] counts the weighed samples that are plain sample j,
		// walking both in order.
		copies := make([]int, len(p.Samples))
		j := 0
		for _, s := range g.Samples {
			if !s.Full {
				t.Fatalf("game %d: a sample of a fast search", i)
			}
			for j < len(p.Samples) && !same(s, p.Samples[j]) {
				j++
			}
			if j == len(p.Samples) {
				t.Fatalf("game %d: sample %s is not one of the plain samples, or out of order", i, s.Position.FEN())
			}
			copies[j]++
		}
		for _, c := range copies {
			switch {
			case c == 0:
				dropped++
			case c > 1:
				more++
			}
		}
	}
	t.Logf("%d samples for %d full searches: %d written more than once, %d not written", rows, full, more, dropped)
	if more == 0 || dropped == 0 || math.Abs(float64(rows-full)) > 4*math.Sqrt(float64(full)) {
		t.Errorf("%d samples for %d full searches: %d written more than once, %d not written", rows, full, more, dropped)
	}
	again := play(true, 3)
	for i, g := range weighed {
		if !slices.EqualFunc(g.Samples, again[i].Samples, same) {
			t.Fatalf("game %d: other samples with 3 workers than with 1", i)
		}
	}
}

// TestRunPolicySurprise trains a tiny run with the switch of the policy
// surprise ablation (docs/experiments/configs/hour-surprise-abl.yaml):
// metrics.jsonl records the full searches and their mean surprise, the
// status line shows them, the shards hold the weighed samples, and the
// run resumes.
func TestRunPolicySurprise(t *testing.T) {
	abl := preset(t, "../docs/experiments/configs/hour-surprise-abl.yaml")
	if !abl.SelfPlay.PolicySurprise {
		t.Fatal("the ablation does not weigh samples by policy surprise")
	}
	cfg := testConfig(t, 2)
	cfg.SelfPlay.PolicySurprise = abl.SelfPlay.PolicySurprise
	dir := filepath.Join(t.TempDir(), "surprise")
	var out strings.Builder
	r, err := CreateRun(dir, cfg, configs.MustVariant(cfg.Variant), "", RunOptions{Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Train(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	r.Close()
	r, err = ResumeRun(dir, RunOptions{Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Config.SelfPlay.PolicySurprise {
		t.Error("the resumed run does not weigh its samples")
	}
	if err := r.SetStop(StopConfig{Generations: 3}); err != nil {
		t.Fatal(err)
	}
	if err := r.Train(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	r.Close()
	gens, err := runlog.ReadGenerations(filepath.Join(dir, runlog.MetricsFile))
	if err != nil || len(gens) != 3 {
		t.Fatalf("metrics: %d generations, %v", len(gens), err)
	}
	for _, g := range gens {
		if g.GenFullSearches == 0 || !(g.MeanSurprise > 0) || g.GenSamples == g.GenFullSearches {
			t.Errorf("generation %d: %d samples of %d full searches, mean surprise %v", g.Generation, g.GenSamples, g.GenFullSearches, g.MeanSurprise)
		}
		line := fmt.Sprintf("surprise %.3f (%d samples of %d full searches)", g.MeanSurprise, g.GenSamples, g.GenFullSearches)
		if !strings.Contains(out.String(), line) {
			t.Errorf("generation %d: no %q in the output:\n%s", g.Generation, line, out.String())
		}
	}
	best, err := model.LoadModel(filepath.Join(dir, rundir.BestFile))
	if err != nil {
		t.Fatal(err)
	}
	if ss := firstShard(t, dir, best); len(ss) != gens[0].GenSamples {
		t.Errorf("the first shard has %d samples, its generation %d", len(ss), gens[0].GenSamples)
	}
}
