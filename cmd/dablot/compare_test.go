package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompare pairs two arenas against the same opponent from the same
// book and seed: alpha-beta at depth 1 and random play against greedy.
func TestCompare(t *testing.T) {
	dir := t.TempDir()
	// match plays player against greedy and returns the records' file and
	// the player's W/D/L as the arena counted them.
	match := func(player, file string) (string, [3]int) {
		path := filepath.Join(dir, file)
		out, err := runCmd(t, "arena", "--variant", "frostviken", "--a", player, "--b", "greedy",
			"--games", "6", "--threads", "2", "--seed", "5", "--book", "../../configs/books/frostviken.txt", "--out", path)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var w [3]int
		i := strings.Index(out, "A W/D/L ")
		if i < 0 {
			t.Fatalf("no W/D/L:\n%s", out)
		}
		if _, err := fmt.Sscanf(out[i:], "A W/D/L %d/%d/%d", &w[0], &w[1], &w[2]); err != nil {
			t.Fatal(err)
		}
		return path, w
	}
	ab, abWDL := match("alphabeta:depth=1", "ab.jsonl")
	rnd, rndWDL := match("random", "random.jsonl")
	out, err := runCmd(t, "analyse", "compare", ab, rnd)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	wantOutput(t, out,
		"compare: 6 games paired (same openings, same colours) against greedy\n",
		"A  alphabeta:depth=1  "+ab, "B  random             "+rnd,
		fmt.Sprintf("+%d =%d -%d  score", abWDL[0], abWDL[1], abWDL[2]),
		fmt.Sprintf("+%d =%d -%d  score", rndWDL[0], rndWDL[1], rndWDL[2]),
		"points per 100 games (95 %): A better in ",
	)
	// The same match twice: both players are in every game.
	if out, err := runCmd(t, "analyse", "compare", ab, ab); err == nil || !strings.Contains(out, "name the common opponent") {
		t.Errorf("a match with itself: %v\n%s", err, out)
	}
	out, err = runCmd(t, "analyse", "compare", ab, ab, "--anchor", "greedy")
	if err != nil || !strings.Contains(out, "A − B +0.0 ± 0.0 points") || !strings.Contains(out, "the same in 6, worse in 0 of 6 games") {
		t.Errorf("a match with itself, anchor named: %v\n%s", err, out)
	}
	if out, err := runCmd(t, "analyse", "compare", ab); err == nil || !strings.Contains(out, "want two record files") {
		t.Errorf("one file: %v\n%s", err, out)
	}
}

// TestCompareKeptRecords: the figures of docs/experiments/2026-11-strength.md
// §24 come again from its compressed records: gkeep=1 against the default,
// −0.5 ± 5.3 points over the same 100 games.
func TestCompareKeptRecords(t *testing.T) {
	dir := "../../docs/experiments/records/"
	out, err := runCmd(t, "analyse", "compare", dir+"dablot-gkeep-100ms.jsonl.zst", dir+"dablot-gmargin50-100ms.jsonl.zst")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	wantOutput(t, out, "compare: 100 games paired", "+73 =27 -0  score 86.5%", "+74 =26 -0  score 87.0%",
		"A − B -0.5 ± 5.3 points per 100 games (95 %): A better in 14, the same in 71, worse in 15 of 100 games")
}
