package match

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
)

// ArenaConfig describes a match between two kinds of players.
type ArenaConfig struct {
	Rules *game.Rules
	// Start is the position every game starts from (nil: the variant's).
	Start *game.Position
	// A and B make the two players; A is South in even-numbered games
	// (0, 2, …) and North in odd ones.
	A, B *mcts.Factory
	// Games is the number of games (at most; an SPRT may stop earlier).
	Games int
	// Threads is the number of games played at once (0 means 1).
	Threads int
	// Seed makes the match reproducible: game i's players and opening are
	// seeded from Seed and i only, whatever the threads.
	Seed uint64
	// Openings, if set, are the start positions of the games in place of
	// Start: games 2k and 2k+1 start from Openings[k mod len(Openings)],
	// with the sides swapped, so each opening is played once by A as South
	// and once as North (an opening book; see configs.Book).
	Openings []game.Position
	// OpeningTurns random turns are played before the players take over;
	// games 2k and 2k+1 share the same opening, with the sides swapped.
	OpeningTurns int
	// Endgame, if set, starts each pair of games (2k and 2k+1, sides
	// swapped) from its own random reduced position instead of Start:
	// RandomEndgame with this spec, seeded from Seed and k. The two games
	// of a pair cancel the position's imbalance, so the score measures how
	// well A wins won endgames and holds lost ones against B.
	Endgame *EndgameSpec
	// SPRT, if set, stops the match as soon as the test decides. Games are
	// counted in index order, so the stopping point does not depend on
	// which thread finished first.
	SPRT *SPRT
	// OnGame, if set, is called after each game is counted, in index order,
	// from one goroutine, with the score so far from A's point of view (not
	// for the games of Done).
	OnGame func(g *ArenaGame, sofar WDL)
	// Tags are written into every game's record, beside the tags that say
	// which game of the match it is; Resume checks them too. Such as the
	// checksums of the players' models, so that a model replaced at the
	// same path is a different match.
	Tags map[string]string
	// Code names the program that plays the match (such as
	// model.CodeVersion()). It is written into each record the match plays
	// as the tag Code, but Resume does not check it: a match resumed by a
	// later build goes on, and ArenaResult.Codes says which builds played
	// its games.
	Code string
	// Done holds the games an earlier run of the same match played: games
	// 0 to len(Done)-1, in index order, as Resume reads them from that
	// run's records. They are counted first and not played again.
	Done []*ArenaGame
}

// ArenaGame is one finished game of a match.
type ArenaGame struct {
	Index    int
	AIsSouth bool
	Record   *game.Record
	Status   game.Status
	ScoreA   float64 // A's score: 1, 0.5 or 0
	Duration time.Duration
	// Elapsed is the match's wall time when the game was counted, the
	// earlier runs of a resumed match included (the time they spent on
	// games a stop cut short is not).
	Elapsed time.Duration
	// PiecesA and PiecesB are the pieces (of every rank) that A and B have
	// left when the game ends.
	PiecesA, PiecesB int
}

// ArenaResult is the outcome of a match, from A's point of view.
type ArenaResult struct {
	Games []*ArenaGame // the games counted, in index order
	WDL   WDL          // A's wins, draws and losses
	// AsSouth and AsNorth split WDL by A's side.
	AsSouth, AsNorth WDL
	// LLR and Verdict are the SPRT's state after the counted games (when
	// an SPRT was asked for).
	LLR     float64
	Verdict Verdict
	// Elapsed is the match's wall time, the earlier runs of a resumed match
	// included (as ArenaGame.Elapsed); Resumed counts the games of
	// ArenaConfig.Done.
	Elapsed time.Duration
	Resumed int
}

// DrawSummary describes how a match's drawn games ended: by which rule,
// and with whom ahead on pieces. A draw at a length limit with one side far
// ahead is a different game from a draw between two lone kings.
type DrawSummary struct {
	Games int
	// Reasons counts the draws by end condition (game.Reason.Key).
	Reasons map[string]int
	// AAhead, Level and BAhead count the draws by who had more pieces left.
	AAhead, Level, BAhead int
	// PiecesA and PiecesB are the mean pieces left to A and B.
	PiecesA, PiecesB float64
}

// Draws summarises the drawn games of the match.
func (r *ArenaResult) Draws() DrawSummary {
	d := DrawSummary{Reasons: map[string]int{}}
	for _, g := range r.Games {
		if g.Status.Outcome != game.Draw {
			continue
		}
		d.Games++
		d.Reasons[g.Status.Reason.Key()]++
		switch {
		case g.PiecesA > g.PiecesB:
			d.AAhead++
		case g.PiecesA < g.PiecesB:
			d.BAhead++
		default:
			d.Level++
		}
		d.PiecesA += float64(g.PiecesA)
		d.PiecesB += float64(g.PiecesB)
	}
	if d.Games > 0 {
		d.PiecesA /= float64(d.Games)
		d.PiecesB /= float64(d.Games)
	}
	return d
}

