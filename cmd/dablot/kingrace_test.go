package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// TestKingRace: a game in which A's king takes B's, and a draw with B
// alone holding a king, listed and summed by player.
func TestKingRace(t *testing.T) {
	r := configs.MustVariant("dablot")
	var buf strings.Builder
	for _, g := range []struct{ fen, south, north, turn string }{
		{"6/5/2s3/5/6/5/2k3/5/2K3/5/6/5/S5 s", "A", "B", "e5xe9xe13"},
		{"s5/5/6/5/6/5/6/5/6/5/6/5/S4K s - 99", "B", "A", "a1-a3"},
	} {
		p, err := game.ParseFEN(r, g.fen)
		if err != nil {
			t.Fatal(err)
		}
		rec := game.NewRecord(r, &p)
		rec.South, rec.North, rec.Turns = g.south, g.north, []string{g.turn}
		if err := p.ApplyTurn(g.turn); err != nil {
			t.Fatal(err)
		}
		rec.Finish(p.Status())
		if err := writeJSONLine(&buf, rec); err != nil {
			t.Fatal(err)
		}
	}
	games := filepath.Join(t.TempDir(), "games.jsonl")
	if err := os.WriteFile(games, []byte(buf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCmd(t, "analyse", "kingrace", "--records", games, "--list")
	if err != nil {
		t.Fatal(err, out)
	}
	for _, want := range []string{
		"kingrace: dablot, 2 games from " + games,
		"game 1: north's king (B) taken at turn 1, 2 pieces left, the taker's lead beside the kings +1; 1-0 (no-pieces) in 1 turns",
		"game 2: no king taken; 1/2-1/2 (no-capture) in 1 turns",
		"A       1/1/0  0, 0/0/0", "1, 1/0/0, turn 1",
		"B       0/1/1  1, 0/0/1, turn 1",
		"lead beside the kings when the player took the first king: W/D/L\nA  +1: 1/0/0\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if out, err := runCmd(t, "analyse", "kingrace"); err == nil || !strings.Contains(out, "--records is required") {
		t.Errorf("no records: %v\n%s", err, out)
	}
}
