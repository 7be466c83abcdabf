package diagnose

import (
	"context"
	"math"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/net/model/modeltest"
	"github.com/dablot-zero/dablot/train"
)

// hourTargets is the value target setup of the hour preset.
func hourTargets() train.SelfPlayConfig {
	return train.SelfPlayConfig{Adjudication: 0.5, AdjudicationScale: 6, MaterialHorizon: 40, MaterialWeight: 0.5}
}

func TestTermsByHand(t *testing.T) {
	cfg := hourTargets()
	const q = 0.2
	m := 0.5 * math.Tanh(3.0/6)
	// A won game's sample three soldiers up forty decisions on.
	won := SamplePosition{Result: 1, Lead: 3, HasLead: true, Target: float32(0.5*1 + 0.5*m), Value: 0.4}
	tt, err := Terms(&cfg, q, &won)
	if err != nil {
		t.Fatal(err)
	}
	if !near(tt.Result, 0.8*0.5, 1e-6) || !near(tt.Material, 0.8*0.5*m, 1e-6) || !near(tt.Search, 0.2*0.4, 1e-6) || tt.Adjudication != 0 {
		t.Errorf("won: terms %+v", tt)
	}
	if want := 0.8*float64(won.Target) + 0.2*float64(won.Value); !near(tt.Sum(), want, 1e-6) {
		t.Errorf("won: terms sum to %g, want the trained target %g", tt.Sum(), want)
	}
	// A drawn game ended two soldiers down: its outcome is adjudicated.
	adj := 0.5 * math.Tanh(-2.0/6)
	drawn := SamplePosition{Result: 0, Lead: -1, HasLead: true, Target: float32(0.5*adj + 0.5*0.5*math.Tanh(-1.0/6)), Value: -0.1}
	tt, err = Terms(&cfg, q, &drawn)
	if err != nil {
		t.Fatal(err)
	}
	if tt.Result != 0 || !near(tt.Adjudication, 0.8*0.5*adj, 1e-6) || !near(tt.HandWritten(), tt.Sum()-tt.Search, 1e-9) {
		t.Errorf("drawn: terms %+v", tt)
	}
	whole := cfg
	whole.MaterialWeight = 1
	if _, err := Terms(&whole, q, &won); err == nil {
		t.Error("material_weight 1: no error")
	}
}

// TestTermsOfSelfPlay plays self-play games of a tiny winther network from
// the curriculum's endgames and checks that Terms recovers setTargets' parts:
// in a game won or lost by the rules the result term is the result
// itself, weighted.
func TestTermsOfSelfPlay(t *testing.T) {
	pc, err := train.LoadPreset("smoke")
	if err != nil {
		t.Fatal(err)
	}
	cfg := pc.SelfPlay
	cfg.MaterialHorizon, cfg.MaterialWeight = 10, 0.5
	// Winther's endgames of a few pieces: taking the king ends some by
	// the rules, the no-capture limit draws the others.
	cfg.EndgameFraction, cfg.EndgameSoldiers = 1, 2
	cfg.FullSims, cfg.FastSims, cfg.FullFraction, cfg.Workers = 4, 2, 0.5, 4
	cfg.PolicySurprise = false
	m := modeltest.NewModel(t, "winther", 3)
	recs, ss, err := SelfPlay(context.Background(), m, cfg, 7, 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 8 || len(ss) == 0 {
		t.Fatalf("%d records, %d samples", len(recs), len(ss))
	}
	r := configs.MustVariant("winther")
	const q = 0.3
	decided := 0
	for i := range ss {
		s := &ss[i]
		tt, err := Terms(&cfg, q, s)
		if err != nil {
			t.Fatal(err)
		}
		if want := (1-q)*float64(s.Target) + q*float64(s.Value); !near(tt.Sum(), want, 1e-5) {
			t.Fatalf("sample %d: terms sum to %g, want %g", i, tt.Sum(), want)
		}
		if s.Result != 0 {
			decided++
			if !near(tt.Result, (1-q)*(1-cfg.MaterialWeight)*float64(s.Result), 1e-5) {
				t.Errorf("sample %d of a decided game: result term %g, want %g", i, tt.Result, (1-q)*0.5*float64(s.Result))
			}
		} else if tt.Result != 0 {
			t.Errorf("sample %d of a drawn game: result term %g", i, tt.Result)
		}
		if recs[0].Variant != r.Name {
			t.Fatalf("record of %s", recs[0].Variant)
		}
	}
	sum, err := SummariseTargets(ss, &cfg, q)
	if err != nil {
		t.Fatal(err)
	}
	all := sum[len(sum)-1]
	if all.Phase != "all" || all.Samples != len(ss) {
		t.Fatalf("last summary %+v", all)
	}
	if v := all.VarShare; !near(v.Result+v.Adjudication+v.Material+v.Search, 1, 1e-9) || !near(all.HandVar.Est, v.Adjudication+v.Material, 1e-9) {
		t.Errorf("variance shares %+v do not sum to 1, or hand-written %+v is not theirs", v, all.HandVar)
	}
	if a := all.Abs; !near(all.HandAbs.Est, (a.Adjudication+a.Material)/(a.Result+a.Adjudication+a.Material+a.Search), 1e-9) ||
		!(all.HandAbs.Lo <= all.HandAbs.Est && all.HandAbs.Est <= all.HandAbs.Hi) {
		t.Errorf("hand-written share of magnitude %+v, terms %+v", all.HandAbs, a)
	}
	if all.Games != 8 || all.Drawn.N != float64(len(ss)) {
		t.Errorf("%d games, %g samples drawn or not", all.Games, all.Drawn.N)
	}
	if decided == 0 {
		t.Errorf("none of %d samples is of a decided game: the result term is untested", len(ss))
	}
}
