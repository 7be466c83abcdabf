package net

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"github.com/dablot-zero/dablot/game"
)

// Topology is the board graph the network is built on.
type Topology struct {
	Points    int                         // number of points
	Neighbors [][game.NumDirections]int32 // Neighbors[p][d] = point one step from p in direction d (a game.Direction), or -1
}

// Validate reports whether t is a consistent graph: Points > 0, one
// neighbour row per point, every neighbour in range or -1.
func (t *Topology) Validate() error {
	if t == nil {
		return fmt.Errorf("net: nil topology")
	}
	if t.Points <= 0 {
		return fmt.Errorf("net: topology has %d points", t.Points)
	}
	if len(t.Neighbors) != t.Points {
		return fmt.Errorf("net: topology has %d points but %d neighbour rows", t.Points, len(t.Neighbors))
	}
	for p, row := range t.Neighbors {
		for d, q := range row {
			if q < -1 || int(q) >= t.Points {
				return fmt.Errorf("net: topology point %d direction %d has neighbour %d out of range", p, d, q)
			}
		}
	}
	return nil
}

// Hash returns a hex SHA-256 of the point count and neighbour table, used
// to check that a model file was trained on the same board.
func (t *Topology) Hash() string {
	h := sha256.New()
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(t.Points))
	h.Write(b[:])
	for _, row := range t.Neighbors {
		for _, q := range row {
			binary.LittleEndian.PutUint32(b[:], uint32(q))
			h.Write(b[:])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// gatherTable returns the 9 source points of every point: itself, then
// directions 0..7 (-1 where there is no neighbour).
func (t *Topology) GatherTable() []int32 {
	tab := make([]int32, t.Points*9)
	for p := 0; p < t.Points; p++ {
		tab[p*9] = int32(p)
		for d := 0; d < 8; d++ {
			tab[p*9+1+d] = t.Neighbors[p][d]
		}
	}
	return tab
}

// MovesPerPoint is the policy head's width per point: 8 directions x
// {step, jump}, the policy layout of game.PolicySize (points·MovesPerPoint
// move logits, then one "stop the chain" logit).
const MovesPerPoint = game.DecisionsPerPoint

// GridBoard builds a Dablot-style board with cols x rows grid lines: the
// line crossings (even doubled coordinates) plus the centres of the squares
// (odd coordinates). Corners connect orthogonally to corners two doubled
// units away; diagonal steps of one unit join a corner and a centre.
// GridBoard(6, 7) has 72 points, GridBoard(5, 5) 41. Points are numbered
// row by row in doubled coordinates; direction N is towards row 0. It is a
// reference construction for tests and benchmarks: the rules engine's
// topology is authoritative.
func GridBoard(cols, rows int) *Topology {
	W, H := 2*(cols-1), 2*(rows-1)
	index := map[[2]int]int32{}
	var pts [][2]int
	for y := 0; y <= H; y++ {
		for x := 0; x <= W; x++ {
			if (x%2 == 0 && y%2 == 0) || (x%2 == 1 && y%2 == 1) {
				index[[2]int{x, y}] = int32(len(pts))
				pts = append(pts, [2]int{x, y})
			}
		}
	}
	dirs := [8][2]int{{0, -1}, {1, -1}, {1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}}
	t := &Topology{Points: len(pts), Neighbors: make([][8]int32, len(pts))}
	for i, p := range pts {
		for d, v := range dirs {
			t.Neighbors[i][d] = -1
			step := 1
			if v[0] == 0 || v[1] == 0 {
				if p[0]%2 == 1 {
					continue // centres have no orthogonal lines
				}
				step = 2
			}
			if q, ok := index[[2]int{p[0] + step*v[0], p[1] + step*v[1]}]; ok {
				t.Neighbors[i][d] = q
			}
		}
	}
	return t
}
