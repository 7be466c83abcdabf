package runlog

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func gen(g int) Generation {
	return Generation{
		Generation: g, Time: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Hours: 0.5 * float64(g),
		Games: 100 * g, Samples: int64(4000 * g), GenGames: 100, GenSamples: 4000,
		MeanLength: 41.5, MedianLength: 40, DrawRate: 0.25, FirstPlayerScore: 0.55,
		Ends:       map[string]int{"no_pieces": 60, "two_kings": 40},
		PolicyLoss: 2.5, ValueLoss: 0.7, TrainSteps: 300 * g, LearningRate: 1e-3,
		CandidateWins: 20, CandidateDraws: 5, CandidateLosses: 15, CandidateScore: 0.5625,
		Promoted: g%2 == 0, Best: g, Utilisation: 0.93,
		SelfPlaySeconds: 100, TrainSeconds: 50, EvalSeconds: 20, RatingSeconds: 10,
	}
}

func match(g int, opp string) Match {
	return Match{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Hours: float64(g), Generation: g,
		Player: "gen" + string(rune('0'+g)), Opponent: opp, Wins: 3, Draws: 2, Losses: 1, Settings: "gumbel sims=64"}
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	mpath, rpath := filepath.Join(dir, MetricsFile), filepath.Join(dir, RatingsFile)
	var gens []Generation
	var ms []Match
	for g := range 4 {
		gens = append(gens, gen(g))
		ms = append(ms, match(g, "random"), match(g, "alphabeta:depth=2"))
		if err := Append(mpath, gens[g]); err != nil {
			t.Fatal(err)
		}
		for _, m := range ms[2*g:] {
			if err := Append(rpath, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	gotG, err := ReadGenerations(mpath)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotG, gens) {
		t.Errorf("generations:\ngot  %+v\nwant %+v", gotG, gens)
	}
	gotM, err := ReadMatches(rpath)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotM, ms) {
		t.Errorf("matches:\ngot  %+v\nwant %+v", gotM, ms)
	}
	data, _ := os.ReadFile(mpath)
	for _, key := range []string{`"generation":1`, `"first_player_score":`, `"candidate_losses":`, `"self_play_seconds":`} {
		if !strings.Contains(string(data), key) {
			t.Errorf("metrics.jsonl lacks %s", key)
		}
	}
}

// TestFieldsThatLeft: a line of a run from before selfplay.reanalyse left
// (the reanalysis arm of docs/experiments/2026-12-learning.md, Stage B)
// still reads, its reanalysis fields ignored and the others kept.
func TestFieldsThatLeft(t *testing.T) {
	path := filepath.Join(t.TempDir(), MetricsFile)
	const old = `{"generation":5,"gen_games":40,"gen_full_searches":6400,"reanalysed":1600,"reanalysed_tables":40,"reanalysed_vetoed":210,` +
		`"policy_loss":2.5,"self_play_seconds":300,"reanalyse_seconds":95,"train_seconds":50}`
	if err := os.WriteFile(path, []byte(old+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gs, err := ReadGenerations(path)
	want := Generation{Generation: 5, GenGames: 40, GenFullSearches: 6400, PolicyLoss: 2.5, SelfPlaySeconds: 300, TrainSeconds: 50}
	if err != nil || len(gs) != 1 || !reflect.DeepEqual(gs[0], want) {
		t.Errorf("read %+v, %v; want %+v", gs, err, want)
	}
	if err := TrimAfter(path, 5); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != old+"\n" {
		t.Errorf("TrimAfter changed the old line: %s", data)
	}
}

func TestMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.jsonl")
	g, err := ReadGenerations(path)
	if err != nil || len(g) != 0 {
		t.Errorf("ReadGenerations(missing) = %v, %v; want none, nil", g, err)
	}
	if err := TrimAfter(path, 3); err != nil {
		t.Errorf("TrimAfter(missing): %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("TrimAfter created the missing file")
	}
}

func TestAppendRejectsNaN(t *testing.T) {
	g := gen(1)
	g.PolicyLoss = math.NaN()
	if err := Append(filepath.Join(t.TempDir(), MetricsFile), g); err == nil {
		t.Error("Append of a NaN succeeded")
	}
}

// writeLines writes the Generation records of gs, then raw text.
func writeLines(t *testing.T, path string, gs []int, raw string) {
	t.Helper()
	for _, g := range gs {
		if err := Append(path, gen(g)); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(raw)
	f.Close()
}

func generations(gs []Generation) []int {
	var out []int
	for _, g := range gs {
		out = append(out, g.Generation)
	}
	return out
}

func TestTornLastLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  string // written after generations 0 and 1
		read []int  // generations read
		more []int  // generations read after appending generation 2
	}{
		{"torn", `{"generation":2,"time":"2026-01`, []int{0, 1}, []int{0, 1, 2}},
		{"torn with newline", "{\"generation\":2,\"ti\n", []int{0, 1}, nil},
		{"complete without newline", `{"generation":7}`, []int{0, 1, 7}, []int{0, 1, 7, 2}},
		{"trailing blank lines", "\n\n", []int{0, 1}, []int{0, 1, 2}},
		{"NUL bytes", "\x00\x00\x00", []int{0, 1}, []int{0, 1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), MetricsFile)
			writeLines(t, path, []int{0, 1}, tc.raw)
			gs, err := ReadGenerations(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := generations(gs); !reflect.DeepEqual(got, tc.read) {
				t.Errorf("read %v, want %v", got, tc.read)
			}
			if err := Append(path, gen(2)); err != nil {
				t.Fatal(err)
			}
			gs, err = ReadGenerations(path)
			if tc.more == nil {
				// A torn line that ends in a newline is no longer last:
				// it is corruption, and reading says where.
				if err == nil || !strings.Contains(err.Error(), MetricsFile+":3:") {
					t.Errorf("after append: err %v, want one naming line 3", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := generations(gs); !reflect.DeepEqual(got, tc.more) {
				t.Errorf("after append: read %v, want %v", got, tc.more)
			}
		})
	}
}

func TestBadMiddleLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), RatingsFile)
	if err := Append(path, match(1, "random")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, append(must(os.ReadFile(path)), "\n{\"player\": oops}\n"...), 0o644)
	if err := Append(path, match(2, "random")); err != nil {
		t.Fatal(err)
	}
	_, err := ReadMatches(path)
	if err == nil || !strings.Contains(err.Error(), path+":3:") {
		t.Errorf("err %v, want one naming %s:3", err, path)
	}
	if err := TrimAfter(path, 5); err == nil || !strings.Contains(err.Error(), ":3:") {
		t.Errorf("TrimAfter: err %v, want one naming line 3", err)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func TestTrimAfter(t *testing.T) {
	dir := t.TempDir()
	mpath, rpath := filepath.Join(dir, MetricsFile), filepath.Join(dir, RatingsFile)
	writeLines(t, mpath, []int{0, 1, 2, 3, 4}, `{"generation":5,"ho`)
	for _, m := range []Match{match(1, "random"), match(3, "random"), {Generation: -1, Player: "greedy", Opponent: "random"}, match(2, "gen1")} {
		if err := Append(rpath, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(mpath, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := TrimAfter(mpath, 2); err != nil {
		t.Fatal(err)
	}
	if err := TrimAfter(rpath, 2); err != nil {
		t.Fatal(err)
	}
	gs, err := ReadGenerations(mpath)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := generations(gs), []int{0, 1, 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("metrics after TrimAfter(2): %v, want %v", got, want)
	}
	if !reflect.DeepEqual(gs[2], gen(2)) {
		t.Errorf("record changed by TrimAfter: %+v", gs[2])
	}
	ms, err := ReadMatches(rpath)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Player+"-"+m.Opponent)
	}
	if want := []string{"gen1-random", "greedy-random", "gen2-gen1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ratings after TrimAfter(2): %v, want %v", got, want)
	}
	if st, err := os.Stat(mpath); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode after TrimAfter: %v, %v; want 0600", st.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("directory holds %d files after TrimAfter, want 2 (no temporary left)", len(entries))
	}
	// Appending after a trim continues the file.
	if err := Append(mpath, gen(3)); err != nil {
		t.Fatal(err)
	}
	gs, _ = ReadGenerations(mpath)
	if got, want := generations(gs), []int{0, 1, 2, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("after append: %v, want %v", got, want)
	}
}
