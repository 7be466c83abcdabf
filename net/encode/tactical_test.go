package encode_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/net/encode"
)

// setup returns a position of variant v with side to move and the pieces
// listed as "Se5 sh10": S, P, K for South's soldier, prince and king,
// s, p, k for North's, then the square.
func setup(t *testing.T, v string, side game.Side, pieces string) game.Position {
	t.Helper()
	r := configs.MustVariant(v)
	var set [2][game.NumRanks]game.Bits
	for _, f := range strings.Fields(pieces) {
		s, rank := game.South, strings.IndexByte("SPK", f[0])
		if rank < 0 {
			s, rank = game.North, strings.IndexByte("spk", f[0])
		}
		q, err := r.Board.ParseSquare(f[1:])
		if rank < 0 || err != nil {
			t.Fatalf("piece %q: %v", f, err)
		}
		set[s][rank] = set[s][rank].Or(game.Bit(q))
	}
	p, err := game.Setup(r, side, set)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// tacticalSquares encodes p with the tactical planes and returns, for each
// of them, the squares (on the board, not in the side to move's frame)
// where it is 1, sorted and joined with spaces. It fails t if a plane
// holds anything but 0 and 1.
func tacticalSquares(t *testing.T, p *game.Position) map[int]string {
	t.Helper()
	e := encode.New(p.Rules(), encode.Options{Tactical: true})
	x := make([]float32, e.InputSize())
	e.Encode(p, x)
	b := p.Board()
	out := map[int]string{}
	for _, plane := range []int{encode.PlaneThreatened, encode.PlaneTakeable, encode.PlaneCaptureEnds, encode.PlaneThreatEnds} {
		var names []string
		for q := range e.Points() {
			switch x[q*e.Planes()+plane] {
			case 0:
				continue
			case 1:
			default:
				t.Fatalf("%s: plane %d holds %v", p.FEN(), plane, x[q*e.Planes()+plane])
			}
			if p.SideToMove() == game.North {
				q = b.Rotate(q)
			}
			names = append(names, b.Name(q))
		}
		slices.Sort(names)
		out[plane] = strings.Join(names, " ")
	}
	return out
}

func TestTacticalPlanes(t *testing.T) {
	for _, tc := range []struct {
		name, variant string
		side          game.Side
		pieces        string
		chainJump     string // a jump to play first (a chain in progress), such as "c1xc5"
		// Squares of the planes: the side to move's own pieces the
		// opponent threatens, the enemy pieces it can take, where its
		// captures end, where the opponent's would.
		threatened, takeable, ends, threatEnds string
	}{
		{name: "dablot: a hanging piece and a defended one", variant: "dablot", side: game.South,
			pieces:     "Se5 Se3 Sg9 se7 sh10",
			threatened: "g9", takeable: "e7 h10", ends: "e9 i11", threatEnds: "f8"},
		{name: "dablot: the same, North to move", variant: "dablot", side: game.North,
			pieces:     "Se5 Se3 Sg9 se7 sh10",
			threatened: "e7 h10", takeable: "g9", ends: "f8", threatEnds: "e9 i11"},
		{name: "dablot: a chain must go on", variant: "dablot", side: game.South,
			pieces:   "Sc1 sc3 sc7",
			takeable: "c3 c7", ends: "c9"},
		{name: "dablot: inside the chain", variant: "dablot", side: game.South,
			pieces: "Sc1 sc3 sc7", chainJump: "c1xc5",
			threatened: "c5", takeable: "c7", ends: "c9", threatEnds: "c3"},
		{name: "keyland: optional chains end anywhere", variant: "keyland", side: game.South,
			pieces:   "Sc1 sc3 sc7 sk13",
			takeable: "c3 c7", ends: "c5 c9"},
		{name: "cyningstan: an optional capture beside steps", variant: "cyningstan", side: game.South,
			pieces:     "Se5 se7 sk13 Ka1",
			threatened: "e5", takeable: "e7", ends: "e9", threatEnds: "e3"},
		{name: "winther: a soldier's capture is compulsory, the king's is not", variant: "winther", side: game.South,
			pieces:     "Sc3 Ki3 sc5 si5 kk13",
			threatened: "c3", takeable: "c5", ends: "c7", threatEnds: "c1"},
		{name: "winther: the king may capture; a soldier may not take a king", variant: "winther", side: game.South,
			pieces:     "Se3 Ki3 ke5 si5",
			threatened: "e3", takeable: "i5", ends: "i7", threatEnds: "e1"},
		{name: "dablot: the game is over", variant: "dablot", side: game.North,
			pieces: "Se5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := setup(t, tc.variant, tc.side, tc.pieces)
			if tc.chainJump != "" {
				turn, err := game.ParseTurnText(p.Board(), tc.chainJump)
				if err != nil {
					t.Fatal(err)
				}
				dir, ok := p.Board().JumpDirection(turn.Path[0], turn.Path[1])
				if !ok {
					t.Fatalf("%s is not a jump", tc.chainJump)
				}
				p.Apply(game.JumpDecision(turn.Path[0], dir))
				if p.Chain() < 0 {
					t.Fatalf("no chain after %s: %s", tc.chainJump, p.FEN())
				}
			}
			got := tacticalSquares(t, &p)
			for _, c := range []struct {
				plane int
				what  string
				want  string
			}{
				{encode.PlaneThreatened, "threatened", tc.threatened},
				{encode.PlaneTakeable, "takeable", tc.takeable},
				{encode.PlaneCaptureEnds, "capture ends", tc.ends},
				{encode.PlaneThreatEnds, "threat ends", tc.threatEnds},
			} {
				if got[c.plane] != c.want {
					t.Errorf("%s: %s on %q, want %q", p.FEN(), c.what, got[c.plane], c.want)
				}
			}
		})
	}
}

