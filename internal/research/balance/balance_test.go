package balance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/mcts/match"
	"github.com/dablot-zero/dablot/mcts/match/rating"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
)

// decisive is frostviken with compulsory capture for every rank (the
// small-board analogue of winther-all-must-capture): even untrained
// networks finish most of its games with a win, in about 50 turns, so the
// scores below are not all draws.
const decisive = "frostviken,ranks.king.must_capture=true,ranks.prince.must_capture=true"

var (
	modelsMu sync.Mutex
	models   = map[string]*model.Model{}
)

// tinyModel returns an untrained network of one block of 8 channels.
func tinyModel(t testing.TB, variant string) *model.Model {
	t.Helper()
	modelsMu.Lock()
	defer modelsMu.Unlock()
	if m, ok := models[variant]; ok {
		return m
	}
	m, err := model.NewNetwork(configs.MustVariant(variant), net.Config{Blocks: 1, Channels: 8, ValueHidden: 8}, 1)
	if err != nil {
		t.Fatal(err)
	}
	models[variant] = m
	return m
}

// smallOptions plays games games at 4 and 8 simulations, no anchor.
func smallOptions(games int, seed uint64) Options {
	o := DefaultOptions()
	o.Games, o.Sims, o.MainSims, o.Seed = games, []int{4, 8}, 4, seed
	o.CheckGames = 0
	o.Workers = 4
	o.Guard = 1 // a guard, but a cheap one: 16 turns take most of a test's time
	return o
}

// studyGames runs a study and returns it with every game, sorted.
func studyGames(t *testing.T, m *model.Model, o Options) (*VariantResult, []*Game) {
	t.Helper()
	var games []*Game
	o.OnGame = func(g *Game) { games = append(games, g) }
	res, err := Study(context.Background(), m, o)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(games, func(a, b *Game) int {
		if a.Anchor != b.Anchor {
			if a.Anchor {
				return 1
			}
			return -1
		}
		if a.Sims != b.Sims {
			return a.Sims - b.Sims
		}
		return a.Index - b.Index
	})
	return res, games
}

// strip zeroes the timings, which differ from run to run.
func strip(res *VariantResult) *VariantResult {
	c := *res
	c.Elapsed = 0
	c.PerSims = slices.Clone(res.PerSims)
	for i := range c.PerSims {
		c.PerSims[i].Elapsed = 0
	}
	return &c
}

func records(games []*Game) []string {
	var out []string
	for _, g := range games {
		out = append(out, strings.Join(g.Record.Turns, " ")+" "+g.Record.Result)
	}
	return out
}

// TestStudyReproducible: the same seed plays the same games, however many
// games run at once and however many evaluators serve them; every record
// replays to its result.
func TestStudyReproducible(t *testing.T) {
	m := tinyModel(t, decisive)
	o := smallOptions(8, 7)
	a, ga := studyGames(t, m, o)
	o.Workers, o.Threads = 1, 2
	b, gb := studyGames(t, m, o)
	if !reflect.DeepEqual(strip(a), strip(b)) {
		t.Errorf("same seed, other scheduling:\n%+v\n%+v", strip(a), strip(b))
	}
	if !slices.Equal(records(ga), records(gb)) {
		t.Error("same seed, other scheduling: the games differ")
	}
	if len(ga) != 16 {
		t.Fatalf("%d games reported, want 16", len(ga))
	}
	r := m.Rules
	for _, g := range ga {
		p, err := g.Record.Replay(r)
		if err != nil {
			t.Fatalf("game %d at %d sims: %v", g.Index, g.Sims, err)
		}
		if p.Status() != g.Status || g.Record.Result != g.Status.Outcome.Result() {
			t.Errorf("game %d at %d sims: replayed to %v, reported %v (%s)", g.Index, g.Sims, p.Status(), g.Status, g.Record.Result)
		}
		if g.Record.Tags["Opening"] != fmt.Sprint(o.OpeningTurns) {
			t.Errorf("game %d: opening tag %q", g.Index, g.Record.Tags["Opening"])
		}
	}
	// Both strengths replay the same openings.
	for i := range 8 {
		x, y := ga[i].Record.Turns, ga[8+i].Record.Turns
		if !slices.Equal(x[:o.OpeningTurns], y[:o.OpeningTurns]) {
			t.Errorf("game %d: openings differ between strengths: %v and %v", i, x[:4], y[:4])
		}
	}
	if a.PerSims[0].Distinct < 6 {
		t.Errorf("only %d distinct games of 8: the openings do not vary the games", a.PerSims[0].Distinct)
	}
}

