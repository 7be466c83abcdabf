package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
)

// fitRecords is a committed match record: 100 games of the shipped player
// on dablot, 12 won and 16 lost by South or North.
const fitRecords = "../../docs/experiments/records/dablot-4h-tables-vs-control-100ms.jsonl.zst"

// TestFitGuard fits the guard's evaluation to real games and checks that
// the file it writes loads, suits the board and makes a player.
func TestFitGuard(t *testing.T) {
	out := filepath.Join(t.TempDir(), "guard.json")
	got, err := runCmd(t, "analyse", "fit-guard", "--records", fitRecords, "--out", out, "--every", "8")
	if err != nil {
		t.Fatal(err, got)
	}
	wantOutput(t, got, "100 games (10 held out)", "held-out cross-entropy: learned", "soldier  mean   ", "mobility ", "wrote "+out)
	e, err := mcts.LoadLearnedEval(out)
	if err != nil {
		t.Fatal(err)
	}
	r := configs.MustVariant("dablot")
	if err := e.Check("dablot", r.Board); err != nil {
		t.Fatal(err)
	}
	if e.Fit.Games != 100 || e.Fit.Source != fitRecords || !(e.Fit.Loss > 0 && e.Fit.HandLoss > 0) {
		t.Errorf("fit %+v: want 100 games from %s with both losses", e.Fit, fitRecords)
	}
	if king, soldier := e.Square[game.King][0], e.Square[game.Soldier][0]; king <= soldier {
		t.Errorf("a king on %s is worth %d, a soldier %d: the games teach that a king is worth more", r.Board.Name(0), king, soldier)
	}
	f, err := mcts.ParseFactory("gumbel:eval=material,sims=8,geval="+out, mcts.SpecOptions{Rules: r})
	if err != nil {
		t.Fatalf("a player with the fitted file: %v", err)
	}
	f.Close()
}

// TestFitGuardErrors: bad flags and records are refused with their names.
func TestFitGuardErrors(t *testing.T) {
	dir := t.TempDir()
	r := configs.MustVariant("dablot")
	p := r.Start()
	rec := game.NewRecord(r, &p) // unfinished: no turns, no result
	var buf strings.Builder
	if err := rec.WritePGN(&buf); err != nil {
		t.Fatal(err)
	}
	unfinished := filepath.Join(dir, "unfinished.pgn")
	if err := os.WriteFile(unfinished, []byte(buf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "g.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", out}, "--records"},
		{[]string{"--records", fitRecords}, "--out"},
		{[]string{"--records", fitRecords, "--out", out, "--l2", "1"}, "--l2 1"},
		{[]string{"--records", fitRecords, "--out", out, "--every", "0"}, "--every 0"},
		{[]string{"--records", fitRecords, "--out", out, "--variant", "keyland"}, "keyland"},
		{[]string{"--records", unfinished, "--out", out}, "no quiet positions of finished games"},
		{[]string{"--records", filepath.Join(dir, "none.pgn"), "--out", out}, "none.pgn"},
	} {
		if got, err := runCmd(t, append([]string{"analyse", "fit-guard"}, tc.args...)...); err == nil || !strings.Contains(err.Error()+got, tc.want) {
			t.Errorf("%v: got %v, want an error naming %q", tc.args, err, tc.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused fit wrote %s (%v)", out, err)
	}
}
