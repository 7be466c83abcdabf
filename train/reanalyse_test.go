package train

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/game/endgame"
	"github.com/dablot-zero/dablot/mcts/match"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/net/model/modeltest"
	"github.com/dablot-zero/dablot/train/rundir"
	"github.com/dablot-zero/dablot/train/runlog"
	"github.com/dablot-zero/dablot/train/samples"
)

// reanalysisSamples returns samples to reanalyse for m: the first 15 of
// each of two self-play games of sp, and ten positions of three pieces or fewer (endings
// the tables hold) with a zero target.
func reanalysisSamples(t *testing.T, m *model.Model, sp SelfPlayConfig) []samples.Sample {
	t.Helper()
	games, err := SelfPlay(context.Background(), m, sp, 3, 0, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ss []samples.Sample
	for _, g := range games {
		ss = append(ss, g.Samples[:min(15, len(g.Samples))]...)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := len(ss) + 10; len(ss) < n; {
		p, ok := match.RandomEndgame(m.Rules, rng, match.EndgameSpec{Soldiers: 1, KingChance: 1})
		if ok && p.PieceCount() <= 3 {
			ss = append(ss, samples.Sample{Position: p, Full: true})
		}
	}
	return ss
}

// TestReanalyse: reanalysis keeps each sample's position and outcome,
// gives the endings the tables hold their exact result, and a policy target
// over legal decisions without any the guard vetoes; it depends on the
// seed alone, not on the workers.
func TestReanalyse(t *testing.T) {
	m := modeltest.NewModel(t, "frostviken", 2)
	sp := testConfig(t, 1).SelfPlay
	ss := reanalysisSamples(t, m, sp)
	run := func(workers int) ([]samples.Sample, Reanalysis) {
		sp.Workers = workers
		done := 0
		out, how, err := Reanalyse(context.Background(), m, sp, 9, ss, func() { done++ })
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != len(ss) || done != len(ss) || how.Positions != len(ss) {
			t.Fatalf("%d workers: %d samples out, %d done, %+v, for %d in", workers, len(out), done, how, len(ss))
		}
		return out, how
	}
	out, how := run(1)
	if again, _ := run(3); !reflect.DeepEqual(out, again) {
		t.Fatal("1 and 3 workers reanalyse differently")
	}
	if how.Tables == 0 || how.Vetoed == 0 {
		t.Fatalf("%+v: no position for the tables or none the guard vetoed in", how)
	}
	pc := sp.ReanalysisPlayer(m.Rules)
	tables, vetoed := 0, 0
	solved := map[endgame.Material]*endgame.Tables{}
	for i, s := range out {
		in, p := ss[i], s.Position
		if p != in.Position || s.Result != in.Result || s.Lead != in.Lead || !s.Full {
			t.Fatalf("sample %d changed more than its targets: %+v from %+v", i, s, in)
		}
		checkPolicy(t, m, &p, s.Policy)
		if p.PieceCount() <= 3 && p.Chain() < 0 {
			tables++
			mat := endgame.MaterialOf(&p)
			if solved[mat] == nil {
				tb, err := endgame.Solve(context.Background(), m.Rules, []endgame.Material{mat}, nil)
				if err != nil {
					t.Fatal(err)
				}
				solved[mat] = tb
			}
			res, _ := solved[mat].Probe(&p)
			if want := float32(res.Outcome); s.Target != want || s.Value != want || len(s.Policy) != 1 {
				t.Fatalf("%s: target %v, value %v, %d policy entries; the tables give %v", p.FEN(), s.Target, s.Value, len(s.Policy), want)
			}
			continue
		}
		if s.Target != in.Target || s.Value < -1 || s.Value > 1 {
			t.Fatalf("%s: target %v (was %v), value %v", p.FEN(), s.Target, in.Target, s.Value)
		}
		guard, err := pc.NewGuard()
		if err != nil {
			t.Fatal(err)
		}
		r, err := guard.Restrict(context.Background(), &p, pc.Limits)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Excluded) > 0 || r.Guarded {
			vetoed++
		}
		idx := m.Encoder.LegalIndices(&p, r.Excluded, nil)
		for _, e := range s.Policy {
			if slices.Contains(idx, int32(e.Index)) && e.Prob > 0 {
				t.Fatalf("%s: the policy target puts %v on a decision the guard vetoes", p.FEN(), e.Prob)
			}
		}
	}
	if tables != how.Tables || vetoed != how.Vetoed {
		t.Fatalf("counted tables %d, vetoed %d; Reanalyse says %+v", tables, vetoed, how)
	}
	t.Logf("%d samples: %+v", len(out), how)
}

// checkPolicy fails unless pol is a distribution over decisions legal in p.
func checkPolicy(t *testing.T, m *model.Model, p *game.Position, pol []samples.PolicyEntry) {
	t.Helper()
	legal := m.Encoder.LegalIndices(p, p.Decisions(nil), nil)
	sum := 0.0
	for _, e := range pol {
		if !slices.Contains(legal, int32(e.Index)) {
			t.Fatalf("%s: policy target on index %d, not a legal decision", p.FEN(), e.Index)
		}
		sum += float64(e.Prob)
	}
	if math.Abs(sum-1) > 1e-3 {
		t.Fatalf("%s: policy target sums to %v", p.FEN(), sum)
	}
}

// TestRunReanalyse: a run with selfplay.reanalyse writes each generation
// (once the replay window holds samples) a reanalysis shard of the share
// it says, takes it in for training, and resumes exactly.
func TestRunReanalyse(t *testing.T) {
	cfg := testConfig(t, 3)
	cfg.SelfPlay.Reanalyse = 0.1 // each position a 50,000-node guard: a few do
	dir := filepath.Join(t.TempDir(), "straight")
	rules := trainRun(t, cfg, dir)
	gens, err := runlog.ReadGenerations(filepath.Join(dir, runlog.MetricsFile))
	if err != nil || len(gens) != 3 {
		t.Fatalf("metrics: %d generations, %v", len(gens), err)
	}
	st, err := readState(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gens {
		name := shardName(g.Generation, reanalyseWorker, 0)
		want := int(math.Round(0.1 * float64(g.GenFullSearches)))
		if g.Generation == 1 {
			want = 0 // nothing in the window yet
		}
		if g.Reanalysed != want {
			t.Errorf("generation %d reanalysed %d, want %d", g.Generation, g.Reanalysed, want)
		}
		taken := slices.ContainsFunc(st.Shards, func(r ShardRef) bool { return r.Name == name && r.Count == want })
		if taken != (want > 0) {
			t.Errorf("generation %d: shard %s taken in: %v, want %v (%v)", g.Generation, name, taken, want > 0, st.Shards)
		}
		if want > 0 {
			h, _, err := samples.Read(filepath.Join(dir, rundir.ShardDir, name), rules)
			if err != nil || h.Worker != reanalyseWorker || h.Generation >= g.Generation {
				t.Errorf("generation %d's reanalysis shard: %+v, %v", g.Generation, h, err)
			}
		}
	}
	split := filepath.Join(t.TempDir(), "split")
	resumedRun(t, cfg, rules, split)
	checkSameRun(t, dir, split)
}
