// Package balance measures how fair a variant is when a trained model plays
// it against itself: the first player's score with its 95 % interval, the
// draw rate, the length of the games, how they end, the network's value of
// the start position, and how the first player's score moves as the search
// grows stronger. A model weaker than a fixed anchor player (by default
// alphabeta:depth=4) is flagged: its games say little about the variant.
//
// # Method
//
// Game i of a study opens with OpeningTurns complete turns drawn decision by
// decision from the network's policy at OpeningTemperature (seeded by
// mcts.Mix(Seed, i) alone; an opening whose position repeats an earlier
// one's is drawn again, at a higher temperature each time, and if those
// draws run out, one turn longer, up to maxExtraOpeningTurns more, so that
// no two games start alike while the policy allows), then both sides search with
// the same model and the same settings until the game ends. Because both
// sides are the same player, swapping colours within a pair of games adds
// nothing: with a deterministic search (PUCT at temperature 0, the
// default) the two games of a pair would be the same game, counted twice. So every game has its own
// opening, and the games are independent draws; the first player's score
// (rules.First, which need not be South) is a mean over them, and its 95 %
// interval is match.WDL.ScoreCI: the normal approximation with the
// trinomial (win/draw/loss) variance, or Wilson's interval when every game
// had the same result. Every strength of the ladder replays the same
// openings, so the differences between strengths are paired.
package balance

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/numeric"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/mcts/match"
	"github.com/dablot-zero/dablot/mcts/match/rating"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
)

// DefaultAnchor is the player a model must not lose to for its balance
// figures to count as reliable.
const DefaultAnchor = "alphabeta:depth=4"

// Options set up a study. Start from DefaultOptions: the zero value of a
// field is a real setting (no opening turns, no anchor games), not a
// default.
type Options struct {
	// Games is the number of self-play games at each strength.
	Games int
	// Sims is the strength ladder: simulations per decision, each played
	// for Games games. MainSims is the fixed strength of the headline
	// figures and of the anchor check (0: the middle entry of Sims); it is
	// added to the ladder if missing. The ladder is sorted.
	Sims     []int
	MainSims int
	// OpeningTurns complete turns open every game, drawn decision by
	// decision from the network's policy raised to 1/OpeningTemperature
	// (0: the most likely decision, so no variety).
	OpeningTurns       int
	OpeningTemperature float64
	// Search is the search of both sides (nil: mcts.DefaultConfig(), PUCT
	// without noise, as "mcts:model=FILE" and "dablot play" search). Its
	// Seed is replaced by each player's own.
	Search *mcts.Config
	// Guard is the most turns of the alpha-beta guard (mcts.Guard) of both
	// sides and of the model in the anchor games (0: none), within
	// mcts.DefaultGuardNodes nodes, as the shipped players play.
	Guard int
	// Seed makes the study reproducible: game i of every strength depends
	// on Seed and i only, however the games are scheduled.
	Seed uint64
	// Threads is the number of network evaluators, each on one goroutine
	// (0: 1); Workers the number of games played at once (0: 8), whose
	// searches share the evaluators in batches.
	Threads int
	Workers int
	// CheckAnchor is the player spec (mcts.ParseSpec) the model plays at
	// MainSims in CheckGames games (0: no check), colours alternating,
	// game 2k and 2k+1 from the opening of self-play game k.
	CheckAnchor string
	CheckGames  int
	// OnGame, if set, is called after every game (self-play and anchor
	// games), from one goroutine at a time, in the order the games end;
	// for the games taken from Played too (Game.Resumed).
	OnGame func(*Game)
	// Played holds the game records of an earlier run of the same study
	// that stopped before the variant was done (the records OnGame was
	// given, read back), so that a study resumes game by game. A record
	// counts in place of its game when its Study tag is this study's
	// Fingerprint; it must then be that game (its Stage and Game tags,
	// players and opening) and replay to the end with the result it gives,
	// or Study fails naming it. Records of other studies are passed over.
	Played []*game.Record
}

// DefaultOptions returns 100 games at each of 50, 200 and 800 simulations
// (200 the main strength), 4 opening turns at temperature 1, PUCT search,
// the shipped players' guard (mcts.DefaultGuardDepth turns within
// mcts.DefaultGuardNodes nodes), seed 1, and
// 20 games against DefaultAnchor.
func DefaultOptions() Options {
	return Options{
		Games: 100, Sims: []int{50, 200, 800}, MainSims: 200,
		OpeningTurns: 4, OpeningTemperature: 1, Guard: mcts.DefaultGuardDepth,
		Seed: 1, Threads: 1, Workers: 8,
		CheckAnchor: DefaultAnchor, CheckGames: 20,
	}
}

