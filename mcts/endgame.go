package mcts

import (
	"context"
	"fmt"
	"sync"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/game/endgame"
)

// MaxEndgamePieces bounds EndgameTables.Pieces: an ending of three pieces
// solves in seconds and a few megabytes; one of four takes minutes and
// gigabytes (endgame.MaxPieces).
const MaxEndgamePieces = 3

// EndgameTables plays the endings of up to Pieces pieces in all
// perfectly, from exact tables (package endgame): the fastest win within
// the no-capture limit, a turn that keeps a draw, the longest resistance.
// A search does not: one piece never catches another on the dablot board,
// two win against one only by a hunt of up to 50 turns, and at 1 s a
// decision the shipped dablot model drew three such wins in 40 games
// (docs/experiments/2026-11-strength.md §29).
//
// An ending's table is solved the first time a player of the process
// reaches it, and kept for every later game of the same rules: a few
// seconds for three pieces, spent outside the decision's time limit, as an
// engine loads its tables before it plays. It is safe for concurrent use.
type EndgameTables struct {
	// Pieces is the most pieces, both sides together, of a position the
	// tables play: 2 to MaxEndgamePieces.
	Pieces int
}

// NewEndgameTables returns tables for the endings of up to pieces pieces.
func NewEndgameTables(pieces int) (*EndgameTables, error) {
	if pieces < 2 || pieces > MaxEndgamePieces {
		return nil, fmt.Errorf("mcts: endgame tables of %d pieces: want 2 to %d", pieces, MaxEndgamePieces)
	}
	return &EndgameTables{Pieces: pieces}, nil
}

// Turn returns the decisions of the turn the tables play in p, ok false
// if p is not an ending of up to e.Pieces pieces at the start of a turn.
// Rules the tables cannot follow (endgame.Check) are an error.
func (e *EndgameTables) Turn(ctx context.Context, p *game.Position) ([]game.Decision, bool, error) {
	ds, _, ok, err := e.Play(ctx, p)
	return ds, ok, err
}

// Play is Turn with p's result for the side to move, as the tables give
// it for p's no-capture counter.
func (e *EndgameTables) Play(ctx context.Context, p *game.Position) ([]game.Decision, endgame.Result, bool, error) {
	if p.Chain() >= 0 || p.Status().Over() || p.PieceCount() > e.Pieces {
		return nil, endgame.Result{}, false, nil
	}
	t, err := solvedEnding(ctx, p.Rules(), endgame.MaterialOf(p))
	if err != nil {
		return nil, endgame.Result{}, false, err
	}
	turn, res, ok := t.BestTurn(p)
	if !ok {
		return nil, endgame.Result{}, false, nil
	}
	ds, err := p.TurnDecisions(turn)
	if err != nil {
		return nil, endgame.Result{}, false, fmt.Errorf("mcts: the endgame tables' turn %v in %s: %w", turn, p.FEN(), err)
	}
	return ds, res, true, nil
}

// endings holds the endings solved so far in this process, by rules
// (game.Rules.Canonical) and material.
var endings = struct {
	sync.Mutex
	m map[endingKey]*solvedTable
}{m: map[endingKey]*solvedTable{}}

type endingKey struct {
	rules    string
	material endgame.Material
}

// solvedTable is one ending's tables, solved once (by the first caller;
// the others wait for it).
type solvedTable struct {
	once sync.Once
	t    *endgame.Tables
	err  error
}

// solvedEnding returns the tables of ending m of rules r, solving them on
// first use.
func solvedEnding(ctx context.Context, r *game.Rules, m endgame.Material) (*endgame.Tables, error) {
	k := endingKey{r.Canonical(), m}
	endings.Lock()
	s := endings.m[k]
	if s == nil {
		s = &solvedTable{}
		endings.m[k] = s
	}
	endings.Unlock()
	s.once.Do(func() {
		s.t, s.err = endgame.Solve(context.WithoutCancel(ctx), r, []endgame.Material{m}, nil)
		if s.err != nil {
			s.err = fmt.Errorf("mcts: endgame tables: %w", s.err)
		}
	})
	return s.t, s.err
}