// TestOpeningsDistinct: openings that repeat are drawn again. Decisive has
// 13 first turns, so 12 one-turn openings drawn independently would almost
// surely repeat; redrawn, every game starts differently. At temperature 0
// the policy gives one opening only, and the study says so.
func TestOpeningsDistinct(t *testing.T) {
	m := tinyModel(t, decisive)
	o := smallOptions(12, 3)
	o.Sims, o.MainSims, o.OpeningTurns = []int{2}, 2, 1
	res, games := studyGames(t, m, o)
	firsts := map[string]bool{}
	for _, g := range games {
		firsts[g.Record.Turns[0]] = true
	}
	if len(firsts) != 12 || res.DistinctOpenings != 12 {
		t.Errorf("%d distinct first turns, DistinctOpenings %d: want 12 and 12", len(firsts), res.DistinctOpenings)
	}

	// A near-zero temperature is a sharp policy: its openings repeat,
	// and only the rising temperature of the redraws varies them.
	// (At 0.005 this network's openings give 4 of 12 when redrawn at the
	// same temperature, 12 when the temperature rises.)
	o.OpeningTemperature = 0.005
	if res, _ = studyGames(t, m, o); res.DistinctOpenings < 10 {
		t.Errorf("temperature 0.005: DistinctOpenings %d, want 10 or more from the redraws", res.DistinctOpenings)
	}

	o.OpeningTemperature = 0
	res, _ = studyGames(t, m, o)
	if res.DistinctOpenings != 1 || res.LongerOpenings != 0 {
		t.Errorf("temperature 0: DistinctOpenings %d, LongerOpenings %d, want 1 and 0", res.DistinctOpenings, res.LongerOpenings)
	}
	if md := Markdown([]*VariantResult{res}); !strings.Contains(md, "only 1 distinct openings of 12") {
		t.Errorf("the notes do not say the openings repeat:\n%s", md)
	}
}

// TestOpeningsLonger: when every draw of a length repeats, an opening
// grows a turn longer. Decisive has 13 first turns, so of 20 one-turn
// openings 7 must take two turns, and the games record each opening's
// length.
func TestOpeningsLonger(t *testing.T) {
	m := tinyModel(t, decisive)
	o := smallOptions(20, 3)
	o.Sims, o.MainSims, o.OpeningTurns = []int{2}, 2, 1
	res, games := studyGames(t, m, o)
	if res.DistinctOpenings != 20 || res.LongerOpenings != 7 || res.LongestOpening != 2 {
		t.Fatalf("DistinctOpenings %d, LongerOpenings %d, LongestOpening %d: want 20, 7, 2",
			res.DistinctOpenings, res.LongerOpenings, res.LongestOpening)
	}
	openings, long := map[string]bool{}, 0
	for _, g := range games {
		n, err := strconv.Atoi(g.Record.Tags["Opening"])
		if err != nil || n < 1 || n > 2 {
			t.Fatalf("game %d: Opening tag %q", g.Index, g.Record.Tags["Opening"])
		}
		if n == 2 {
			long++
		}
		openings[strings.Join(g.Record.Turns[:n], " ")] = true
	}
	if long != 7 || len(openings) != 20 {
		t.Errorf("%d games with two-turn openings, %d distinct openings: want 7 and 20", long, len(openings))
	}
	if md := Markdown([]*VariantResult{res}); !strings.Contains(md, "7 of 20 openings are longer than 1 turns (up to 2)") {
		t.Errorf("the notes do not say that openings grew longer:\n%s", md)
	}
}

