package diagnose

import (
	"math"
	"slices"
)

// DecisiveScore is the deep score, a soldier, from which the deep search
// counts a position as won or lost for the comparisons of signs, and a
// WinThreshold value the one from which a value counts as a win (a loss
// below its negative, a draw between).
const (
	DecisiveScore = 100
	WinThreshold  = 1.0 / 3
	// SameMargin is the deep-score difference within which two decisions
	// count as equally good: a quarter of a soldier.
	SameMargin = 25
)

// ValueSummary compares, for the positions of a phase, the values of the
// network, of the network with self-play's material blend, and of the
// material count with the exact tables and with the deep search.
type ValueSummary struct {
	Phase     string
	Positions int
	// Against the tables, in the positions they hold (Exact, of which
	// Wins, Draws and Losses for the side to move): for each judge, the
	// share of the drawn positions it calls a draw and the share of the
	// won and lost ones it calls right (a value above WinThreshold a
	// win, below its negative a loss, a draw between; the network's WDL:
	// the most probable of the three; the deep search: its score by
	// DecisiveScore; the sample's game result as it is), and the mean
	// |value − result| of the values.
	Exact, Wins, Draws, Losses int
	ExactJudges                map[string]ExactJudge
	// Against the deep search: Spearman's rank correlation of each value
	// with the deep score, and the partial one with the material count
	// held fixed (what a value knows beyond material); in the positions
	// the deep search calls decided (|score| ≥ DecisiveScore) the share
	// whose value has the deep score's sign (a value of 0 counts half).
	// MaterialWrong is the network's share in the decided positions where
	// the material count's sign is wrong or 0.
	NetRho, BlendRho, MaterialRho Interval
	NetPartial, BlendPartial      Interval
	Decisive                      int
	NetSign, BlendSign            Proportion
	MaterialSign                  Proportion
	MaterialWrong                 Proportion
	// DeepDepth is the depth the deep search completed; BlendShift the
	// mean |blended − network value|.
	DeepDepth, BlendShift Mean
}

// ExactJudge is how one judge of positions does against the tables.
type ExactJudge struct {
	Draws, Decisive Proportion
	Err             Mean // |value − result|; none for the judges without a value
}

// The judges of ValueSummary.ExactJudges, in the order they are shown.
var ExactJudgeNames = []string{"network value", "network + blend", "material count", "network WDL", "deep alpha-beta", "self-play's value target", "self-play's game result"}

// signMatch is 1 if x has the sign of want, 0.5 if x is 0, else 0.
func signMatch(x float64, want int) float64 {
	switch {
	case x == 0:
		return 0.5
	case (x > 0) == (want > 0):
		return 1
	}
	return 0
}

// class returns the result a value says: 1, 0 or -1 by WinThreshold.
func class(v float64) int {
	switch {
	case v > WinThreshold:
		return 1
	case v < -WinThreshold:
		return -1
	}
	return 0
}

// scoreClass returns the result a deep score says, by DecisiveScore.
func scoreClass(s int) int {
	switch {
	case s >= DecisiveScore:
		return 1
	case s <= -DecisiveScore:
		return -1
	}
	return 0
}

// wdlClass returns the most probable of win (1), draw (0), loss (-1).
func wdlClass(w [3]float32) int {
	switch k := argmax(w[:]); k {
	case 0:
		return 1
	case 1:
		return 0
	}
	return -1
}

// b2f is 1 for true, 0 for false.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// byPhase splits rows by phase, in the order of Phases, with all of them
// together last (name "all"); phases without rows are left out.
func byPhase(rows []PositionRow) (names []string, groups [][]PositionRow) {
	gs := make([][]PositionRow, len(Phases))
	for _, r := range rows {
		gs[r.Phase] = append(gs[r.Phase], r)
	}
	for i, g := range gs {
		if len(g) > 0 {
			names, groups = append(names, Phases[i].Name), append(groups, g)
		}
	}
	return append(names, "all"), append(groups, rows)
}