// TestTacticalProperties: on random positions of every variant (chains,
// endings, finished games) the tactical encoding does not panic, its
// first BasePlanes planes are the base encoding's, its planes are 0 or 1,
// the threatened pieces are the side to move's own and the takeable ones
// the enemy's, and captures end on empty points or on a piece of the side
// that captures (a chain that returns to its start, or stops where it is).
func TestTacticalProperties(t *testing.T) {
	for _, v := range configs.VariantNames() {
		var base *encode.Encoder
		var x, y []float32
		forPositions(t, v, encode.Options{Tactical: true}, func(tac *encode.Encoder, p *game.Position, _ []game.Decision) {
			if base == nil {
				base = encode.New(tac.Rules(), encode.Options{})
				x, y = make([]float32, base.InputSize()), make([]float32, tac.InputSize())
			}
			P := tac.Planes()
			planeAt := func(q, plane int) bool { return y[q*P+plane] == 1 }
			base.Encode(p, x)
			tac.Encode(p, y)
			for q := range tac.Points() {
				if !slices.Equal(x[q*encode.BasePlanes:(q+1)*encode.BasePlanes], y[q*P:q*P+encode.BasePlanes]) {
					t.Fatalf("%s: %s: the base planes of point %d differ", v, p.FEN(), q)
				}
				for k := encode.BasePlanes; k < P; k++ {
					if v := y[q*P+k]; v != 0 && v != 1 {
						t.Fatalf("%s: plane %d of point %d is %v", p.FEN(), k, q, v)
					}
				}
				own := y[q*P] + y[q*P+1] + y[q*P+2]
				theirs := y[q*P+3] + y[q*P+4] + y[q*P+5]
				if planeAt(q, encode.PlaneThreatened) && own != 1 || planeAt(q, encode.PlaneTakeable) && theirs != 1 ||
					planeAt(q, encode.PlaneCaptureEnds) && theirs != 0 || planeAt(q, encode.PlaneThreatEnds) && own != 0 {
					t.Fatalf("%s: %s: point %d: own %v, theirs %v, tactical planes %v", v, p.FEN(), q, own, theirs, y[q*P+encode.BasePlanes:(q+1)*P])
				}
			}
		})
	}
}

func ExampleOptions() {
	fmt.Println(encode.Options{}.Version(), encode.Options{}.Planes(), encode.Options{Tactical: true}.Version(), encode.Options{Tactical: true}.Planes())
	// Output: 1 42 2 46
}
