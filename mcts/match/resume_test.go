package match

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// resumeMatch is a small deterministic match with random opening turns.
func resumeMatch(t *testing.T, games int) ArenaConfig {
	t.Helper()
	return ArenaConfig{
		Rules: configs.MustVariant("dablot"), A: factory(t, "alphabeta:depth=1"),
		B: factory(t, "mcts:eval=rollout,sims=8,rollout=40,guard=0"), Games: games, Threads: 2, Seed: 21, OpeningTurns: 2,
	}
}

// TestResume: a match stopped after some games and resumed from their
// records plays only the games left, and ends as the whole match does.
func TestResume(t *testing.T) {
	ctx := context.Background()
	whole, err := RunArena(ctx, resumeMatch(t, 6))
	if err != nil {
		t.Fatal(err)
	}
	// The first run: three games, as a run stopped after three writes them.
	// Another build resumes it: the Code tag is written, not checked.
	cfg := resumeMatch(t, 3)
	cfg.Code = "build-1"
	first, err := RunArena(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var recs []*game.Record
	for _, g := range first.Games {
		if g.Record.Tags[tagSeconds] == "" || g.Record.Tags[tagMatchSeconds] == "" {
			t.Errorf("game %d: no time tags: %v", g.Index+1, g.Record.Tags)
		}
		recs = append(recs, g.Record)
	}
	cfg = resumeMatch(t, 6)
	cfg.Code = "build-2"
	if cfg.Done, err = Resume(ctx, cfg, recs); err != nil {
		t.Fatal(err)
	}
	var played []int
	cfg.OnGame = func(g *ArenaGame, _ WDL) { played = append(played, g.Index) }
	res, err := RunArena(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(played, []int{3, 4, 5}) {
		t.Errorf("games played on resuming: %v, want 3, 4, 5", played)
	}
	if res.Resumed != 3 || len(res.Games) != 6 || res.WDL != whole.WDL || res.AsSouth != whole.AsSouth {
		t.Errorf("resumed: %d games (%d resumed), %v (south %v); whole: %v (south %v)",
			len(res.Games), res.Resumed, res.WDL, res.AsSouth, whole.WDL, whole.AsSouth)
	}
	for i, g := range res.Games {
		if w := whole.Games[i]; !slices.Equal(g.Record.Turns, w.Record.Turns) || g.PiecesA != w.PiecesA || g.ScoreA != w.ScoreA {
			t.Errorf("game %d differs from the whole match's", i+1)
		}
	}
	if got, want := res.Codes(), []string{"build-1", "build-2"}; !slices.Equal(got, want) {
		t.Errorf("codes of the resumed match: %q, want %q", got, want)
	}
	if got, want := whole.Codes(), []string{CodeUnrecorded}; !slices.Equal(got, want) {
		t.Errorf("codes of a match without Code: %q, want %q", got, want)
	}
	if last := res.Games[2].Elapsed; res.Elapsed < last || res.Games[3].Elapsed < last {
		t.Errorf("elapsed %v, game 4 at %v: want both past game 3's %v", res.Elapsed, res.Games[3].Elapsed, last)
	}

	// All games done: nothing is played.
	cfg = resumeMatch(t, 3)
	cfg.Done, err = Resume(ctx, cfg, recs)
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnGame = func(g *ArenaGame, _ WDL) { t.Errorf("game %d played again", g.Index+1) }
	if res, err := RunArena(ctx, cfg); err != nil || len(res.Games) != 3 || res.WDL != first.WDL {
		t.Errorf("all done: %v, %+v", err, res)
	} else if got := res.Codes(); !slices.Equal(got, []string{"build-1"}) {
		t.Errorf("all done: codes %q, want build-1", got)
	}
}

// TestResumeRefuses: a record of another match, or one that does not
// replay to its end, is refused, naming the record and the problem.
func TestResumeRefuses(t *testing.T) {
	ctx := context.Background()
	first, err := RunArena(ctx, resumeMatch(t, 4))
	if err != nil {
		t.Fatal(err)
	}
	clone := func() []*game.Record {
		var out []*game.Record
		for _, g := range first.Games {
			c := *g.Record
			c.Turns = slices.Clone(c.Turns)
			c.Tags = map[string]string{}
			for k, v := range g.Record.Tags {
				c.Tags[k] = v
			}
			out = append(out, &c)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		cfg   func(*ArenaConfig)
		recs  func([]*game.Record) []*game.Record
		games int
		want  string
	}{
		{name: "another seed", cfg: func(c *ArenaConfig) { c.Seed = 22 }, want: "record 1: tag Seed"},
		{name: "other players", cfg: func(c *ArenaConfig) { c.B = factory(t, "greedy") }, want: "record 1: alphabeta:depth=1 (South) against mcts"},
		{name: "too many", games: 3, want: "hold 4 games"},
		{name: "another model", cfg: func(c *ArenaConfig) { c.Tags = map[string]string{"ModelB": "0123"} }, want: `record 1: tag ModelB is ""; game 1 of this match has "0123"`},
		{name: "no opening turns", cfg: func(c *ArenaConfig) { c.OpeningTurns = 0 }, want: "tag Opening"},
		{name: "swapped", recs: func(r []*game.Record) []*game.Record { return []*game.Record{r[1], r[0]} }, want: "record 1:"},
		{name: "other opening", recs: func(r []*game.Record) []*game.Record { r[2].Turns = r[0].Turns; return r }, want: "record 3: its opening turns"},
		{name: "unfinished", recs: func(r []*game.Record) []*game.Record { r[0].Turns = r[0].Turns[:len(r[0].Turns)-1]; return r }, want: "unfinished"},
		{name: "bad time", recs: func(r []*game.Record) []*game.Record { r[1].Tags[tagSeconds] = "soon"; return r }, want: "record 2: tag Seconds"},
	} {
		cfg := resumeMatch(t, 4)
		if tc.games > 0 {
			cfg.Games = tc.games
		}
		if tc.cfg != nil {
			tc.cfg(&cfg)
		}
		recs := clone()
		if tc.recs != nil {
			recs = tc.recs(recs)
		}
		if _, err := Resume(ctx, cfg, recs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	// RunArena checks the games it is given as done.
	cfg := resumeMatch(t, 2)
	cfg.Done = []*ArenaGame{first.Games[1]}
	if _, err := RunArena(ctx, cfg); err == nil || !strings.Contains(err.Error(), "done game 1") {
		t.Errorf("done games out of order: %v", err)
	}
}

// TestResumeSPRT: a test the resumed games already decide stops the match
// before another game is played.
func TestResumeSPRT(t *testing.T) {
	ctx := context.Background()
	r := configs.MustVariant("dablot")
	cfg := ArenaConfig{Rules: r, A: factory(t, "alphabeta:depth=1"), B: factory(t, "random"), Games: 400, Threads: 2, Seed: 3,
		SPRT: &SPRT{Elo0: 0, Elo1: 100, Alpha: 0.05, Beta: 0.05}}
	first, err := RunArena(ctx, cfg)
	if err != nil || first.Verdict != AcceptH1 {
		t.Fatalf("first run: %v, verdict %v", err, first.Verdict)
	}
	var recs []*game.Record
	for _, g := range first.Games {
		recs = append(recs, g.Record)
	}
	if cfg.Done, err = Resume(ctx, cfg, recs); err != nil {
		t.Fatal(err)
	}
	cfg.OnGame = func(g *ArenaGame, _ WDL) { t.Errorf("game %d played after the test decided", g.Index+1) }
	res, err := RunArena(ctx, cfg)
	if err != nil || res.Verdict != AcceptH1 || len(res.Games) != len(first.Games) || res.WDL != first.WDL {
		t.Errorf("resumed: %v, verdict %v, %d games %v; first %d games %v", err, res.Verdict, len(res.Games), res.WDL, len(first.Games), first.WDL)
	}
}

// TestPairKey: games 2k−1 and 2k of a match share a key, other games,
// seeds and start positions do not, and a record without a game number
// has its start position's.
func TestPairKey(t *testing.T) {
	rec := func(setup, seed, number string) *game.Record {
		r := &game.Record{Setup: setup, Tags: map[string]string{tagSeed: seed}}
		if number != "" {
			r.Tags[tagGame] = number
		}
		return r
	}
	for _, tc := range []struct {
		name string
		a, b *game.Record
		same bool
	}{
		{"games 1 and 2", rec("x", "11", "1"), rec("x", "11", "2"), true},
		{"games 2 and 3", rec("x", "11", "2"), rec("x", "11", "3"), false},
		{"games 101 and 102", rec("x", "11", "101"), rec("x", "11", "102"), true},
		{"other seeds", rec("x", "11", "1"), rec("x", "12", "2"), false},
		{"other openings", rec("x", "11", "1"), rec("y", "11", "2"), false},
		{"no game numbers", rec("x", "11", ""), rec("x", "12", ""), true},
		{"a game number is not a setup's", rec("x", "11", "1"), rec("x", "11", ""), false},
		{"a bad game number", rec("x", "11", "0"), rec("x", "11", ""), true},
	} {
		if same := PairKey(tc.a) == PairKey(tc.b); same != tc.same {
			t.Errorf("%s: %q and %q", tc.name, PairKey(tc.a), PairKey(tc.b))
		}
	}
}