// Validate reports the first option out of range.
func (o *Options) Validate() error {
	switch {
	case o.Games < 1:
		return fmt.Errorf("balance: %d games: want at least 1", o.Games)
	case len(o.Sims) == 0 && o.MainSims == 0:
		return errors.New("balance: no strength: want at least one number of simulations")
	case o.MainSims < 0 || o.MainSims > mcts.MaxSims:
		return fmt.Errorf("balance: main strength %d simulations: want 1 to %d", o.MainSims, mcts.MaxSims)
	case o.OpeningTurns < 0:
		return fmt.Errorf("balance: %d opening turns: want 0 or more", o.OpeningTurns)
	case !(o.OpeningTemperature >= 0) || math.IsInf(o.OpeningTemperature, 0):
		return fmt.Errorf("balance: opening temperature %v: want a number ≥ 0", o.OpeningTemperature)
	case o.Threads < 0 || o.Workers < 0:
		return fmt.Errorf("balance: %d threads, %d workers: want 0 or more", o.Threads, o.Workers)
	case o.Guard < 0 || o.Guard > mcts.MaxGuardDepth:
		return fmt.Errorf("balance: guard depth %d: want 0 (none) to %d", o.Guard, mcts.MaxGuardDepth)
	case o.CheckGames < 0:
		return fmt.Errorf("balance: %d anchor games: want 0 or more", o.CheckGames)
	case o.CheckGames > 0 && o.CheckAnchor == "":
		return errors.New("balance: anchor games but no anchor player")
	}
	for _, s := range o.Sims {
		if s < 1 || s > mcts.MaxSims {
			return fmt.Errorf("balance: %d simulations: want 1 to %d", s, mcts.MaxSims)
		}
	}
	if o.Search != nil {
		if err := o.Search.Validate(); err != nil {
			return fmt.Errorf("balance: %w", err)
		}
	}
	return nil
}

// ladder returns the sorted strengths without repeats and the main one.
func (o *Options) ladder() ([]int, int) {
	sims := slices.Clone(o.Sims)
	slices.Sort(sims)
	sims = slices.Compact(sims)
	main := o.MainSims
	if main == 0 {
		main = sims[len(sims)/2]
	}
	if !slices.Contains(sims, main) {
		sims = append(sims, main)
		slices.Sort(sims)
	}
	return sims, main
}

// TotalGames returns the number of games a study with these options plays
// (for progress bars).
func (o *Options) TotalGames() int {
	if len(o.Sims) == 0 && o.MainSims == 0 {
		return o.CheckGames
	}
	sims, _ := o.ladder()
	return len(sims)*o.Games + o.CheckGames
}

// Game is one finished game of a study.
type Game struct {
	// Anchor is set for a game against the anchor player.
	Anchor bool
	// Sims is the model's simulations per decision; Index the game's
	// number within its strength (or within the anchor games).
	Sims, Index int
	// Record holds every turn, the opening's too (tagged "Opening").
	Record *game.Record
	Status game.Status
	// Score is the first player's score in a self-play game, the model's
	// in an anchor game: 1, 0.5 or 0.
	Score float64
	// ModelFirst says whether the model moved first (anchor games).
	ModelFirst bool
	Duration   time.Duration
	// Resumed says that the game was not played but taken from
	// Options.Played (Duration is then the one its record gives).
	Resumed bool
}

// StrengthResult is the self-play of one strength of the ladder.
type StrengthResult struct {
	Sims  int `json:"sims"`
	Games int `json:"games"`
	// First counts the games from the first player's point of view.
	First match.WDL `json:"first"`
	// FirstScore is First's mean score; CILow and CIHigh its 95 %
	// interval (match.WDL.ScoreCI).
	FirstScore float64 `json:"first_score"`
	CILow      float64 `json:"ci_low"`
	CIHigh     float64 `json:"ci_high"`
	DrawRate   float64 `json:"draw_rate"`
	// MeanLen and MedianLen are game lengths in complete turns, the
	// opening included.
	MeanLen   float64 `json:"mean_len"`
	MedianLen float64 `json:"median_len"`
	// Ends counts the games by the reason they ended (game.Reason.Key).
	Ends map[string]int `json:"ends"`
	// Distinct is the number of different games (by their turns); fewer
	// than Games means some games repeated and the interval is too narrow.
	Distinct int           `json:"distinct"`
	Elapsed  time.Duration `json:"elapsed_ns"`
}

// StoredRating is what the rating table a model file carries
// (model.MetaRatings) says about the model and the anchor.
type StoredRating struct {
	Player    string  `json:"player"` // the model's entry, "genN"
	Elo       float64 `json:"elo"`
	Err95     float64 `json:"err95"`
	Anchor    string  `json:"anchor"`
	AnchorElo float64 `json:"anchor_elo"`
}

