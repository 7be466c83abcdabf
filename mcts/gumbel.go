package mcts

import (
	"math"
)

// This file is the Gumbel search of Danihelka, Guez, Schrittwieser and
// Silver, "Policy improvement by planning with Gumbel" (ICLR 2022), in the
// form of DeepMind's mctx library (gumbel_muzero_policy): Gumbel-top-k
// sampling of the root decisions and sequential halving over them, both
// done by one rule at the root (choose, among the decisions whose visit
// count is the one the halving schedule asks for next, the highest
// g + logits + σ(q̂)); deterministic improved-policy selection below the
// root; and softmax(logits + σ(completed q)) as the policy target.

// halving is the schedule of sequential halving for a budget of n
// simulations spread over m root decisions: for each simulation, the visit
// count that the decision to visit must have (mctx's
// get_sequence_of_considered_visits). The schedule runs in phases; each
// phase visits its considered decisions once per round, for some rounds,
// and all of them have the same visit count in a round. It is held as its
// phases, a few dozen at most, so that a budget costs no memory per
// simulation: a search allocates what it runs, not what it might.
type halving struct {
	n      int
	phases []halvingPhase
	cur    int // the phase of the last lookup, where the next one starts
}

// halvingPhase is one phase of a halving schedule.
type halvingPhase struct {
	start      int // the index of the phase's first simulation
	considered int // decisions visited once in each round
	visits     int // their visit count in the phase's first round
}

// plan sets h to the schedule of n simulations over m decisions, reusing
// its storage.
func (h *halving) plan(m, n int) {
	h.n, h.cur = n, 0
	h.phases = h.phases[:0]
	if n <= 0 {
		return
	}
	if m <= 1 {
		h.phases = append(h.phases, halvingPhase{considered: 1})
		return
	}
	log2m := int(math.Ceil(math.Log2(float64(m))))
	start, visits, considered := 0, 0, m
	for start < n {
		rounds := max(1, n/(log2m*considered))
		h.phases = append(h.phases, halvingPhase{start: start, considered: considered, visits: visits})
		start += rounds * considered
		visits += rounds
		considered = max(2, considered/2)
	}
}

// at returns the visit count wanted of the decision visited by simulation
// i, which must be in [0, h.n).
func (h *halving) at(i int) int {
	if h.cur >= len(h.phases) || i < h.phases[h.cur].start {
		h.cur = 0
	}
	for h.cur+1 < len(h.phases) && i >= h.phases[h.cur+1].start {
		h.cur++
	}
	ph := &h.phases[h.cur]
	return ph.visits + (i-ph.start)/ph.considered
}

// gumbelStart draws the root's Gumbel noise and plans sequential halving
// for the run's limits. A run bounded by simulations alone halves once over
// that budget. A run bounded by time or nodes (or by simulations and
// either) cannot know its budget, so it halves in passes of doubling
// budgets, the first a single visit per considered decision and phase, each
// pass counting only its own visits: whenever it stops, the last complete
// pass had more than a quarter of the simulations, and the deepest-searched
// decisions are its survivors.
func (s *Search) gumbelStart(lim Limits) {
	r := s.root
	k := len(r.legal)
	s.gLogits = resize(s.gLogits, k)
	s.gNoise = resize(s.gNoise, k)
	for i := range k {
		s.gLogits[i] = logit(r.prior[i])
		g := 0.0
		if s.cfg.GumbelScale > 0 {
			u := s.rng.Float64()
			for u == 0 {
				u = s.rng.Float64()
			}
			g = -math.Log(-math.Log(u)) * s.cfg.GumbelScale
		}
		s.gNoise[i] = g
	}
	s.gSims = lim.Sims
	s.gAnytime = lim.Time > 0 || lim.Nodes > 0 || lim.Sims <= 0
	s.gBudget = 0
	s.gStart = s.rootVisits()
	if s.gAnytime {
		s.gumbelPass()
		return
	}
	s.gPlan.plan(min(s.cfg.GumbelM, s.rootAllowed()), lim.Sims)
	s.gumbelSnapshot()
}

// gumbelPass starts the next pass of an anytime run: a budget twice the
// last one's (capped by what is left of a simulation limit), planned from
// the root's visits now.
func (s *Search) gumbelPass() {
	m := min(s.cfg.GumbelM, s.rootAllowed())
	budget := 2 * s.gBudget
	if budget == 0 {
		budget = m * max(1, int(math.Ceil(math.Log2(float64(m)))))
	}
	if s.gSims > 0 {
		budget = max(1, min(budget, s.gSims-(s.rootVisits()-s.gStart)))
	}
	s.gBudget = budget
	s.gPlan.plan(m, budget)
	s.gumbelSnapshot()
}

// gumbelSnapshot records the root's visits (in flight included) at the
// start of a halving schedule, which counts only the visits after it.
func (s *Search) gumbelSnapshot() {
	s.gSeen = s.gSeen[:0]
	for i := range s.root.children {
		s.gSeen = append(s.gSeen, s.childVisits(i))
	}
}

// childVisits is the visits of root decision i, in flight included.
func (s *Search) childVisits(i int) int {
	if c := s.root.children[i]; c != nil {
		return int(c.n + c.vl)
	}
	return 0
}

