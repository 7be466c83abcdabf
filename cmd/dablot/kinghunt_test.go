package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

func TestKingHunt(t *testing.T) {
	r := configs.MustVariant("keyland")
	p, err := game.ParseFEN(r, "s5/5/6/5/6/5/2kK2/5/6/5/6/5/S5 s")
	if err != nil {
		t.Fatal(err)
	}
	rec := game.NewRecord(r, &p)
	rec.South, rec.North, rec.Turns = "hunter", "prey", []string{"g7xc7", "a13-a11"}
	var buf strings.Builder
	if err := rec.WritePGN(&buf); err != nil {
		t.Fatal(err)
	}
	games := filepath.Join(t.TempDir(), "games.pgn")
	if err := os.WriteFile(games, []byte(buf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCmd(t, "analyse", "kinghunt", "--records", games, "--every", "1", "--depth", "2", "--list", "--threads", "1")
	if err != nil {
		t.Fatal(err, out)
	}
	wantOutput(t, out, "king = 50 soldiers", "game 1 before turn 0, hunter to move: g7xc7", "takes the king by force", "hunter          1          1 ")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{}, "--records is required"},
		{[]string{"--records", games, "--king", "3"}, "--king 3"},
		{[]string{"--records", games, "--every", "0"}, "--every 0"},
		{[]string{"--records", games, "--ms", "0"}, "want a time or a depth"},
		{[]string{"--records", games, "--ms", "1000000000000", "--from", "5000", "--to", "5001"}, "--ms 1000000000000: want 0 to 3600000"},
		{[]string{"--records", games, "--depth", "1000"}, "--depth 1000: mcts: alpha-beta depth 1000: want 1 to 64"},
		{[]string{"--records", games, "--from", "5000", "--to", "5001"}, "no positions between turns 5000 and 5001"},
		{[]string{"--records", filepath.Join(t.TempDir(), "none.pgn")}, "none.pgn"},
	} {
		if out, err := runCmd(t, append([]string{"analyse", "kinghunt"}, tc.args...)...); err == nil || !strings.Contains(err.Error()+out, tc.want) {
			t.Errorf("%v: got %v, want an error naming %q", tc.args, err, tc.want)
		}
	}
}
