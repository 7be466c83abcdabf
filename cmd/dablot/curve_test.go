package main

import (
	"image/png"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/internal/research/ladder"
	"github.com/dablot-zero/dablot/mcts"
)

// copyModel copies the model file from to the path to.
func copyModel(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLadderCurve plays a tiny curve (2 ms a decision, 2 games a match) of
// a run directory with two snapshots: the first plays alphabeta and
// classical, the second the first too, in order of CPU hours; each match
// has its records file and its row. Run again with --resume it plays
// nothing and appends nothing; the report plots the rows.
func TestLadderCurve(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	snap := func(h string) string { return filepath.Join(run, "snapshots", "frostviken-"+h+"h.dbm") }
	for _, h := range []string{"2", "1"} {
		copyModel(t, testModel(t, "frostviken"), snap(h))
	}
	copyModel(t, testModel(t, "frostviken"), filepath.Join(run, "snapshots", "best.dbm")) // not a snapshot
	results, records := filepath.Join(dir, "curve.tsv"), filepath.Join(dir, "records")
	args := []string{"ladder", "--curve", run, "--ms", "2", "--games", "2", "--threads", "2", "--results", results, "--out", records}
	out, err := runCmd(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	wantOutput(t, out, "curve: frostviken, 2 snapshots in "+filepath.Join(run, "snapshots")+" (1h, 2h), 2 ms a decision, from configs/books/frostviken.txt",
		"plan: 5 matches × 2 games = 10 games, 2 at once: about 5 s if a game lasts 520 turns",
		"plot them with dablot report --curve "+results)
	r := configs.MustVariant("frostviken")
	player := func(h string) string { return mustPlayer(t, mcts.ShippedKind()+":model="+snap(h)+",ms=2", r) }
	classical, err := mcts.ParseFactory("classical:ms=2", mcts.SpecOptions{Rules: r})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ hours, opponent, file string }{
		{"1", "alphabeta:ms=2", "frostviken-1h-vs-alphabeta.jsonl"},
		{"1", classical.Name, "frostviken-1h-vs-classical.jsonl"},
		{"2", player("1"), "frostviken-2h-vs-frostviken-1h.jsonl"},
		{"2", "alphabeta:ms=2", "frostviken-2h-vs-alphabeta.jsonl"},
		{"2", classical.Name, "frostviken-2h-vs-classical.jsonl"},
	}
	headers := regexp.MustCompile(`(?m)^ladder: frostviken, A = (\S+), B = (\S+), 2 games`).FindAllStringSubmatch(out, -1)
	rows, err := ladder.Read(results)
	if err != nil || len(rows) != len(want) || len(headers) != len(want) {
		t.Fatalf("%d rows (%v) and %d matches, want %d:\n%s", len(rows), err, len(headers), len(want), out)
	}
	var files []string
	for i, w := range want {
		row := rows[i]
		if headers[i][1] != player(w.hours) || headers[i][2] != w.opponent {
			t.Errorf("match %d: %s against %s, want %s against %s", i+1, headers[i][1], headers[i][2], player(w.hours), w.opponent)
		}
		if row.Model != snap(w.hours) || row.Player != player(w.hours) || row.Opponent != w.opponent ||
			row.MS != 2 || row.WDL.Games() != 2 || row.Variant != "frostviken" || row.ModelSHA256 == "" {
			t.Errorf("row %d: %+v, want the %sh snapshot against %s", i+1, row, w.hours, w.opponent)
		}
		files = append(files, w.file)
	}
	entries, _ := os.ReadDir(records)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if slices.Sort(files); !slices.Equal(got, files) {
		t.Errorf("records %v, want %v", got, files)
	}
	sizes := func() map[string]int64 {
		m := map[string]int64{}
		for _, f := range files {
			st, err := os.Stat(filepath.Join(records, f))
			if err != nil {
				t.Fatal(err)
			}
			m[f] = st.Size()
		}
		return m
	}
	before := sizes()

	// Again with --resume: every game counted from the records, none played,
	// no row appended.
	out, err = runCmd(t, append(args, "--resume")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if n := strings.Count(out, "resuming: 2 of 2 games already played"); n != 5 {
		t.Errorf("%d matches resumed, want 5:\n%s", n, out)
	}
	if n := strings.Count(out, "holds the match's row already"); n != 5 || strings.Contains(out, "game 1/") {
		t.Errorf("%d rows kept, want 5, and no game played:\n%s", n, out)
	}
	if rows, err := ladder.Read(results); err != nil || len(rows) != 5 {
		t.Errorf("after the resume: %d rows, %v", len(rows), err)
	}
	if after := sizes(); !maps.Equal(before, after) {
		t.Errorf("records changed by the resume: %v, then %v", before, after)
	}

	// The plot of those rows, picked by the curve's directory.
	plot := filepath.Join(dir, "curve.png")
	out, err = runCmd(t, "report", "--curve", results, "--snapshots", run, "--out", plot)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	wantOutput(t, out, "curve: frostviken at 2 ms, the snapshots of "+filepath.Join(run, "snapshots"), "Elo over 1h", "\n1h ", "\n2h ", "1h: ", plot+"\n")
	f, err := os.Open(plot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("%s: %v", plot, err)
	}
}

// TestLadderCurveErrors: a curve's bad input is an error that names it,
// found before any game is played.
func TestLadderCurveErrors(t *testing.T) {
	dir := t.TempDir()
	frost, key := testModel(t, "frostviken"), testModel(t, "keyland")
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	os.WriteFile(filepath.Join(empty, "best.dbm"), nil, 0o644)
	mixed := filepath.Join(dir, "mixed")
	copyModel(t, frost, filepath.Join(mixed, "frostviken-1h.dbm"))
	copyModel(t, key, filepath.Join(mixed, "keyland-1h.dbm"))
	wrong := filepath.Join(dir, "wrong")
	copyModel(t, frost, filepath.Join(wrong, "frostviken-1h.dbm"))
	copyModel(t, key, filepath.Join(wrong, "frostviken-2h.dbm"))
	good := filepath.Join(dir, "good")
	copyModel(t, frost, filepath.Join(good, "frostviken-1h.dbm"))
	foreign := filepath.Join(dir, "notes.tsv")
	os.WriteFile(foreign, []byte("name\tvalue\n"), 0o644)
	results := filepath.Join(dir, "curve.tsv")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--curve", empty}, 1, "--curve " + empty + ": no snapshots in " + empty + " (files VARIANT-Hh.dbm"},
		{[]string{"--curve", filepath.Join(dir, "nosuch")}, 1, "--curve " + filepath.Join(dir, "nosuch") + ": open"},
		{[]string{"--curve", good, "--games", "3"}, 2, "--games 3: want an even number"},
		{[]string{"--curve", good, frost}, 2, "--curve measures the snapshots in " + good + ": no MODEL"},
		{[]string{"--curve", good, "--vs", frost}, 2, "no --vs"},
		{[]string{"--curve", good, "--resume"}, 2, "give --out"},
		{[]string{"--curve", good, "--sprt", "50,0"}, 2, "elo1 must be greater than elo0"},
		{[]string{"--curve", good, "--player", "uct"}, 2, `--player "uct": want gumbel or mcts`},
		{[]string{"--curve", mixed}, 2, "snapshots of 2 variants (frostviken, keyland): pick one with --variant"},
		{[]string{"--curve", mixed, "--variant", "winther"}, 2, "no snapshots of winther, only of frostviken, keyland"},
		{[]string{"--curve", wrong}, 1, "frostviken-2h.dbm: the model plays keyland, not frostviken"},
		{[]string{"--curve", good, "--results", foreign}, 2, "not the ladder's header"},
	} {
		args := append([]string{"ladder"}, tc.args...)
		if !slices.Contains(tc.args, "--results") {
			args = append(args, "--results", results)
		}
		code, stdout, stderr := run(args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Contains(stdout, "game 1/") || strings.Contains(stdout, "plan:") {
			t.Errorf("%v: exit %d, stderr %q, want %d and %q\n%s", tc.args, code, stderr, tc.code, tc.want, stdout)
		}
	}
	if _, err := os.Stat(results); err == nil {
		t.Error("a failed curve wrote the results file")
	}
}