// TestSeedsAgree: two runs with different seeds play different games, and
// their 95 % intervals of the first player's score overlap at every
// strength (the check that the numbers are trustworthy).
func TestSeedsAgree(t *testing.T) {
	m := tinyModel(t, decisive)
	a, ga := studyGames(t, m, smallOptions(16, 1))
	b, gb := studyGames(t, m, smallOptions(16, 2))
	if slices.Equal(records(ga), records(gb)) {
		t.Fatal("seeds 1 and 2 played the same games")
	}
	for i := range a.PerSims {
		x, y := a.PerSims[i], b.PerSims[i]
		t.Logf("%d sims: seed 1 %s, seed 2 %s", x.Sims, scoreCI(x.FirstScore, x.CILow, x.CIHigh), scoreCI(y.FirstScore, y.CILow, y.CIHigh))
		if x.CIHigh < y.CILow || y.CIHigh < x.CILow {
			t.Errorf("%d sims: the intervals do not overlap: %s and %s", x.Sims,
				scoreCI(x.FirstScore, x.CILow, x.CIHigh), scoreCI(y.FirstScore, y.CILow, y.CIHigh))
		}
		if x.DrawRate == 1 {
			t.Errorf("%d sims: every game drawn; the test variant should give decisive games", x.Sims)
		}
	}
}

// TestFirstPlayerNorth: where North moves first, the first player's score
// is North's.
func TestFirstPlayerNorth(t *testing.T) {
	variant := decisive + ",first=north"
	m := tinyModel(t, variant)
	if m.Rules.First != game.North {
		t.Fatalf("variant %s: first player %v", variant, m.Rules.First)
	}
	o := smallOptions(8, 3)
	o.Sims = []int{4}
	res, games := studyGames(t, m, o)
	var north match.WDL
	for _, g := range games {
		switch g.Record.Result {
		case "0-1":
			north.Add(1)
		case "1-0":
			north.Add(0)
		default:
			north.Add(0.5)
		}
		if g.Score != g.Status.Outcome.ScoreFor(game.North) {
			t.Errorf("game %d: score %v for a %s", g.Index, g.Score, g.Record.Result)
		}
	}
	if got := res.PerSims[0].First; got != north {
		t.Errorf("first player's W/D/L %v, North's %v", got, north)
	}
	if north.W == north.L {
		t.Logf("North and South won alike (%v): the check does not tell the sides apart this time", north)
	}
	if res.FirstName != "north" || !strings.Contains(Markdown([]*VariantResult{res}), "| "+m.Rules.Name+" | north |") {
		t.Errorf("first player %q not reported as north:\n%s", res.FirstName, Markdown([]*VariantResult{res}))
	}

	// The same counting on made-up games.
	st := func(o game.Outcome) *Game {
		return &Game{Status: game.Status{Outcome: o, Reason: game.KingCaptured}, Record: &game.Record{Turns: []string{fmt.Sprint(o)}}}
	}
	gs := []*Game{st(game.NorthWins), st(game.NorthWins), st(game.SouthWins), st(game.Draw)}
	if w := summarize(4, game.North, gs).First; w != (match.WDL{W: 2, D: 1, L: 1}) {
		t.Errorf("North first: %v, want 2/1/1", w)
	}
	if w := summarize(4, game.South, gs).First; w != (match.WDL{W: 1, D: 1, L: 2}) {
		t.Errorf("South first: %v, want 1/1/2", w)
	}
}

