package diagnose

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/game/endgame"
	"github.com/dablot-zero/dablot/internal/pool"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/train"
)

// PositionOptions set up MeasurePositions.
type PositionOptions struct {
	// Depths are the deep alpha-beta search's depths in turns
	// (DeepConfig), one for each phase of Phases: a search of few pieces
	// goes deeper at the same cost. MaxTime caps each of its searches (0:
	// no cap); a capped search counts the deepest depth it completed,
	// which its row records.
	Depths  []int
	MaxTime time.Duration
	// SelfPlay is the self-play config whose search is measured: its
	// Gumbel root search (gumbel_m, leaf batch, solver, forced), the
	// exploration of its games (train.SelfPlayConfig.SearchConfig with
	// noise) and its leaf evaluator (material_blend, trade_down,
	// quiescence).
	SelfPlay train.SelfPlayConfig
	// Sims are the search budgets measured: self-play's full and fast
	// searches.
	Sims []int
	// Tables, if not nil, give the exact results of the positions they
	// hold.
	Tables *endgame.Tables
	// Seed seeds the searches' noise; Threads positions are measured at
	// once.
	Seed    uint64
	Threads int
}

// SearchRow is one self-play search of a position.
type SearchRow struct {
	Sims   int     `json:"sims"`
	Choice string  `json:"choice"` // the decision the search plays
	Value  float64 `json:"value"`  // its root value
	// Plain is the same search (the same noise) without the material
	// blend: its choice and its root value.
	PlainChoice string  `json:"plain_choice"`
	PlainValue  float64 `json:"plain_value"`
	// PolicyBest is the search's policy target's probability of the deep
	// search's best decision, Surprise its KL divergence from the prior
	// (mcts.Result.PolicySurprise): what the target says that the
	// network does not.
	PolicyBest float64 `json:"policy_best"`
	Surprise   float64 `json:"surprise"`
}

// PositionRow is what MeasurePositions finds in one position, every
// value and score for its side to move.
type PositionRow struct {
	Index  int    `json:"index"` // in the list measured
	FEN    string `json:"fen"`
	Pieces int    `json:"pieces"`
	Phase  int    `json:"phase"` // in Phases
	Legal  int    `json:"legal"`
	// Balance is the material lead in soldiers (mcts.DefaultWeights).
	Balance float64 `json:"balance"`
	// Net is the network's value and WDL its win/draw/loss; Blend the
	// value with self-play's material blend; Material the plain material
	// count's (mcts.MaterialEvaluator, value=material).
	Net      float64    `json:"net"`
	WDL      [3]float32 `json:"wdl"`
	Blend    float64    `json:"blend"`
	Material float64    `json:"material"`
	// Exact is the tables' result (1, 0, -1) where HasExact.
	HasExact bool `json:"has_exact"`
	Exact    int  `json:"exact"`
	// Deep is the deep search's score, DeepDepth the depth it completed,
	// DeepBest its best decision.
	Deep      int    `json:"deep"`
	DeepDepth int    `json:"deep_depth"`
	DeepBest  string `json:"deep_best"`
	// PriorTop is the decision of the network's highest prior, PriorBest
	// the prior's probability of the deep best.
	PriorTop  string      `json:"prior_top"`
	PriorBest float64     `json:"prior_best"`
	Searches  []SearchRow `json:"searches"`
	// Scores are the deep scores of the decisions judged (the deep best,
	// the prior's top, the searches' choices), by notation.
	Scores map[string]int `json:"scores"`
	// HasSample says that the position is a self-play sample's, whose
	// trained value target (train.BatchMaker's: (1−q)·target + q·search
	// value) is Trained and whose game ended GameResult for the side to
	// move (1, 0, -1). MeasurePositions leaves them to the caller.
	// Game is the sample's game, the cluster of the summaries' intervals.
	HasSample  bool    `json:"has_sample,omitempty"`
	Trained    float64 `json:"trained,omitempty"`
	GameResult int     `json:"game_result,omitempty"`
	Game       int     `json:"game,omitempty"`
	// Took is the wall time the position took.
	Took time.Duration `json:"took"`
}

