package mcts

import (
	"testing"

	"github.com/dablot-zero/dablot/game"
)

func TestTurnJudgeLoss(t *testing.T) {
	keyland := "ssssss/sssss/ssssss/sssss/ssssss/p4/k4K/4P/SSSSSS/SSSSS/SSSSSS/SSSSS/SSSSSS s"
	for _, tc := range []struct {
		variant, fen, turn string
		lo, hi             float64 // the loss must lie in [lo, hi]
	}{
		// South steps a soldier out of c5, and North's king on a7 jumps
		// the one on b6 into the hole.
		{"keyland", keyland, "c5-b6", 1, 1},
		// Stopping the chain on a5 keeps a soldier; going on to e5 lets g5
		// take South's last piece.
		{"keyland", fenStopPoint, "a1xa5", 0, 0},
		{"keyland", fenStopPoint, "a1xa5xe5", maxSwing - 1, maxSwing - 1},
		// The whole chain wins; stopping after the first jump keeps one soldier.
		{"keyland", fenLongChain, "a1xa5xe5xe9xg11xk11", 0, 0},
		{"keyland", fenLongChain, "a1xa5", maxSwing - 1, maxSwing - 1},
	} {
		p := mustFEN(t, tc.variant, tc.fen)
		after := p
		if err := after.ApplyTurn(tc.turn); err != nil {
			t.Fatalf("%s: %v", tc.turn, err)
		}
		var j TurnJudge
		got := j.Loss(&p, &after)
		if got < tc.lo || got > tc.hi {
			t.Errorf("%s %s: loss %v, want %v to %v", tc.fen, tc.turn, got, tc.lo, tc.hi)
		}
	}
}

// TestTurnJudgeBestIsFree checks that some turn of every position along a
// random game loses nothing, and no turn loses less than nothing.
func TestTurnJudgeBestIsFree(t *testing.T) {
	p := mustFEN(t, "keyland", "ssssss/sssss/ssssss/sssss/ssssss/p4/k4K/4P/SSSSSS/SSSSS/SSSSSS/SSSSS/SSSSSS s")
	rp := NewRandomPlayer(3)
	var j TurnJudge
	for ply := 0; ply < 60 && !p.Status().Over(); ply++ {
		if ply%10 != 0 {
			if _, err := PlayTurn(t.Context(), rp, &p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		zero := false
		forEachTurn(&p, func(_ []game.Decision, a *game.Position) {
			l := j.Loss(&p, a)
			if l < 0 {
				t.Fatalf("ply %d: loss %v below 0", ply, l)
			}
			zero = zero || l == 0
		})
		if !zero {
			t.Fatalf("ply %d: no turn of %s loses nothing", ply, p.FEN())
		}
		if _, err := PlayTurn(t.Context(), rp, &p); err != nil {
			t.Fatal(err)
		}
	}
}
