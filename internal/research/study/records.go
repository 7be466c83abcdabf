package study

import (
	"fmt"

	"github.com/dablot-zero/dablot/game"
)

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

// replay replays rec, record i (from 0) of a list of games of variant r.
// It calls visit, if not nil, with each position the game passes through:
// the one before turn k for k = 0, 1, …, len(rec.Turns), the last being
// the final position; visit returns false to stop the replay there. replay
// returns the last position it reached. A record that does not replay is
// a *RecordError.
func replay(i int, rec *game.Record, r *game.Rules, visit func(k int, p *game.Position) bool) (game.Position, error) {
	p, err := rec.StartPosition(r)
	if err != nil {
		return p, &RecordError{Record: i + 1, Err: err}
	}
	for k := 0; ; k++ {
		if visit != nil && !visit(k, &p) {
			return p, nil
		}
		if k == len(rec.Turns) {
			return p, nil
		}
		if err := p.ApplyTurn(rec.Turns[k]); err != nil {
			return p, &RecordError{Record: i + 1, Turn: k + 1, Text: rec.Turns[k], Err: err}
		}
	}
}

// replayFinished is replay over the whole game, which must end: by the
// rules, or adjudicated as the record declares (self-play ends games by
// its tables or a king race before the rules do). It returns the final
// position and how the game ended. A record that does not end, or whose
// declared result the rules contradict, is a *RecordError too.
func replayFinished(i int, rec *game.Record, r *game.Rules, visit func(k int, p *game.Position)) (game.Position, game.Status, error) {
	p, err := replay(i, rec, r, func(k int, p *game.Position) bool {
		visit(k, p)
		return true
	})
	if err != nil {
		return p, game.Status{}, err
	}
	declared, err := rec.Declared()
	st := p.Status()
	switch {
	case err != nil:
	case st.Over() && declared.Over() && declared.Outcome != st.Outcome:
		err = fmt.Errorf("the record says %s, but the game ends %s (%s)", rec.Result, st.Outcome.Result(), st)
	case st.Over():
		return p, st, nil
	case declared.Reason == game.Adjudicated:
		return p, declared, nil
	default:
		err = fmt.Errorf("the game is unfinished after %d turns", len(rec.Turns))
	}
	return p, st, &RecordError{Record: i + 1, Err: err}
}

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
		_, err := replay(i, rec, r, func(k int, p *game.Position) bool {
			if k >= to || k == len(rec.Turns) {
				return false
			}
			if k >= from && (k-from)%every == 0 && !p.Status().Over() {
				visit(i, k, p)
			}
			return true
		})
		if err != nil {
			return err
		}
	}
	return nil
}
