package net

import "testing"

func boardTopology(cols, rows int) *Topology { return GridBoard(cols, rows) }

func largeBoard() *Topology { return boardTopology(6, 7) }
func smallBoard() *Topology { return boardTopology(5, 5) }

func TestBoardTopologies(t *testing.T) {
	for _, tc := range []struct {
		name   string
		topo   *Topology
		points int
		edges  int // directed neighbour links
	}{
		// 6x7 lines: orthogonal corner links 2*(5*7 + 6*6) = 142, diagonal 2*4*30 = 240.
		{"large", largeBoard(), 72, 142 + 240},
		// 5x5 lines: 2*(4*5 + 5*4) = 80 orthogonal, 2*4*16 = 128 diagonal.
		{"small", smallBoard(), 41, 80 + 128},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.topo.Validate(); err != nil {
				t.Fatal(err)
			}
			if tc.topo.Points != tc.points {
				t.Fatalf("points %d want %d", tc.topo.Points, tc.points)
			}
			edges := 0
			for p, row := range tc.topo.Neighbors {
				for d, q := range row {
					if q < 0 {
						continue
					}
					edges++
					if back := tc.topo.Neighbors[q][(d+4)%8]; back != int32(p) {
						t.Fatalf("point %d dir %d -> %d, but back is %d", p, d, q, back)
					}
				}
			}
			if edges != tc.edges {
				t.Fatalf("%d links, want %d", edges, tc.edges)
			}
		})
	}
}

func TestTopologyValidate(t *testing.T) {
	bad := []*Topology{
		nil,
		{Points: 0},
		{Points: 2, Neighbors: make([][8]int32, 1)},
		{Points: 1, Neighbors: [][8]int32{{1, -1, -1, -1, -1, -1, -1, -1}}},
		{Points: 1, Neighbors: [][8]int32{{-2, -1, -1, -1, -1, -1, -1, -1}}},
	}
	for i, tp := range bad {
		if err := tp.Validate(); err == nil {
			t.Errorf("case %d: no error", i)
		}
	}
	if largeBoard().Hash() == smallBoard().Hash() {
		t.Error("different boards have the same hash")
	}
}
