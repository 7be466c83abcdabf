package study

import (
	"slices"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts/match"
)

// KingRace is one game's race for the kings: whose king was taken first,
// when, and how the game ended. In dablot a king is taken only by a king,
// so the side left with the only king cannot lose its last piece, and the
// ladder's games follow the first king to fall (docs/experiments/2026-11-strength.md §11).
type KingRace struct {
	Record       int    // the record's number in its file, from 1
	South, North string // the players
	// Taken is whether some king was taken; FirstLost is the side whose
	// king fell first, at turn Turn (from 1), with Pieces on the board
	// after that turn.
	Taken     bool
	FirstLost game.Side
	Turn      int
	Pieces    int
	// After is the position just after that turn (FEN), if the game
	// goes on.
	After string
	// Lead is, after that turn, the pieces beside the kings of the side
	// that took the first king less the other side's: what the taker paid
	// for it (negative) or gained. The side with the only king wins only
	// if it keeps enough pieces to hunt the other side's last ones with
	// (docs/experiments/2026-11-strength.md §13, §26).
	Lead int
	// Result is the game's end (the record's final position); Turns its
	// length; Kings the sides that still had a king at the end, and
	// Beside each side's pieces other than kings then (indexed by
	// game.Side).
	Result game.Status
	Turns  int
	Kings  [2]bool
	Beside [2]int
	// FromStart is whether the game began at the variant's start position
	// (self-play's endgame curriculum begins others). Pair is what the
	// two games of the arena from one opening share (match.PairKey).
	FromStart bool
	Pair      string
}

// KingRaces replays each record (variant r) and finds its king race. A
// record that does not replay, or does not end (by the rules or declared
// adjudicated), is a *RecordError.
func KingRaces(recs []*game.Record, r *game.Rules) ([]KingRace, error) {
	out := make([]KingRace, 0, len(recs))
	hasKing := func(p *game.Position, s game.Side) bool { return !p.Pieces(s, game.King).Empty() }
	for i, rec := range recs {
		kr := KingRace{Record: i + 1, South: rec.South, North: rec.North, Turns: len(rec.Turns), FromStart: rec.Setup == "", Pair: match.PairKey(rec)}
		var before [2]bool // the kings before turn k
		end, st, err := replayFinished(i, rec, r, func(k int, p *game.Position) {
			now := [2]bool{hasKing(p, game.South), hasKing(p, game.North)}
			for _, s := range []game.Side{game.South, game.North} {
				if k > 0 && !kr.Taken && before[s] && !now[s] {
					kr.Taken, kr.FirstLost, kr.Turn = true, s, k
					kr.Pieces = p.PieceCount()
					if !p.Status().Over() {
						kr.After = p.FEN()
					}
					kr.Lead = besideKings(p, s.Other()) - besideKings(p, s)
				}
			}
			before = now
		})
		if err != nil {
			return nil, err
		}
		kr.Result = st
		kr.Kings = [2]bool{hasKing(&end, game.South), hasKing(&end, game.North)}
		kr.Beside = [2]int{besideKings(&end, game.South), besideKings(&end, game.North)}
		out = append(out, kr)
	}
	return out, nil
}

// besideKings counts side s's pieces other than its kings.
func besideKings(p *game.Position, s game.Side) int {
	return p.Occupied(s).Count() - p.Pieces(s, game.King).Count()
}

// KingRaceStats sums one player's king races: its results in the games
// where its king fell first, where the opponent's did, and where no king
// fell, and its draws with the only king left on the board.
type KingRaceStats struct {
	Player                string
	OwnFirst, TheirsFirst match.WDL
	NoneTaken             match.WDL
	OwnTurns, TheirTurns  []int // the turns at which the kings fell
	DrawsOnlyKing         int   // drawn with the player's king the only one left
	DrawsOpponentOnlyKing int   // drawn with the opponent's king the only one left
	// OnlyKingDrawEnds are the draws with the player's king the only one
	// left, by what was left beside the kings at the end: the player's
	// pieces and the opponent's (the conversions it missed).
	OnlyKingDrawEnds map[[2]int]int
	All              match.WDL
	// ByLead are the player's results in the games where it took the
	// first king, by its lead beside the kings then (KingRace.Lead).
	ByLead map[int]match.WDL
}