// TestUnreliable: an untrained network without the guard loses to
// alpha-beta, and the report says its balance is not yet reliable; with
// the guard (the default) it scores more.
func TestUnreliable(t *testing.T) {
	m := tinyModel(t, "frostviken")
	o := smallOptions(2, 1)
	o.Sims = []int{4}
	o.CheckAnchor, o.CheckGames = "alphabeta:depth=1", 4
	o.Guard = mcts.DefaultGuardDepth
	guarded, _ := studyGames(t, m, o)
	o.Guard = 0
	res, games := studyGames(t, m, o)
	if want := fmt.Sprintf(" guard=%d,gmargin=%d,gshare=%g,gnodes=%d,", mcts.DefaultGuardDepth, mcts.DefaultGuardMargin, mcts.DefaultGuardShare, mcts.DefaultGuardNodes); !strings.Contains(guarded.Search, want) || strings.Contains(res.Search, "guard") {
		t.Errorf("searches described as %q with the guard, %q without", guarded.Search, res.Search)
	}
	if guarded.AnchorWDL.Score() <= res.AnchorWDL.Score() {
		t.Errorf("against alphabeta:depth=1 the guarded model scores %v, no more than the unguarded %v", guarded.AnchorWDL, res.AnchorWDL)
	}
	var anchorGames int
	for _, g := range games {
		if g.Anchor {
			anchorGames++
			if strings.Contains(g.Record.South, "alphabeta") == strings.Contains(g.Record.North, "alphabeta") {
				t.Errorf("anchor game %d: %s against %s", g.Index, g.Record.South, g.Record.North)
			}
		}
	}
	if anchorGames != 4 || res.AnchorWDL.Games() != 4 || res.AnchorFirstWDL.Games() != 2 {
		t.Fatalf("%d anchor games reported, %v counted (%v as first player)", anchorGames, res.AnchorWDL, res.AnchorFirstWDL)
	}
	if res.Reliable || !strings.Contains(res.Reason, "model weaker than alphabeta:depth=1 (score") {
		t.Fatalf("untrained model against alphabeta:depth=1: %v, reliable %v, reason %q", res.AnchorWDL, res.Reliable, res.Reason)
	}
	md := Markdown([]*VariantResult{res})
	if !strings.Contains(md, "**balance not yet reliable**: model weaker than alphabeta:depth=1") {
		t.Errorf("markdown lacks the flag:\n%s", md)
	}
}

// TestJudge: the reliability verdict from the anchor games, else from the
// stored ratings, else "not checked".
func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		name   string
		res    VariantResult
		games  int
		ok     bool
		reason string
	}{
		{"stronger", VariantResult{AnchorScore: 0.5}, 10, true, ""},
		{"weaker", VariantResult{AnchorScore: 0.45}, 10, false, "model weaker than alphabeta:depth=4 (score 45.0 %)"},
		{"rated stronger", VariantResult{Rating: &StoredRating{Elo: 300, AnchorElo: 250}}, 0, true, ""},
		{"rated weaker", VariantResult{Rating: &StoredRating{Elo: 200, AnchorElo: 250}}, 0, false, "stored rating"},
		{"unchecked", VariantResult{}, 0, false, "not checked"},
	} {
		judge(&tc.res, tc.games)
		if tc.res.Reliable != tc.ok || !strings.Contains(tc.res.Reason, tc.reason) || (tc.ok && tc.res.Reason != "") {
			t.Errorf("%s: reliable %v, reason %q", tc.name, tc.res.Reliable, tc.res.Reason)
		}
	}
}

// TestStoredRating: the rating table of a model file is read.
func TestStoredRating(t *testing.T) {
	m := tinyModel(t, "frostviken")
	table := rating.Table{
		{Name: "gen0", Elo: 120, Err95: 40, Games: 20},
		{Name: DefaultAnchor, Elo: 310, Err95: 50, Games: 20},
		{Name: "random", Anchor: true, Games: 20},
	}
	data, _ := json.Marshal(table)
	path := filepath.Join(t.TempDir(), "m.dbm")
	if err := m.Save(path, map[string]string{model.MetaRatings: string(data)}); err != nil {
		t.Fatal(err)
	}
	loaded, err := model.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	got := storedRating(loaded, DefaultAnchor)
	want := &StoredRating{Player: "gen0", Elo: 120, Err95: 40, Anchor: DefaultAnchor, AnchorElo: 310}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("stored rating %+v, want %+v", got, want)
	}
	if storedRating(loaded, "alphabeta:depth=6") != nil || storedRating(m, DefaultAnchor) != nil {
		t.Error("a rating without the anchor or without a table")
	}
}

