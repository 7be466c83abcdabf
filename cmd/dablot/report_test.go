package main

import (
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dablot-zero/dablot/internal/research/ladder"
	"github.com/dablot-zero/dablot/train/runlog"
)

// reportRun writes a small synthetic training run into a new directory.
func reportRun(t *testing.T, gens int) string {
	t.Helper()
	dir := t.TempDir()
	mpath, rpath := filepath.Join(dir, runlog.MetricsFile), filepath.Join(dir, runlog.RatingsFile)
	if err := os.WriteFile(mpath, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	add := func(path string, v any) {
		if err := runlog.Append(path, v); err != nil {
			t.Fatal(err)
		}
	}
	add(rpath, runlog.Match{Generation: -1, Player: "greedy", Opponent: "random", Wins: 30, Draws: 4, Losses: 6})
	add(rpath, runlog.Match{Generation: -1, Player: "alphabeta:depth=2", Opponent: "greedy", Wins: 24, Draws: 8, Losses: 8})
	for g := range gens {
		h, name := float64(g+1), fmt.Sprint("gen", g)
		add(mpath, runlog.Generation{Generation: g, Hours: h, Games: 100 * (g + 1), Samples: int64(5000 * (g + 1)),
			GenGames: 100, MeanLength: 50 - float64(g), MedianLength: 48 - float64(g), DrawRate: 0.2, FirstPlayerScore: 0.55,
			PolicyLoss: 3 - 0.3*float64(g), ValueLoss: 0.8 - 0.05*float64(g), Best: g})
		add(rpath, runlog.Match{Hours: h, Generation: g, Player: name, Opponent: "random", Wins: 10 + 5*g, Draws: 5, Losses: 25 - 5*g})
		add(rpath, runlog.Match{Hours: h, Generation: g, Player: name, Opponent: "greedy", Wins: 5 + 5*g, Draws: 5, Losses: 30 - 5*g})
	}
	return dir
}

func TestReportCommand(t *testing.T) {
	for _, tc := range []struct {
		name string
		gens int
		args func(dir, out string) []string
	}{
		{"default out", 4, func(dir, _ string) []string { return []string{"report", dir} }},
		{"flags after", 1, func(dir, out string) []string { return []string{"report", dir, "--out", out} }},
		{"flags before", 0, func(dir, out string) []string { return []string{"report", "--out", out, dir} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := reportRun(t, tc.gens)
			out := filepath.Join(t.TempDir(), "plots")
			args := tc.args(dir, out)
			if !strings.Contains(strings.Join(args, " "), out) {
				out = filepath.Join(dir, "report")
			}
			code, stdout, stderr := run(args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
			for _, name := range []string{"rating.png", "loss.png", "length.png", "draws.png", "summary.md"} {
				path := filepath.Join(out, name)
				if !strings.Contains(stdout, path+"\n") {
					t.Errorf("output does not list %s:\n%s", path, stdout)
				}
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				if strings.HasSuffix(name, ".png") {
					if _, err := png.Decode(f); err != nil {
						t.Errorf("%s: %v", path, err)
					}
				}
				f.Close()
			}
			summary, _ := os.ReadFile(filepath.Join(out, "summary.md"))
			for _, anchor := range []string{"random", "greedy", "alphabeta:depth=2"} {
				if !strings.Contains(string(summary), "| "+anchor+" |") {
					t.Errorf("summary lacks anchor %s:\n%s", anchor, summary)
				}
			}
		})
	}
}

func TestReportErrors(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"report"}, 2, "want the run directory"},
		{[]string{"report", "a", "b"}, 2, `unexpected argument "b"`},
		{[]string{"report", empty, "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"report", empty}, 1, "has no metrics.jsonl"},
		{[]string{"report", filepath.Join(empty, "nosuch")}, 1, "has no metrics.jsonl"},
	} {
		code, _, stderr := run(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "goroutine") {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
	if code, stdout, _ := run("report", "-h"); code != 0 || !strings.Contains(stdout, "usage: dablot report DIR") {
		t.Errorf("report -h: exit %d, output %q", code, stdout)
	}
}

// TestReportCurveErrors: the curve's report names what is wrong with its
// input.
func TestReportCurveErrors(t *testing.T) {
	dir := t.TempDir()
	ladderRows := filepath.Join(dir, "ladder.tsv")
	row := ladder.Row{Time: time.Now(), Model: "models/dablot.dbm", Variant: "dablot", Player: "gumbel:model=models/dablot.dbm,ms=100",
		Opponent: "alphabeta:ms=100", MS: 100}
	row.WDL.W = 1
	if err := ladder.AppendRow(ladderRows, row); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--curve", filepath.Join(dir, "nosuch.tsv")}, 1, "nosuch.tsv"},
		{[]string{"--curve", ladderRows}, 1, "row 1: model models/dablot.dbm is not a snapshot of dablot"},
		{[]string{"--curve", ladderRows, dir}, 2, "no run directory"},
		{[]string{dir, "--ms", "100"}, 2, "give --curve FILE"},
	} {
		code, _, stderr := run(append([]string{"report"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}
