package report

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts/match/rating"
	"github.com/dablot-zero/dablot/train/rundir"
	"github.com/dablot-zero/dablot/train/runlog"
)

// makeRun writes a synthetic run of gens generations into dir; each
// generation's model plays the anchors and its predecessor. Extra matches
// follow.
func makeRun(t *testing.T, dir string, gens int, extra ...runlog.Match) {
	t.Helper()
	mpath, rpath := filepath.Join(dir, runlog.MetricsFile), filepath.Join(dir, runlog.RatingsFile)
	if err := os.WriteFile(mpath, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 3, 1, 20, 0, 0, 0, time.UTC)
	add := func(path string, v any) {
		if err := runlog.Append(path, v); err != nil {
			t.Fatal(err)
		}
	}
	if gens > 0 {
		add(rpath, runlog.Match{Generation: -1, Player: "greedy", Opponent: "random", Wins: 30, Draws: 5, Losses: 5})
		add(rpath, runlog.Match{Generation: -1, Player: "alphabeta:depth=2", Opponent: "greedy", Wins: 25, Draws: 10, Losses: 5})
	}
	for g := range gens {
		h := 0.75 * float64(g+1)
		add(mpath, runlog.Generation{
			Generation: g, Time: start.Add(time.Duration(h * float64(time.Hour))), Hours: h,
			Games: 200 * (g + 1), Samples: int64(8000 * (g + 1)), GenGames: 200, GenSamples: 8000,
			GenFullSearches: 7950, MeanSurprise: 0.41,
			MeanLength: 60 - 3*float64(g), MedianLength: 58 - 3*float64(g), DrawRate: 0.3 - 0.02*float64(g),
			FirstPlayerScore: 0.52, Ends: map[string]int{"no_pieces": 150, "two_kings": 50},
			PolicyLoss: 3 - 0.2*float64(g), ValueLoss: 0.9 - 0.05*float64(g), TrainSteps: 500 * g, LearningRate: 2e-3,
			CandidateWins: 20, CandidateDraws: 10, CandidateLosses: 10, CandidateScore: 0.625, Promoted: true, Best: g,
			Utilisation: 0.9, SelfPlaySeconds: 2000, TrainSeconds: 500, EvalSeconds: 200, RatingSeconds: 100,
		})
		name := fmt.Sprint("gen", g)
		w := min(10+5*g, 35)
		add(rpath, runlog.Match{Hours: h, Generation: g, Player: name, Opponent: "random", Wins: w, Draws: 5, Losses: 35 - w, Settings: "gumbel sims=16"})
		add(rpath, runlog.Match{Hours: h, Generation: g, Player: name, Opponent: "greedy", Wins: w - 5, Draws: 10, Losses: 35 - w})
		if g > 0 {
			add(rpath, runlog.Match{Hours: h, Generation: g, Player: name, Opponent: fmt.Sprint("gen", g-1), Wins: 20, Draws: 10, Losses: 10})
		}
	}
	for _, m := range extra {
		add(rpath, m)
	}
}