// TestMarkdownColumns: every column and section is there, with the
// values of the result.
func TestMarkdownColumns(t *testing.T) {
	res := fakeResult("daablot", true)
	weak := fakeResult("daablot-16", false)
	md := Markdown([]*VariantResult{res, weak})
	for _, c := range MainColumns {
		if !strings.Contains(md, "| "+c+" |") {
			t.Errorf("markdown lacks column %q", c)
		}
	}
	for _, w := range []string{
		"## First-player score by strength", "| 50 sims | 200 sims | 800 sims |",
		"## How the games end", "| king-captured | no-capture |",
		"| daablot | south | 200 | 100 | 100 | 50/20/30 | 60.0 % [51.5, 68.5] | 20 % |",
		"**daablot-16: balance not yet reliable**: model weaker than alphabeta:depth=4 (score 30.0 %)",
		"trinomial", "Wilson",
	} {
		if !strings.Contains(md, w) {
			t.Errorf("markdown lacks %q:\n%s", w, md)
		}
	}
	if strings.Contains(md, "| daablot |") && strings.Count(md, Unreliable) < 2 {
		t.Errorf("the unreliable variant should be flagged in its row and in the notes:\n%s", md)
	}
	if got := Markdown(nil); !strings.Contains(got, "No variants") {
		t.Errorf("empty study: %q", got)
	}
}

// fakeResult is a made-up study result.
func fakeResult(variant string, reliable bool) *VariantResult {
	v := &VariantResult{Variant: variant, FirstName: "south", MainSims: 200, Search: "puct", OpeningTurns: 4,
		OpeningTemperature: 1, Seed: 1, StartValue: 0.1, StartWDL: [3]float64{0.4, 0.3, 0.3}, Anchor: DefaultAnchor}
	for i, n := range []int{50, 200, 800} {
		w := match.WDL{W: 50 - 5*i, D: 20, L: 30 + 5*i}
		lo, hi := w.ScoreCI(0.95)
		v.PerSims = append(v.PerSims, StrengthResult{Sims: n, Games: 100, First: w, FirstScore: w.Score(), CILow: lo, CIHigh: hi,
			DrawRate: 0.2, MeanLen: 60, MedianLen: 55, Ends: map[string]int{"king-captured": 80, "no-capture": 20}, Distinct: 100})
	}
	v.PerSims[1].First = match.WDL{W: 50, D: 20, L: 30}
	v.PerSims[1].FirstScore = 0.6
	v.PerSims[1].CILow, v.PerSims[1].CIHigh = v.PerSims[1].First.ScoreCI(0.95)
	v.AnchorWDL = match.WDL{W: 6, D: 2, L: 2}
	if !reliable {
		v.AnchorWDL = match.WDL{W: 2, D: 2, L: 6}
	}
	v.AnchorScore = v.AnchorWDL.Score()
	v.AnchorCILow, v.AnchorCIHigh = v.AnchorWDL.ScoreCI(0.95)
	judge(v, 10)
	return v
}

// TestWriteCharts: every chart is a PNG that decodes, with results and
// without.
func TestWriteCharts(t *testing.T) {
	var many []*VariantResult
	for i := range 6 {
		many = append(many, fakeResult(fmt.Sprintf("variant-%d", i), i%2 == 0))
	}
	one := fakeResult("frostviken", true)
	one.PerSims = one.PerSims[1:2]
	for name, results := range map[string][]*VariantResult{"many": many, "one": {one}, "none": nil} {
		dir := t.TempDir()
		paths, err := WriteCharts(dir, results)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(paths) != 4 {
			t.Errorf("%s: %d charts written", name, len(paths))
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil {
				t.Errorf("%s: %s: %v", name, p, err)
				continue
			}
			if b := img.Bounds(); b.Dx() < 500 || b.Dy() < 300 {
				t.Errorf("%s: %s is %v", name, p, b)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Options)
		want string
	}{
		{func(o *Options) { o.Games = 0 }, "games"},
		{func(o *Options) { o.Sims, o.MainSims = nil, 0 }, "no strength"},
		{func(o *Options) { o.Sims = []int{0, 5} }, "0 simulations"},
		{func(o *Options) { o.OpeningTurns = -1 }, "opening turns"},
		{func(o *Options) { o.OpeningTemperature = math.NaN() }, "temperature"},
		{func(o *Options) { o.CheckAnchor = "" }, "anchor"},
		{func(o *Options) { c := mcts.DefaultConfig(); c.CPuct = 0; o.Search = &c }, "CPuct"},
	} {
		o := DefaultOptions()
		tc.edit(&o)
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", o, err, tc.want)
		}
	}
	o := DefaultOptions()
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if sims, main := o.ladder(); !slices.Equal(sims, []int{50, 200, 800}) || main != 200 || o.TotalGames() != 320 {
		t.Errorf("default ladder %v, main %d, %d games", sims, main, o.TotalGames())
	}
	o.Sims, o.MainSims = []int{800, 50, 50}, 100
	if sims, main := o.ladder(); !slices.Equal(sims, []int{50, 100, 800}) || main != 100 {
		t.Errorf("ladder %v, main %d", sims, main)
	}
	o.MainSims = 0
	if _, main := o.ladder(); main != 800 {
		t.Errorf("main of 50, 800: %d, want the middle entry 800", main)
	}
	bad := DefaultOptions()
	bad.Games = 0
	if _, err := Study(context.Background(), tinyModel(t, "frostviken"), bad); err == nil {
		t.Error("Study with 0 games")
	}
}

