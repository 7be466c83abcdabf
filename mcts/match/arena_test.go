package match

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
)

func factory(t *testing.T, spec string) *mcts.Factory {
	t.Helper()
	f, err := mcts.ParseFactory(spec, mcts.SpecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestArenaKnownResult plays from a position that South wins in one turn
// (a1xa5 takes North's only piece): with the same player on both sides, A
// wins exactly the games where it is South.
func TestArenaKnownResult(t *testing.T) {
	r := configs.MustVariant("keyland")
	start, err := game.ParseFEN(r, "6/5/6/5/6/5/6/5/6/5/s5/5/S5 s")
	if err != nil {
		t.Fatal(err)
	}
	greedy := func(name string) *mcts.Factory {
		return mcts.NewFactory(name, func(seed uint64) (mcts.Player, error) { return mcts.NewGreedyPlayer(seed), nil })
	}
	res, err := RunArena(context.Background(), ArenaConfig{
		Rules: r, Start: &start, A: greedy("A"), B: greedy("B"), Games: 10, Threads: 3, Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.WDL != (WDL{5, 0, 5}) || res.AsSouth != (WDL{5, 0, 0}) || res.AsNorth != (WDL{0, 0, 5}) {
		t.Errorf("W/D/L %v (south %v, north %v), want 5/0/5 with every win as South", res.WDL, res.AsSouth, res.AsNorth)
	}
	if s := res.WDL.Score(); s != 0.5 {
		t.Errorf("score %g", s)
	}
	for i, g := range res.Games {
		if g.Index != i || g.Record.Turns[0] != "a1xa5" || g.Record.Result != "1-0" {
			t.Errorf("game %d: index %d, turns %v, result %s", i, g.Index, g.Record.Turns, g.Record.Result)
		}
		if _, err := g.Record.Replay(r); err != nil {
			t.Errorf("game %d does not replay: %v", i, err)
		}
		if (g.Record.South == "A") != g.AIsSouth || g.AIsSouth != (i%2 == 0) {
			t.Errorf("game %d: south is %q, A is south: %v", i, g.Record.South, g.AIsSouth)
		}
		// The winner (South) keeps its one piece, the loser has none.
		wantA, wantB := 1, 0
		if !g.AIsSouth {
			wantA, wantB = 0, 1
		}
		if g.PiecesA != wantA || g.PiecesB != wantB {
			t.Errorf("game %d: pieces left A %d, B %d (A is south: %v)", i, g.PiecesA, g.PiecesB, g.AIsSouth)
		}
	}
	if d := res.Draws(); d.Games != 0 || len(d.Reasons) != 0 {
		t.Errorf("draws of a match without draws: %+v", d)
	}
}

// TestArenaDraws: the draws are counted by end condition and by who was
// ahead on pieces, and decisive games are left out.
func TestArenaDraws(t *testing.T) {
	drawn := func(reason game.Reason, a, b int) *ArenaGame {
		return &ArenaGame{Status: game.Status{Outcome: game.Draw, Reason: reason}, ScoreA: 0.5, PiecesA: a, PiecesB: b}
	}
	res := &ArenaResult{Games: []*ArenaGame{
		drawn(game.MaxPlies, 10, 1),
		{Status: game.Status{Outcome: game.SouthWins, Reason: game.NoPieces}, ScoreA: 1, PiecesA: 5},
		drawn(game.NoCaptureLimit, 3, 3),
		drawn(game.MaxPlies, 1, 4),
		drawn(game.MaxPlies, 2, 1),
	}}
	d := res.Draws()
	want := DrawSummary{Games: 4, Reasons: map[string]int{"max-plies": 3, "no-capture": 1},
		AAhead: 2, Level: 1, BAhead: 1, PiecesA: 4, PiecesB: 2.25}
	if d.Games != want.Games || d.AAhead != want.AAhead || d.Level != want.Level || d.BAhead != want.BAhead ||
		d.PiecesA != want.PiecesA || d.PiecesB != want.PiecesB || len(d.Reasons) != 2 ||
		d.Reasons["max-plies"] != 3 || d.Reasons["no-capture"] != 1 {
		t.Errorf("draws %+v, want %+v", d, want)
	}
}

// TestArenaDeterministic: the same seed plays the same games whatever the
// number of threads.
func TestArenaDeterministic(t *testing.T) {
	r := configs.MustVariant("dablot")
	run := func(threads int) []string {
		res, err := RunArena(context.Background(), ArenaConfig{
			Rules: r, A: factory(t, "greedy"), B: factory(t, "mcts:eval=rollout,sims=8,rollout=50,guard=0"), Games: 4,
			Threads: threads, Seed: 77, OpeningTurns: 2,
		})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, g := range res.Games {
			out = append(out, strings.Join(g.Record.Turns, " ")+" "+g.Record.Result)
		}
		return out
	}
	a, b := run(1), run(2)
	if !slices.Equal(a, b) {
		t.Errorf("1 thread and 2 threads differ:\n%v\n%v", a, b)
	}
	// The two games of a pair share their opening.
	if !strings.HasPrefix(a[1], strings.Join(strings.Fields(a[0])[:2], " ")) {
		t.Errorf("games 1 and 2 have different openings: %.30s / %.30s", a[0], a[1])
	}
}

func TestArenaSPRTStopsEarly(t *testing.T) {
	r := configs.MustVariant("dablot")
	res, err := RunArena(context.Background(), ArenaConfig{
		Rules: r, A: factory(t, "alphabeta:depth=1"), B: factory(t, "random"), Games: 400, Threads: 2, Seed: 3,
		SPRT: &SPRT{Elo0: 0, Elo1: 100, Alpha: 0.05, Beta: 0.05},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != AcceptH1 || len(res.Games) >= 400 {
		t.Errorf("verdict %v after %d games (%v)", res.Verdict, len(res.Games), res.WDL)
	}
}

// badPlayer returns a decision that is not legal.
type badPlayer struct{}

func (badPlayer) Turn(context.Context, *game.Position) ([]game.Decision, error) {
	return []game.Decision{game.Pass}, nil
}

func TestArenaErrors(t *testing.T) {
	r := configs.MustVariant("dablot")
	bad := mcts.NewFactory("bad", func(uint64) (mcts.Player, error) { return badPlayer{}, nil })
	_, err := RunArena(context.Background(), ArenaConfig{Rules: r, A: factory(t, "random"), B: bad, Games: 4, Threads: 2})
	if err == nil || !strings.Contains(err.Error(), "not legal") {
		t.Errorf("illegal turn: %v", err)
	}
	for _, cfg := range []ArenaConfig{
		{A: bad, B: bad, Games: 1},
		{Rules: r, B: bad, Games: 1},
		{Rules: r, A: bad, B: bad},
		{Rules: r, A: bad, B: bad, Games: 1, SPRT: &SPRT{Elo0: 5, Elo1: 0, Alpha: 0.05, Beta: 0.05}},
	} {
		if _, err := RunArena(context.Background(), cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = RunArena(ctx, ArenaConfig{Rules: r, A: factory(t, "random"), B: factory(t, "random"), Games: 4})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestPlayGame(t *testing.T) {
	r := configs.MustVariant("winther")
	rec, st, err := PlayGame(context.Background(), r, r.Start(), mcts.NewGreedyPlayer(1), mcts.NewRandomPlayer(2))
	if err != nil {
		t.Fatal(err)
	}
	if !st.Over() || rec.Result != st.Outcome.Result() {
		t.Errorf("status %v, record result %s", st, rec.Result)
	}
	p, err := rec.Replay(r)
	if err != nil {
		t.Fatal(err)
	}
	if p.Status() != st {
		t.Errorf("replay ends %v, game ended %v", p.Status(), st)
	}
}

// TestArenaEndgames: each pair of games starts from its own random endgame,
// recorded in the records, the same whatever the threads.
func TestArenaEndgames(t *testing.T) {
	r := configs.MustVariant("frostviken")
	run := func(threads int) *ArenaResult {
		res, err := RunArena(context.Background(), ArenaConfig{
			Rules: r, A: factory(t, "alphabeta:depth=1"), B: factory(t, "greedy"), Games: 6,
			Threads: threads, Seed: 5, Endgame: new(DefaultEndgame(4)),
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(1), run(3)
	for i, g := range a.Games {
		if g.Record.Setup == "" || g.Record.Setup != b.Games[i].Record.Setup || !slices.Equal(g.Record.Turns, b.Games[i].Record.Turns) {
			t.Fatalf("game %d differs between 1 and 3 threads, or has no setup: %q", i, g.Record.Setup)
		}
		if _, err := g.Record.Replay(r); err != nil {
			t.Fatalf("game %d does not replay: %v", i, err)
		}
		if pair := a.Games[i^1].Record.Setup; pair != g.Record.Setup {
			t.Errorf("games %d and %d of a pair start from %s and %s", i, i^1, g.Record.Setup, pair)
		}
	}
	if a.Games[0].Record.Setup == a.Games[2].Record.Setup || a.Games[2].Record.Setup == a.Games[4].Record.Setup {
		t.Error("two pairs start from the same endgame")
	}
	start := r.Start()
	if _, err := RunArena(context.Background(), ArenaConfig{Rules: r, Start: &start, A: factory(t, "random"), B: factory(t, "random"),
		Games: 2, Endgame: new(DefaultEndgame(0))}); err == nil || !strings.Contains(err.Error(), "exclude") {
		t.Errorf("endgames with a start position: error %v", err)
	}
}

// TestArenaOpenings: games 2k and 2k+1 start from opening k (cycling
// through the book), A playing it once with each colour; the records say
// which opening; an opening that is over, or openings with a start
// position, are refused; and the ends of the games are counted by reason.
func TestArenaOpenings(t *testing.T) {
	r := configs.MustVariant("frostviken")
	book, ok, err := configs.Book(r)
	if err != nil || !ok || len(book) < 2 {
		t.Fatalf("frostviken's book: %d openings, %v", len(book), err)
	}
	ops := book[:2]
	res, err := RunArena(context.Background(), ArenaConfig{Rules: r, Openings: ops, A: factory(t, "alphabeta:depth=1"),
		B: factory(t, "greedy"), Games: 6, Threads: 2, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range res.Games {
		want := ops[i/2%len(ops)]
		if g.Record.Setup != want.FEN() || g.Record.Tags["Book"] != fmt.Sprint(i/2%len(ops)+1) {
			t.Errorf("game %d starts from %q (book %s), want opening %d %q", i, g.Record.Setup, g.Record.Tags["Book"], i/2%len(ops)+1, want.FEN())
		}
		if g.AIsSouth != (i%2 == 0) {
			t.Errorf("game %d: A is South: %v", i, g.AIsSouth)
		}
		if _, err := g.Record.Replay(r); err != nil {
			t.Errorf("game %d does not replay: %v", i, err)
		}
	}
	won, lost := res.Ends()
	var nw, nl int
	for _, n := range won {
		nw += n
	}
	for _, n := range lost {
		nl += n
	}
	if nw != res.WDL.W || nl != res.WDL.L {
		t.Errorf("ends %v / %v for W/D/L %v", won, lost, res.WDL)
	}

	over, err := game.ParseFEN(r, "5/4/5/4/5/4/5/4/SS3 s")
	if err != nil {
		t.Fatal(err)
	}
	start := r.Start()
	for _, tc := range []struct {
		cfg  ArenaConfig
		want string
	}{
		{ArenaConfig{Rules: r, Openings: []game.Position{ops[0], over}, A: factory(t, "random"), B: factory(t, "random"), Games: 2}, "opening 2"},
		{ArenaConfig{Rules: r, Openings: ops, Start: &start, A: factory(t, "random"), B: factory(t, "random"), Games: 2}, "exclude"},
	} {
		if _, err := RunArena(context.Background(), tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}
