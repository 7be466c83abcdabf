package mcts

import (
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// TestMaterial: soldier 1, prince 3, king 5, counted for one side only.
func TestMaterial(t *testing.T) {
	r := configs.MustVariant("keyland")
	for _, tc := range []struct {
		fen          string
		south, north float64
	}{
		{"6/5/6/5/6/5/6/5/6/5/6/5/Kk1S2 s", 6, 5},
		{"6/5/6/5/6/5/6/5/6/5/6/5/KkPS2 n", 9, 5},
		{"6/5/6/5/6/5/6/5/6/5/6/5/Kkps2 s", 5, 9},
	} {
		p, err := game.ParseFEN(r, tc.fen)
		if err != nil {
			t.Fatalf("%s: %v", tc.fen, err)
		}
		if s, n := Material(&p, game.South), Material(&p, game.North); s != tc.south || n != tc.north {
			t.Errorf("%s: material %v and %v, want %v and %v", tc.fen, s, n, tc.south, tc.north)
		}
	}
}
