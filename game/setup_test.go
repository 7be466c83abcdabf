package game_test

import (
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// piecesOf returns the piece sets of p, the argument of game.Setup.
func piecesOf(p *game.Position) [2][game.NumRanks]game.Bits {
	var pieces [2][game.NumRanks]game.Bits
	for s := range game.Side(2) {
		for k := range game.Rank(game.NumRanks) {
			pieces[s][k] = p.Pieces(s, k)
		}
	}
	return pieces
}

var sideLetter = map[game.Side]string{game.South: "s", game.North: "n"}

func TestSetup(t *testing.T) {
	for _, name := range configs.VariantNames() {
		r := configs.MustVariant(name)
		start := r.Start()
		p, err := game.Setup(r, r.First, piecesOf(&start))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if p.FEN() != start.FEN() || p.Hash() != start.Hash() || p.Ply() != 0 {
			t.Errorf("%s: setup of the start pieces gives %s (hash %x, ply %d), want %s (hash %x)", name, p.FEN(), p.Hash(), p.Ply(), start.FEN(), start.Hash())
		}
		second := r.First.Other()
		q, err := game.Setup(r, second, piecesOf(&start))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fromFEN, err := game.ParseFEN(r, strings.Replace(start.FEN(), " "+sideLetter[r.First], " "+sideLetter[second], 1))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if q.FEN() != fromFEN.FEN() || q.Hash() != fromFEN.Hash() || q.Ply() != 1 || q.SideToMove() != second {
			t.Errorf("%s: setup with %s to move gives %s (hash %x, ply %d), want %s (hash %x)", name, second, q.FEN(), q.Hash(), q.Ply(), fromFEN.FEN(), fromFEN.Hash())
		}
	}

	r := configs.MustVariant("keyland")
	start := r.Start()
	pieces := piecesOf(&start)
	a1, _ := r.Board.ParseSquare("a1")
	clash := pieces
	clash[game.North][game.Soldier] = clash[game.North][game.Soldier].Or(game.Bit(a1))
	if _, err := game.Setup(r, game.South, clash); err == nil || !strings.Contains(err.Error(), "two pieces on a1") {
		t.Errorf("two pieces on a1: error %v", err)
	}
	off := pieces
	off[game.South][game.King] = off[game.South][game.King].Or(game.Bit(r.Board.Points()))
	if _, err := game.Setup(r, game.South, off); err == nil || !strings.Contains(err.Error(), "off the 72-point board") {
		t.Errorf("a piece off the board: error %v", err)
	}
	// North has nothing left: South has won.
	var lone [2][game.NumRanks]game.Bits
	lone[game.South][game.Soldier] = game.Bit(a1)
	p, err := game.Setup(r, game.North, lone)
	if err != nil {
		t.Fatal(err)
	}
	if st := p.Status(); !st.Over() || st.Outcome.ScoreFor(game.South) != 1 {
		t.Errorf("North without pieces: status %+v, want a South win", st)
	}
}

// TestPieceCount: the pieces of both sides together, at the start of
// each board's game and after a capture.
func TestPieceCount(t *testing.T) {
	for _, tc := range []struct {
		variant string
		want    int
	}{{"dablot", 60}, {"daablot", 40}} {
		p := configs.MustVariant(tc.variant).Start()
		if got := p.PieceCount(); got != tc.want {
			t.Errorf("%s: %d pieces at the start, want %d", tc.variant, got, tc.want)
		}
	}
	r := configs.MustVariant("dablot")
	p, err := game.ParseFEN(r, "1p4/5/4k1/5/6/5/6/5/1S4/5/6/5/6 s - 0 264")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.PieceCount(); got != 3 {
		t.Errorf("%s: %d pieces, want 3", p.FEN(), got)
	}
}
