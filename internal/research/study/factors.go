package study

import (
	"fmt"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/mcts/match"
)

// GameFactors says what decided a set of games: whether the side that
// lost its king first lost the game, and whether a lead in soldiers and
// princes, taken while both kings are on the board, predicts the result
// and persists. A value network learns what its own games teach; these
// numbers say what that is.
type GameFactors struct {
	Games int // games analysed
	// KingFirst is the result, for the side whose king was taken first, of
	// the games in which a king was taken; NoKingTaken is South's result
	// of the other games.
	KingFirst, NoKingTaken match.WDL
	// Leads sorts positions with both kings on the board by the material
	// lead of one side without the kings (mcts.DefaultWeights: soldier 1,
	// prince 3).
	Leads []LeadBucket
	// Horizon is the distance in turns at which Leads and Persistence look
	// ahead; Persistence is the least-squares slope of the lead Horizon
	// turns later (or at the end) on the lead now: 1 if leads last, 0 if
	// they are forgotten.
	Horizon     int
	Persistence float64
}

// LeadBucket counts the positions in which one side leads by Min to Max
// (Max < 0: no bound) and how that side fared. A level position counts
// for South.
type LeadBucket struct {
	Min, Max  int
	Positions int
	Result    match.WDL // the final result for the side ahead
	Later     float64   // its mean lead Horizon turns later
}

// leadBounds are the lower bounds of the LeadBucket ranges.
var leadBounds = []int{0, 1, 3, 6, 10}

// AnalyseGames computes the GameFactors of recs, games of variant r.
// Unfinished games are left out. Positions are sampled before every
// every-th turn from turn from on, and their leads compared with those
// horizon turns later. A record that does not replay is a *RecordError.
func AnalyseGames(recs []*game.Record, r *game.Rules, from, every, horizon int) (GameFactors, error) {
	if every < 1 || from < 0 || horizon < 1 {
		return GameFactors{}, fmt.Errorf("from %d, every %d, horizon %d: want from ≥ 0, every ≥ 1, horizon ≥ 1", from, every, horizon)
	}
	f := GameFactors{Horizon: horizon}
	for _, lo := range leadBounds {
		f.Leads = append(f.Leads, LeadBucket{Min: lo, Max: -1})
	}
	for i := range len(f.Leads) - 1 {
		f.Leads[i].Max = f.Leads[i+1].Min - 1
	}
	var sxy, sxx float64
	for i, rec := range recs {
		south, ok := game.ResultScore(rec.Result, game.South)
		if !ok {
			continue // unfinished
		}
		// lead[k] is South's lead before turn k; kings[k] whether both
		// kings are then on the board.
		lead := make([]float64, 0, len(rec.Turns)+1)
		kings := make([]bool, 0, len(rec.Turns)+1)
		firstTaken, taken := game.South, false
		_, err := replay(i, rec, r, func(_ int, p *game.Position) bool {
			ks, kn := p.Pieces(game.South, game.King).Count() > 0, p.Pieces(game.North, game.King).Count() > 0
			if !taken && (!ks || !kn) {
				taken = true
				if ks {
					firstTaken = game.North
				}
			}
			lead = append(lead, soldierMaterial(p, game.South)-soldierMaterial(p, game.North))
			kings = append(kings, ks && kn)
			return true
		})
		if err != nil {
			return f, err
		}
		f.Games++
		if taken {
			s, _ := game.ResultScore(rec.Result, firstTaken)
			f.KingFirst.Add(s)
		} else {
			f.NoKingTaken.Add(south)
		}
		for k := from; k < len(rec.Turns); k += every {
			if !kings[k] {
				continue
			}
			now, later := lead[k], lead[min(k+horizon, len(lead)-1)]
			sxy += now * later
			sxx += now * now
			score := south
			if now < 0 {
				now, later, score = -now, -later, 1-south
			}
			b := &f.Leads[bucketOf(now)]
			b.Positions++
			b.Result.Add(score)
			b.Later += later
		}
	}
	for i := range f.Leads {
		if n := f.Leads[i].Positions; n > 0 {
			f.Leads[i].Later /= float64(n)
		}
	}
	if sxx > 0 {
		f.Persistence = sxy / sxx
	}
	return f, nil
}

// bucketOf returns the index of the LeadBucket of a lead of at least 0.
func bucketOf(lead float64) int {
	i := 0
	for i+1 < len(leadBounds) && lead >= float64(leadBounds[i+1]) {
		i++
	}
	return i
}

// soldierMaterial is side s's material without its king.
func soldierMaterial(p *game.Position, s game.Side) float64 {
	return mcts.Material(p, s) - mcts.DefaultWeights[game.King]*float64(p.Pieces(s, game.King).Count())
}
