// Package rating fits Elo ratings to match results by maximum likelihood.
//
// The model is the logistic Elo (Bradley–Terry) one: a player rated Ra
// scores against one rated Rb with expectation
//
//	P(A beats B) = 1 / (1 + 10^(−(Ra−Rb)/400)),
//
// and a draw counts as half a win and half a loss (so a pair's games enter
// the likelihood only through A's points, wins + draws/2). All results are
// fitted at once, so a player's rating draws on every game of every player
// it is connected to. One player, the anchor, is fixed at 0.
//
// Prior: every pair of players that met gets one virtual draw on top of its
// games. This keeps the estimate finite for a player that won or lost
// every game (50 straight wins rate like a score of 50.5/51, about +800), and
// moves the score of a pair with n games 1/(n+1) of the way towards one
// half; being between pairs, it does not depend on which player is the
// anchor. Games and Score count only real games.
//
// Error bars are standard errors from the inverse of the observed
// information (the negative Hessian of the log posterior at the fit) with
// the anchor's row and column removed: they are the uncertainty of each
// rating relative to the anchor. Since the model scores a draw like a coin
// toss between a win and a loss, it overstates the variance of games with
// many draws, and the bars are then a little wide: in simulations with
// up to 20 % draws about 97 % of 95 % intervals held the true rating.
package rating

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/dablot-zero/dablot/mcts/match"
)

// DefaultAnchor is the player fixed at 0 unless another is named.
const DefaultAnchor = "random"

// PriorDraws is the number of virtual draws added to every pair of players
// that met (see the package comment).
const PriorDraws = 1

// Z95 is the two-sided 95 % normal quantile: Err95 = Z95 × standard error.
const Z95 = 1.959963984540054

// eloScale converts Elo to the natural logit: p = σ(eloScale·(Ra−Rb)).
const eloScale = math.Ln10 / 400

// Result is the outcome of the games between players A and B, counted from
// A's point of view.
type Result struct {
	A, B                string
	Wins, Draws, Losses int
}

// Rating is one player's fitted rating.
type Rating struct {
	Name   string
	Elo    float64 // relative to the anchor; NaN if not connected to it
	Err95  float64 // half-width of the 95 % interval (Z95 standard errors); 0 for the anchor
	Games  int     // real games played
	Score  float64 // mean score over those games (a draw is half a point)
	Anchor bool    // the player fixed at 0
}

// Table is a set of ratings sorted by Elo, highest first, with the players
// not connected to the anchor last.
type Table []Rating

// Get returns the rating of the named player.
func (t Table) Get(name string) (Rating, bool) {
	for _, r := range t {
		if r.Name == name {
			return r, true
		}
	}
	return Rating{}, false
}

// DisconnectedError reports players that have no chain of games to the
// anchor, so no rating relative to it. Fit returns it together with the
// table, where such players have NaN ratings.
type DisconnectedError struct {
	Anchor  string
	Players []string // sorted
}

// Error names the anchor and the unrated players.
func (e *DisconnectedError) Error() string {
	return fmt.Sprintf("rating: %d player(s) not connected to the anchor %q by any chain of games, left unrated: %s",
		len(e.Players), e.Anchor, strings.Join(e.Players, ", "))
}

// pair is the games between players i < j: n games (with the prior), s
// the points of i.
type pair struct {
	i, j int
	n, s float64
}

