package rating

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// truth is the ratings of a synthetic tournament.
var truth = map[string]float64{
	"random": 0, "greedy": 180, "alphabeta:depth=2": 450,
	"gen0": -40, "gen1": 120, "gen2": 330, "gen3": 520, "gen4": 700,
}

// schedule is who plays whom: each generation meets the anchors and its
// predecessor, and the anchors meet each other.
var schedule = [][2]string{
	{"greedy", "random"}, {"alphabeta:depth=2", "random"}, {"alphabeta:depth=2", "greedy"},
	{"gen0", "random"}, {"gen0", "greedy"},
	{"gen1", "random"}, {"gen1", "greedy"}, {"gen1", "gen0"},
	{"gen2", "greedy"}, {"gen2", "alphabeta:depth=2"}, {"gen2", "gen1"},
	{"gen3", "greedy"}, {"gen3", "alphabeta:depth=2"}, {"gen3", "gen2"},
	{"gen4", "alphabeta:depth=2"}, {"gen4", "gen3"},
}

// drawRate returns the share of draws when the expected score is e: up to
// 20 %, fewer in lopsided pairs so that the score stays reachable.
func drawRate(e float64) float64 { return min(0.2, 0.4*min(e, 1-e)) }

// expected returns the model's score of a against b.
func expected(a, b string) float64 { return 1 / (1 + math.Pow(10, -(truth[a]-truth[b])/400)) }

// simulate plays n games per scheduled pair, with draws by drawRate and the
// win rate chosen so that the expected score is the model's.
func simulate(rng *rand.Rand, n int) []Result {
	var out []Result
	for _, p := range schedule {
		e := expected(p[0], p[1])
		r := Result{A: p[0], B: p[1]}
		d := drawRate(e)
		pWin := (e - d/2) / (1 - d)
		for range n {
			switch u := rng.Float64(); {
			case u < d:
				r.Draws++
			case rng.Float64() < pWin:
				r.Wins++
			default:
				r.Losses++
			}
		}
		out = append(out, r)
	}
	return out
}

// exact returns n games per scheduled pair with the model's expected
// counts, rounded.
func exact(n int) []Result {
	var out []Result
	for _, p := range schedule {
		e := expected(p[0], p[1])
		d := int(math.Round(drawRate(e) * float64(n)))
		w := int(math.Round(e*float64(n) - float64(d)/2))
		out = append(out, Result{A: p[0], B: p[1], Wins: w, Draws: d, Losses: n - w - d})
	}
	return out
}

func fit(t *testing.T, results []Result, anchor string) Table {
	t.Helper()
	table, err := Fit(results, anchor)
	if err != nil {
		t.Fatal(err)
	}
	return table
}

// TestRecoversTruth: a tournament simulated from known ratings gives them
// back within the error bars (checked at 3 standard errors, so that a
// correct fit fails with odds of about 1 in 400 per player).
func TestRecoversTruth(t *testing.T) {
	table := fit(t, simulate(rand.New(rand.NewPCG(1, 2)), 400), "random")
	if len(table) != len(truth) {
		t.Fatalf("%d players, want %d", len(table), len(truth))
	}
	for _, r := range table {
		limit := r.Err95 * 3 / Z95
		if d := r.Elo - truth[r.Name]; math.Abs(d) > limit || math.IsNaN(d) {
			t.Errorf("%s: %.1f ± %.1f, true %.0f", r.Name, r.Elo, r.Err95, truth[r.Name])
		}
		if r.Games != 400*countGames(r.Name) {
			t.Errorf("%s: %d games, want %d", r.Name, r.Games, 400*countGames(r.Name))
		}
	}
	for i := 1; i < len(table); i++ {
		if table[i].Elo > table[i-1].Elo {
			t.Errorf("table not sorted by Elo: %v", table)
		}
	}
	t.Log("\n" + table.Markdown())
}

func countGames(name string) int {
	var k int
	for _, p := range schedule {
		if p[0] == name || p[1] == name {
			k++
		}
	}
	return k
}

// TestExactCounts: with the model's expected counts the fit lands on the
// truth up to rounding and the prior's slight pull.
func TestExactCounts(t *testing.T) {
	for _, r := range fit(t, exact(2000), "random") {
		if d := r.Elo - truth[r.Name]; math.Abs(d) > 3 {
			t.Errorf("%s: %.2f, true %.0f", r.Name, r.Elo, truth[r.Name])
		}
	}
}

func TestErrorBarsShrink(t *testing.T) {
	small, big := fit(t, exact(100), "random"), fit(t, exact(400), "random")
	for _, r := range small {
		if r.Anchor {
			continue
		}
		b, _ := big.Get(r.Name)
		// Four times the games: half the error, nearly.
		if ratio := b.Err95 / r.Err95; !(ratio > 0.4 && ratio < 0.6) {
			t.Errorf("%s: ±%.1f with 100 games a pair, ±%.1f with 400 (ratio %.2f, want about 0.5)", r.Name, r.Err95, b.Err95, ratio)
		}
	}
}