// checkOutput checks that Write wrote every file, valid PNGs and a summary
// holding want.
func checkOutput(t *testing.T, paths []string, out string, want ...string) {
	t.Helper()
	names := []string{RatingPlot, LossPlot, LengthPlot, DrawsPlot, SummaryFile}
	if len(paths) != len(names) {
		t.Fatalf("wrote %v, want %d files", paths, len(names))
	}
	for i, name := range names {
		if paths[i] != filepath.Join(out, name) {
			t.Errorf("path %d: %s, want %s", i, paths[i], filepath.Join(out, name))
		}
		if name == SummaryFile {
			continue
		}
		f, err := os.Open(paths[i])
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if b := img.Bounds(); b.Dx() < 300 || b.Dy() < 200 {
			t.Errorf("%s: %v pixels", name, b)
		}
	}
	data, err := os.ReadFile(filepath.Join(out, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(string(data), w) {
			t.Errorf("summary lacks %q:\n%s", w, data)
		}
	}
}

func TestWrite(t *testing.T) {
	for _, tc := range []struct {
		name  string
		gens  int
		extra []runlog.Match
		want  []string
	}{
		{"run", 5, nil, []string{
			"`random` is fixed at 0", "Anchors: `alphabeta:depth=2`, `greedy`, `random`.",
			"| gen4 |", "- training time: 3.75 hours", "- self-play games: 1000", "- samples: 40000",
			"## Last generation (4)", "no_pieces 150, two_kings 50", "+20 =10 -10 (62.5 %), promoted",
			"(rating.png)", "(draws.png)",
			"| full searches (samples without surprise weighting) | 7950 |", "| mean policy surprise | 0.410 nats |",
		}},
		{"one generation", 1, nil, []string{"generations: 1 (0 to 0)", "| gen0 |"}},
		{"no generations", 0, nil, []string{"No generations recorded yet.", "No rating matches"}},
		{"anchors only", 0, []runlog.Match{{Generation: -1, Player: "greedy", Opponent: "random", Wins: 3, Losses: 1}}, []string{"| greedy |", "| random | 0 | anchor |"}},
		{"disconnected", 2, []runlog.Match{{Generation: 9, Player: "gen9", Opponent: "gen8", Wins: 3}}, []string{"Unrated (no chain of games to `random`): gen8, gen9."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			makeRun(t, dir, tc.gens, tc.extra...)
			paths, err := Write(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkOutput(t, paths, filepath.Join(dir, "report"), tc.want...)
		})
	}
}

func TestWriteOptions(t *testing.T) {
	dir := t.TempDir()
	makeRun(t, dir, 3)
	out := filepath.Join(t.TempDir(), "elsewhere", "report")
	paths, err := Write(dir, Options{Out: out, Anchor: "greedy"})
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, paths, out, "`greedy` is fixed at 0", "| greedy | 0 | anchor |")
	if _, err := Write(dir, Options{Anchor: "nobody"}); err == nil || !strings.Contains(err.Error(), `"nobody" played no rating games`) {
		t.Errorf("unknown anchor: err %v", err)
	}
}

func TestWriteErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(dir, Options{}); err == nil || !strings.Contains(err.Error(), "has no metrics.jsonl") {
		t.Errorf("empty directory: err %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "report")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("report directory made for a directory that is not a run")
	}
	os.WriteFile(filepath.Join(dir, runlog.MetricsFile), []byte("{\n{}\n"), 0o644)
	if _, err := Write(dir, Options{}); err == nil || !strings.Contains(err.Error(), "metrics.jsonl:1:") {
		t.Errorf("corrupt metrics: err %v", err)
	}
}

func TestDefaultAnchor(t *testing.T) {
	for _, tc := range []struct {
		games map[string]int
		want  string
	}{
		{map[string]int{"gen1": 50, "random": 10, "greedy": 40}, "random"},
		{map[string]int{"gen1": 50, "greedy": 10, "alphabeta:depth=2": 40}, "alphabeta:depth=2"},
		{map[string]int{"gen1": 50, "gen2": 60}, "gen2"},
		{map[string]int{"b": 5, "a": 5}, "a"},
		{nil, rating.DefaultAnchor},
	} {
		if got := defaultAnchor(tc.games); got != tc.want {
			t.Errorf("defaultAnchor(%v) = %q, want %q", tc.games, got, tc.want)
		}
	}
}

func TestGenerationOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		gen  int
		ok   bool
	}{
		{"gen0", 0, true}, {"gen17", 17, true}, {"gen", 0, false}, {"gen-1", 0, false},
		{"gen+1", 0, false}, {"genx", 0, false}, {"random", 0, false}, {"xgen1", 0, false},
	} {
		if g, ok := GenerationOf(tc.name); g != tc.gen || ok != tc.ok {
			t.Errorf("GenerationOf(%q) = %d, %v; want %d, %v", tc.name, g, ok, tc.gen, tc.ok)
		}
	}
}

// TestWriteSelfPlayFactors checks the summary's section on self-play
// games: the last generations' games from the setup, counted.
func TestWriteSelfPlayFactors(t *testing.T) {
	dir := t.TempDir()
	makeRun(t, dir, 2)
	r := configs.MustVariant("keyland")
	if err := os.WriteFile(filepath.Join(dir, rundir.VariantFile), r.YAML(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, rundir.GamesDir), 0o755); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	// randomGame plays 40 random turns from start and records them as a draw.
	randomGame := func(start *game.Position) *game.Record {
		p := *start
		rec := game.NewRecord(r, start)
		for range 40 {
			turns := p.Turns()
			if p.Status().Over() || len(turns) == 0 {
				break
			}
			t := turns[rng.IntN(len(turns))]
			rec.Turns = append(rec.Turns, t.Format(p.Board()))
			if err := p.ApplyTurn(rec.Turns[len(rec.Turns)-1]); err != nil {
				panic(err)
			}
		}
		rec.Result = "1/2-1/2"
		return rec
	}
	// Generation g has g+1 games from the setup, one from an endgame and one
	// against a fixed opponent, which the section leaves out; only the last
	// 10 generations count.
	start := r.Start()
	endgame, err := game.ParseFEN(r, "s5/5/6/5/6/5/Kk4/5/6/5/6/5/SS4 s")
	if err != nil {
		t.Fatal(err)
	}
	for g := 1; g <= 12; g++ {
		var pgn bytes.Buffer
		for i := range g + 2 {
			rec := randomGame(&start)
			rec.South, rec.North = rundir.SelfPlayName, rundir.SelfPlayName
			switch i {
			case 0:
				rec = randomGame(&endgame)
			case 1:
				rec.North = "alphabeta:depth=2"
			}
			if err := rec.WritePGN(&pgn); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, rundir.GamesDir, fmt.Sprintf("gen-%06d.pgn", g)), pgn.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	paths, err := Write(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// generations 3 to 12: 3+4+…+12 = 75 games from the setup
	checkOutput(t, paths, filepath.Join(dir, "report"), "## What decided the self-play games (generations 3 to 12)",
		"75 finished games from the variant's setup", "| a king was taken: the side that lost its king first |", "| no king was taken: South |")

	// A broken game file is an error that names it.
	bad := filepath.Join(dir, rundir.GamesDir, "gen-000013.pgn")
	if err := os.WriteFile(bad, []byte("[Variant \"keyland\"]\n[Result \"1-0\"]\n\n1. a5-a9 1-0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir, Options{}); err == nil || !strings.Contains(err.Error(), "gen-000013.pgn") {
		t.Errorf("a broken game file: error %v, want one naming it", err)
	}
}
