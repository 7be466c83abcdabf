package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestBlunders judges two players on positions from an arena's records
// (written as JSON lines): the capture-searching alpha-beta player must
// blunder less often than the random one, and bad input is refused.
func TestBlunders(t *testing.T) {
	dir := t.TempDir()
	games := filepath.Join(dir, "games.jsonl")
	if out, err := runCmd(t, "arena", "--variant", "keyland", "--a", "greedy", "--b", "random",
		"--games", "2", "--threads", "1", "--out", games); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err := runCmd(t, "analyse", "blunders", "--records", games, "--player", "alphabeta:depth=1", "--player", "random",
		"--from", "2", "--to", "40", "--every", "2", "--threads", "2")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	row := regexp.MustCompile(`(?m)^(\S+)\s+(\d+)/(\d+) = `)
	rows := row.FindAllStringSubmatch(out, -1)
	if len(rows) != 2 || rows[0][1] != "alphabeta:depth=1" || rows[1][1] != "random" {
		t.Fatalf("want a row per player:\n%s", out)
	}
	count := func(r []string) (int, int) {
		b, _ := strconv.Atoi(r[2])
		n, _ := strconv.Atoi(r[3])
		return b, n
	}
	ab, n := count(rows[0])
	rnd, n2 := count(rows[1])
	if n < 10 || n != n2 {
		t.Fatalf("positions: %d and %d\n%s", n, n2, out)
	}
	if ab >= rnd || rnd == 0 {
		t.Errorf("alpha-beta blundered %d times, random %d, in %d positions\n%s", ab, rnd, n, out)
	}

	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"variant":"keyland","turns":["a1-a3"]}`+"\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--player", "random"}, "--records is required"},
		{[]string{"--records", games}, "--player is required"},
		{[]string{"--records", games, "--player", "random", "--every", "0"}, "--every 0"},
		{[]string{"--records", games, "--player", "bogus"}, "--player bogus"},
		{[]string{"--records", games, "--player", "random", "--from", "5000", "--to", "5001"}, "no positions between turns 5000 and 5001"},
		{[]string{"--records", filepath.Join(dir, "none"), "--player", "random"}, "no such file"},
		{[]string{"--records", bad, "--player", "random", "--from", "0"}, "turn 1"},
	} {
		out, err := runCmd(t, append([]string{"analyse", "blunders"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error()+out, tc.want) {
			t.Errorf("%v: error %v, want one saying %q", tc.args, err, tc.want)
		}
	}
}
