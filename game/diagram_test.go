package game_test

import (
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// TestDiagramMarked: the marked points of a diagram are drawn in brackets
// (a piece mid-chain keeps its '*' on the right), in the first and last
// columns too, and the rest of the diagram is Diagram's.
func TestDiagramMarked(t *testing.T) {
	frostviken := configs.MustVariant("frostviken")
	// South's soldier on a1 starts a chain of five captures (keyland).
	chain, err := game.ParseFEN(configs.MustVariant("keyland"), "6/5/4s1/2s2/6/5/2s3/5/1s4/5/s5/5/S5 s")
	if err != nil {
		t.Fatal(err)
	}
	chain.Apply(chain.Decisions(nil)[0])
	for _, tc := range []struct {
		name  string
		p     game.Position
		turn  string   // played first ("" for none)
		marks []string // its points, or these
		want  []string // lines of the diagram that change
	}{
		{"none", frostviken.Start(), "", nil, nil},
		{"first column", frostviken.Start(), "a3-a5", nil, []string{"  5[S]--.---.---.---.", "  3[.]--S---S---S---P"}},
		{"centre to corner", frostviken.Start(), "b4-c5", nil, []string{"  5 .--[S]--.---.---.", "  4 |[.]| S | S | K |"}},
		{"last column", frostviken.Start(), "i3-i5", nil, []string{"  5 .---.---.---.--[P]", "  3 S---S---S---S--[.]"}},
		{"mid-chain", chain, "", []string{"a1", "a5"}, []string{"  5[S*--s---.---.---.---.", "  1[.]--.---.---.---.---."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			var marks []int
			if tc.turn != "" {
				turn, ds, err := p.ParseTurn(tc.turn)
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range ds {
					p.Apply(d)
				}
				marks = []int{turn.Path[0], turn.Path[len(turn.Path)-1]}
			}
			for _, m := range tc.marks {
				q, err := p.Board().ParseSquare(m)
				if err != nil {
					t.Fatal(err)
				}
				marks = append(marks, q)
			}
			plain := strings.Split(p.Diagram(), "\n")
			got := strings.Split(p.DiagramMarked(marks), "\n")
			if len(got) != len(plain) {
				t.Fatalf("%d lines, Diagram has %d:\n%s", len(got), len(plain), strings.Join(got, "\n"))
			}
			changed := 0
			for i := range got {
				if got[i] == plain[i] {
					continue
				}
				changed++
				found := false
				for _, w := range tc.want {
					found = found || got[i] == w
				}
				if !found {
					t.Errorf("line %q (Diagram's %q), want one of %q", got[i], plain[i], tc.want)
				}
			}
			if changed != len(tc.want) {
				t.Errorf("%d lines marked, want %d:\n%s", changed, len(tc.want), strings.Join(got, "\n"))
			}
		})
	}
}
