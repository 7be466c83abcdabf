package study

import (
	"context"
	"fmt"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/pool"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/mcts/match"
)

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
	err := pool.Run(len(positions), threads, func() (func(int) error, func(), error) {
		pl, err := f.New(seed + w)
		w++
		if err != nil {
			return nil, nil, err
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
		}, nil, nil
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
