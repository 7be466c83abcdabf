package study

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
)

func TestHuntKings(t *testing.T) {
	r := configs.MustVariant("keyland")
	record := func(fen, south, north string, turns ...string) *game.Record {
		p, err := game.ParseFEN(r, fen)
		if err != nil {
			t.Fatal(err)
		}
		rec := game.NewRecord(r, &p)
		rec.South, rec.North, rec.Turns = south, north, turns
		return rec
	}
	recs := []*game.Record{
		// South's king takes North's at once; then North has no king.
		record("s5/5/6/5/6/5/2kK2/5/6/5/6/5/S5 s", "hunter", "prey", "g7xc7", "a13-a11"),
		// Kings far apart: nothing is forced two turns deep.
		record("s5/5/6/5/6/5/k4K/5/6/5/6/5/S5 s", "hunter", "prey", "k7-k9", "a7-a9", "k9-k7"),
	}
	cfg := mcts.DefaultAlphaBetaConfig()
	cfg.Depth, cfg.Weights[game.King] = 2, 5000
	calls := 0
	positions, err := KingHuntPositions(recs, r, 0, 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	stats, finds, err := HuntKings(context.Background(), positions, cfg, 2, func() { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	// Positions with both kings: game 1 turn 0; game 2 turns 0, 1, 2.
	want := []KingHuntStats{{Player: "hunter", Positions: 3, Forced: 1}, {Player: "prey", Positions: 1}}
	if len(stats) != len(want) || calls != 4 {
		t.Fatalf("stats %+v after %d calls, want %+v after 4", stats, calls, want)
	}
	for i, w := range want {
		if s := stats[i]; s.Player != w.Player || s.Positions != w.Positions || s.Forced != w.Forced || s.Depth < 2 {
			t.Errorf("stats[%d] = %+v, want %+v with depth ≥ 2", i, s, w)
		}
	}
	if len(finds) != 1 || finds[0].Record != 1 || finds[0].Turn != 0 || !strings.HasPrefix(finds[0].Best, "g7x") || finds[0].Score < 2500 {
		t.Errorf("finds %+v, want g7x… in record 1 before turn 0", finds)
	}

	// A record that does not replay is a *RecordError naming it.
	bad := record("s5/5/6/5/6/5/k4K/5/6/5/6/5/S5 s", "a", "b", "k7-k5", "a7-a1")
	_, err = KingHuntPositions([]*game.Record{recs[0], bad}, r, 0, 100, 1)
	var re *RecordError
	if !errors.As(err, &re) || re.Record != 2 || re.Turn != 2 {
		t.Errorf("a bad record: got %v, want a RecordError for record 2, turn 2", err)
	}
}