// MeasurePositions measures every position of ps with model m: its
// values (the network's, with the blend, the material count's), the exact
// result where opt.Tables hold it, the deep search's score, self-play's
// searches at each budget of opt.Sims, and the deep scores of the
// decisions they and the prior choose. skip, if not nil, names the
// indices already measured (a resumed measurement). onRow, if not nil, is
// called with each row as it is done, one call at a time. Rows come back
// in the order of ps, those skipped left out.
func MeasurePositions(ctx context.Context, m *model.Model, ps []game.Position, opt PositionOptions, skip func(int) bool, onRow func(*PositionRow) error) ([]PositionRow, error) {
	if len(opt.Depths) != len(Phases) {
		return nil, fmt.Errorf("diagnose: %d deep search depths for %d phases", len(opt.Depths), len(Phases))
	}
	for _, d := range opt.Depths {
		if d < 2 {
			// A decision is judged a turn shallower than the root.
			return nil, fmt.Errorf("diagnose: deep search depth %d: want 2 or more", d)
		}
	}
	if len(opt.Sims) == 0 {
		return nil, fmt.Errorf("diagnose: no search budgets")
	}
	var todo []int
	for i := range ps {
		if skip == nil || !skip(i) {
			todo = append(todo, i)
		}
	}
	rows := make([]*PositionRow, len(ps))
	var mu sync.Mutex
	err := pool.Run(len(todo), opt.Threads, func() (func(int) error, func(), error) {
		ev := m.NewEvaluator(64, 1)
		return func(k int) error {
				i := todo[k]
				row, err := measurePosition(ctx, ev, &ps[i], i, &opt)
				if err != nil {
					return fmt.Errorf("position %d (%s): %w", i, ps[i].FEN(), err)
				}
				mu.Lock()
				defer mu.Unlock()
				rows[i] = row
				if onRow != nil {
					return onRow(row)
				}
				return nil
			}, func() {
				ev.Close()
			}, nil
	}, nil)
	if err != nil {
		return nil, err
	}
	var out []PositionRow
	for _, r := range rows {
		if r != nil {
			out = append(out, *r)
		}
	}
	return out, nil
}

// evalOne evaluates p with ev and returns the request.
func evalOne(ev mcts.Evaluator, p *game.Position, legal []game.Decision) (mcts.Request, error) {
	rq := []mcts.Request{{Pos: *p, Legal: legal, Priors: make([]float32, len(legal))}}
	err := ev.Evaluate(rq)
	return rq[0], err
}

// measurePosition is MeasurePositions' work on one position.
func measurePosition(ctx context.Context, net mcts.Evaluator, p *game.Position, index int, opt *PositionOptions) (*PositionRow, error) {
	start := time.Now()
	legal := p.Decisions(nil)
	if len(legal) == 0 {
		return nil, fmt.Errorf("the game is over")
	}
	me := p.SideToMove()
	row := &PositionRow{Index: index, FEN: p.FEN(), Pieces: p.PieceCount(), Phase: phaseOf(p), Legal: len(legal),
		Balance: mcts.Material(p, me) - mcts.Material(p, me.Other()), Scores: map[string]int{}}
	raw, err := evalOne(net, p, legal)
	if err != nil {
		return nil, err
	}
	row.Net, row.WDL = float64(raw.Value), raw.WDL
	pc := selfPlayer(&opt.SelfPlay, 1, true)
	blended := pc.Evaluator(net)
	b, err := evalOne(blended, p, legal)
	if err != nil {
		return nil, err
	}
	row.Blend = float64(b.Value)
	mat, err := evalOne(&mcts.MaterialEvaluator{}, p, legal)
	if err != nil {
		return nil, err
	}
	row.Material = float64(mat.Value)
	if opt.Tables != nil {
		if res, ok := opt.Tables.Probe(p); ok {
			row.HasExact, row.Exact = true, int(res.Outcome)
		}
	}
	cfg := DeepConfig(opt.Depths[row.Phase])
	deep, err := deepSearch(ctx, cfg, p, opt.MaxTime)
	if err != nil {
		return nil, err
	}
	row.Deep, row.DeepDepth, row.DeepBest = deep.Score, deep.Depth, p.DecisionString(deep.Best)
	row.PriorTop = p.DecisionString(legal[argmax(raw.Priors)])
	row.PriorBest = float64(raw.Priors[slices.Index(legal, deep.Best)])
	judge := []game.Decision{deep.Best, legal[argmax(raw.Priors)]}
	var chosen []game.Decision
	if row.Searches, chosen, err = runSearches(ctx, net, p, deep.Best, index, opt); err != nil {
		return nil, err
	}
	judge = append(judge, chosen...)
	// The deep scores of the decisions chosen, each once; none are needed
	// where every choice is the deep search's own.
	slices.Sort(judge)
	judge = slices.Compact(judge)
	if len(judge) > 1 {
		for _, d := range judge {
			s, err := scoreDecision(ctx, cfg, p, d, opt.MaxTime)
			if err != nil {
				return nil, err
			}
			row.Scores[p.DecisionString(d)] = s
		}
	}
	row.Took = time.Since(start)
	return row, nil
}

