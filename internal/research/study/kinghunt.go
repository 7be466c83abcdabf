package study

import (
	"context"
	"fmt"
	"slices"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/pool"
	"github.com/dablot-zero/dablot/mcts"
)

// KingHuntStats counts, for the player to move in positions taken from game
// records with both kings on the board, the positions in which an
// alpha-beta search (king valued far above the rest) finds that the player
// can take the other king, or win, by force.
type KingHuntStats struct {
	Player    string // the record's name for the side to move
	Positions int
	Forced    int
	Depth     float64 // mean depth the search completed, in turns
}

// RecordPlace says where in a list of game records a position comes from.
type RecordPlace struct {
	Record, Turn int    // the game (from 1) and the turn (from 0) it precedes
	Player       string // the record's name for the side to move
}

// KingHuntFind is one position in which the side to move takes the other
// king, or wins, by force.
type KingHuntFind struct {
	RecordPlace
	FEN   string
	Best  string // the first decision of the forced line
	Score int    // the search's score, in hundredths of a soldier
}

// KingHuntPosition is a position of a game record to search, with where it
// comes from.
type KingHuntPosition struct {
	Position game.Position
	RecordPlace
}

// KingHuntPositions returns the positions before turns from, from+every, …
// below to of every record (variant r) that have both kings on the board.
// A record that does not replay is a *RecordError.
func KingHuntPositions(recs []*game.Record, r *game.Rules, from, to, every int) ([]KingHuntPosition, error) {
	var out []KingHuntPosition
	err := walkRecordPositions(recs, r, from, to, every, func(i, k int, p *game.Position) {
		if p.Pieces(game.South, game.King).Empty() || p.Pieces(game.North, game.King).Empty() {
			return
		}
		name := recs[i].South
		if p.SideToMove() == game.North {
			name = recs[i].North
		}
		out = append(out, KingHuntPosition{*p, RecordPlace{i + 1, k, name}})
	})
	return out, err
}

// HuntKings searches each position with a fresh alpha-beta player of cfg,
// over threads goroutines. A score of at least half the king's weight in
// cfg counts as taking the king by force: cfg should value the king far
// above the rest (mcts.AlphaBetaConfig.Weights), so that no other gain
// reaches it. onDone, if not nil, is called after each position, one call
// at a time. Stats are by player, in order of appearance; finds in the
// order of positions.
func HuntKings(ctx context.Context, positions []KingHuntPosition, cfg mcts.AlphaBetaConfig, threads int, onDone func()) ([]KingHuntStats, []KingHuntFind, error) {
	results := make([]mcts.ABResult, len(positions))
	err := pool.Run(len(positions), threads, func() (func(int) error, func(), error) {
		ab, err := mcts.NewAlphaBetaPlayer(cfg)
		if err != nil {
			return nil, nil, err
		}
		return func(i int) error {
			res, err := ab.Search(ctx, &positions[i].Position)
			if err != nil {
				return fmt.Errorf("record %d, turn %d (%s): %w", positions[i].Record, positions[i].Turn, positions[i].Position.FEN(), err)
			}
			results[i] = res
			return nil
		}, nil, nil
	}, onDone)
	if err != nil {
		return nil, nil, err
	}
	var stats []KingHuntStats
	var finds []KingHuntFind
	threshold := cfg.Weights[game.King] / 2
	for i, jb := range positions {
		k := slices.IndexFunc(stats, func(s KingHuntStats) bool { return s.Player == jb.Player })
		if k < 0 {
			stats = append(stats, KingHuntStats{Player: jb.Player})
			k = len(stats) - 1
		}
		st, res := &stats[k], results[i]
		st.Positions++
		st.Depth += float64(res.Depth)
		if res.Score >= threshold {
			st.Forced++
			finds = append(finds, KingHuntFind{RecordPlace: jb.RecordPlace,
				FEN: jb.Position.FEN(), Best: jb.Position.DecisionString(res.Best), Score: res.Score})
		}
	}
	for k := range stats {
		stats[k].Depth /= float64(stats[k].Positions)
	}
	return stats, finds, nil
}