// Ends counts A's wins and losses by end condition (game.Reason.Key);
// Draws describes the draws.
func (r *ArenaResult) Ends() (won, lost map[string]int) {
	won, lost = map[string]int{}, map[string]int{}
	for _, g := range r.Games {
		switch g.ScoreA {
		case 1:
			won[g.Status.Reason.Key()]++
		case 0:
			lost[g.Status.Reason.Key()]++
		}
	}
	return won, lost
}

// FormatEnds writes counts of games by end condition (game.Reason.Key) as
// "key n, key n", sorted by key: "max-plies 3, no-capture 1".
func FormatEnds(counts map[string]int) string {
	parts := make([]string, 0, len(counts))
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
	}
	return strings.Join(parts, ", ")
}

// RunArena plays the match. It returns the first error of any game (an
// illegal or unfinished turn, a failing player) and stops the others.
func RunArena(ctx context.Context, cfg ArenaConfig) (*ArenaResult, error) {
	start, err := checkArena(&cfg)
	if err != nil {
		return nil, err
	}
	began := time.Now()
	t := &arenaTally{res: &ArenaResult{Resumed: len(cfg.Done)}, sprt: cfg.SPRT}
	prior := t.countDone(cfg.Done)
	res := t.res
	next := len(res.Games)
	if t.stopped || next == cfg.Games {
		res.Elapsed = prior
		return res, nil
	}
	threads := min(max(cfg.Threads, 1), cfg.Games-next)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	results := playArenaGames(ctx, &cfg, start, next, threads)
	firstErr := t.collect(&cfg, results, cancel, next, prior, began)
	res.Elapsed = prior + time.Since(began)
	if firstErr != nil {
		return res, firstErr
	}
	if !t.stopped && len(res.Games) < cfg.Games {
		if err := context.Cause(ctx); err != nil {
			return res, fmt.Errorf("arena: stopped after %d games: %w", len(res.Games), err)
		}
	}
	return res, nil
}

// checkArena checks the match's settings, its start position, its
// openings and the games it resumes, and returns the start position.
func checkArena(cfg *ArenaConfig) (game.Position, error) {
	switch {
	case cfg.Rules == nil:
		return game.Position{}, errors.New("arena: no variant")
	case cfg.A == nil || cfg.B == nil:
		return game.Position{}, errors.New("arena: both players are needed")
	case cfg.Games < 1:
		return game.Position{}, fmt.Errorf("arena: %d games: want at least 1", cfg.Games)
	case cfg.OpeningTurns < 0:
		return game.Position{}, fmt.Errorf("arena: %d opening turns: want 0 or more", cfg.OpeningTurns)
	case cfg.Endgame != nil && cfg.Start != nil:
		return game.Position{}, errors.New("arena: endgames and a start position exclude each other")
	case len(cfg.Openings) > 0 && (cfg.Start != nil || cfg.Endgame != nil):
		return game.Position{}, errors.New("arena: openings exclude a start position and endgames")
	case cfg.Endgame != nil && cfg.Endgame.Soldiers < 0:
		return game.Position{}, fmt.Errorf("arena: %d endgame soldiers: want 0 or more", cfg.Endgame.Soldiers)
	}
	if cfg.SPRT != nil {
		if err := cfg.SPRT.Validate(); err != nil {
			return game.Position{}, fmt.Errorf("arena: %w", err)
		}
	}
	start := matchStart(cfg)
	var buf [2 * game.MaxPoints]game.Decision
	if len(start.Decisions(buf[:0])) == 0 {
		return game.Position{}, errors.New("arena: the start position is already over")
	}
	for k := range cfg.Openings {
		if len(cfg.Openings[k].Decisions(buf[:0])) == 0 {
			return game.Position{}, fmt.Errorf("arena: opening %d (%s) is already over", k+1, cfg.Openings[k].FEN())
		}
	}
	if len(cfg.Done) > cfg.Games {
		return game.Position{}, fmt.Errorf("arena: %d games done of a match of %d", len(cfg.Done), cfg.Games)
	}
	for k, g := range cfg.Done {
		if g == nil || g.Index != k || g.Record == nil {
			return game.Position{}, fmt.Errorf("arena: done game %d is not game %d of the match", k+1, k+1)
		}
	}
	return start, nil
}

