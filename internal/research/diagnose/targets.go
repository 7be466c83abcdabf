package diagnose

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/train"
)

// SamplePosition is one training sample of a self-play game as the
// diagnosis keeps it: where it comes from, its position, and what its
// value target is made of.
type SamplePosition struct {
	Game    int    `json:"game"`              // the game's index
	Endgame bool   `json:"endgame,omitempty"` // the game started from the curriculum's random endgame
	FEN     string `json:"fen"`
	Pieces  int    `json:"pieces"`
	// Result is the game's result for the side to move (1, 0, -1),
	// Target the sample's value target (train.SelfPlayConfig's
	// setTargets), Value the root value of its search, Lead the side to
	// move's material lead material_horizon decisions on (HasLead).
	Result  int8    `json:"result"`
	Target  float32 `json:"target"`
	Value   float32 `json:"value"`
	Lead    float32 `json:"lead"`
	HasLead bool    `json:"has_lead"`
}

// SelfPlay plays games self-play games of m with cfg and seed, as a run's
// generation does (train.SelfPlay: its searches, exploration, curriculum
// and value targets), and returns their records and their samples as
// written (policy surprise weighting repeats some). onGame, if not nil,
// is called as each game ends.
func SelfPlay(ctx context.Context, m *model.Model, cfg train.SelfPlayConfig, seed uint64, games int, onGame func(*train.SelfPlayGame)) ([]*game.Record, []SamplePosition, error) {
	gs, err := train.SelfPlay(ctx, m, cfg, seed, 0, games, onGame)
	if err != nil {
		return nil, nil, err
	}
	var recs []*game.Record
	var out []SamplePosition
	for _, g := range gs {
		recs = append(recs, g.Record)
		for i := range g.Samples {
			s := &g.Samples[i]
			out = append(out, SamplePosition{Game: g.Index, Endgame: g.Endgame, FEN: s.Position.FEN(), Pieces: s.Position.PieceCount(),
				Result: s.Result, Target: s.Target, Value: s.Value, Lead: s.Lead, HasLead: s.HasLead})
		}
	}
	return recs, out, nil
}

