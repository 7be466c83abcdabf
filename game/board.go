package game

import (
	"fmt"
	"strconv"
	"strings"
)

// Direction is one of the 8 line directions, in the order N, NE, E, SE, S, SW,
// W, NW, where N is towards higher row numbers (away from South).
type Direction uint8

// The eight line directions.
const (
	DirN Direction = iota
	DirNE
	DirE
	DirSE
	DirS
	DirSW
	DirW
	DirNW
	NumDirections = 8
)

var dirNames = [NumDirections]string{"N", "NE", "E", "SE", "S", "SW", "W", "NW"}

func (d Direction) String() string {
	if d < NumDirections {
		return dirNames[d]
	}
	return "Direction(" + strconv.Itoa(int(d)) + ")"
}

// Opposite returns the direction turned by half a turn.
func (d Direction) Opposite() Direction { return (d + 4) % NumDirections }

// Mirror returns the direction reflected left-right.
func (d Direction) Mirror() Direction { return (NumDirections - d) % NumDirections }

// dirVec is the step vector of each direction in doubled coordinates.
var dirVec = [NumDirections][2]int{{0, 2}, {1, 1}, {2, 0}, {1, -1}, {0, -2}, {-1, -1}, {-2, 0}, {-1, 1}}

// MaxPoints is the largest number of points a board may have.
const MaxPoints = 128

// Board is the geometry of a C × R line board: points, the lines between
// them, and the tables the move generator uses. Points are numbered in FEN
// order read bottom-up: row 1 left to right is 0, 1, …, then row 2, and so on.
// A Board is immutable after NewBoard and safe for concurrent use.
type Board struct {
	Cols, Rows int // lines: C vertical, R horizontal
	// Width and Height are the sizes of the doubled coordinate grid
	// (2C−1 by 2R−1); a point's column letter is 'a'+x and its row y+1.
	Width, Height int
	points        int
	x, y          []int8
	index         []int16 // doubled (x, y) → point, or -1
	// Neighbor[p][d] is the point one step from p in direction d, or -1.
	Neighbor [][NumDirections]int8
	// JumpTo[p][d] is the landing point of a jump from p in direction d, or -1.
	JumpTo [][NumDirections]int8
	dist   [][]uint8 // steps along lines between two points
	all    Bits
	// delta[d] is the index shift of one step in direction d; it is the same
	// for every point that has a neighbour in that direction. It is positive
	// for the upwardDirs and negative for the others.
	delta    [NumDirections]int
	shift    [NumDirections]uint // |delta[d]|, for Bits.shl and Bits.shr
	stepFrom [NumDirections]Bits // points with a neighbour in direction d
	jumpFrom [NumDirections]Bits // points with a jump landing in direction d
	jumpOver []Bits              // jumpOver[p]: the neighbours of p with a jump landing beyond them
	// jumpDirByDelta[k+maxDelta] is the direction of the jumps whose first
	// step is delta k (unique: only on a board 2 lines wide do two
	// directions share a delta, and there the sideways ones have no jumps).
	jumpDirByDelta [2*maxDelta + 1]Direction
	names          []string
	mirror         []int8 // left-right reflection
	rotate         []int8 // half-turn
}

// NewBoard builds the board of cols × rows lines. Both must be at least 2,
// the board at most MaxPoints points and at most 26 columns wide.
func NewBoard(cols, rows int) (*Board, error) {
	if cols < 2 || rows < 2 {
		return nil, fmt.Errorf("board %d×%d: needs at least 2 lines each way", cols, rows)
	}
	w, h := 2*cols-1, 2*rows-1
	n := cols*rows + (cols-1)*(rows-1)
	if n > MaxPoints || w > 26 {
		return nil, fmt.Errorf("board %d×%d: %d points, %d columns; at most %d points and 26 columns are supported", cols, rows, n, w, MaxPoints)
	}
	b := &Board{Cols: cols, Rows: rows, Width: w, Height: h, points: n}
	b.index = make([]int16, w*h)
	for i := range b.index {
		b.index[i] = -1
	}
	for y := 0; y < h; y++ {
		for x := y % 2; x < w; x += 2 {
			b.index[y*w+x] = int16(len(b.x))
			b.x = append(b.x, int8(x))
			b.y = append(b.y, int8(y))
		}
	}
	b.Neighbor = make([][NumDirections]int8, n)
	b.JumpTo = make([][NumDirections]int8, n)
	b.jumpOver = make([]Bits, n)
	b.names = make([]string, n)
	b.mirror = make([]int8, n)
	b.rotate = make([]int8, n)
	b.delta = [NumDirections]int{2*cols - 1, cols, 1, -(cols - 1), -(2*cols - 1), -cols, -1, cols - 1}
	for d, k := range b.delta {
		if (k > 0) != (upwardDirs>>d&1 != 0) {
			panic("game: direction signs broken") // cannot happen: cols >= 2
		}
		b.shift[d] = uint(max(k, -k))
	}
	for p := 0; p < n; p++ {
		x, y := int(b.x[p]), int(b.y[p])
		b.all = b.all.Or(Bit(p))
		b.names[p] = string(rune('a'+x)) + strconv.Itoa(y+1)
		b.mirror[p] = int8(b.At(w-1-x, y))
		b.rotate[p] = int8(b.At(w-1-x, h-1-y))
		for d := Direction(0); d < NumDirections; d++ {
			v := dirVec[d]
			b.Neighbor[p][d], b.JumpTo[p][d] = -1, -1
			if d%2 == 0 && x%2 == 1 {
				continue // centres lie only on diagonal lines
			}
			if q := b.At(x+v[0], y+v[1]); q >= 0 {
				if q-p != b.delta[d] {
					panic("game: board layout broken") // cannot happen: the layout makes shifts constant
				}
				b.Neighbor[p][d] = int8(q)
				b.stepFrom[d] = b.stepFrom[d].Or(Bit(p))
				if r := b.At(x+2*v[0], y+2*v[1]); r >= 0 {
					b.JumpTo[p][d] = int8(r)
					b.jumpOver[p] = b.jumpOver[p].Or(Bit(q))
					b.jumpFrom[d] = b.jumpFrom[d].Or(Bit(p))
				}
			}
		}
	}
	for d := range Direction(NumDirections) {
		if !b.jumpFrom[d].Empty() {
			b.jumpDirByDelta[b.delta[d]+maxDelta] = d
		}
	}
	b.dist = make([][]uint8, n)
	for p := range n {
		b.dist[p] = b.bfs(p)
	}
	return b, nil
}