// SumKingRaces sums the races by player, in order of first appearance.
func SumKingRaces(races []KingRace) []KingRaceStats {
	var stats []KingRaceStats
	index := map[string]int{}
	add := func(name string, side game.Side, kr *KingRace) {
		i, ok := index[name]
		if !ok {
			i = len(stats)
			index[name] = i
			stats = append(stats, KingRaceStats{Player: name})
		}
		st := &stats[i]
		score := kr.Result.Outcome.ScoreFor(side)
		st.All.Add(score)
		switch {
		case !kr.Taken:
			st.NoneTaken.Add(score)
		case kr.FirstLost == side:
			st.OwnFirst.Add(score)
			st.OwnTurns = append(st.OwnTurns, kr.Turn)
		default:
			st.TheirsFirst.Add(score)
			st.TheirTurns = append(st.TheirTurns, kr.Turn)
			if st.ByLead == nil {
				st.ByLead = map[int]match.WDL{}
			}
			w := st.ByLead[kr.Lead]
			w.Add(score)
			st.ByLead[kr.Lead] = w
		}
		if kr.Result.Outcome == game.Draw && kr.Kings[side] != kr.Kings[side.Other()] {
			if kr.Kings[side] {
				st.DrawsOnlyKing++
				if st.OnlyKingDrawEnds == nil {
					st.OnlyKingDrawEnds = map[[2]int]int{}
				}
				st.OnlyKingDrawEnds[[2]int{kr.Beside[side], kr.Beside[side.Other()]}]++
			} else {
				st.DrawsOpponentOnlyKing++
			}
		}
	}
	for k := range races {
		kr := &races[k]
		add(kr.South, game.South, kr)
		add(kr.North, game.North, kr)
	}
	for i := range stats {
		slices.Sort(stats[i].OwnTurns)
		slices.Sort(stats[i].TheirTurns)
	}
	return stats
}

// OpeningRaces sums the king races of the pairs of games the arena plays
// from one opening, the colours swapped: in how many the first king fell
// to the same side both times, so that the opening decided the race
// whoever played it, and in how many to the same player both times, so
// that the players did.
type OpeningRaces struct {
	Pairs int // pairs of games from one opening, the same two players swapped
	// BySide counts the pairs whose first king was taken both times by
	// that side (indexed by game.Side), ByPlayer those whose first king
	// that player took both times, and NoKing those with a game in which
	// no king fell.
	BySide   [2]int
	ByPlayer map[string]int
	NoKing   int
}

// SumOpenings pairs the races by their Pair key (match.PairKey): a game is
// paired with the first one before it of the same key, not yet paired,
// with the same two players on the other sides. Records without the
// arena's game numbers pair by start position in their order. Games of a
// player against itself, such as self-play's, do not pair.
func SumOpenings(races []KingRace) OpeningRaces {
	type key struct{ pair, south, north string }
	waiting := map[key][]*KingRace{}
	sum := OpeningRaces{ByPlayer: map[string]int{}}
	for i := range races {
		kr := &races[i]
		if kr.South == kr.North {
			continue
		}
		swapped := key{kr.Pair, kr.North, kr.South}
		if q := waiting[swapped]; len(q) > 0 {
			waiting[swapped] = q[1:]
			sum.addPair(q[0], kr)
			continue
		}
		k := key{kr.Pair, kr.South, kr.North}
		waiting[k] = append(waiting[k], kr)
	}
	return sum
}

// addPair counts one opening played from both sides: a and b.
func (o *OpeningRaces) addPair(a, b *KingRace) {
	o.Pairs++
	if !a.Taken || !b.Taken {
		o.NoKing++
		return
	}
	taker := func(kr *KingRace) (game.Side, string) {
		if kr.FirstLost == game.North {
			return game.South, kr.South
		}
		return game.North, kr.North
	}
	sa, pa := taker(a)
	sb, pb := taker(b)
	switch {
	case sa == sb:
		o.BySide[sa]++
	case pa == pb:
		o.ByPlayer[pa]++
	}
}

// RaceBook returns the positions just after the first king fell, one for
// each opening (each Pair key): that of the first of its games in which a
// king fell and the game went on, in the order of the records; a position
// already taken for another opening is not repeated. Positions keep their
// counters (the turn number and the turns since a capture). Played from
// both sides (arena --book), they measure converting the only king and
// holding against it, the race left out.
func RaceBook(races []KingRace) []string {
	var out []string
	openings, seen := map[string]bool{}, map[string]bool{}
	for _, kr := range races {
		if kr.After == "" || openings[kr.Pair] {
			continue
		}
		openings[kr.Pair] = true
		if !seen[kr.After] {
			seen[kr.After] = true
			out = append(out, kr.After)
		}
	}
	return out
}