// TestSample: temperature 0 takes the top prior; temperature 1 draws in
// proportion; a low temperature stays finite.
func TestSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	priors := []float32{0.1, 0.6, 0.3}
	if i := sample(priors, 0, rng); i != 1 {
		t.Errorf("temperature 0: %d", i)
	}
	counts := make([]int, 3)
	for range 10000 {
		counts[sample(priors, 1, rng)]++
	}
	for i, p := range priors {
		if got := float64(counts[i]) / 10000; math.Abs(got-float64(p)) > 0.02 {
			t.Errorf("temperature 1: decision %d drawn %.3f of the time, prior %.1f", i, got, p)
		}
	}
	for range 100 {
		if i := sample([]float32{1e-30, 1, 0}, 0.01, rng); i != 1 {
			t.Fatalf("temperature 0.01: %d", i)
		}
	}
}

// TestCancel: a cancelled study stops with the context's error.
func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Study(ctx, tinyModel(t, "frostviken"), smallOptions(4, 1)); err == nil {
		t.Error("a cancelled study returned no error")
	}
}

// TestGumbelReproducible: with the Gumbel search (noisy, seeded per
// player) the games still depend on the seed alone.
func TestGumbelReproducible(t *testing.T) {
	m := tinyModel(t, decisive)
	o := smallOptions(4, 5)
	o.Sims = []int{4}
	g := mcts.DefaultConfig()
	g.Gumbel = true
	o.Search = &g
	a, ga := studyGames(t, m, o)
	o.Workers = 1
	b, gb := studyGames(t, m, o)
	if !reflect.DeepEqual(strip(a), strip(b)) || !slices.Equal(records(ga), records(gb)) {
		t.Errorf("Gumbel search, same seed, other scheduling: the games differ")
	}
	if !strings.HasPrefix(a.Search, "gumbel") {
		t.Errorf("search described as %q", a.Search)
	}
}

