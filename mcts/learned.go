package mcts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/dablot-zero/dablot/game"
)

// LearnedEval is an evaluation for the alpha-beta search of the guard
// fitted to the results of games (train/evalfit) in place of the
// hand-written material and mobility: a value for each rank on each
// point, seen from its owner's side of the board, and a value for each
// step of mobility, in evaluation units (the soldier's value averaged
// over the points is 100, as the hand-written soldier is). The hunt term
// of the alpha-beta players stays: it presses a won game, which results
// do not teach.
type LearnedEval struct {
	Variant string `json:"variant"`
	Points  int    `json:"points"`
	// Square[r][q] is the value of a piece of rank r on point q for the
	// side that owns it, q as South sees the board (North's points are
	// turned by the half-turn, game.Board.Rotate).
	Square   [game.NumRanks][]int `json:"square"`
	Mobility int                  `json:"mobility"`
	// Fit says what it was fitted to (informational).
	Fit LearnedFit `json:"fit"`
}

// LearnedFit is the provenance and quality of a LearnedEval's fit.
type LearnedFit struct {
	Source    string `json:"source"`
	Games     int    `json:"games"`
	Positions int    `json:"positions"`
	// Loss is the mean cross-entropy of the game results under the fit on
	// the games held out; HandLoss the same of the hand-written
	// evaluation (material and mobility) with its scale fitted alone.
	Loss     float64 `json:"loss"`
	HandLoss float64 `json:"hand_loss"`
	Held     int     `json:"held_out_positions"`
	L2       float64 `json:"l2"` // the penalty on the squares' offsets
	Code     string  `json:"code,omitempty"`
}

// Bounds of a learned evaluation file.
const (
	maxLearnedBytes = 1 << 20
	maxLearnedValue = MaxGuardKingValue * 100 // no square worth more than the guard's largest king
)

// Check reports the first value that makes e unusable on board b of
// variant name.
func (e *LearnedEval) Check(variant string, b *game.Board) error {
	if e.Variant != variant {
		return fmt.Errorf("learned evaluation of variant %q, not %q", e.Variant, variant)
	}
	if e.Points != b.Points() {
		return fmt.Errorf("learned evaluation of %d points, the board has %d", e.Points, b.Points())
	}
	for r, sq := range e.Square {
		if len(sq) != e.Points {
			return fmt.Errorf("learned evaluation: %d values for rank %v, want %d", len(sq), game.Rank(r), e.Points)
		}
		for q, v := range sq {
			if v < -maxLearnedValue || v > maxLearnedValue {
				return fmt.Errorf("learned evaluation: rank %v on %s is %d, want -%d to %d", game.Rank(r), b.Name(q), v, maxLearnedValue, maxLearnedValue)
			}
		}
	}
	if e.Mobility < -maxLearnedValue || e.Mobility > maxLearnedValue {
		return fmt.Errorf("learned evaluation: mobility %d, want -%d to %d", e.Mobility, maxLearnedValue, maxLearnedValue)
	}
	return nil
}

// LoadLearnedEval reads a learned evaluation file (JSON, at most 1 MB)
// and checks its shape (Check once the board is known).
func LoadLearnedEval(path string) (*LearnedEval, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxLearnedBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxLearnedBytes {
		return nil, fmt.Errorf("%s: a learned evaluation is at most %d bytes", path, maxLearnedBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var e LearnedEval
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("%s: not a learned evaluation: %w", path, err)
	}
	if e.Points <= 0 || e.Points > game.MaxPoints {
		return nil, fmt.Errorf("%s: learned evaluation of %d points, want 1 to %d", path, e.Points, game.MaxPoints)
	}
	for _, sq := range e.Square {
		if len(sq) != e.Points {
			return nil, fmt.Errorf("%s: learned evaluation: %d values a rank, want %d", path, len(sq), e.Points)
		}
	}
	if e.Variant == "" {
		return nil, errors.New(path + ": learned evaluation without a variant")
	}
	return &e, nil
}

// ownPoint is point q as side s sees the board: South's as it is,
// North's turned by the half-turn.
func ownPoint(b *game.Board, s game.Side, q int) int {
	if s == game.North {
		return b.Rotate(q)
	}
	return q
}

// squares is the learned value of the side to move's pieces less the
// opponent's.
func (e *LearnedEval) squares(p *game.Position) int {
	b, me := p.Board(), p.SideToMove()
	v := 0
	for r := range game.Rank(game.NumRanks) {
		sq := e.Square[r]
		for pcs := p.Pieces(me, r); !pcs.Empty(); {
			v += sq[ownPoint(b, me, pcs.PopFirst())]
		}
		for pcs := p.Pieces(me.Other(), r); !pcs.Empty(); {
			v -= sq[ownPoint(b, me.Other(), pcs.PopFirst())]
		}
	}
	return v
}

// Feature is one term of a linear evaluation: the weight at Index
// counts Value times.
type Feature struct {
	Index int
	Value float64
}

// LearnedFeatures returns the features of p that a LearnedEval weighs,
// for p's side to move, appended to dst: +1 for each of its pieces and −1
// for each of the opponent's at index r·points + the piece's point from
// its owner's side (LearnedEval.Square[r]), and the mobility balance at
// index NumRanks·points. A LearnedEval's evaluation before the hunt term
// is the sum of its weights by these features.
func (ab *AlphaBetaPlayer) LearnedFeatures(p *game.Position, dst []Feature) []Feature {
	ab.setSteps(p.Rules())
	b, me := p.Board(), p.SideToMove()
	n := b.Points()
	for r := range game.Rank(game.NumRanks) {
		for _, s := range [2]game.Side{me, me.Other()} {
			v := 1.0
			if s != me {
				v = -1
			}
			for pcs := p.Pieces(s, r); !pcs.Empty(); {
				dst = append(dst, Feature{int(r)*n + ownPoint(b, s, pcs.PopFirst()), v})
			}
		}
	}
	return append(dst, Feature{int(game.NumRanks) * n, float64(ab.mobility(p, me) - ab.mobility(p, me.Other()))})
}

// SetLearned makes ab evaluate with e in place of its material and
// mobility weights (nil: the weights again). e must suit the rules
// searched (LearnedEval.Check).
func (ab *AlphaBetaPlayer) SetLearned(e *LearnedEval) { ab.learned = e }
