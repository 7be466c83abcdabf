// Package encode turns game positions into the network's input tensors and
// maps decisions to and from policy indices.
//
// Positions are seen from the side to move: when North is to move, the board
// is turned a half-turn and the colours swapped, so the network always sees
// its own pieces moving up the board. A position and its half-turn image
// therefore encode identically. The policy index of a decision is its
// number in that frame: from·16 + direction·2 + (0 step, 1 jump), with stop
// and pass at 16·points.
package encode

import (
	"fmt"

	"github.com/dablot-zero/dablot/game"
)

// Version identifies the layout of the planes; a model records it and is
// refused by code with another version.
const Version = 1

// The planes, in order, for each point.
const (
	planeOwn        = 0 // own soldier, prince, king: 0..2
	planeTheirs     = 3 // enemy soldier, prince, king: 3..5
	planeChain      = 6 // the piece in the middle of a capture chain
	planeChainStart = 7 // where that chain started
	planeOnBoard    = 8 // 1 everywhere (tells real points from padding)
	planeFarRow     = 9 // the side to move's farthest row
	planeQuiet      = 10
	planePly        = 11
	planePassed     = 12 // the opponent passed last turn
	planeRules      = 13 // constant planes of rule flags follow
	numRuleFlags    = 3*(2+5) + 8
	// Planes is the number of input planes per point.
	Planes = planeRules + numRuleFlags
)

// Encoder encodes positions of one variant. It is immutable and safe for
// concurrent use.
type Encoder struct {
	rules  *game.Rules
	board  *game.Board
	points int
	consts [numRuleFlags]float32
	farRow []bool // canonical frame: the top row
}

// New returns the encoder of variant r.
func New(r *game.Rules) *Encoder {
	b := r.Board
	e := &Encoder{rules: r, board: b, points: b.Points(), farRow: make([]bool, b.Points())}
	for q := range e.points {
		_, y := b.XY(q)
		e.farRow[q] = y == b.Height-1
	}
	i := 0
	flag := func(v bool) {
		if v {
			e.consts[i] = 1
		}
		i++
	}
	groups := []uint8{1 << 0, 1<<1 | 1<<7, 1<<2 | 1<<6, 1<<3 | 1<<5, 1 << 4}
	for _, rr := range r.Ranks {
		flag(rr.MustCapture)
		flag(rr.ChainMustContinue)
		for _, g := range groups {
			flag(rr.Step&g != 0)
		}
	}
	flag(r.NoReturn)
	flag(r.PromoteTo != game.Soldier)
	flag(r.SingleCombat)
	flag(r.WinKingCaptured)
	flag(r.WinLoneKing)
	flag(r.WinImmobilised)
	flag(r.DrawKingsOnly)
	flag(r.NoMove == game.NoMovePasses)
	if i != numRuleFlags {
		panic(fmt.Sprintf("encode: %d rule flags, want %d", i, numRuleFlags))
	}
	return e
}

// Rules returns the variant.
func (e *Encoder) Rules() *game.Rules { return e.rules }

// Points returns the number of points, the first dimension of an input.
func (e *Encoder) Points() int { return e.points }

// InputSize returns the number of floats of one encoded position.
func (e *Encoder) InputSize() int { return e.points * Planes }

// PolicySize returns the number of policy entries.
func (e *Encoder) PolicySize() int { return game.PolicySize(e.points) }

// Neighbors returns the board graph the network is built on:
// Neighbors()[q][d] is the point one step from q in direction d, or -1.
func (e *Encoder) Neighbors() [][8]int32 {
	out := make([][8]int32, e.points)
	for q := range e.points {
		for d, n := range e.board.Neighbor[q] {
			out[q][d] = int32(n)
		}
	}
	return out
}

// frame returns the symmetry that takes p into the side-to-move frame.
func frame(p *game.Position) game.Symmetry {
	if p.SideToMove() == game.North {
		return game.HalfTurnSwap
	}
	return game.Identity
}

// Encode writes p's planes to dst, point-major: dst[q*Planes + plane].
// dst must hold InputSize floats.
func (e *Encoder) Encode(p *game.Position, dst []float32) {
	dst = dst[:e.InputSize()]
	clear(dst)
	var q game.Position
	if frame(p) == game.HalfTurnSwap {
		q = game.HalfTurnSwap.Position(p)
		p = &q
	}
	me := p.SideToMove()
	for r := game.Soldier; r < game.NumRanks; r++ {
		for bits := p.Pieces(me, r); !bits.Empty(); {
			dst[bits.PopFirst()*Planes+planeOwn+int(r)] = 1
		}
		for bits := p.Pieces(me.Other(), r); !bits.Empty(); {
			dst[bits.PopFirst()*Planes+planeTheirs+int(r)] = 1
		}
	}
	if c := p.Chain(); c >= 0 {
		dst[c*Planes+planeChain] = 1
	}
	if s := p.ChainStart(); s >= 0 {
		dst[s*Planes+planeChainStart] = 1
	}
	var quiet, ply float32
	if l := e.rules.NoCaptureLimit; l > 0 {
		quiet = float32(p.Quiet()) / float32(l)
	}
	if m := e.rules.MaxPlies; m > 0 {
		ply = float32(p.Ply()) / float32(m)
	}
	passed := float32(0)
	if p.Passes() > 0 {
		passed = 1
	}
	for pt := range e.points {
		row := dst[pt*Planes : (pt+1)*Planes]
		row[planeOnBoard] = 1
		if e.farRow[pt] {
			row[planeFarRow] = 1
		}
		row[planeQuiet], row[planePly], row[planePassed] = quiet, ply, passed
		copy(row[planeRules:], e.consts[:])
	}
}

// PolicyIndex returns the policy index of decision d in position p.
func (e *Encoder) PolicyIndex(p *game.Position, d game.Decision) int {
	return frame(p).Decision(e.board, d).PolicyIndex(e.board)
}

// LegalIndices appends to dst the policy index of each decision in ds (the
// legal decisions of p), in the same order.
func (e *Encoder) LegalIndices(p *game.Position, ds []game.Decision, dst []int32) []int32 {
	f := frame(p)
	for _, d := range ds {
		dst = append(dst, int32(f.Decision(e.board, d).PolicyIndex(e.board)))
	}
	return dst
}

// MirrorIndex returns the policy index of the left-right mirror image of the
// decision at index i, for mirror augmentation: the mirror of a position
// encodes as the mirror of its planes, and its policy as MirrorIndex of its
// policy. Stop and pass map to themselves.
func (e *Encoder) MirrorIndex(i int) int {
	if i >= e.points*game.DecisionsPerPoint {
		return i
	}
	return game.Mirror.Decision(e.board, game.Decision(i)).PolicyIndex(e.board)
}