// VariantResult is the study of one variant.
type VariantResult struct {
	Variant string `json:"variant"`
	// FirstName is the side that moves first ("south" or "north").
	FirstName string `json:"first"`
	Model     string `json:"model,omitempty"` // where the model came from
	// ModelSHA256 is the model's checksum (net.MetaChecksum), so that a
	// study is not taken for one of another model at the same path.
	ModelSHA256 string `json:"model_sha256,omitempty"`
	// Training is the model's provenance.
	Training model.TrainingSummary `json:"training"`
	// Opening settings and the search used.
	OpeningTurns       int     `json:"opening_turns"`
	OpeningTemperature float64 `json:"opening_temperature"`
	// DistinctOpenings is the number of different opening positions: an
	// opening that repeats an earlier one is drawn again (OpeningRedraw
	// says how), so fewer than the games means the policy gave no more.
	DistinctOpenings int    `json:"distinct_openings"`
	OpeningRedraw    string `json:"opening_redraw"`
	// LongerOpenings is the number of openings that took more than
	// OpeningTurns turns (the redraws at that length ran out), and
	// LongestOpening the turns of the longest.
	LongerOpenings int    `json:"longer_openings,omitempty"`
	LongestOpening int    `json:"longest_opening,omitempty"`
	Search         string `json:"search"`
	Seed           uint64 `json:"seed"`
	// MainSims is the fixed strength; PerSims the ladder, weakest first.
	MainSims int              `json:"main_sims"`
	PerSims  []StrengthResult `json:"per_sims"`
	// StartValue is the network's value of the start position for the
	// first player, in [-1, 1]; StartWDL its win, draw and loss chances.
	// StartSearch is the root value of a search of MainSims simulations
	// from the start position, for the first player.
	StartValue  float64    `json:"start_value"`
	StartWDL    [3]float64 `json:"start_wdl"`
	StartSearch float64    `json:"start_search"`
	// The anchor check: the model's games at MainSims against Anchor
	// (none if AnchorWDL has no games), its score and 95 % interval.
	Anchor         string    `json:"anchor,omitempty"`
	CheckGames     int       `json:"check_games"`
	AnchorWDL      match.WDL `json:"anchor_wdl"`
	AnchorScore    float64   `json:"anchor_score"`
	AnchorCILow    float64   `json:"anchor_ci_low"`
	AnchorCIHigh   float64   `json:"anchor_ci_high"`
	AnchorFirstWDL match.WDL `json:"anchor_first_wdl"` // the model's games as first player
	// Rating is the stored rating of the model and the anchor, when the
	// model file's table holds both.
	Rating *StoredRating `json:"rating,omitempty"`
	// Reliable is false when the model is weaker than the anchor (or
	// its strength was not checked); Reason says why.
	Reliable bool   `json:"reliable"`
	Reason   string `json:"reason,omitempty"`
	// ResumedGames is the number of games taken from an earlier run's
	// records (Options.Played) rather than played; Elapsed and the
	// strengths' Elapsed count only this run's time.
	ResumedGames int           `json:"resumed_games,omitempty"`
	Elapsed      time.Duration `json:"elapsed_ns"`
}

// Matches reports whether v is the study that Study(m, opts) would make
// of m: the same variant and model (by checksum) and the same settings of
// every figure (games, strengths, openings, search and guard, seed, anchor
// check). A study interrupted between variants keeps the ones that match
// (dablot analyse balance --resume).
func (v *VariantResult) Matches(m *model.Model, opts Options) bool {
	search := mcts.DefaultConfig()
	if opts.Search != nil {
		search = *opts.Search
	}
	sims, mainSims := opts.ladder()
	ladder := make([]int, len(v.PerSims))
	for i, ps := range v.PerSims {
		ladder[i] = ps.Sims
		if ps.Games != opts.Games {
			return false
		}
	}
	return v.Variant == m.Rules.Name && v.ModelSHA256 != "" && v.ModelSHA256 == m.Metadata[net.MetaChecksum] &&
		slices.Equal(ladder, sims) && v.MainSims == mainSims && v.OpeningTurns == opts.OpeningTurns &&
		v.OpeningTemperature == opts.OpeningTemperature && v.sameOpenings(opts) && v.Search == describeSearch(search, opts.Guard) &&
		v.Seed == opts.Seed && v.Anchor == opts.CheckAnchor && v.CheckGames == opts.CheckGames
}

