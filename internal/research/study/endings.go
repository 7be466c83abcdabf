package study

import "github.com/dablot-zero/dablot/game"

// Ending is where a game first reached an ending of a few pieces, if it
// did: the position at the start of a turn with no more pieces on the
// board than asked, which exact tables (package endgame) can judge and
// play; and how the game ended.
type Ending struct {
	Record       int    // the record's number in its file, from 1
	South, North string // the players
	// Reached is whether the game reached such a position; Turn is the
	// turns played before it (0: the game began there).
	Reached  bool
	Turn     int
	Position game.Position
	// Result is the game's end; Turns its length.
	Result game.Status
	Turns  int
}

// Endings replays each record (variant r) and returns, for each game,
// the first position with at most pieces pieces at the start of a turn
// that it reached, if any. A record that does not replay, or does not
// end (by the rules or declared adjudicated), is a *RecordError.
func Endings(recs []*game.Record, r *game.Rules, pieces int) ([]Ending, error) {
	out := make([]Ending, 0, len(recs))
	for i, rec := range recs {
		e := Ending{Record: i + 1, South: rec.South, North: rec.North, Turns: len(rec.Turns)}
		_, end, err := replayFinished(i, rec, r, func(k int, p *game.Position) {
			if !e.Reached && p.PieceCount() <= pieces && !p.Status().Over() {
				e.Reached, e.Turn, e.Position = true, k, *p
			}
		})
		if err != nil {
			return nil, err
		}
		e.Result = end
		out = append(out, e)
	}
	return out, nil
}