// Fit returns the maximum-likelihood (with the prior of the package
// comment) ratings of every player named in results, with anchor fixed at
// 0. Results of the same pair add up; results with no games are ignored.
//
// It is an error if a result is malformed or the anchor played no games.
// Players with no chain of games to the anchor get NaN ratings, and Fit
// returns the table with a *DisconnectedError.
func Fit(results []Result, anchor string) (Table, error) {
	index := map[string]int{}
	var names []string
	var wdl [][3]int // per player: wins, draws, losses
	player := func(name string) int {
		i, ok := index[name]
		if !ok {
			i = len(names)
			index[name] = i
			names = append(names, name)
			wdl = append(wdl, [3]int{})
		}
		return i
	}
	pairs := map[[2]int]*pair{}
	for _, r := range results {
		switch {
		case r.A == "" || r.B == "":
			return nil, fmt.Errorf("rating: result %q vs %q: empty player name", r.A, r.B)
		case r.A == r.B:
			return nil, fmt.Errorf("rating: result of %q against itself", r.A)
		case r.Wins < 0 || r.Draws < 0 || r.Losses < 0:
			return nil, fmt.Errorf("rating: result %s vs %s: negative count +%d =%d -%d", r.A, r.B, r.Wins, r.Draws, r.Losses)
		case r.Wins+r.Draws+r.Losses == 0:
			continue
		}
		a, b := player(r.A), player(r.B)
		wdl[a][0] += r.Wins
		wdl[a][1] += r.Draws
		wdl[a][2] += r.Losses
		wdl[b][0] += r.Losses
		wdl[b][1] += r.Draws
		wdl[b][2] += r.Wins
		n := float64(r.Wins + r.Draws + r.Losses)
		s := float64(r.Wins) + 0.5*float64(r.Draws)
		if a > b {
			a, b, s = b, a, n-s
		}
		p := pairs[[2]int{a, b}]
		if p == nil {
			p = &pair{i: a, j: b, n: PriorDraws, s: 0.5 * PriorDraws}
			pairs[[2]int{a, b}] = p
		}
		p.n += n
		p.s += s
	}
	root, ok := index[anchor]
	if !ok {
		return nil, fmt.Errorf("rating: the anchor %q played no games", anchor)
	}
	list := make([]pair, 0, len(pairs))
	for _, p := range pairs {
		list = append(list, *p)
	}
	// A fixed order makes the sums, and so the fit, reproducible.
	slices.SortFunc(list, func(a, b pair) int { return cmp.Or(cmp.Compare(a.i, b.i), cmp.Compare(a.j, b.j)) })

	connected := reach(len(names), list, root)
	// free[i] is player i's row in the Hessian, or -1 (anchor, disconnected).
	free := make([]int, len(names))
	m := 0
	for i := range names {
		free[i] = -1
		if connected[i] && i != root {
			free[i] = m
			m++
		}
	}
	elo := make([]float64, len(names))
	cov, err := newton(list, free, m, elo)
	if err != nil {
		return nil, err
	}

	table := make(Table, len(names))
	var lost []string
	for i, name := range names {
		w, d, l := wdl[i][0], wdl[i][1], wdl[i][2]
		g := w + d + l
		r := Rating{Name: name, Elo: elo[i], Games: g, Score: (float64(w) + 0.5*float64(d)) / float64(g), Anchor: i == root}
		switch {
		case !connected[i]:
			r.Elo, r.Err95 = math.NaN(), math.NaN()
			lost = append(lost, name)
		case free[i] >= 0:
			r.Err95 = Z95 * math.Sqrt(cov.At(free[i], free[i]))
		}
		table[i] = r
	}
	// cmp.Compare puts NaN below every number, so the unrated come last.
	slices.SortFunc(table, func(a, b Rating) int {
		return cmp.Or(cmp.Compare(b.Elo, a.Elo), strings.Compare(a.Name, b.Name))
	})
	if lost != nil {
		slices.Sort(lost)
		return table, &DisconnectedError{Anchor: anchor, Players: lost}
	}
	return table, nil
}

// reach returns which of n players are linked to root by games.
func reach(n int, pairs []pair, root int) []bool {
	adj := make([][]int, n)
	for _, p := range pairs {
		adj[p.i] = append(adj[p.i], p.j)
		adj[p.j] = append(adj[p.j], p.i)
	}
	seen := make([]bool, n)
	seen[root] = true
	stack := []int{root}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, u := range adj[v] {
			if !seen[u] {
				seen[u] = true
				stack = append(stack, u)
			}
		}
	}
	return seen
}

