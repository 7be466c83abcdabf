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
	every = max(every, 1)
	type key struct {
		holder string
		class  RaceClass
	}
	sums := map[key]*RaceBelief{}
	var holders []string
	var batch []mcts.Request
	var keys []key
	var won []bool
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := ev.Evaluate(batch); err != nil {
			return err
		}
		for i := range batch {
			b := sums[keys[i]]
			wdl := batch[i].WDL
			if holderToMove := batch[i].Pos.SideToMove() == holderSide(&batch[i].Pos); holderToMove {
				b.Belief += float64(wdl[0])
			} else {
				b.Belief += float64(wdl[2])
			}
			if won[i] {
				b.Won++
			}
		}
		batch, keys, won = batch[:0], keys[:0], won[:0]
		return nil
	}
	for i, rec := range recs {
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
		if !slices.Contains(holders, name) {
			holders = append(holders, name)
		}
		gameWon := st.Outcome.ScoreFor(holder) == 1
		seen := map[RaceClass]bool{}
		for _, p := range positions {
			k := key{name, raceClass(besideKings(&p, holder), besideKings(&p, holder.Other()))}
			if sums[k] == nil {
				sums[k] = &RaceBelief{Holder: name, Class: k.class}
			}
			sums[k].Positions++
			if !seen[k.class] {
				seen[k.class] = true
				sums[k].Games++
			}
			batch = append(batch, mcts.Request{Pos: p, Legal: p.Decisions(nil)})
			batch[len(batch)-1].Priors = make([]float32, len(batch[len(batch)-1].Legal))
			keys, won = append(keys, k), append(won, gameWon)
			if len(batch) == raceBatch {
				if err := flush(); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	out := make([]RaceBelief, 0, len(sums))
	for _, b := range sums {
		out = append(out, *b)
	}
	slices.SortFunc(out, func(a, b RaceBelief) int {
		if c := slices.Index(holders, a.Holder) - slices.Index(holders, b.Holder); c != 0 {
			return c
		}
		if a.Class.Beside != b.Class.Beside {
			return a.Class.Beside - b.Class.Beside
		}
		return a.Class.Against - b.Class.Against
	})
	return out, nil
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
