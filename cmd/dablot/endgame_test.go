package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
)

func TestEndgame(t *testing.T) {
	// Game 5 of the 1 s ladder: the model's king and prince against a
	// soldier, a forced win it drew.
	const fen = "6/5/4s1/5/6/5/6/5/1K4/5/3P2/5/6 n - 0 263"
	out, err := runCmd(t, "analyse", "endgame", "--material", "KP-S", "--fen", fen)
	if err != nil {
		t.Fatal(err, out)
	}
	wantOutput(t, out,
		"endgame: dablot, 3 endings, no-capture limit 100",
		"K-S     10224       6.2/93.8/0.0 %",
		"KP-S    715680      100.0/0.0/0.0 %                   0.0/0.0/100.0 %                   41",
		"position: north to move loses, settled in 30 turns (no-capture counter 0); the tables play ",
	)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--variant", "keyland", "--pieces", "2"}, "passes"},
		{[]string{"--pieces", "4"}, "--pieces 4"},
		{[]string{"--material", "KPSS-S"}, "5 pieces"},
		{[]string{"--material", "KQ-S"}, "is not K, P or S"},
		{[]string{"--material", "K-S", "--fen", "startpos"}, "not a position of the endings solved"},
	} {
		out, err := runCmd(t, append([]string{"analyse", "endgame"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one naming %q\n%s", tc.args, err, tc.want, out)
		}
	}
}

// TestEndgameRecords: analyse endgame --records judges a game's first
// ending by the tables against how it was played: here a game that
// begins with king and prince against a soldier (a forced win for the
// king's side), played on by random players.
func TestEndgameRecords(t *testing.T) {
	r := configs.MustVariant("dablot")
	// play writes a game of random players from fen to a file and returns
	// its path, record and final position.
	play := func(fen string) (string, *game.Record, game.Position) {
		p, err := game.ParseFEN(r, fen)
		if err != nil {
			t.Fatal(err)
		}
		rec := game.NewRecord(r, &p)
		rec.South, rec.North = "randomS", "randomN"
		players := [2]mcts.Player{mcts.NewRandomPlayer(1), mcts.NewRandomPlayer(2)}
		for !p.Status().Over() {
			q := p
			ds, err := mcts.PlayTurn(context.Background(), players[p.SideToMove()], &p)
			if err != nil {
				t.Fatal(err)
			}
			turn, _, complete := q.DecisionsToTurn(ds)
			if !complete {
				t.Fatalf("an unfinished turn %v in %s", ds, q.FEN())
			}
			rec.Turns = append(rec.Turns, turn.Format(r.Board))
		}
		rec.Finish(p.Status())
		var buf bytes.Buffer
		if err := rec.WritePGN(&buf); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "games.pgn")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path, rec, p
	}
	path, rec, p := play("6/5/4s1/5/6/5/6/5/1K4/5/3P2/5/6 n - 0 263")
	out, err := runCmd(t, "analyse", "endgame", "--records", path, "--list")
	if err != nil {
		t.Fatal(err, out)
	}
	won := p.Status().Outcome.ScoreFor(game.South) == 1
	wantSouth := fmt.Sprintf("randomS  %s", map[bool]string{true: "1/0/0", false: "0/1/0"}[won])
	missed := map[bool]string{true: "0", false: "1"}[won]
	wantOutput(t, out,
		"endgame: dablot, 1 games from "+path+"; 1 reached an ending of 3 pieces or fewer (3 endings solved",
		"game 1: KP-S after turn 0: north to move loss; played: "+rec.Result,
		"player   W/D/L  in the endings: played  the tables  wins not played out",
		wantSouth,
		"1/0/0       "+missed,
		"randomN  ",
	)
	if !strings.Contains(out, "100.0 %\n") {
		t.Errorf("South's score with the tables is not 100 %%:\n%s", out)
	}
	// The same ending ten plies before the length limit: the tables' win
	// could be drawn by it, so the game counts as played.
	late, _, _ := play("6/5/4s1/5/6/5/6/5/1K4/5/3P2/5/6 n - 0 496")
	out, err = runCmd(t, "analyse", "endgame", "--records", late)
	if err != nil {
		t.Fatal(err, out)
	}
	wantOutput(t, out, "1 games reached their ending too near the game's length limit (max_plies 1000) for the tables to judge: counted as played",
		"randomS  0/1/0  0/0/0")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--records", path, "--fen", "startpos"}, "neither --material nor --fen"},
		{[]string{"--records", filepath.Join(t.TempDir(), "none.pgn")}, "none.pgn"},
	} {
		out, err := runCmd(t, append([]string{"analyse", "endgame"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one naming %q\n%s", tc.args, err, tc.want, out)
		}
	}
}