func (b *Board) bfs(src int) []uint8 {
	d := make([]uint8, b.points)
	for i := range d {
		d[i] = 255
	}
	d[src] = 0
	queue := []int{src}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, q := range b.Neighbor[p] {
			if q >= 0 && d[q] == 255 {
				d[q] = d[p] + 1
				queue = append(queue, int(q))
			}
		}
	}
	return d
}

// upwardDirs has bit d set for the directions whose step goes to a higher
// point number: N, NE, E and NW. The move generator's shifts rely on it.
const upwardDirs = 1<<DirN | 1<<DirNE | 1<<DirE | 1<<DirNW

// maxDelta bounds |delta[d]|: 2·cols−1 on a board at most 26 doubled
// columns (13 lines) wide.
const maxDelta = 25

// jumpDir returns the direction of a jump over the neighbour k points
// further on.
func (b *Board) jumpDir(k int) Direction { return b.jumpDirByDelta[k+maxDelta] }

// Points returns the number of points on the board.
func (b *Board) Points() int { return b.points }

// At returns the point at doubled coordinates (x, y), or -1 if there is none.
func (b *Board) At(x, y int) int {
	if x < 0 || y < 0 || x >= b.Width || y >= b.Height {
		return -1
	}
	return int(b.index[y*b.Width+x])
}

// XY returns the doubled coordinates of point p.
func (b *Board) XY(p int) (x, y int) { return int(b.x[p]), int(b.y[p]) }

// IsCorner reports whether p is a line crossing (not the centre of a square).
func (b *Board) IsCorner(p int) bool { return b.x[p]%2 == 0 }

// Distance returns the number of steps along lines from p to q.
func (b *Board) Distance(p, q int) int { return int(b.dist[p][q]) }

// Mirror returns the image of p under the left-right reflection.
func (b *Board) Mirror(p int) int { return int(b.mirror[p]) }

// Rotate returns the image of p under the half-turn.
func (b *Board) Rotate(p int) int { return int(b.rotate[p]) }

// Lines returns the number of lines between adjacent points.
func (b *Board) Lines() int {
	n := 0
	for p := range b.points {
		for _, q := range b.Neighbor[p] {
			if int(q) > p {
				n++
			}
		}
	}
	return n
}

// Name returns the square name of point p, such as "k7".
func (b *Board) Name(p int) string { return b.names[p] }

// ParseSquare returns the point named s (case-insensitive), such as "k7".
func (b *Board) ParseSquare(s string) (int, error) {
	t := strings.ToLower(s)
	if len(t) < 2 || t[0] < 'a' || t[0] > 'z' {
		return -1, fmt.Errorf("square %q: want a column letter and a row number, such as a1", s)
	}
	row, err := strconv.Atoi(t[1:])
	if err != nil || t[1] == '+' || t[1] == '-' {
		return -1, fmt.Errorf("square %q: row %q is not a number", s, t[1:])
	}
	x, y := int(t[0]-'a'), row-1
	if x >= b.Width || y < 0 || y >= b.Height {
		return -1, fmt.Errorf("square %q: off the board (columns a–%c, rows 1–%d)", s, 'a'+b.Width-1, b.Height)
	}
	p := b.At(x, y)
	if p < 0 {
		return -1, fmt.Errorf("square %q: not a point (column and row must both be odd-placed or both even-placed, as a1 or b2)", s)
	}
	return p, nil
}

// DirectionTo returns the direction from p to its neighbour q, or false if q
// is not one step from p along a line.
func (b *Board) DirectionTo(p, q int) (Direction, bool) {
	for d, n := range b.Neighbor[p] {
		if int(n) == q {
			return Direction(d), true
		}
	}
	return 0, false
}

// JumpDirection returns the direction of a jump from p landing on q, or false
// if q is not two steps from p along one line.
func (b *Board) JumpDirection(p, q int) (Direction, bool) {
	for d, n := range b.JumpTo[p] {
		if int(n) == q {
			return Direction(d), true
		}
	}
	return 0, false
}

// All returns the set of every point.
func (b *Board) All() Bits { return b.all }