// runSearches runs self-play's searches of p (position index of the list
// measured) at each budget of opt.Sims, with and without the blend, and
// returns them with the decisions they choose; none where p has a single
// legal decision. best is the deep search's best decision.
func runSearches(ctx context.Context, net mcts.Evaluator, p *game.Position, best game.Decision, index int, opt *PositionOptions) ([]SearchRow, []game.Decision, error) {
	if len(p.Decisions(nil)) < 2 {
		return nil, nil, nil
	}
	var rows []SearchRow
	var chosen []game.Decision
	for k, sims := range opt.Sims {
		seed := mcts.Mix(opt.Seed, uint64(index)<<8|uint64(k))
		sr := SearchRow{Sims: sims}
		for plain := range 2 {
			res, err := selfPlaySearch(ctx, net, &opt.SelfPlay, p, sims, seed, plain == 0)
			if err != nil {
				return nil, nil, err
			}
			if plain == 1 {
				sr.PlainChoice, sr.PlainValue = p.DecisionString(res.Best), float64(res.Value)
				continue
			}
			sr.Choice, sr.Value = p.DecisionString(res.Best), float64(res.Value)
			chosen = append(chosen, res.Best)
			sr.Surprise = res.PolicySurprise()
			if i := slices.Index(res.Legal, best); i >= 0 && len(res.Policy) == len(res.Legal) {
				total := float32(0)
				for _, x := range res.Policy {
					total += x
				}
				if total > 0 {
					sr.PolicyBest = float64(res.Policy[i] / total)
				}
			}
		}
		rows = append(rows, sr)
	}
	return rows, chosen, nil
}

// MeasureSearches runs self-play's searches again in the positions of
// rows (rows measured by MeasurePositions on ps with opt; their deep
// results stay) and puts them and the prior's share of the deep best in
// the rows: for rows measured before the policy's numbers were kept. The
// searches are those MeasurePositions ran, with the same noise; a choice
// that comes out otherwise is an error.
func MeasureSearches(ctx context.Context, m *model.Model, ps []game.Position, rows []PositionRow, opt PositionOptions, onDone func()) error {
	return pool.Run(len(rows), opt.Threads, func() (func(int) error, func(), error) {
		ev := m.NewEvaluator(64, 1)
		return func(k int) error {
			r := &rows[k]
			p := &ps[r.Index]
			legal := p.Decisions(nil)
			best := slices.IndexFunc(legal, func(d game.Decision) bool { return p.DecisionString(d) == r.DeepBest })
			if r.FEN != p.FEN() || best < 0 {
				return fmt.Errorf("row %d is not of position %s", r.Index, p.FEN())
			}
			raw, err := evalOne(ev, p, legal)
			if err != nil {
				return err
			}
			searches, _, err := runSearches(ctx, ev, p, legal[best], r.Index, &opt)
			if err != nil {
				return err
			}
			for i := range searches {
				if i >= len(r.Searches) || searches[i].Choice != r.Searches[i].Choice {
					return fmt.Errorf("row %d (%s): the search of %d sims chose otherwise than before", r.Index, r.FEN, searches[i].Sims)
				}
			}
			r.PriorBest, r.Searches = float64(raw.Priors[best]), searches
			return nil
		}, ev.Close, nil
	}, onDone)
}

// cluster is the cluster of r in the summaries' intervals: its sample's
// game, or itself.
func (r *PositionRow) cluster() int {
	if r.HasSample {
		return r.Game
	}
	return -1 - r.Index
}

// selfPlayer returns self-play's player at sims simulations, with its
// exploration noise, and without the material blend if blend is false.
func selfPlayer(cfg *train.SelfPlayConfig, sims int, blend bool) mcts.PlayerConfig {
	pc := cfg.Player(sims, true)
	if !blend {
		pc.MaterialBlend = 0
	}
	return pc
}

// selfPlaySearch runs self-play's search of p (its config with its
// exploration noise, seeded by seed) for sims simulations, with or
// without the material blend.
func selfPlaySearch(ctx context.Context, net mcts.Evaluator, cfg *train.SelfPlayConfig, p *game.Position, sims int, seed uint64, blend bool) (*mcts.Result, error) {
	pc := selfPlayer(cfg, sims, blend)
	s, err := mcts.NewSearch(pc.Evaluator(net), pc.SearchConfig(seed))
	if err != nil {
		return nil, err
	}
	s.SetPosition(*p)
	return s.Run(ctx, mcts.Limits{Sims: sims})
}

// argmax returns the index of the largest of xs (the first of equals).
func argmax(xs []float32) int {
	best := 0
	for i, x := range xs {
		if x > xs[best] {
			best = i
		}
	}
	return best
}
