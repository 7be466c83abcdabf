package game_test

import (
	"testing"

	"github.com/dablot-zero/dablot/game"
)

// TestResultScore: a record's result gives each side its score; an
// unfinished or unknown result gives none.
func TestResultScore(t *testing.T) {
	for _, tc := range []struct {
		result string
		side   game.Side
		want   float64
		ok     bool
	}{
		{"1-0", game.South, 1, true},
		{"1-0", game.North, 0, true},
		{"0-1", game.South, 0, true},
		{"0-1", game.North, 1, true},
		{"1/2-1/2", game.South, 0.5, true},
		{"1/2-1/2", game.North, 0.5, true},
		{"*", game.South, 0, false},
		{"", game.North, 0, false},
		{"2-0", game.South, 0, false},
	} {
		got, ok := game.ResultScore(tc.result, tc.side)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ResultScore(%q, %v) = %v, %v; want %v, %v", tc.result, tc.side, got, ok, tc.want, tc.ok)
		}
	}
}
