package game

import (
	"slices"
	"strconv"
	"strings"
)

// Diagram draws the position as text: every point with its lines, row
// numbers on the left and column letters below. Pieces are S P K (South) and
// s p k (North), empty points '.', and a piece in the middle of a capture
// chain is marked with '*' after it.
func (p *Position) Diagram() string { return p.DiagramMarked(nil) }

// DiagramMarked is Diagram with the points in marks drawn in brackets,
// such as [S] or [.] (for a player: the start and end of the last turn).
func (p *Position) DiagramMarked(marks []int) string {
	b := p.rules.Board
	cols := 2*b.Width - 1
	var sb strings.Builder
	label := func(s string) { sb.WriteString(strings.Repeat(" ", 3-len(s)) + s + " ") }
	for y := b.Height - 1; y >= 0; y-- {
		row := []byte(strings.Repeat(" ", cols+1))
		for x := y % 2; x < b.Width; x += 2 {
			q := b.At(x, y)
			c := byte('.')
			if s, r, ok := p.PieceAt(q); ok {
				c = pieceLetters[s][r]
			}
			row[2*x] = c
			if q == int(p.chain) {
				row[2*x+1] = '*'
			}
			if y%2 == 0 && x+2 < b.Width {
				copy(row[2*x+1+btoi(q == int(p.chain)):2*x+4], "---")
			}
		}
		if y%2 == 1 {
			for x := 0; x < b.Width; x += 2 {
				row[2*x] = '|'
			}
		}
		// The row with its label's space before it, where the bracket of a
		// point in the first column goes.
		row = append([]byte{' '}, row...)
		for x := y % 2; x < b.Width; x += 2 {
			if q := b.At(x, y); slices.Contains(marks, q) {
				row[2*x] = '['
				if q != int(p.chain) {
					row[2*x+2] = ']'
				}
			}
		}
		num := strconv.Itoa(y + 1)
		sb.WriteString(strings.Repeat(" ", 3-len(num)) + num + strings.TrimRight(string(row), " ") + "\n")
		if y == 0 {
			break
		}
		// The lines between row y and row y-1.
		between := []byte(strings.Repeat(" ", cols))
		for x := 0; x < b.Width; x += 2 {
			between[2*x] = '|'
			if x+2 < b.Width {
				if y%2 == 0 { // corner row above, centre row below
					between[2*x+1], between[2*x+3] = '\\', '/'
				} else {
					between[2*x+1], between[2*x+3] = '/', '\\'
				}
			}
		}
		label("")
		sb.WriteString(string(between) + "\n")
	}
	label("")
	for x := 0; x < b.Width; x++ {
		sb.WriteByte(byte('a' + x))
		if x+1 < b.Width {
			sb.WriteByte(' ')
		}
	}
	sb.WriteString("\n")
	return sb.String()
}

// PieceLetter is the letter of a piece of side s and rank r in diagrams
// and FEN: S P K for South's soldier, prince and king, s p k for North's.
func PieceLetter(s Side, r Rank) byte { return pieceLetters[s][r] }

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