// rootVisits is the sum of the root's children's visits, in flight included.
func (s *Search) rootVisits() int {
	v := 0
	for i := range s.root.children {
		v += s.childVisits(i)
	}
	return v
}

// scheduleVisits is the visits the root has had since the schedule began.
func (s *Search) scheduleVisits() int {
	v := s.rootVisits()
	for _, seen := range s.gSeen {
		v -= seen
	}
	return v
}

func logit(p float32) float64 { return math.Log(max(float64(p), 1e-30)) }

func resize(x []float64, k int) []float64 {
	if cap(x) < k {
		return make([]float64, k)
	}
	return x[:k]
}

// gumbelRootSelect picks the root decision to visit next.
func (s *Search) gumbelRootSelect() int {
	r := s.root
	sigma := s.completedSigma(r)
	idx := s.scheduleVisits()
	if s.gAnytime && idx >= s.gPlan.n {
		s.gumbelPass()
		idx = 0
	}
	want := -1
	if idx >= 0 && idx < s.gPlan.n {
		want = s.gPlan.at(idx)
	}
	best, fallback := -1, -1
	bestScore, fallbackScore := math.Inf(-1), math.Inf(-1)
	for i := range r.children {
		if s.isExcluded(r, i) {
			continue
		}
		visits := s.childVisits(i) - s.gSeen[i]
		score := s.gNoise[i] + s.gLogits[i] + sigma[i]
		if score > fallbackScore {
			fallback, fallbackScore = i, score
		}
		if visits == want && score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		// Past the budget (or out of step, after collisions): the best by
		// the same score among all decisions.
		return fallback
	}
	return best
}

// gumbelInteriorSelect picks the child of a non-root node: the decision
// whose improved-policy probability most exceeds its share of the visits.
func (s *Search) gumbelInteriorSelect(n *node) int {
	sigma := s.completedSigma(n)
	k := len(n.legal)
	pi := resize(s.scratchB, k)
	s.scratchB = pi
	softmaxInto(pi, n.prior, sigma)
	total := 0.0
	for _, c := range n.children {
		if c != nil {
			total += float64(c.n + c.vl)
		}
	}
	best, bestScore := 0, math.Inf(-1)
	for i, c := range n.children {
		visits := 0.0
		if c != nil {
			visits = float64(c.n + c.vl)
		}
		if score := pi[i] - visits/(1+total); score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// softmaxInto sets out to softmax(log prior + sigma).
func softmaxInto(out []float64, prior []float32, sigma []float64) {
	m := math.Inf(-1)
	for i := range out {
		out[i] = logit(prior[i]) + sigma[i]
		m = max(m, out[i])
	}
	var sum float64
	for i := range out {
		out[i] = math.Exp(out[i] - m)
		sum += out[i]
	}
	for i := range out {
		out[i] /= sum
	}
}

// completedSigma returns σ(completed q) for the children of n, from n's
// side's point of view: visited children have their mean value, unvisited
// ones the mixed value v_mix of n; the values are rescaled to [0, 1] and
// multiplied by (CVisit + max N)·CScale. The slice is scratch space.
func (s *Search) completedSigma(n *node) []float64 {
	k := len(n.legal)
	q := resize(s.scratchA, k)
	s.scratchA = q
	var sumN, sumP, weighted float64
	maxN := int32(0)
	for i, c := range n.children {
		if c != nil && c.n > 0 {
			p := max(float64(n.prior[i]), 1e-30)
			sumN += float64(c.n)
			sumP += p
			weighted += p * s.childQ(n, c)
			maxN = max(maxN, c.n)
		}
	}
	vmix := float64(n.value)
	if sumP > 0 {
		vmix = (vmix + sumN*weighted/sumP) / (1 + sumN)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, c := range n.children {
		if c != nil && (c.n > 0 || s.cfg.Solver && c.solved) {
			q[i] = s.childQ(n, c)
		} else {
			q[i] = vmix
		}
		lo, hi = min(lo, q[i]), max(hi, q[i])
	}
	scale := (s.cfg.CVisit + float64(maxN)) * s.cfg.CScale / max(hi-lo, 1e-8)
	for i := range q {
		q[i] = (q[i] - lo) * scale
	}
	return q
}

// gumbelFinish fills the policy target and the chosen decision of a Gumbel
// search's result.
func (s *Search) gumbelFinish(res *Result) {
	r := s.root
	sigma := s.completedSigma(r)
	pi := make([]float64, len(r.legal))
	softmaxInto(pi, r.prior, sigma)
	maxN, kept := 0, 0.0
	for i, p := range pi {
		if !s.isExcluded(r, i) {
			maxN = max(maxN, res.Visits[i])
			kept += p
		}
	}
	for i, p := range pi {
		if !s.isExcluded(r, i) {
			res.Policy[i] = float32(p / kept) // excluded decisions get none
		}
	}
	best, bestScore := 0, math.Inf(-1)
	noise := s.gNoise
	for i := range r.legal {
		if res.Visits[i] != maxN || s.isExcluded(r, i) {
			continue
		}
		g := 0.0
		if i < len(noise) {
			g = noise[i]
		}
		if score := g + logit(r.prior[i]) + sigma[i]; score > bestScore {
			best, bestScore = i, score
		}
	}
	res.Best = r.legal[best]
}