// sameOpenings reports whether v's openings are the ones a study with
// opts draws now. A study of the scheme before openings grew longer
// (openingRedrawFixedLength) drew the same openings when none of its
// redraws ran out, that is when all of its openings were distinct.
func (v *VariantResult) sameOpenings(opts Options) bool {
	return v.OpeningRedraw == openingRedraw ||
		v.OpeningRedraw == openingRedrawFixedLength && v.DistinctOpenings == opts.openings()
}

// openings is the number of openings a study draws: one a game, shared by
// every strength and the anchor games (a pair of those each).
func (o Options) openings() int { return max(o.Games, (o.CheckGames+1)/2) }

// Main returns the result of the main strength.
func (v *VariantResult) Main() *StrengthResult {
	for i := range v.PerSims {
		if v.PerSims[i].Sims == v.MainSims {
			return &v.PerSims[i]
		}
	}
	if len(v.PerSims) > 0 {
		return &v.PerSims[len(v.PerSims)-1]
	}
	return nil
}

// Study plays the self-play games of every strength and the anchor games
// of model m, and returns what they say about its variant.
func Study(ctx context.Context, m *model.Model, opts Options) (*VariantResult, error) {
	if m == nil {
		return nil, errors.New("balance: no model")
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	began := time.Now()
	r := m.Rules
	sims, mainSims := opts.ladder()
	search := mcts.DefaultConfig()
	if opts.Search != nil {
		search = *opts.Search
	}
	lanes := max(opts.Threads, 1)
	workers := opts.Workers
	if workers == 0 {
		workers = 8
	}
	start := r.Start()
	var buf [2 * game.MaxPoints]game.Decision
	if len(start.Decisions(buf[:0])) == 0 {
		return nil, fmt.Errorf("balance: %s: the start position is already over", r.Name)
	}

	s := &study{m: m, r: r, opts: opts, search: search, workers: workers, fingerprint: Fingerprint(m, opts)}
	if err := s.indexPlayed(s.fingerprint); err != nil {
		return nil, err
	}
	for range lanes {
		ev := m.NewEvaluator(256, 1)
		defer ev.Close()
		b := mcts.NewBatcher(ev, 256, 0)
		defer b.Close()
		s.batchers = append(s.batchers, b)
	}

	res := &VariantResult{
		Variant: r.Name, FirstName: r.First.String(), Training: m.Training, ModelSHA256: m.Metadata[net.MetaChecksum],
		OpeningTurns: opts.OpeningTurns, OpeningTemperature: opts.OpeningTemperature, OpeningRedraw: openingRedraw,
		Search: describeSearch(search, opts.Guard), Seed: opts.Seed, MainSims: mainSims,
		Anchor: opts.CheckAnchor, CheckGames: opts.CheckGames, Reliable: true,
	}
	if err := s.startValues(ctx, res); err != nil {
		return nil, err
	}

	// The openings, shared by every strength and the anchor games.
	nOpen := opts.openings()
	s.openings = make([]opening, nOpen)
	if err := s.parallel(ctx, nOpen, func(i int, ev mcts.Evaluator) error {
		o, err := s.opening(ctx, i, 0, 0, ev)
		s.openings[i] = o
		return err
	}, nil); err != nil {
		return nil, err
	}
	distinct, err := s.redrawRepeats(ctx)
	if err != nil {
		return nil, err
	}
	res.DistinctOpenings = distinct
	for _, o := range s.openings {
		if n := len(o.turns); n > opts.OpeningTurns {
			res.LongerOpenings++
			res.LongestOpening = max(res.LongestOpening, n)
		}
	}

	for _, n := range sims {
		sr, err := s.selfPlay(ctx, n)
		if err != nil {
			return nil, err
		}
		res.PerSims = append(res.PerSims, sr)
	}

	if opts.CheckGames > 0 {
		if err := s.anchorGames(ctx, mainSims, res); err != nil {
			return nil, err
		}
	}
	res.Rating = storedRating(m, opts.CheckAnchor)
	res.ResumedGames = int(s.resumedGames.Load())
	judge(res, opts.CheckGames)
	res.Elapsed = time.Since(began)
	return res, nil
}

// judge sets Reliable and Reason.
func judge(res *VariantResult, checkGames int) {
	anchor := cmp.Or(res.Anchor, DefaultAnchor)
	switch {
	case checkGames > 0 && res.AnchorScore < 0.5:
		res.Reliable = false
		res.Reason = fmt.Sprintf("model weaker than %s (score %.1f %%)", anchor, 100*res.AnchorScore)
	case checkGames > 0:
		res.Reliable = true
	case res.Rating != nil && res.Rating.Elo < res.Rating.AnchorElo:
		res.Reliable = false
		res.Reason = fmt.Sprintf("model weaker than %s (stored rating %+.0f against %+.0f)", anchor, res.Rating.Elo, res.Rating.AnchorElo)
	case res.Rating != nil:
		res.Reliable = true
	default:
		res.Reliable = false
		res.Reason = fmt.Sprintf("strength not checked against %s", anchor)
	}
}

// storedRating reads the model's rating table, if it rates both the
// model's generation and the anchor.
func storedRating(m *model.Model, anchor string) *StoredRating {
	data := m.Metadata[model.MetaRatings]
	if data == "" || anchor == "" {
		return nil
	}
	var table rating.Table
	if err := json.Unmarshal([]byte(data), &table); err != nil {
		return nil
	}
	player := fmt.Sprintf("gen%d", m.Training.Generation)
	me, ok1 := table.Get(player)
	a, ok2 := table.Get(anchor)
	if !ok1 || !ok2 || math.IsNaN(me.Elo) || math.IsNaN(a.Elo) {
		return nil
	}
	return &StoredRating{Player: player, Elo: me.Elo, Err95: me.Err95, Anchor: anchor, AnchorElo: a.Elo}
}

// describeSearch names the search settings for the report, with the
// guard's depth (0: none).
func describeSearch(c mcts.Config, guard int) string {
	g := ""
	if guard > 0 {
		// Every setting of the guard, so that a study resumed by a build
		// with other defaults does not keep what the old guard played.
		if gd, err := mcts.NewDefaultGuard(guard, mcts.Limits{Sims: 1}); err == nil {
			g = " " + gd.Spec()
		}
	}
	if c.Gumbel {
		return fmt.Sprintf("gumbel m=%d gscale=%g", c.GumbelM, c.GumbelScale) + g
	}
	s := fmt.Sprintf("puct cpuct=%g fpu=%g", c.CPuct, c.FPUReduction)
	if c.NoiseEpsilon > 0 {
		s += fmt.Sprintf(" noise=%g", c.NoiseEpsilon)
	}
	if c.Temperature > 0 && c.TemperaturePlies > 0 {
		s += fmt.Sprintf(" temp=%g for %d turns", c.Temperature, c.TemperaturePlies)
	}
	return s + g
}

// study is the state shared by the games of one Study.
type study struct {
	m        *model.Model
	r        *game.Rules
	opts     Options
	search   mcts.Config
	workers  int
	batchers []*mcts.Batcher
	openings []opening
	mu       sync.Mutex // serialises OnGame
	// fingerprint is the study's Fingerprint, which its records carry;
	// played the earlier records of it (Options.Played) by stage and
	// game, and resumedGames the games taken from them.
	fingerprint  string
	played       map[string]*game.Record
	resumedGames atomic.Int64
}

// opening is the position after a game's opening turns.
type opening struct {
	pos   game.Position
	turns []string
}

// Streams of mcts.Mix(Seed, ·) for the study's random choices.
const (
	streamOpening = 1
	streamPlayers = 2
	streamAnchor  = 3
)

// startValues sets the network's and the search's values of the start
// position.
func (s *study) startValues(ctx context.Context, res *VariantResult) error {
	p := s.r.Start()
	req := []mcts.Request{{Pos: p, Legal: p.Decisions(nil)}}
	req[0].Priors = make([]float32, len(req[0].Legal))
	if err := s.batchers[0].Evaluate(req); err != nil {
		return fmt.Errorf("balance: start position: %w", err)
	}
	w := req[0].WDL
	res.StartWDL = [3]float64{float64(w[0]), float64(w[1]), float64(w[2])}
	res.StartValue = float64(req[0].Value)
	if p.SideToMove() != s.r.First {
		res.StartValue = -res.StartValue
		res.StartWDL[0], res.StartWDL[2] = res.StartWDL[2], res.StartWDL[0]
	}
	cfg := s.search
	cfg.Seed = mcts.Mix(s.opts.Seed, 0)
	sr, err := mcts.NewSearch(s.batchers[0], cfg)
	if err != nil {
		return fmt.Errorf("balance: %w", err)
	}
	sr.SetPosition(p)
	out, err := sr.Run(ctx, mcts.Limits{Sims: res.MainSims})
	if err != nil {
		return fmt.Errorf("balance: start position: %w", err)
	}
	res.StartSearch = float64(out.Value)
	if p.SideToMove() != s.r.First {
		res.StartSearch = -res.StartSearch
	}
	return nil
}

// policyPlayer plays decisions drawn from the network's policy raised to
// 1/temperature (the most likely at temperature 0).
type policyPlayer struct {
	ev   mcts.Evaluator
	temp float64
	rng  *rand.Rand
}

// Turn implements mcts.Player.
func (pp *policyPlayer) Turn(_ context.Context, p *game.Position) ([]game.Decision, error) {
	q := *p
	var ds []game.Decision
	for {
		legal := q.Decisions(nil)
		if len(legal) == 0 {
			if len(ds) == 0 {
				return nil, errors.New("the game is over")
			}
			return ds, nil
		}
		d := legal[0]
		if len(legal) > 1 {
			req := []mcts.Request{{Pos: q, Legal: legal, Priors: make([]float32, len(legal))}}
			if err := pp.ev.Evaluate(req); err != nil {
				return nil, err
			}
			d = legal[sample(req[0].Priors, pp.temp, pp.rng)]
		}
		ds = append(ds, d)
		q.Apply(d)
		if q.Chain() < 0 {
			return ds, nil
		}
	}
}

// sample draws an index with probability ∝ priors^(1/temp); at temp 0 it
// returns the largest prior (the first on a tie).
func sample(priors []float32, temp float64, rng *rand.Rand) int {
	best := 0
	for i, p := range priors {
		if p > priors[best] {
			best = i
		}
	}
	if temp == 0 {
		return best
	}
	w := make([]float64, len(priors))
	var sum float64
	top := float64(priors[best])
	for i, p := range priors {
		if p > 0 {
			// Relative to the top prior, so that low temperatures do
			// not underflow.
			w[i] = math.Exp(math.Log(float64(p)/top) / temp)
		}
		sum += w[i]
	}
	if !(sum > 0) {
		return best
	}
	x := rng.Float64() * sum
	for i, v := range w {
		x -= v
		if x < 0 {
			return i
		}
	}
	return best
}

// maxOpeningDraws bounds the draws of one opening in redrawRepeats.
const maxOpeningDraws = 64

// redrawTemperature is the factor of the opening temperature at draw d of
// an opening: 1 + d/8, up to about 9 at the last draw. A sharp policy
// gives few openings at its own temperature (daablot's 16 of 96 in four
// turns at temperature 1, session 54); flattened, it gives more, still
// weighted by the policy. Temperature 0 stays 0.
func redrawTemperature(d int) float64 { return 1 + float64(d)/redrawStep }

// redrawStep is the redraws that add the opening temperature once more.
const redrawStep = 8

// maxExtraOpeningTurns bounds the turns redrawRepeats adds to an opening
// whose draws all repeat earlier openings. Daablot's policy gives 31
// positions after four turns for 96 games, however flat (session 54).
const maxExtraOpeningTurns = 4

// openingRedraw describes how redrawRepeats draws, as VariantResult
// records it: a study resumed by a build that draws otherwise does not
// keep the openings of the old way (but see sameOpenings).
var openingRedraw = fmt.Sprintf("up to %d draws, temperature x (1 + draw/%d); then as many a turn longer, up to %d turns more",
	maxOpeningDraws, redrawStep, maxExtraOpeningTurns)

// openingRedrawFixedLength is openingRedraw before openings grew longer
// (sessions 54 and 55).
var openingRedrawFixedLength = fmt.Sprintf("up to %d draws, temperature x (1 + draw/%d)", maxOpeningDraws, redrawStep)

// redrawRepeats draws again every opening whose position repeats an earlier
// opening's (draw 1, 2, … of its index, up to maxOpeningDraws in all, each
// at redrawTemperature times the opening temperature), so that the games
// are independent as the interval assumes; when every draw repeats, it
// draws the opening again with one more turn (draws 0, 1, … at that
// length), up to maxExtraOpeningTurns more. At temperature 0 there is one
// opening of each length, so it does not try. It goes through the
// openings in order on one evaluator, so the result does not depend on
// scheduling, and returns the number of distinct openings: fewer than there
// are when the policy is too sharp to give that many.
func (s *study) redrawRepeats(ctx context.Context) (int, error) {
	seen := map[string]bool{}
	maxExtra := maxExtraOpeningTurns
	if s.opts.OpeningTemperature == 0 {
		maxExtra = 0
	}
	for i := range s.openings {
		key := s.openings[i].pos.FEN()
		for extra := 0; seen[key] && extra <= maxExtra; extra++ {
			first := 0
			if extra == 0 {
				first = 1 // draw 0 is the one that repeats
			}
			for draw := first; seen[key] && draw < maxOpeningDraws; draw++ {
				o, err := s.opening(ctx, i, draw, extra, s.batchers[0])
				if err != nil {
					return 0, err
				}
				if k := o.pos.FEN(); !seen[k] {
					s.openings[i], key = o, k
				}
			}
		}
		seen[key] = true
	}
	return len(seen), nil
}

// opening plays draw number draw of opening i, extra turns longer than
// OpeningTurns; its seed depends on i, draw and extra alone. Draw 0 with no
// extra turns is the opening's first; redrawRepeats asks for the others.
func (s *study) opening(ctx context.Context, i, draw, extra int, ev mcts.Evaluator) (opening, error) {
	seed := mcts.Mix(mcts.Mix(s.opts.Seed, streamOpening), uint64(i))
	if draw > 0 {
		seed = mcts.Mix(seed, uint64(draw))
	}
	if extra > 0 {
		seed = mcts.Mix(seed, uint64(extra)<<32)
	}
	pp := &policyPlayer{ev: ev, temp: s.opts.OpeningTemperature * redrawTemperature(draw), rng: rand.New(rand.NewPCG(seed, 0x6f70656e))}
	p := s.r.Start()
	var turns []string
	for range s.opts.OpeningTurns + extra {
		if p.Status().Over() || len(p.Decisions(nil)) == 0 {
			break
		}
		before := p
		ds, err := mcts.PlayTurn(ctx, pp, &p)
		if err != nil {
			return opening{}, fmt.Errorf("balance: opening %d: %w", i+1, err)
		}
		t, _, _ := before.DecisionsToTurn(ds)
		turns = append(turns, t.Format(before.Board()))
	}
	return opening{pos: p, turns: turns}, nil
}

// parallel runs job(0), …, job(n-1) on the workers, each worker bound to
// one of the batchers, and calls done (if set) after each job from one
// goroutine at a time. It returns the first error and stops the rest.
func (s *study) parallel(ctx context.Context, n int, job func(i int, ev mcts.Evaluator) error, done func(i int)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	var (
		wg       sync.WaitGroup
		errMu    sync.Mutex
		firstErr error
	)
	for w := range min(s.workers, n) {
		ev := s.batchers[w%len(s.batchers)]
		wg.Go(func() {
			for i := range jobs {
				if ctx.Err() != nil {
					continue
				}
				if err := job(i, ev); err != nil {
					errMu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					errMu.Unlock()
					cancel()
					continue
				}
				if done != nil {
					s.mu.Lock()
					done(i)
					s.mu.Unlock()
				}
			}
		})
	}
	func() {
		defer close(jobs)
		for i := range n {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return context.Cause(ctx)
}

// searchPlayer returns a player of the model at sims simulations.
func (s *study) searchPlayer(ev mcts.Evaluator, sims int, seed uint64) (mcts.Player, error) {
	pc := mcts.PlayerConfig{Gumbel: s.search.Gumbel, Limits: mcts.Limits{Sims: sims}, Search: s.search}
	if s.opts.Guard > 0 {
		pc.Guard = mcts.DefaultGuard(pc.Limits)
		pc.Guard.Depth = s.opts.Guard
	}
	return pc.NewPlayer(ev, seed)
}

// play plays a game from opening o between south and north and returns
// its full record and final status.
func (s *study) play(ctx context.Context, o opening, south, north mcts.Player, southName, northName string) (*game.Record, game.Status, error) {
	rec, st, err := match.PlayGame(ctx, s.r, o.pos, south, north)
	if err != nil {
		return nil, st, err
	}
	full := game.NewRecord(s.r, nil)
	full.South, full.North = southName, northName
	full.Turns = append(slices.Clone(o.turns), rec.Turns...)
	full.Tags = map[string]string{tagOpening: fmt.Sprint(len(o.turns))}
	full.Finish(st)
	return full, st, nil
}

// selfPlay plays the games of one strength.
func (s *study) selfPlay(ctx context.Context, sims int) (StrengthResult, error) {
	began := time.Now()
	games := make([]*Game, s.opts.Games)
	name := fmt.Sprintf("model sims=%d", sims)
	stage := SelfPlayStage(sims)
	err := s.parallel(ctx, s.opts.Games, func(i int, ev mcts.Evaluator) error {
		rec, st, took, err := s.resumed(stage, i+1, s.openings[i], name, name)
		if err != nil {
			return err
		}
		if rec != nil {
			games[i] = &Game{Sims: sims, Index: i, Record: rec, Status: st,
				Score: st.Outcome.ScoreFor(s.r.First), Duration: took, Resumed: true}
			return nil
		}
		t0 := time.Now()
		seed := mcts.Mix(mcts.Mix(s.opts.Seed, streamPlayers), uint64(i))
		seed = mcts.Mix(seed, uint64(sims))
		south, err := s.searchPlayer(ev, sims, mcts.Mix(seed, 1))
		if err != nil {
			return err
		}
		north, err := s.searchPlayer(ev, sims, mcts.Mix(seed, 2))
		if err != nil {
			return err
		}
		rec, st, err = s.play(ctx, s.openings[i], south, north, name, name)
		if err != nil {
			return fmt.Errorf("balance: %s, %d sims, game %d: %w", s.r.Name, sims, i+1, err)
		}
		s.tag(rec, stage, i+1, time.Since(t0))
		rec.Tags[tagSeed] = fmt.Sprint(s.opts.Seed)
		games[i] = &Game{Sims: sims, Index: i, Record: rec, Status: st,
			Score: st.Outcome.ScoreFor(s.r.First), Duration: time.Since(t0)}
		return nil
	}, func(i int) {
		if s.opts.OnGame != nil {
			s.opts.OnGame(games[i])
		}
	})
	if err != nil {
		return StrengthResult{}, err
	}
	sr := summarize(sims, s.r.First, games)
	sr.Elapsed = time.Since(began)
	return sr, nil
}

// summarize counts the games of one strength from the side first's point
// of view.
func summarize(sims int, first game.Side, games []*Game) StrengthResult {
	sr := StrengthResult{Sims: sims, Games: len(games), Ends: map[string]int{}}
	lens := make([]float64, 0, len(games))
	seen := map[string]bool{}
	var sum float64
	for _, g := range games {
		sr.First.Add(g.Status.Outcome.ScoreFor(first))
		sr.Ends[g.Status.Reason.Key()]++
		n := float64(len(g.Record.Turns))
		lens = append(lens, n)
		sum += n
		seen[strings.Join(g.Record.Turns, " ")] = true
	}
	sr.Distinct = len(seen)
	sr.FirstScore = sr.First.Score()
	sr.CILow, sr.CIHigh = sr.First.ScoreCI(0.95)
	if len(games) > 0 {
		sr.DrawRate = float64(sr.First.D) / float64(len(games))
		sr.MeanLen = sum / float64(len(games))
		sr.MedianLen = numeric.Median(lens)
	}
	return sr
}

// anchorGames plays the model at sims against the anchor player.
func (s *study) anchorGames(ctx context.Context, sims int, res *VariantResult) error {
	anchor, err := mcts.ParseFactory(s.opts.CheckAnchor, model.SpecOptions(s.r, 1))
	if err != nil {
		return fmt.Errorf("balance: anchor: %w", err)
	}
	defer anchor.Close()
	n := s.opts.CheckGames
	games := make([]*Game, n)
	name := fmt.Sprintf("model sims=%d", sims)
	err = s.parallel(ctx, n, func(i int, ev mcts.Evaluator) error {
		// The model moves first in even games.
		modelFirst := i%2 == 0
		o := s.openings[i/2]
		// The side to move after the opening may not be the first player.
		modelSide := s.r.First
		if !modelFirst {
			modelSide = modelSide.Other()
		}
		sn, nn := name, anchor.Name
		if modelSide == game.North {
			sn, nn = anchor.Name, name
		}
		rec, st, took, err := s.resumed(StageAnchor, i+1, o, sn, nn)
		if err != nil {
			return err
		}
		if rec != nil {
			games[i] = &Game{Anchor: true, Sims: sims, Index: i, Record: rec, Status: st,
				Score: st.Outcome.ScoreFor(modelSide), ModelFirst: modelFirst, Duration: took, Resumed: true}
			return nil
		}
		t0 := time.Now()
		seed := mcts.Mix(mcts.Mix(s.opts.Seed, streamAnchor), uint64(i))
		model, err := s.searchPlayer(ev, sims, mcts.Mix(seed, 1))
		if err != nil {
			return err
		}
		other, err := anchor.New(mcts.Mix(seed, 2))
		if err != nil {
			return fmt.Errorf("balance: anchor %s: %w", anchor.Name, err)
		}
		south, north := model, other
		if modelSide == game.North {
			south, north = other, model
		}
		rec, st, err = s.play(ctx, o, south, north, sn, nn)
		if err != nil {
			return fmt.Errorf("balance: %s, against %s, game %d: %w", s.r.Name, anchor.Name, i+1, err)
		}
		s.tag(rec, StageAnchor, i+1, time.Since(t0))
		games[i] = &Game{Anchor: true, Sims: sims, Index: i, Record: rec, Status: st,
			Score: st.Outcome.ScoreFor(modelSide), ModelFirst: modelFirst, Duration: time.Since(t0)}
		return nil
	}, func(i int) {
		if s.opts.OnGame != nil {
			s.opts.OnGame(games[i])
		}
	})
	if err != nil {
		return err
	}
	for _, g := range games {
		res.AnchorWDL.Add(g.Score)
		if g.ModelFirst {
			res.AnchorFirstWDL.Add(g.Score)
		}
	}
	res.AnchorScore = res.AnchorWDL.Score()
	res.AnchorCILow, res.AnchorCIHigh = res.AnchorWDL.ScoreCI(0.95)
	return nil
}