func TestAnchor(t *testing.T) {
	results := exact(200)
	byRandom := fit(t, results, "random")
	byGreedy := fit(t, results, "greedy")
	g, _ := byRandom.Get("greedy")
	for _, r := range byGreedy {
		if r.Anchor != (r.Name == "greedy") {
			t.Errorf("%s: Anchor %v", r.Name, r.Anchor)
		}
		if r.Anchor && (r.Elo != 0 || r.Err95 != 0) {
			t.Errorf("anchor %s: %v ± %v, want 0 ± 0", r.Name, r.Elo, r.Err95)
		}
		// The prior is between pairs, so only the origin moves.
		o, _ := byRandom.Get(r.Name)
		if d := r.Elo - (o.Elo - g.Elo); math.Abs(d) > 1e-6 {
			t.Errorf("%s: %.6f anchored at greedy, %.6f anchored at random minus greedy's", r.Name, r.Elo, o.Elo-g.Elo)
		}
	}
	if _, err := Fit(results, "nobody"); err == nil || !strings.Contains(err.Error(), `"nobody" played no games`) {
		t.Errorf("unknown anchor: err %v", err)
	}
}

func TestSymmetry(t *testing.T) {
	results := simulate(rand.New(rand.NewPCG(3, 4)), 50)
	base := fit(t, results, "random")
	var swapped, mirrored []Result
	for i := len(results) - 1; i >= 0; i-- {
		r := results[i]
		swapped = append(swapped, Result{A: r.B, B: r.A, Wins: r.Losses, Draws: r.Draws, Losses: r.Wins})
		mirrored = append(mirrored, Result{A: r.A, B: r.B, Wins: r.Losses, Draws: r.Draws, Losses: r.Wins})
	}
	for _, r := range fit(t, swapped, "random") {
		o, _ := base.Get(r.Name)
		if math.Abs(r.Elo-o.Elo) > 1e-6 || math.Abs(r.Err95-o.Err95) > 1e-6 || r.Games != o.Games {
			t.Errorf("%s: %v with sides swapped, %v without", r.Name, r, o)
		}
	}
	for _, r := range fit(t, mirrored, "random") {
		o, _ := base.Get(r.Name)
		if math.Abs(r.Elo+o.Elo) > 1e-6 || math.Abs(r.Err95-o.Err95) > 1e-6 || math.Abs(r.Score-(1-o.Score)) > 1e-12 {
			t.Errorf("%s: %v with results reversed, %v without", r.Name, r, o)
		}
	}
	// Two players with the same results against the anchor are equal.
	table := fit(t, []Result{{A: "a", B: "random", Wins: 7, Draws: 2, Losses: 1}, {A: "random", B: "b", Wins: 1, Draws: 2, Losses: 7}}, "random")
	a, _ := table.Get("a")
	b, _ := table.Get("b")
	if math.Abs(a.Elo-b.Elo) > 1e-9 || math.Abs(a.Err95-b.Err95) > 1e-9 || a.Elo <= 0 {
		t.Errorf("a %v, b %v: want equal and positive", a, b)
	}
}

func TestUnbeaten(t *testing.T) {
	table := fit(t, []Result{
		{A: "gen9", B: "random", Wins: 50},
		{A: "greedy", B: "random", Wins: 30, Draws: 10, Losses: 10},
		{A: "zero", B: "greedy", Losses: 20},
	}, "random")
	for _, name := range []string{"gen9", "zero"} {
		r, _ := table.Get(name)
		if math.IsInf(r.Elo, 0) || math.IsNaN(r.Elo) || math.IsInf(r.Err95, 0) || math.IsNaN(r.Err95) {
			t.Errorf("%s: %v ± %v, want finite", name, r.Elo, r.Err95)
		}
	}
	// 50 wins and a virtual draw: a score of 50.5/51.
	r, _ := table.Get("gen9")
	if want := -400 * math.Log10(51/50.5-1); math.Abs(r.Elo-want) > 1e-6 {
		t.Errorf("gen9: %v, want %v", r.Elo, want)
	}
	if z, _ := table.Get("zero"); table[len(table)-1] != z || z.Elo > -300 {
		t.Errorf("zero: %v, want last and far below", z)
	}
}

func TestDisconnected(t *testing.T) {
	table, err := Fit([]Result{
		{A: "greedy", B: "random", Wins: 3, Losses: 1},
		{A: "b", B: "a", Wins: 2, Draws: 1},
		{A: "c", B: "random"}, // no games: not a link
	}, "random")
	var de *DisconnectedError
	if !errors.As(err, &de) || strings.Join(de.Players, ",") != "a,b" || !strings.Contains(err.Error(), "a, b") {
		t.Fatalf("err %v, want a DisconnectedError naming a and b", err)
	}
	if len(table) != 4 || table[0].Name != "greedy" || table[1].Name != "random" {
		t.Fatalf("table %v", table)
	}
	for _, r := range table[2:] {
		if !math.IsNaN(r.Elo) || !math.IsNaN(r.Err95) {
			t.Errorf("%s: %v ± %v, want NaN", r.Name, r.Elo, r.Err95)
		}
	}
	if md := table.Markdown(); !strings.Contains(md, "| a | — | not connected | 3 | 16.7 % |") {
		t.Errorf("markdown:\n%s", md)
	}
}

func TestBadResults(t *testing.T) {
	for _, tc := range []struct {
		r    Result
		want string
	}{
		{Result{A: "a", B: "a", Wins: 1}, "against itself"},
		{Result{A: "", B: "random", Wins: 1}, "empty player name"},
		{Result{A: "a", B: "random", Wins: -1}, "negative"},
	} {
		if _, err := Fit([]Result{tc.r}, "random"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err %v, want %q", tc.r, err, tc.want)
		}
	}
	if _, err := Fit(nil, "random"); err == nil {
		t.Error("Fit(nil) succeeded")
	}
}