// logPosterior returns the log-likelihood of the pairs (prior draws
// included) at ratings elo.
func logPosterior(pairs []pair, elo []float64) float64 {
	var ll float64
	for _, p := range pairs {
		x := eloScale * (elo[p.i] - elo[p.j])
		// log σ(x) = −log(1+e^−x), computed stably on both sides.
		ll += -p.s*softplus(-x) - (p.n-p.s)*softplus(x)
	}
	return ll
}

// softplus returns log(1 + e^x) without overflow.
func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// newton maximises the log posterior over the m free players (free[i] is
// player i's index among them, or -1 for a player held where it is),
// updating elo in place, and returns the inverse of the negative Hessian at
// the optimum: the covariance of the free ratings.
func newton(pairs []pair, free []int, m int, elo []float64) (*mat.SymDense, error) {
	if m == 0 {
		return mat.NewSymDense(1, nil), nil
	}
	grad := mat.NewVecDense(m, nil)
	info := mat.NewSymDense(m, nil) // negative Hessian
	step := mat.NewVecDense(m, nil)
	var chol mat.Cholesky
	trial := make([]float64, len(elo))
	// derivatives fills grad and info at the current ratings.
	derivatives := func() {
		grad.Zero()
		info.Zero()
		for _, p := range pairs {
			fi, fj := free[p.i], free[p.j]
			if fi < 0 && fj < 0 {
				continue
			}
			prob := 1 / (1 + math.Exp(-eloScale*(elo[p.i]-elo[p.j])))
			g := eloScale * (p.s - p.n*prob)
			w := eloScale * eloScale * p.n * prob * (1 - prob)
			if fi >= 0 {
				grad.SetVec(fi, grad.AtVec(fi)+g)
				info.SetSym(fi, fi, info.At(fi, fi)+w)
			}
			if fj >= 0 {
				grad.SetVec(fj, grad.AtVec(fj)-g)
				info.SetSym(fj, fj, info.At(fj, fj)+w)
			}
			if fi >= 0 && fj >= 0 {
				info.SetSym(fi, fj, info.At(fi, fj)-w)
			}
		}
	}
	const maxIter = 500
	for iter := 0; ; iter++ {
		if iter == maxIter {
			return nil, errors.New("rating: Newton's method did not converge")
		}
		derivatives()
		if !chol.Factorize(info) {
			return nil, errors.New("rating: information matrix is singular")
		}
		if err := chol.SolveVecTo(step, grad); err != nil {
			return nil, fmt.Errorf("rating: %w", err)
		}
		// Halve the step until the posterior does not decrease.
		old := logPosterior(pairs, elo)
		t := 1.0
		for {
			copy(trial, elo)
			for i, f := range free {
				if f >= 0 {
					trial[i] += t * step.AtVec(f)
				}
			}
			if logPosterior(pairs, trial) >= old-1e-12*math.Abs(old) || t < 1e-9 {
				break
			}
			t /= 2
		}
		copy(elo, trial)
		if t*mat.Norm(step, math.Inf(1)) < 1e-7 {
			break
		}
	}
	derivatives()
	if !chol.Factorize(info) {
		return nil, errors.New("rating: information matrix is singular")
	}
	cov := mat.NewSymDense(m, nil)
	if err := chol.InverseTo(cov); err != nil {
		return nil, fmt.Errorf("rating: %w", err)
	}
	return cov, nil
}

// Markdown returns the table in GitHub markdown: rank, player, Elo, the
// 95 % half-width, games and score.
func (t Table) Markdown() string {
	var b strings.Builder
	b.WriteString("| # | player | Elo | ±95 % | games | score |\n")
	b.WriteString("|---:|---|---:|---:|---:|---:|\n")
	for k, r := range t {
		elo, err := match.FormatElo(r.Elo), fmt.Sprintf("%.0f", r.Err95)
		switch {
		case math.IsNaN(r.Elo):
			elo, err = "—", "not connected"
		case r.Anchor:
			elo, err = "0", "anchor"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %d | %.1f %% |\n", k+1, escape(r.Name), elo, err, r.Games, 100*r.Score)
	}
	return b.String()
}

// escape keeps a player name from breaking a markdown table row.
func escape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
