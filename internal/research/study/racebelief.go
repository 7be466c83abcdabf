package study

import (
	"slices"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
)

// RaceClass is a class of positions with one king on the board: the
// pieces beside it of the side that holds it (Beside, 0 to
// RaceBesideCap, the last meaning that many or more) and the other
// side's pieces in steps of RaceAgainstStep (Against, 0 for 0 to 2, 1 for
// 3 to 5, and so on, up to RaceAgainstCap).
type RaceClass struct{ Beside, Against int }

// The bounds of RaceClass.
const (
	RaceBesideCap   = 6
	RaceAgainstStep = 3
	RaceAgainstCap  = 4
)

// raceClass returns the class of a position whose holder has beside
// pieces beside its king and whose other side has against pieces.
func raceClass(beside, against int) RaceClass {
	return RaceClass{min(beside, RaceBesideCap), min(against/RaceAgainstStep, RaceAgainstCap)}
}

// RaceBelief sums, for one player holding the only king and one class of
// positions, what a model believed and what came of it.
type RaceBelief struct {
	Holder    string // the player holding the only king
	Class     RaceClass
	Positions int     // positions of the class seen
	Belief    float64 // the sum of the model's win chance for the holder
	Won       int     // the positions whose game the holder won
	Games     int     // the games the positions came from
}

// RaceBeliefs replays the records (variant r) and, in every game in which
// one of two kings fell and the game went on, takes the positions every every turns
// from the first king's fall (the position just after it, then every'th
// turn on) while the game is not over. For each it asks ev for the
// model's win chance of the side holding the only king (its WDL: the win
// of the side to move, or the loss if the other side is to move), and sums
// those by the holder's player and the class of the position, beside the
// share of those positions whose game the holder won. So it shows whether
// the model knows which races are won against the play in the records.
// The sums come ordered by holder (in order of first appearance) and
// class. ev must fill the WDL of its requests (a network's does).
func RaceBeliefs(recs []*game.Record, r *game.Rules, every int, ev mcts.Evaluator) ([]RaceBelief, error) {
	acc := beliefSums{ev: ev, sums: map[beliefKey]*RaceBelief{}}
	for i, rec := range recs {
		positions, end, st, err := racePositions(i, rec, r, max(every, 1))
		if err != nil {
			return nil, err
		}
		if len(positions) == 0 {
			continue
		}
		holder := holderSide(&end)
		name := rec.South
		if holder == game.North {
			name = rec.North
		}
		if !slices.Contains(acc.holders, name) {
			acc.holders = append(acc.holders, name)
		}
		if err := acc.addGame(positions, name, holder, st.Outcome.ScoreFor(holder) == 1); err != nil {
			return nil, err
		}
	}
	if err := acc.flush(); err != nil {
		return nil, err
	}
	return acc.sorted(), nil
}

// racePositions replays record i (variant r) and returns the positions
// every every turns from the first king's fall while the game is not
// over (none if no king fell), with the game's end and status.
func racePositions(i int, rec *game.Record, r *game.Rules, every int) ([]game.Position, game.Position, game.Status, error) {
	var positions []game.Position
	fell, before := -1, 0
	end, st, err := replayFinished(i, rec, r, func(k int, p *game.Position) {
		kings := p.Pieces(game.South, game.King).Count() + p.Pieces(game.North, game.King).Count()
		if fell < 0 && before == 2 && kings == 1 {
			fell = k
		}
		before = kings
		if fell >= 0 && kings == 1 && (k-fell)%every == 0 && !p.Status().Over() {
			positions = append(positions, *p)
		}
	})
	return positions, end, st, err
}

// beliefKey names one sum of RaceBeliefs: a holder and a class.
type beliefKey struct {
	holder string
	class  RaceClass
}

// beliefSums gathers RaceBeliefs' sums, evaluating the positions in
// batches of raceBatch.
type beliefSums struct {
	ev      mcts.Evaluator
	sums    map[beliefKey]*RaceBelief
	holders []string // in order of first appearance
	batch   []mcts.Request
	keys    []beliefKey
	won     []bool
}

// addGame counts one game's positions, whose only king the player name
// holds as holder, and queues them for evaluation.
func (a *beliefSums) addGame(positions []game.Position, name string, holder game.Side, gameWon bool) error {
	seen := map[RaceClass]bool{}
	for _, p := range positions {
		k := beliefKey{name, raceClass(besideKings(&p, holder), besideKings(&p, holder.Other()))}
		if a.sums[k] == nil {
			a.sums[k] = &RaceBelief{Holder: name, Class: k.class}
		}
		a.sums[k].Positions++
		if !seen[k.class] {
			seen[k.class] = true
			a.sums[k].Games++
		}
		legal := p.Decisions(nil)
		a.batch = append(a.batch, mcts.Request{Pos: p, Legal: legal, Priors: make([]float32, len(legal))})
		a.keys, a.won = append(a.keys, k), append(a.won, gameWon)
		if len(a.batch) == raceBatch {
			if err := a.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// flush evaluates the queued positions and adds the holder's win chance
// (its WDL's win if it is to move, else the loss) to their sums.
func (a *beliefSums) flush() error {
	if len(a.batch) == 0 {
		return nil
	}
	if err := a.ev.Evaluate(a.batch); err != nil {
		return err
	}
	for i := range a.batch {
		b := a.sums[a.keys[i]]
		wdl := a.batch[i].WDL
		if a.batch[i].Pos.SideToMove() == holderSide(&a.batch[i].Pos) {
			b.Belief += float64(wdl[0])
		} else {
			b.Belief += float64(wdl[2])
		}
		if a.won[i] {
			b.Won++
		}
	}
	a.batch, a.keys, a.won = a.batch[:0], a.keys[:0], a.won[:0]
	return nil
}

// sorted returns the sums ordered by holder (in order of first
// appearance), then class.
func (a *beliefSums) sorted() []RaceBelief {
	out := make([]RaceBelief, 0, len(a.sums))
	for _, b := range a.sums {
		out = append(out, *b)
	}
	slices.SortFunc(out, func(x, y RaceBelief) int {
		if c := slices.Index(a.holders, x.Holder) - slices.Index(a.holders, y.Holder); c != 0 {
			return c
		}
		if x.Class.Beside != y.Class.Beside {
			return x.Class.Beside - y.Class.Beside
		}
		return x.Class.Against - y.Class.Against
	})
	return out
}

// raceBatch is how many positions RaceBeliefs evaluates at once.
const raceBatch = 64

// holderSide is the side that has a king in p, which has exactly one.
func holderSide(p *game.Position) game.Side {
	if p.Pieces(game.South, game.King).Empty() {
		return game.North
	}
	return game.South
}
