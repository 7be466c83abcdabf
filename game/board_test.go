package game_test

import (
	"testing"

	"github.com/dablot-zero/dablot/game"
)

func TestBoardGeometry(t *testing.T) {
	for _, tc := range []struct {
		cols, rows, points, lines int
	}{
		{6, 7, 72, 191}, // the independent implementation counts 191 edges
		{5, 5, 41, 104},
		{2, 2, 5, 8},
		{8, 9, 128, 8*8 + 9*7 + 56*4},
	} {
		b, err := game.NewBoard(tc.cols, tc.rows)
		if err != nil {
			t.Fatal(err)
		}
		if b.Points() != tc.points || b.Lines() != tc.lines {
			t.Errorf("%d×%d: %d points, %d lines; want %d, %d", tc.cols, tc.rows, b.Points(), b.Lines(), tc.points, tc.lines)
		}
		for p := range b.Points() {
			x, y := b.XY(p)
			if b.At(x, y) != p {
				t.Fatalf("point %d at (%d,%d) maps back to %d", p, x, y, b.At(x, y))
			}
			if q, err := b.ParseSquare(b.Name(p)); err != nil || q != p {
				t.Errorf("square %s: %d %v", b.Name(p), q, err)
			}
			if b.Mirror(b.Mirror(p)) != p || b.Rotate(b.Rotate(p)) != p {
				t.Errorf("%s: mirror or half-turn is not an involution", b.Name(p))
			}
			for d := game.Direction(0); d < game.NumDirections; d++ {
				n, j := b.Neighbor[p][d], b.JumpTo[p][d]
				if b.IsCorner(p) != true && d%2 == 0 && n >= 0 {
					t.Errorf("centre %s has an orthogonal neighbour", b.Name(p))
				}
				if n < 0 {
					if j >= 0 {
						t.Errorf("%s: a jump %s without a neighbour", b.Name(p), d)
					}
					continue
				}
				if int(b.Neighbor[n][d.Opposite()]) != p {
					t.Errorf("%s→%s is not symmetric", b.Name(p), b.Name(int(n)))
				}
				if m := b.Mirror(p); b.Neighbor[m][d.Mirror()] != int8(b.Mirror(int(n))) {
					t.Errorf("mirror breaks the line %s→%s", b.Name(p), b.Name(int(n)))
				}
				if j >= 0 && b.Neighbor[n][d] != j {
					t.Errorf("jump %s→%s does not go straight over %s", b.Name(p), b.Name(int(j)), b.Name(int(n)))
				}
				if b.Distance(p, int(n)) != 1 {
					t.Errorf("distance to a neighbour is %d", b.Distance(p, int(n)))
				}
			}
			for q := range b.Points() {
				if b.Distance(p, q) != b.Distance(q, p) || b.Distance(p, q) > b.Points() {
					t.Fatalf("distance %s–%s", b.Name(p), b.Name(q))
				}
			}
		}
	}
	for _, bad := range [][2]int{{1, 5}, {5, 1}, {9, 9}, {14, 2}} {
		if _, err := game.NewBoard(bad[0], bad[1]); err == nil {
			t.Errorf("%d×%d accepted", bad[0], bad[1])
		}
	}
}

// TestPolicyLayout: every step and jump of a board has its own policy
// index below PolicySize, stop and pass share the last one, and a policy
// has DecisionsPerPoint entries per point.
func TestPolicyLayout(t *testing.T) {
	for _, tc := range []struct {
		cols, rows, size int
	}{
		{6, 7, 72*16 + 1},
		{5, 5, 41*16 + 1},
		{2, 2, 5*16 + 1},
		{8, 9, 128*16 + 1},
	} {
		b, err := game.NewBoard(tc.cols, tc.rows)
		if err != nil {
			t.Fatal(err)
		}
		size := game.PolicySize(b.Points())
		if size != tc.size || game.DecisionsPerPoint != 2*game.NumDirections {
			t.Errorf("%d×%d: policy size %d, %d per point; want %d, %d", tc.cols, tc.rows, size, game.DecisionsPerPoint, tc.size, 2*game.NumDirections)
		}
		seen := make([]bool, size)
		for p := range b.Points() {
			for d := range game.Direction(game.NumDirections) {
				for _, dec := range []game.Decision{game.StepDecision(p, d), game.JumpDecision(p, d)} {
					i := dec.PolicyIndex(b)
					if i < 0 || i >= size-1 || seen[i] {
						t.Fatalf("%d×%d: %v at policy index %d: want a free index below %d", tc.cols, tc.rows, dec, i, size-1)
					}
					seen[i] = true
				}
			}
		}
		if s, p := game.Stop.PolicyIndex(b), game.Pass.PolicyIndex(b); s != size-1 || p != size-1 {
			t.Errorf("%d×%d: stop at %d, pass at %d; want both at %d", tc.cols, tc.rows, s, p, size-1)
		}
	}
}

func TestDistanceExamples(t *testing.T) {
	b, _ := game.NewBoard(6, 7)
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"a1", "a1", 0}, {"a1", "b2", 1}, {"a1", "c3", 2}, {"a1", "k13", 11}, {"e5", "e13", 4}, {"d6", "e13", 4}, {"a1", "k1", 5}} {
		p, _ := b.ParseSquare(tc.a)
		q, _ := b.ParseSquare(tc.b)
		if got := b.Distance(p, q); got != tc.d {
			t.Errorf("distance %s–%s = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}