// TestMatches: a study matches its own model and options only.
func TestMatches(t *testing.T) {
	r := configs.MustVariant("daablot")
	m, err := model.NewNetwork(r, net.Config{Blocks: 1, Channels: 8, ValueHidden: 8}, 1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.dbm")
	if err := m.Save(path, nil); err != nil {
		t.Fatal(err)
	}
	if m, err = model.LoadModel(path); err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Games, opts.Sims, opts.OpeningTurns, opts.CheckGames, opts.CheckAnchor, opts.Threads = 2, []int{4}, 2, 2, "alphabeta:depth=1", 1
	opts.Guard = 0 // fast; the guard's setting is among those compared below
	res, err := Study(t.Context(), m, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Matches(m, opts) {
		t.Fatalf("a study does not match its own model and options: %+v", res)
	}
	for name, edit := range map[string]func(*Options){
		"games":  func(o *Options) { o.Games = 3 },
		"sims":   func(o *Options) { o.Sims = []int{8} },
		"seed":   func(o *Options) { o.Seed = 9 },
		"guard":  func(o *Options) { o.Guard = 3 },
		"open":   func(o *Options) { o.OpeningTurns = 3 },
		"anchor": func(o *Options) { o.CheckGames = 4 },
	} {
		o := opts
		edit(&o)
		if res.Matches(m, o) {
			t.Errorf("other %s: matches", name)
		}
	}
	// A study with the guard matches only a guard of the same settings,
	// every one: an older build described its guard by depth and nodes.
	guarded := opts
	guarded.Guard = mcts.DefaultGuardDepth
	old := *res
	old.Search = describeSearch(mcts.DefaultConfig(), guarded.Guard)
	if !old.Matches(m, guarded) {
		t.Fatalf("the guard's own description %q does not match", old.Search)
	}
	old.Search = describeSearch(mcts.DefaultConfig(), 0) + " guard=16,gnodes=50000"
	if old.Matches(m, guarded) {
		t.Errorf("a guard described by depth and nodes alone (%q) matches", old.Search)
	}
	// Openings redrawn another way (before session 54: at the same
	// temperature, and no opening_redraw) are not kept.
	old = *res
	old.OpeningRedraw = ""
	if old.Matches(m, opts) {
		t.Error("a study whose openings were redrawn another way matches")
	}
	// Before openings grew longer (sessions 54 and 55) a study drew the
	// same openings as now if all were distinct, and only then.
	old.OpeningRedraw = openingRedrawFixedLength
	if old.DistinctOpenings != opts.openings() || !old.Matches(m, opts) {
		t.Errorf("a study with %d distinct openings of %d, redrawn at a fixed length, does not match", old.DistinctOpenings, opts.openings())
	}
	old.DistinctOpenings--
	if old.Matches(m, opts) {
		t.Error("a study whose fixed-length redraws ran out matches")
	}
}

// savedModel returns a tiny untrained network of variant as a saved
// model file has it, with its checksum.
func savedModel(t *testing.T, variant string) *model.Model {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.dbm")
	if err := tinyModel(t, variant).Save(path, nil); err != nil {
		t.Fatal(err)
	}
	m, err := model.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func cloneRecord(rec *game.Record) *game.Record {
	c := *rec
	c.Turns = slices.Clone(rec.Turns)
	c.Tags = maps.Clone(rec.Tags)
	return &c
}

// TestStudyResumesGames: a study given the records of an earlier run of
// itself counts them instead of playing them again, and comes to the same
// result; records of another study are passed over; a record of this
// study that is not its game is an error naming it.
func TestStudyResumesGames(t *testing.T) {
	m := savedModel(t, decisive)
	o := smallOptions(6, 3)
	o.Guard, o.CheckGames, o.CheckAnchor = 0, 4, "alphabeta:depth=1"
	full, games := studyGames(t, m, o)
	fp := Fingerprint(m, o)
	if fp == "" || full.ResumedGames != 0 {
		t.Fatalf("fingerprint %q, %d games resumed", fp, full.ResumedGames)
	}
	var half []*game.Record
	for k, g := range games {
		wantStage := SelfPlayStage(g.Sims)
		if g.Anchor {
			wantStage = StageAnchor
		}
		if g.Record.Tags[TagStudy] != fp || g.Record.Tags[TagStage] != wantStage || g.Record.Tags[TagGame] != strconv.Itoa(g.Index+1) || g.Resumed {
			t.Fatalf("game %d at %d sims: tags %v, resumed %v", g.Index, g.Sims, g.Record.Tags, g.Resumed)
		}
		if k%2 == 0 {
			half = append(half, cloneRecord(g.Record))
		}
	}
	other := cloneRecord(half[0])
	other.Tags[TagStudy] = "another study"
	other.Result = "*" // would be an error if it counted

	o.Played = append(slices.Clone(half), other)
	again, games2 := studyGames(t, m, o)
	if again.ResumedGames != len(half) {
		t.Errorf("%d games resumed, want %d", again.ResumedGames, len(half))
	}
	resumed := 0
	for _, g := range games2 {
		if g.Resumed {
			resumed++
		}
	}
	if len(games2) != len(games) || resumed != len(half) {
		t.Errorf("OnGame saw %d games, %d resumed; want %d and %d", len(games2), resumed, len(games), len(half))
	}
	if !slices.Equal(records(games2), records(games)) {
		t.Error("the resumed study's games differ")
	}
	a, b := strip(full), strip(again)
	b.ResumedGames = 0
	if !reflect.DeepEqual(a, b) {
		t.Errorf("resumed study:\n%+v\nwant\n%+v", b, a)
	}

	// A record of this study that is not its game is an error.
	anchorRec := func() *game.Record {
		for _, g := range games {
			if g.Anchor {
				return cloneRecord(g.Record)
			}
		}
		t.Fatal("no anchor game")
		return nil
	}
	for _, tc := range []struct {
		name, want string
		edit       func(rec *game.Record) []*game.Record
	}{
		{"result", "ends", func(rec *game.Record) []*game.Record {
			rec.Result = map[string]string{"1-0": "0-1", "0-1": "1-0", "1/2-1/2": "1-0"}[rec.Result]
			return []*game.Record{rec}
		}},
		{"unfinished", "unfinished", func(rec *game.Record) []*game.Record {
			rec.Turns = rec.Turns[:len(rec.Turns)-1]
			rec.Result = "*"
			return []*game.Record{rec}
		}},
		{"opening", "opening", func(rec *game.Record) []*game.Record {
			rec.Tags[tagOpening] = "1"
			return []*game.Record{rec}
		}},
		{"players", "South", func(rec *game.Record) []*game.Record {
			rec.South, rec.North = rec.North, rec.South
			return []*game.Record{rec}
		}},
		{"seconds", "Seconds", func(rec *game.Record) []*game.Record {
			rec.Tags[tagSeconds] = "soon"
			return []*game.Record{rec}
		}},
		{"twice", "second record", func(rec *game.Record) []*game.Record {
			return []*game.Record{rec, cloneRecord(rec)}
		}},
		{"number", "want a game's number", func(rec *game.Record) []*game.Record {
			rec.Tags[TagGame] = "first"
			return []*game.Record{rec}
		}},
		{"other game", "opening", func(rec *game.Record) []*game.Record {
			rec.Tags[TagGame] = "2"
			return []*game.Record{rec}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := cloneRecord(half[0])
			if tc.name == "players" {
				rec = anchorRec()
			}
			o := o
			o.Played = tc.edit(rec)
			_, err := Study(t.Context(), m, o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestFingerprint: the fingerprint changes with every setting a game
// depends on and with the model, and a model without a checksum has none.
func TestFingerprint(t *testing.T) {
	m := savedModel(t, "daablot")
	o := DefaultOptions()
	fp := Fingerprint(m, o)
	if fp == "" || Fingerprint(m, o) != fp {
		t.Fatalf("fingerprint %q, not stable", fp)
	}
	for name, edit := range map[string]func(*Options){
		"games":  func(o *Options) { o.Games++ },
		"sims":   func(o *Options) { o.Sims = []int{8} },
		"main":   func(o *Options) { o.MainSims = 50 },
		"seed":   func(o *Options) { o.Seed++ },
		"guard":  func(o *Options) { o.Guard = 3 },
		"open":   func(o *Options) { o.OpeningTurns++ },
		"temp":   func(o *Options) { o.OpeningTemperature = 0.5 },
		"anchor": func(o *Options) { o.CheckAnchor = "alphabeta:depth=2" },
		"checks": func(o *Options) { o.CheckGames = 4 },
		"search": func(o *Options) { c := mcts.DefaultConfig(); c.Gumbel = true; o.Search = &c },
	} {
		e := o
		edit(&e)
		if Fingerprint(m, e) == fp {
			t.Errorf("other %s: the same fingerprint", name)
		}
	}
	if Fingerprint(savedModel(t, "daablot-king"), o) == fp {
		t.Error("another model: the same fingerprint")
	}
	if got := Fingerprint(tinyModel(t, "daablot"), o); got != "" {
		t.Errorf("a model without a checksum: fingerprint %q", got)
	}
}
