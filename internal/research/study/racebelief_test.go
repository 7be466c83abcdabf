package study

import (
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
)

// sideToMoveWins believes, of every position, that the side to move wins
// with chance 0.75 and draws otherwise.
type sideToMoveWins struct{ asked int }

func (e *sideToMoveWins) Evaluate(batch []mcts.Request) error {
	for i := range batch {
		batch[i].WDL = [3]float32{0.75, 0.25, 0}
		batch[i].Value = 0.75
		e.asked++
	}
	return nil
}

// TestRaceBeliefs: North's king takes South's at the first turn, then
// two quiet turns reach the ply limit, a draw. With every turn taken, the
// model's win chance for North is its loss chance with South to move (0)
// and its win chance with North to move (0.75); with every other turn,
// only the first position counts. A game that starts with one king, and
// one whose fall ends it, have no position to judge.
func TestRaceBeliefs(t *testing.T) {
	r := configs.MustVariant("dablot")
	rec := func(setup, south, north, result string, turns ...string) *game.Record {
		return &game.Record{Variant: "dablot", Setup: setup, South: south, North: north, Result: result,
			NoCaptureLimit: r.NoCaptureLimit, MaxPlies: r.MaxPlies, Turns: turns}
	}
	recs := []*game.Record{
		rec("6/5/6/5/2k3/5/2K3/5/6/5/S5/5/S5 n - 0 499", "A", "B", "1/2-1/2", "e9xe5", "a1-b2", "e5-e7"),
		// One king from the start: no race.
		rec("s5/5/6/5/6/5/6/5/6/5/6/5/S4K s - 98", "B", "A", "1/2-1/2", "a1-a3", "a13-a11"),
		// South's king takes North's king and its last soldier: over.
		rec("6/5/2s3/5/6/5/2k3/5/2K3/5/6/5/S5 s", "A", "B", "1-0", "e5xe9xe13"),
	}
	for _, tc := range []struct {
		every            int
		positions, asked int
		belief           float64
	}{{1, 2, 2, 0.75}, {2, 1, 1, 0}} {
		ev := &sideToMoveWins{}
		got, err := RaceBeliefs(recs, r, tc.every, ev)
		if err != nil {
			t.Fatal(err)
		}
		want := RaceBelief{Holder: "B", Class: RaceClass{0, 0}, Positions: tc.positions, Belief: tc.belief, Games: 1}
		if len(got) != 1 || got[0] != want || ev.asked != tc.asked {
			t.Errorf("every %d: got %+v after %d evaluations, want [%+v] after %d", tc.every, got, ev.asked, want, tc.asked)
		}
	}
}

// TestRaceClass: the holder's pieces are capped at RaceBesideCap, the
// other side's counted in steps of three up to RaceAgainstCap.
func TestRaceClass(t *testing.T) {
	for _, tc := range []struct {
		beside, against int
		want            RaceClass
	}{
		{0, 0, RaceClass{0, 0}}, {2, 2, RaceClass{2, 0}}, {3, 3, RaceClass{3, 1}},
		{6, 11, RaceClass{6, 3}}, {9, 12, RaceClass{6, 4}}, {20, 27, RaceClass{6, 4}},
	} {
		if got := raceClass(tc.beside, tc.against); got != tc.want {
			t.Errorf("raceClass(%d, %d) = %+v, want %+v", tc.beside, tc.against, got, tc.want)
		}
	}
}
