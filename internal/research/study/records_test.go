package study

import (
	"errors"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

func TestReplay(t *testing.T) {
	r := configs.MustVariant("keyland")
	record := func(fen string, turns ...string) *game.Record {
		p, err := game.ParseFEN(r, fen)
		if err != nil {
			t.Fatal(err)
		}
		rec := game.NewRecord(r, &p)
		rec.Turns = turns
		return rec
	}
	declared := func(rec *game.Record, result, termination string) *game.Record {
		rec.Result, rec.Termination = result, termination
		return rec
	}
	adjudicated := game.Status{Outcome: game.SouthWins, Reason: game.Adjudicated}
	const (
		lone = "6/5/6/5/6/5/2kK2/5/6/5/6/5/S5 s" // South's king takes North's last piece
		far  = "s5/5/6/5/6/5/k4K/5/6/5/6/5/S5 s" // kings far apart: nothing ends
	)
	tests := []struct {
		name     string
		rec      *game.Record
		stopAt   int // visit returns false at this k (-1: never)
		visits   int
		final    string // the last position's FEN ("": not checked)
		badTurn  int    // the RecordError's turn, -1 for none
		finished bool   // replayFinished succeeds
		end      game.Status
		why      string // replayFinished's error, if it fails and the replay did not
	}{
		{"whole game", record(lone, "g7xc7"), -1, 2, "", -1, true, game.Status{Outcome: game.SouthWins, Reason: game.NoPieces}, ""},
		{"whole game, result declared", declared(record(lone, "g7xc7"), "1-0", "no-pieces"), -1, 2, "", -1, true,
			game.Status{Outcome: game.SouthWins, Reason: game.NoPieces}, ""},
		{"result contradicted", declared(record(lone, "g7xc7"), "0-1", "adjudicated"), -1, 2, "", -1, false, game.Status{}, "the record says 0-1, but the game ends 1-0"},
		{"unfinished", record(far, "k7-k9", "a7-a9"), -1, 3, "", -1, false, game.Status{}, "unfinished"},
		{"adjudicated", declared(record(far, "k7-k9", "a7-a9"), "1-0", "adjudicated"), -1, 3, "", -1, true, adjudicated, ""},
		{"result without a reason", declared(record(far, "k7-k9", "a7-a9"), "1-0", ""), -1, 3, "", -1, false, game.Status{}, "unfinished"},
		{"unknown termination", declared(record(far, "k7-k9"), "1-0", "resigned"), -1, 2, "", -1, false, game.Status{}, `unknown termination "resigned"`},
		{"stopped", record(far, "k7-k9", "a7-a9", "k9-k7"), 1, 2, "s5/5/6/5/5K/5/k5/5/6/5/6/5/S5 n - 1", -1, false, game.Status{}, "unfinished"},
		{"illegal second turn", record(far, "k7-k9", "a7-a1"), -1, 2, "", 2, false, game.Status{}, ""},
		{"no turns", record(far), -1, 1, far, -1, false, game.Status{}, "unfinished"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ks []int
			p, err := replay(4, tc.rec, r, func(k int, _ *game.Position) bool {
				ks = append(ks, k)
				return k != tc.stopAt
			})
			for i, k := range ks {
				if k != i {
					t.Fatalf("visited turns %v, want 0, 1, …", ks)
				}
			}
			if len(ks) != tc.visits {
				t.Errorf("%d visits (%v), want %d", len(ks), ks, tc.visits)
			}
			var re *RecordError
			switch {
			case tc.badTurn < 0 && err != nil:
				t.Fatalf("replay: %v", err)
			case tc.badTurn >= 0 && (!errors.As(err, &re) || re.Record != 5 || re.Turn != tc.badTurn):
				t.Fatalf("replay: got %v, want a RecordError for record 5, turn %d", err, tc.badTurn)
			}
			if tc.final != "" && p.FEN() != tc.final {
				t.Errorf("stopped at %s, want %s", p.FEN(), tc.final)
			}
			_, end, err := replayFinished(4, tc.rec, r, func(int, *game.Position) {})
			if tc.finished != (err == nil) {
				t.Errorf("replayFinished: %v, want success %v", err, tc.finished)
			}
			if tc.finished && end != tc.end {
				t.Errorf("replayFinished: the game ended %v, want %v", end, tc.end)
			}
			if tc.why != "" && (!errors.As(err, &re) || re.Record != 5 || !strings.Contains(err.Error(), tc.why)) {
				t.Errorf("replayFinished: %v, want a RecordError for record 5 saying %q", err, tc.why)
			}
		})
	}
}
