package study

import (
	"bytes"
	"context"
	"fmt"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/mcts/match"
	"github.com/dablot-zero/dablot/net/durable"
)

// ReadRecordsFile reads a file of game records, JSON lines or PGN
// (game.ReadRecords): a regular file of at most game.MaxRecordsBytes. Its
// errors name the file.
func ReadRecordsFile(path string) ([]*game.Record, error) {
	data, err := durable.ReadFile(path, "game records file", game.MaxRecordsBytes)
	if err != nil {
		return nil, err
	}
	recs, err := game.ReadRecords(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}

// RecordError is a game record of a list that does not replay: Record
// counts from 1, and Turn, the bad turn's number from 1, is 0 when the
// record's start is bad.
type RecordError struct {
	Record, Turn int
	Text         string // the bad turn
	Err          error
}

func (e *RecordError) Error() string {
	if e.Turn == 0 {
		return fmt.Sprintf("record %d: %v", e.Record, e.Err)
	}
	return fmt.Sprintf("record %d, turn %d %q: %v", e.Record, e.Turn, e.Text, e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

// RecordPositions returns positions to judge players on, taken from game
// records of variant r: in each game, the positions before turns from,
// from+every, … up to (not including) turn to, counting turns from 0.
func RecordPositions(recs []*game.Record, r *game.Rules, from, to, every int) ([]game.Position, error) {
	var out []game.Position
	err := walkRecordPositions(recs, r, from, to, every, func(_, _ int, p *game.Position) {
		out = append(out, *p)
	})
	return out, err
}

// walkRecordPositions replays recs (games of variant r) and calls visit
// with the record (from 0), the turn (from 0) and the position before
// turns from, from+every, … below to of each game that is not over. A
// record that does not replay is a *RecordError.
func walkRecordPositions(recs []*game.Record, r *game.Rules, from, to, every int, visit func(record, turn int, p *game.Position)) error {
	if every < 1 {
		return fmt.Errorf("every %d: want 1 or more", every)
	}
	for i, rec := range recs {
		p, err := rec.StartPosition(r)
		if err != nil {
			return &RecordError{Record: i + 1, Err: err}
		}
		for k, t := range rec.Turns {
			if k >= to {
				break
			}
			if k >= from && (k-from)%every == 0 && !p.Status().Over() {
				visit(i, k, &p)
			}
			if err := p.ApplyTurn(t); err != nil {
				return &RecordError{Record: i + 1, Turn: k + 1, Text: t, Err: err}
			}
		}
	}
	return nil
}

// BlunderStats counts the turns of a player that mcts.TurnJudge calls
// blunders: a soldier's worth of material or more below the best turn.
type BlunderStats struct {
	Positions int
	Blunders  int // loss of 1 soldier or more
	Big       int // loss of 3 soldiers or more
	MeanLoss  float64
}

// Rate returns the share of positions with a blunder, with its 95 %
// confidence interval (WDL.ScoreCI of blunders as wins, the rest as losses).
func (b BlunderStats) Rate() (rate, lo, hi float64) {
	w := match.WDL{W: b.Blunders, L: b.Positions - b.Blunders}
	lo, hi = w.ScoreCI(0.95)
	return w.Score(), lo, hi
}

// JudgePlayer lets a player of f choose a turn in every position and
// judges each turn with mcts.TurnJudge, over threads goroutines (each with
// its own player, seeded from seed and its number). onDone, if not nil,
// is called after each position, from any goroutine but one at a time.
func JudgePlayer(ctx context.Context, positions []game.Position, f *mcts.Factory, threads int, seed uint64, onDone func()) (BlunderStats, error) {
	st := BlunderStats{Positions: len(positions)}
	losses := make([]float64, len(positions))
	w := uint64(0)
	err := parallel(len(positions), threads, func() (func(int) error, error) {
		pl, err := f.New(seed + w)
		w++
		if err != nil {
			return nil, err
		}
		var j mcts.TurnJudge
		return func(i int) error {
			p := positions[i]
			after := p
			if _, err := mcts.PlayTurn(ctx, pl, &after); err != nil {
				return fmt.Errorf("position %d (%s): %w", i+1, p.FEN(), err)
			}
			losses[i] = j.Loss(&p, &after)
			return nil
		}, nil
	}, onDone)
	if err != nil {
		return st, err
	}
	var sum float64
	for _, loss := range losses {
		sum += loss
		if loss >= 1 {
			st.Blunders++
		}
		if loss >= 3 {
			st.Big++
		}
	}
	if st.Positions > 0 {
		st.MeanLoss = sum / float64(st.Positions)
	}
	return st, nil
}