// arenaTally counts a match's games into its result, in index order, and
// says when the SPRT (if any) has stopped the match.
type arenaTally struct {
	res     *ArenaResult
	sprt    *SPRT
	stopped bool
}

// count adds game g to the result and, with an SPRT, tests the score so
// far.
func (t *arenaTally) count(g *ArenaGame) {
	res := t.res
	res.Games = append(res.Games, g)
	res.WDL.Add(g.ScoreA)
	if g.AIsSouth {
		res.AsSouth.Add(g.ScoreA)
	} else {
		res.AsNorth.Add(g.ScoreA)
	}
	if t.sprt != nil {
		res.LLR, res.Verdict = t.sprt.Test(res.WDL)
		t.stopped = res.Verdict != Continue
	}
}

// countDone counts the games an earlier run played, up to where the SPRT
// stops, and returns the match's wall time at the last of them.
func (t *arenaTally) countDone(done []*ArenaGame) time.Duration {
	var prior time.Duration
	for _, g := range done {
		if !t.stopped {
			t.count(g)
		}
		prior = g.Elapsed
	}
	return prior
}

// arenaOutcome is one game a worker played, or the error that ended it.
type arenaOutcome struct {
	g   *ArenaGame
	err error
}

// playArenaGames plays games next to cfg.Games-1 on threads goroutines,
// handing them out in index order until ctx is done, and sends each
// outcome, in the order the games finish, on the channel it returns. The
// channel is closed when every worker has stopped.
func playArenaGames(ctx context.Context, cfg *ArenaConfig, start game.Position, next, threads int) <-chan arenaOutcome {
	jobs := make(chan int)
	results := make(chan arenaOutcome, threads)
	var wg sync.WaitGroup
	for range threads {
		wg.Go(func() {
			for i := range jobs {
				g, err := playArenaGame(ctx, cfg, start, i)
				results <- arenaOutcome{g, err}
			}
		})
	}
	go func() {
		defer close(jobs)
		for i := next; i < cfg.Games; i++ {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	return results
}

// collect reads the outcomes until the channel closes and counts the
// games in index order from game next on: each gets the match's wall time
// (prior, the earlier runs', plus the time since began) and is passed to
// cfg.OnGame. The first error, or the SPRT's verdict, cancels the match;
// later games are drained uncounted. It returns the first error.
func (t *arenaTally) collect(cfg *ArenaConfig, results <-chan arenaOutcome, cancel context.CancelFunc, next int, prior time.Duration, began time.Time) error {
	waiting := map[int]*ArenaGame{}
	var firstErr error
	for o := range results {
		if o.err != nil {
			if firstErr == nil && !t.stopped {
				firstErr = o.err
				cancel()
			}
			continue
		}
		if t.stopped || firstErr != nil {
			continue
		}
		waiting[o.g.Index] = o.g
		for !t.stopped {
			g, ok := waiting[next]
			if !ok {
				break
			}
			delete(waiting, next)
			next++
			g.Elapsed = prior + time.Since(began)
			g.Record.Tags[tagMatchSeconds] = strconv.FormatFloat(g.Elapsed.Seconds(), 'f', 1, 64)
			t.count(g)
			if t.stopped {
				cancel()
			}
			if cfg.OnGame != nil {
				cfg.OnGame(g, t.res.WDL)
			}
		}
	}
	return firstErr
}

// playArenaGame plays game i of the match.
func playArenaGame(ctx context.Context, cfg *ArenaConfig, start game.Position, i int) (*ArenaGame, error) {
	began := time.Now()
	seed := mcts.Mix(cfg.Seed, uint64(i))
	a, err := cfg.A.New(mcts.Mix(seed, 1))
	if err != nil {
		return nil, fmt.Errorf("game %d: player A (%s): %w", i+1, cfg.A.Name, err)
	}
	b, err := cfg.B.New(mcts.Mix(seed, 2))
	if err != nil {
		return nil, fmt.Errorf("game %d: player B (%s): %w", i+1, cfg.B.Name, err)
	}
	p, rec, err := gameOpening(ctx, cfg, start, i)
	if err != nil {
		return nil, err
	}
	g := &ArenaGame{Index: i, AIsSouth: i%2 == 0}
	south, north := a, b
	if !g.AIsSouth {
		south, north = b, a
	}
	for {
		pl, name := south, rec.South
		if p.SideToMove() == game.North {
			pl, name = north, rec.North
		}
		if err := playRecordedTurn(ctx, pl, &p, rec); err != nil {
			if errors.Is(err, errGameOver) {
				break
			}
			return nil, fmt.Errorf("game %d, turn %d (%s, %s): %w", i+1, len(rec.Turns)+1, p.SideToMove(), name, err)
		}
	}
	g.Duration = time.Since(began)
	rec.Tags[tagSeconds] = strconv.FormatFloat(g.Duration.Seconds(), 'f', 1, 64)
	if cfg.Code != "" {
		rec.Tags[tagCode] = cfg.Code
	}
	g.finish(rec, p)
	return g, nil
}

// gameOpening returns game i's position when its players take over, and
// its record so far: the start (the match's, the opening book's or a
// random endgame), the players' names as South and North, the tags that
// identify the game, and the random opening turns. It depends only on the
// match's settings and i, so a resumed match (Resume) can check a record
// of an earlier run against it.
func gameOpening(ctx context.Context, cfg *ArenaConfig, start game.Position, i int) (game.Position, *game.Record, error) {
	if cfg.Endgame != nil {
		rng := rand.New(rand.NewPCG(mcts.Mix(cfg.Seed, 2<<32|uint64(i/2)), 0))
		var ok bool
		if start, ok = RandomEndgame(cfg.Rules, rng, *cfg.Endgame); !ok {
			return game.Position{}, nil, fmt.Errorf("game %d: no random endgame of %s found", i+1, cfg.Rules.Name)
		}
	}
	if n := len(cfg.Openings); n > 0 {
		start = cfg.Openings[i/2%n]
	}
	rec := game.NewRecord(cfg.Rules, &start)
	rec.South, rec.North = cfg.A.Name, cfg.B.Name
	if i%2 != 0 {
		rec.South, rec.North = cfg.B.Name, cfg.A.Name
	}
	rec.Tags = maps.Clone(cfg.Tags)
	if rec.Tags == nil {
		rec.Tags = map[string]string{}
	}
	rec.Tags[tagGame] = strconv.Itoa(i + 1)
	rec.Tags[tagSeed] = strconv.FormatUint(cfg.Seed, 10)
	if n := len(cfg.Openings); n > 0 {
		rec.Tags[tagBook] = strconv.Itoa(i/2%n + 1)
	}
	p := start
	if cfg.OpeningTurns > 0 {
		rec.Tags[tagOpening] = strconv.Itoa(cfg.OpeningTurns)
		opener := mcts.NewRandomPlayer(mcts.Mix(cfg.Seed, 1<<32|uint64(i/2)))
		for range cfg.OpeningTurns {
			if err := playRecordedTurn(ctx, opener, &p, rec); err != nil {
				if errors.Is(err, errGameOver) {
					break
				}
				return game.Position{}, nil, fmt.Errorf("game %d: opening: %w", i+1, err)
			}
		}
	}
	return p, rec, nil
}

// finish sets the game's record, status, score and pieces left from its
// final position p.
func (g *ArenaGame) finish(rec *game.Record, p game.Position) {
	g.Status = p.Status()
	rec.Finish(g.Status)
	g.Record = rec
	aSide := game.South
	if !g.AIsSouth {
		aSide = game.North
	}
	g.ScoreA = g.Status.Outcome.ScoreFor(aSide)
	g.PiecesA, g.PiecesB = p.Occupied(aSide).Count(), p.Occupied(aSide.Other()).Count()
}

var errGameOver = errors.New("the game is over")

// playRecordedTurn plays one checked turn of pl on p and appends it to rec.
func playRecordedTurn(ctx context.Context, pl mcts.Player, p *game.Position, rec *game.Record) error {
	var buf [2 * game.MaxPoints]game.Decision
	if len(p.Decisions(buf[:0])) == 0 {
		return errGameOver
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	before := *p
	ds, err := mcts.PlayTurn(ctx, pl, p)
	if err != nil {
		return err
	}
	t, _, _ := before.DecisionsToTurn(ds)
	rec.Turns = append(rec.Turns, t.Format(before.Board()))
	return nil
}

// PlayGame plays one game between two players from start and returns its
// record (with the players named south and north as given) and final status.
func PlayGame(ctx context.Context, r *game.Rules, start game.Position, south, north mcts.Player) (*game.Record, game.Status, error) {
	rec := game.NewRecord(r, &start)
	p := start
	for {
		pl := south
		if p.SideToMove() == game.North {
			pl = north
		}
		if err := playRecordedTurn(ctx, pl, &p, rec); err != nil {
			if errors.Is(err, errGameOver) {
				break
			}
			return rec, p.Status(), fmt.Errorf("turn %d (%s): %w", len(rec.Turns)+1, p.SideToMove(), err)
		}
	}
	st := p.Status()
	rec.Finish(st)
	return rec, st, nil
}
