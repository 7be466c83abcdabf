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

// The encoding versions: the layout of the planes. A model records its
// encoding's version and is refused by code that does not know it.
const (
	// Version is the layout of the base planes, the planes of every
	// network.
	Version = 1
	// VersionTactical is the base planes followed by the TacticalPlanes
	// (Options.Tactical).
	VersionTactical = 2
)

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
	// BasePlanes is the number of input planes per point of version 1.
	BasePlanes = planeRules + numRuleFlags
)

// The tactical planes follow the base planes (Options.Tactical). They are
// the capture facts of the position, from the legal turns of the rules
// engine (game.Position.Captures), so every variant's rules hold: ranks,
// compulsory capture, chains that must go on, optional captures, single
// combat. Inside a capture chain they come from the legal turns as they are
// (the ways to finish the chain); the opponent's are those of its next turn
// as if the chain had ended.
const (
	planeThreatened  = BasePlanes + iota // own pieces some turn of the opponent would capture, were it to move now
	planeTakeable                        // enemy pieces some legal turn of the side to move captures
	planeCaptureEnds                     // points where a legal capture turn of the side to move ends
	planeThreatEnds                      // points where a capture turn of the opponent, were it to move now, would end
	// TacticalPlanes is the number of tactical planes.
	TacticalPlanes = iota
)

// Options choose the optional planes of an encoding.
type Options struct {
	// Tactical appends the TacticalPlanes after the base planes.
	Tactical bool
}

// Planes returns the number of input planes per point of the encoding.
func (o Options) Planes() int {
	if o.Tactical {
		return BasePlanes + TacticalPlanes
	}
	return BasePlanes
}

// Version returns the encoding's version: Version, or VersionTactical with
// the tactical planes.
func (o Options) Version() int {
	if o.Tactical {
		return VersionTactical
	}
	return Version
}

// OptionsOf returns the options of encoding version v, or an error if this
// program does not know the version.
func OptionsOf(v int) (Options, error) {
	switch v {
	case Version:
		return Options{}, nil
	case VersionTactical:
		return Options{Tactical: true}, nil
	}
	return Options{}, fmt.Errorf("encoding version %d, this program reads versions %d and %d", v, Version, VersionTactical)
}

// Encoder encodes positions of one variant. It is immutable and safe for
// concurrent use.
type Encoder struct {
	rules  *game.Rules
	board  *game.Board
	opts   Options
	points int
	planes int
	consts [numRuleFlags]float32
	farRow []bool // canonical frame: the top row
}

// New returns the encoder of variant r with options o.
func New(r *game.Rules, o Options) *Encoder {
	b := r.Board
	e := &Encoder{rules: r, board: b, opts: o, points: b.Points(), planes: o.Planes(), farRow: make([]bool, b.Points())}
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

// Options returns the encoder's options.
func (e *Encoder) Options() Options { return e.opts }

// Points returns the number of points, the first dimension of an input.
func (e *Encoder) Points() int { return e.points }

// Planes returns the number of input planes per point, the second
// dimension of an input.
func (e *Encoder) Planes() int { return e.planes }

// InputSize returns the number of floats of one encoded position.
func (e *Encoder) InputSize() int { return e.points * e.planes }

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

// Encode writes p's planes to dst, point-major: dst[q*Planes() + plane].
// dst must hold InputSize floats.
func (e *Encoder) Encode(p *game.Position, dst []float32) {
	dst = dst[:e.InputSize()]
	clear(dst)
	var q game.Position
	if frame(p) == game.HalfTurnSwap {
		q = game.HalfTurnSwap.Position(p)
		p = &q
	}
	me, P := p.SideToMove(), e.planes
	for r := game.Soldier; r < game.NumRanks; r++ {
		for bits := p.Pieces(me, r); !bits.Empty(); {
			dst[bits.PopFirst()*P+planeOwn+int(r)] = 1
		}
		for bits := p.Pieces(me.Other(), r); !bits.Empty(); {
			dst[bits.PopFirst()*P+planeTheirs+int(r)] = 1
		}
	}
	if c := p.Chain(); c >= 0 {
		dst[c*P+planeChain] = 1
	}
	if s := p.ChainStart(); s >= 0 {
		dst[s*P+planeChainStart] = 1
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
		row := dst[pt*P : (pt+1)*P]
		row[planeOnBoard] = 1
		if e.farRow[pt] {
			row[planeFarRow] = 1
		}
		row[planeQuiet], row[planePly], row[planePassed] = quiet, ply, passed
		copy(row[planeRules:], e.consts[:])
	}
	if e.opts.Tactical {
		e.encodeTactical(p, dst)
	}
}

// encodeTactical writes the tactical planes of p, which is in the side to
// move's frame.
func (e *Encoder) encodeTactical(p *game.Position, dst []float32) {
	P := e.planes
	set := func(bits game.Bits, plane int) {
		for !bits.Empty() {
			dst[bits.PopFirst()*P+plane] = 1
		}
	}
	taken, ends := p.Captures()
	set(taken, planeTakeable)
	set(ends, planeCaptureEnds)
	theirs := p.TurnOf(p.SideToMove().Other())
	threatened, threatEnds := theirs.Captures()
	set(threatened, planeThreatened)
	set(threatEnds, planeThreatEnds)
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

// Ownership writes to dst the ownership target of a training sample of
// position p from a game that ended in position final: for every point,
// in the order of Encode's points (p's side-to-move frame), 1 if final
// holds a piece of p's side to move there, -1 a piece of the other side,
// 0 if the point is empty. dst must hold Points values.
func (e *Encoder) Ownership(p, final *game.Position, dst []int8) {
	dst = dst[:e.points]
	me, f := p.SideToMove(), final
	if frame(p) == game.HalfTurnSwap {
		img := game.HalfTurnSwap.Position(final)
		me, f = me.Other(), &img
	}
	own, theirs := f.Occupied(me), f.Occupied(me.Other())
	for q := range dst {
		switch {
		case own.Has(q):
			dst[q] = 1
		case theirs.Has(q):
			dst[q] = -1
		default:
			dst[q] = 0
		}
	}
}

// MirrorPoint returns the point of the left-right mirror image of point q
// of the network's input, for mirror augmentation: the mirror of a
// position encodes as its planes with point q moved to MirrorPoint(q), and
// so does its ownership target.
func (e *Encoder) MirrorPoint(q int) int { return e.board.Mirror(q) }

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
