package diagnose

import (
	"context"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
)

// GuardKingValue is the king's value, in soldiers, in the deep search's
// evaluation: the shipped guard's (mcts.DefaultGuardKingValue), which
// prices the race for the only king that decides dablot
// (docs/experiments/2026-11-strength.md §11).
const GuardKingValue = mcts.DefaultGuardKingValue

// DeepConfig returns the deep alpha-beta search of depth turns that
// judges positions and decisions: the alpha-beta players' evaluation
// (material, mobility, the hunt) with the king at GuardKingValue
// soldiers, quiescence, single replies extended and the guard's ordering
// (killers, history, null windows), a table of 2^20 entries.
func DeepConfig(depth int) mcts.AlphaBetaConfig {
	cfg := mcts.DefaultAlphaBetaConfig()
	cfg.Depth = depth
	cfg.Extend, cfg.Order = true, true
	cfg.Weights[game.King] = GuardKingValue * cfg.Weights[game.Soldier]
	return cfg
}

// ScoreCap bounds the deep scores that differences are taken of: twenty
// soldiers, a game won. A forced win's score (near mcts.WinScore) would
// otherwise swamp every mean.
const ScoreCap = 2000

// capScore clamps a deep score to ±ScoreCap.
func capScore(s int) int { return max(-ScoreCap, min(ScoreCap, s)) }

// deepSearch is one deep alpha-beta search of p with a fresh player of
// cfg (so that a result does not depend on what was searched before),
// stopped after maxTime (0: never) at the deepest depth completed.
func deepSearch(ctx context.Context, cfg mcts.AlphaBetaConfig, p *game.Position, maxTime time.Duration) (mcts.ABResult, error) {
	ab, err := mcts.NewAlphaBetaPlayer(cfg)
	if err != nil {
		return mcts.ABResult{}, err
	}
	if maxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, maxTime)
		defer cancel()
	}
	return ab.Search(ctx, p)
}

// scoreDecision returns the deep score of decision d in p for p's side to
// move: a search of the position after d as deep as the root's search
// would have searched it, depth turns in all counting the turn d starts
// or continues (AlphaBetaConfig.Depth), with the sign of p's side to
// move. A decision that ends the game scores its result (±mcts.WinScore,
// 0 for a draw).
func scoreDecision(ctx context.Context, cfg mcts.AlphaBetaConfig, p *game.Position, d game.Decision, maxTime time.Duration) (int, error) {
	q := *p
	q.Apply(d)
	me := p.SideToMove()
	if st := q.Status(); st.Over() {
		switch st.Outcome.ScoreFor(me) {
		case 1:
			return mcts.WinScore - 1, nil
		case 0:
			return -(mcts.WinScore - 1), nil
		}
		return 0, nil
	}
	if q.SideToMove() == me {
		res, err := deepSearch(ctx, cfg, &q, maxTime)
		return res.Score, err
	}
	if cfg.Depth <= 1 {
		ab, err := mcts.NewAlphaBetaPlayer(cfg)
		if err != nil {
			return 0, err
		}
		return -ab.Evaluate(&q), nil
	}
	c := cfg
	c.Depth--
	res, err := deepSearch(ctx, c, &q, maxTime)
	return -res.Score, err
}