// WriteSamples writes ss as JSON lines.
func WriteSamples(w io.Writer, ss []SamplePosition) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range ss {
		if err := enc.Encode(&ss[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// maxSampleLine bounds one line of a samples file.
const maxSampleLine = 1 << 16

// ReadSamples reads samples written by WriteSamples.
func ReadSamples(r io.Reader) ([]SamplePosition, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxSampleLine)
	var out []SamplePosition
	for n := 1; sc.Scan(); n++ {
		var s SamplePosition
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("samples line %d: %w", n, err)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

// TargetTerms are the parts of the value target a sample trains the
// network towards, which sum to it: train.BatchMaker's
// (1-q)·Target + q·Value, with q the config's train.q_weight and Target
// setTargets' (1-w)·O + w·M, w the material weight, O the game's outcome
// (the result, or for a game drawn by a limit its adjudicated material
// A·tanh(b/S)) and M the material term A·tanh(Lead/S).
type TargetTerms struct {
	// Result is the part that is the game's result by the rules (or by
	// exact tables), zero in a drawn game.
	Result float64
	// Adjudication is the part that is a drawn game's material at its
	// end: hand-written.
	Adjudication float64
	// Material is the part that is the material lead material_horizon
	// decisions on: hand-written.
	Material float64
	// Search is the part that is the search's root value: the network's
	// own value, backed up by a search that adds material_blend.
	Search float64
}

// Sum returns the trained value target.
func (t TargetTerms) Sum() float64 { return t.Result + t.Adjudication + t.Material + t.Search }

// HandWritten returns the hand-written parts: adjudication and material.
func (t TargetTerms) HandWritten() float64 { return t.Adjudication + t.Material }

// ErrTermsUnknown is the error of Terms for a config whose targets it
// cannot take apart.
var ErrTermsUnknown = errors.New("diagnose: the value target's terms are not recoverable from a sample")

// Terms takes sample s's trained value target apart under the self-play
// config cfg and the trainer's q_weight qWeight. Configs whose targets
// depend on more than the sample holds (a material weight of 1) are
// ErrTermsUnknown.
func Terms(cfg *train.SelfPlayConfig, qWeight float64, s *SamplePosition) (TargetTerms, error) {
	w := 0.0
	m := 0.0
	if cfg.MaterialHorizon > 0 && cfg.MaterialWeight > 0 && s.HasLead {
		w = cfg.MaterialWeight
		if w >= 1 {
			return TargetTerms{}, fmt.Errorf("%w: material_weight %g", ErrTermsUnknown, w)
		}
		if cfg.Adjudication > 0 {
			m = cfg.Adjudication * math.Tanh(float64(s.Lead)/cfg.AdjudicationScale)
		}
	}
	o := (float64(s.Target) - w*m) / (1 - w)
	t := TargetTerms{Material: (1 - qWeight) * w * m, Search: qWeight * float64(s.Value)}
	if s.Result != 0 {
		t.Result = (1 - qWeight) * (1 - w) * o
	} else {
		t.Adjudication = (1 - qWeight) * (1 - w) * o
	}
	return t, nil
}

// TargetSummary describes the value targets of the samples of a phase.
type TargetSummary struct {
	Phase   string
	Samples int
	Games   int
	// Drawn is the share of the samples from drawn games: no result term
	// at all.
	Drawn Proportion
	// Mean is the mean value target, SD its standard deviation.
	Mean, SD float64
	// Abs is each term's mean magnitude.
	Abs TargetTerms
	// VarShare is each term's share of the target's variance,
	// Cov(term, target)/Var(target): the shares sum to 1.
	VarShare TargetTerms
	// HandAbs and HandVar are the hand-written terms' (adjudication and
	// material) share of the summed magnitudes and of the variance, with
	// intervals from a bootstrap over games.
	HandAbs, HandVar Interval
}

// SummariseTargets summarises the value targets of ss by phase (in the
// order of Phases, then all together as "all") under the self-play
// config cfg and the trainer's q_weight qWeight. The samples of a game
// are a cluster of the intervals.
func SummariseTargets(ss []SamplePosition, cfg *train.SelfPlayConfig, qWeight float64) ([]TargetSummary, error) {
	groups := make([][]TargetTerms, len(Phases)+1)
	results := make([][]int8, len(Phases)+1)
	games := make([][]int, len(Phases)+1)
	for i := range ss {
		t, err := Terms(cfg, qWeight, &ss[i])
		if err != nil {
			return nil, err
		}
		k := PhaseOf(ss[i].Pieces)
		for _, g := range []int{k, len(Phases)} {
			groups[g] = append(groups[g], t)
			results[g] = append(results[g], ss[i].Result)
			games[g] = append(games[g], ss[i].Game)
		}
	}
	var out []TargetSummary
	for g, ts := range groups {
		name := "all"
		if g < len(Phases) {
			name = Phases[g].Name
		}
		if len(ts) == 0 {
			continue
		}
		out = append(out, summarise(name, ts, results[g], games[g]))
	}
	return out, nil
}

// parts are a target's terms in the order of TargetTerms.
func parts(t TargetTerms) [4]float64 {
	return [4]float64{t.Result, t.Adjudication, t.Material, t.Search}
}

// termShares returns the mean magnitude of each term of ts at idx and
// each term's share of the variance of their sum.
func termShares(ts []TargetTerms, idx []int) (abs, share [4]float64) {
	n := float64(len(idx))
	var mean [4]float64
	var meanT float64
	for _, i := range idx {
		for k, x := range parts(ts[i]) {
			mean[k] += x / n
		}
		meanT += ts[i].Sum() / n
	}
	var cov [4]float64
	var varT float64
	for _, i := range idx {
		dt := ts[i].Sum() - meanT
		varT += dt * dt / n
		for k, x := range parts(ts[i]) {
			cov[k] += (x - mean[k]) * dt / n
			abs[k] += math.Abs(x) / n
		}
	}
	if varT > 0 {
		for k := range share {
			share[k] = cov[k] / varT
		}
	}
	return abs, share
}

// summarise is SummariseTargets' summary of one group.
func summarise(name string, ts []TargetTerms, results []int8, games []int) TargetSummary {
	s := TargetSummary{Phase: name, Samples: len(ts)}
	seen := map[int]bool{}
	var sum, sq float64
	for i, t := range ts {
		s.Drawn.AddIn(games[i], b2f(results[i] == 0))
		seen[games[i]] = true
		sum += t.Sum()
		sq += t.Sum() * t.Sum()
	}
	n := float64(len(ts))
	s.Games = len(seen)
	s.Mean = sum / n
	s.SD = math.Sqrt(max(0, sq/n-s.Mean*s.Mean))
	all := make([]int, len(ts))
	for i := range all {
		all[i] = i
	}
	abs, share := termShares(ts, all)
	s.Abs = TargetTerms{abs[0], abs[1], abs[2], abs[3]}
	s.VarShare = TargetTerms{share[0], share[1], share[2], share[3]}
	s.HandAbs = BootstrapClusters(games, 0x68616e64, func(idx []int) float64 {
		a, _ := termShares(ts, idx)
		return (a[1] + a[2]) / (a[0] + a[1] + a[2] + a[3])
	})
	s.HandVar = BootstrapClusters(games, 0x68616e64, func(idx []int) float64 {
		_, v := termShares(ts, idx)
		return v[1] + v[2]
	})
	return s
}