// SummariseValues summarises rows by phase (and all together, last), the
// positions of a self-play game a cluster of the intervals.
func SummariseValues(rows []PositionRow, seed uint64) []ValueSummary {
	names, groups := byPhase(rows)
	out := make([]ValueSummary, len(groups))
	for g, rs := range groups {
		s := ValueSummary{Phase: names[g], Positions: len(rs)}
		var net, blend, mat, deep []float64
		s.ExactJudges = map[string]ExactJudge{}
		var clusters []int
		c := 0
		judge := func(name string, got int, value float64, hasValue bool, want int) {
			j := s.ExactJudges[name]
			if want == 0 {
				j.Draws.AddIn(c, b2f(got == 0))
			} else {
				j.Decisive.AddIn(c, b2f(got == want))
			}
			if hasValue {
				j.Err.AddIn(c, math.Abs(value-float64(want)))
			}
			s.ExactJudges[name] = j
		}
		for _, r := range rs {
			c = r.cluster()
			clusters = append(clusters, c)
			s.DeepDepth.AddIn(c, float64(r.DeepDepth))
			s.BlendShift.AddIn(c, math.Abs(r.Blend-r.Net))
			net, blend, mat = append(net, r.Net), append(blend, r.Blend), append(mat, r.Material)
			deep = append(deep, float64(capScore(r.Deep)))
			if r.HasExact {
				s.Exact++
				switch r.Exact {
				case 1:
					s.Wins++
				case 0:
					s.Draws++
				default:
					s.Losses++
				}
				judge(ExactJudgeNames[0], class(r.Net), r.Net, true, r.Exact)
				judge(ExactJudgeNames[1], class(r.Blend), r.Blend, true, r.Exact)
				judge(ExactJudgeNames[2], class(r.Material), r.Material, true, r.Exact)
				judge(ExactJudgeNames[3], wdlClass(r.WDL), 0, false, r.Exact)
				judge(ExactJudgeNames[4], scoreClass(r.Deep), 0, false, r.Exact)
				if r.HasSample {
					judge(ExactJudgeNames[5], class(r.Trained), r.Trained, true, r.Exact)
					judge(ExactJudgeNames[6], r.GameResult, 0, false, r.Exact)
				}
			}
			if want := scoreClass(r.Deep); want != 0 {
				s.Decisive++
				s.NetSign.AddIn(c, signMatch(r.Net, want))
				s.BlendSign.AddIn(c, signMatch(r.Blend, want))
				m := signMatch(r.Material, want)
				s.MaterialSign.AddIn(c, m)
				if m < 1 {
					s.MaterialWrong.AddIn(c, signMatch(r.Net, want))
				}
			}
		}
		rho := func(v []float64) Interval {
			return BootstrapClusters(clusters, seed, func(idx []int) float64 { return Spearman(pick(v, idx), pick(deep, idx)) })
		}
		s.NetRho, s.BlendRho, s.MaterialRho = rho(net), rho(blend), rho(mat)
		partial := func(v []float64) Interval {
			return BootstrapClusters(clusters, seed, func(idx []int) float64 { return PartialSpearman(pick(v, idx), pick(deep, idx), pick(mat, idx)) })
		}
		s.NetPartial, s.BlendPartial = partial(net), partial(blend)
		out[g] = s
	}
	return out
}

// SearchSummary says, for the positions of a phase and one search
// budget, how self-play's search changes on the network's prior and
// value, judged by the deep search.
type SearchSummary struct {
	Phase     string
	Sims      int
	Positions int // with more than one legal decision
	// Differ is the share of positions whose search plays another
	// decision than the prior's top; among those, Better, Same and Worse
	// the shares in which the deep search scores the search's choice
	// SameMargin or more above the prior's top, within it, or below, and
	// Gain the mean difference (scores capped at ±ScoreCap).
	Differ              Proportion
	Better, Same, Worse Proportion
	Gain                Mean
	// ChoiceRegret and PriorRegret are the mean deep score the search's
	// choice and the prior's top give away against the deep search's
	// best, over all positions, and RegretGain the mean of their
	// difference, position by position (the search's choice's score less
	// the prior's top's); ChoiceBest and PriorBest the shares in which
	// they give away nothing.
	ChoiceRegret, PriorRegret, RegretGain Mean
	ChoiceBest, PriorBest                 Proportion
	// ValueRho and NetRho are Spearman's correlations of the search's
	// root value and of the network's value with the deep score, on the
	// same positions, and ValuePartial and NetPartial the same with the
	// material count held fixed.
	ValueRho, NetRho         Interval
	ValuePartial, NetPartial Interval
	// PriorMass and PolicyMass are the mean probabilities of the deep
	// best decision in the prior and in the search's policy target,
	// MassGain their mean difference, position by position, and Surprise
	// the mean KL(policy target ‖ prior).
	PriorMass, PolicyMass, MassGain, Surprise Mean
	// BlendShift is the mean |root value with the material blend − the
	// same search's without|, BlendChoice the share of positions in which
	// the blend changes the decision played (the same noise).
	BlendShift  Mean
	BlendChoice Proportion
}

