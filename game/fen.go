package game

import (
	"fmt"
	"strconv"
	"strings"
)

var pieceLetters = [2][NumRanks]byte{{'S', 'P', 'K'}, {'s', 'p', 'k'}}

// FENError is a malformed position; Field names the part at fault.
type FENError struct {
	FEN    string
	Field  string // "rows", "row 7", "side", "chain", "quiet", "turn"
	Reason string
}

func (e *FENError) Error() string {
	fen := e.FEN
	if len(fen) > 120 {
		fen = fen[:117] + "..."
	}
	return fmt.Sprintf("FEN %q: %s: %s", fen, e.Field, e.Reason)
}

// BoardOfFEN returns the lines (columns × rows) that the rows of a FEN imply.
func BoardOfFEN(fen string) (cols, rows int, err error) {
	fields := strings.Fields(fen)
	if len(fields) == 0 {
		return 0, 0, &FENError{fen, "rows", "empty position"}
	}
	rowTexts := strings.Split(fields[0], "/")
	if len(rowTexts)%2 == 0 {
		return 0, 0, &FENError{fen, "rows", fmt.Sprintf("%d rows; a board has an odd number (corner and centre rows alternate)", len(rowTexts))}
	}
	n := 0
	for _, c := range rowTexts[0] {
		if c >= '1' && c <= '9' {
			n += int(c - '0')
		} else {
			n++
		}
	}
	return n, (len(rowTexts) + 1) / 2, nil
}

// ParseSetup reads the position a game of variant r starts from: the
// variant's start for "" or "startpos", else a position in FEN (ParseFEN).
func ParseSetup(r *Rules, setup string) (Position, error) {
	if setup == "" || setup == "startpos" {
		return r.Start(), nil
	}
	return ParseFEN(r, setup)
}

// ParseFEN reads a position of variant r in the notation
// "<rows> <side> [<chain> [<quiet> [<turn>]]]". Every error names the field
// at fault; a board of the wrong size is an error.
func ParseFEN(r *Rules, fen string) (Position, error) {
	b := r.Board
	bad := func(field, format string, args ...any) (Position, error) {
		return Position{}, &FENError{FEN: fen, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	fields := strings.Fields(fen)
	if len(fields) < 2 {
		return bad("side", "missing: a position is <rows> <side> [<chain> [<quiet> [<turn>]]]")
	}
	if len(fields) > 5 {
		return bad("fields", "%d fields; at most 5 (<rows> <side> <chain> <quiet> <turn>)", len(fields))
	}
	p := Position{rules: r, chain: -1, chainStart: -1}
	rowTexts := strings.Split(fields[0], "/")
	if len(rowTexts) != b.Height {
		cols, rows, err := BoardOfFEN(fen)
		if err != nil {
			return bad("rows", "%d rows, but variant %s has %d (a %d×%d board)", len(rowTexts), r.Name, b.Height, b.Cols, b.Rows)
		}
		return bad("rows", "%d rows (a %d×%d board?), but variant %s has %d (a %d×%d board)", len(rowTexts), cols, rows, r.Name, b.Height, b.Cols, b.Rows)
	}
	for i, text := range rowTexts {
		y := b.Height - 1 - i
		want := b.Cols - y%2
		field := "row " + strconv.Itoa(y+1)
		x := y % 2
		n := 0
		for _, c := range []byte(text) {
			switch {
			case c >= '1' && c <= '9':
				n += int(c - '0')
				x += 2 * int(c-'0')
				continue
			case n >= want:
				n++
				continue
			}
			side, rank, ok := pieceOfLetter(c)
			if !ok {
				return bad(field, "unknown letter %q (pieces are S P K for South, s p k for North, digits for empty points)", c)
			}
			p.put(side, rank, b.At(x, y))
			n++
			x += 2
		}
		if n != want {
			return bad(field, "%q has %d points, want %d", text, n, want)
		}
	}
	switch fields[1] {
	case "s", "S":
		p.setSide(South)
	case "n", "N":
		p.setSide(North)
	default:
		return bad("side", "%q: want s (South) or n (North)", fields[1])
	}
	if len(fields) > 2 && fields[2] != "-" {
		q, err := b.ParseSquare(fields[2])
		if err != nil {
			return bad("chain", "%v", err)
		}
		if !p.occ[p.side].Has(q) {
			return bad("chain", "%s holds no piece of the side to move", b.Name(q))
		}
		p.setChain(q, -1)
		p.captured = true
	}
	turn := 1
	for i, name := range []string{"quiet", "turn"} {
		if len(fields) <= 3+i {
			break
		}
		v, err := strconv.Atoi(fields[3+i])
		if err != nil || v < 0 || v > 1_000_000 {
			return bad(name, "%q: want a whole number from 0 to 1000000", fields[3+i])
		}
		if i == 0 {
			p.quiet = int32(v)
		} else if turn = v; v < 1 {
			return bad(name, "%q: turns are numbered from 1", fields[3+i])
		}
	}
	p.ply = r.startPly(p.side, turn)
	p.refreshStatus()
	return p, nil
}

func pieceOfLetter(c byte) (Side, Rank, bool) {
	for s := range 2 {
		for r := range NumRanks {
			if pieceLetters[s][r] == c {
				return Side(s), Rank(r), true
			}
		}
	}
	return 0, 0, false
}

// FEN returns the position in the notation ParseFEN reads. The chain, quiet
// and turn fields are left out when they are at their defaults.
func (p *Position) FEN() string {
	var sb strings.Builder
	sb.WriteString(p.BoardFEN())
	if p.side == South {
		sb.WriteString(" s")
	} else {
		sb.WriteString(" n")
	}
	ply := int(p.ply)
	if p.side != p.rules.First {
		ply--
	}
	turn := max(ply, 0)/2 + 1
	if p.chain >= 0 || p.quiet != 0 || turn != 1 {
		if p.chain >= 0 {
			sb.WriteString(" " + p.rules.Board.Name(int(p.chain)))
		} else {
			sb.WriteString(" -")
		}
		if p.quiet != 0 || turn != 1 {
			fmt.Fprintf(&sb, " %d", p.quiet)
			if turn != 1 {
				fmt.Fprintf(&sb, " %d", turn)
			}
		}
	}
	return sb.String()
}

// BoardFEN returns the rows field of the FEN.
func (p *Position) BoardFEN() string {
	b := p.rules.Board
	var sb strings.Builder
	for y := b.Height - 1; y >= 0; y-- {
		empty := 0
		for x := y % 2; x < b.Width; x += 2 {
			q := b.At(x, y)
			s, r, ok := p.PieceAt(q)
			if !ok {
				empty++
				continue
			}
			for ; empty > 0; empty -= min(empty, 9) {
				sb.WriteByte(byte('0' + min(empty, 9)))
			}
			sb.WriteByte(pieceLetters[s][r])
		}
		for ; empty > 0; empty -= min(empty, 9) {
			sb.WriteByte(byte('0' + min(empty, 9)))
		}
		if y > 0 {
			sb.WriteByte('/')
		}
	}
	return sb.String()
}