// scoreOf returns the deep score of decision d in row r for its side to
// move, capped, and whether r has one: the judged decisions' scores, or,
// where the deep best was the only decision chosen, the root's score.
func scoreOf(r *PositionRow, d string) (int, bool) {
	if s, ok := r.Scores[d]; ok {
		return capScore(s), true
	}
	if len(r.Scores) == 0 && d == r.DeepBest {
		return capScore(r.Deep), true
	}
	return 0, false
}

// SummariseSearches summarises rows by phase (and all together, last)
// for each search budget they hold, the positions of a self-play game a
// cluster of the intervals.
func SummariseSearches(rows []PositionRow, seed uint64) []SearchSummary {
	var sims []int
	for _, r := range rows {
		for _, s := range r.Searches {
			if !slices.Contains(sims, s.Sims) {
				sims = append(sims, s.Sims)
			}
		}
	}
	names, groups := byPhase(rows)
	var out []SearchSummary
	for _, n := range sims {
		for g, rs := range groups {
			s := SearchSummary{Phase: names[g], Sims: n}
			var value, net, mat, deep []float64
			var clusters []int
			for i := range rs {
				r := &rs[i]
				c := r.cluster()
				k := slices.IndexFunc(r.Searches, func(x SearchRow) bool { return x.Sims == n })
				if k < 0 {
					continue
				}
				sr := r.Searches[k]
				s.Positions++
				clusters = append(clusters, c)
				value, net, mat = append(value, sr.Value), append(net, r.Net), append(mat, r.Material)
				deep = append(deep, float64(capScore(r.Deep)))
				s.BlendShift.AddIn(c, math.Abs(sr.Value-sr.PlainValue))
				s.BlendChoice.AddIn(c, b2f(sr.Choice != sr.PlainChoice))
				s.PriorMass.AddIn(c, r.PriorBest)
				s.PolicyMass.AddIn(c, sr.PolicyBest)
				s.MassGain.AddIn(c, sr.PolicyBest-r.PriorBest)
				s.Surprise.AddIn(c, sr.Surprise)
				best, okB := scoreOf(r, r.DeepBest)
				choice, okC := scoreOf(r, sr.Choice)
				prior, okP := scoreOf(r, r.PriorTop)
				if okB && okC && okP {
					s.ChoiceRegret.AddIn(c, float64(best-choice))
					s.PriorRegret.AddIn(c, float64(best-prior))
					s.ChoiceBest.AddIn(c, b2f(choice >= best))
					s.PriorBest.AddIn(c, b2f(prior >= best))
					s.RegretGain.AddIn(c, float64(choice-prior))
				}
				differ := sr.Choice != r.PriorTop
				s.Differ.AddIn(c, b2f(differ))
				if differ && okC && okP {
					d := choice - prior
					s.Gain.AddIn(c, float64(d))
					s.Better.AddIn(c, b2f(d >= SameMargin))
					s.Same.AddIn(c, b2f(d > -SameMargin && d < SameMargin))
					s.Worse.AddIn(c, b2f(d <= -SameMargin))
				}
			}
			if s.Positions == 0 {
				continue
			}
			rho := func(v []float64) Interval {
				return BootstrapClusters(clusters, seed, func(idx []int) float64 { return Spearman(pick(v, idx), pick(deep, idx)) })
			}
			s.ValueRho, s.NetRho = rho(value), rho(net)
			partial := func(v []float64) Interval {
				return BootstrapClusters(clusters, seed, func(idx []int) float64 { return PartialSpearman(pick(v, idx), pick(deep, idx), pick(mat, idx)) })
			}
			s.ValuePartial, s.NetPartial = partial(value), partial(net)
			out = append(out, s)
		}
	}
	return out
}
