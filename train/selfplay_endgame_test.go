package train

import (
	"context"
	"slices"
	"testing"

	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/net/model/modeltest"
)

// TestSelfPlayEndgames checks the curriculum in self-play: the chosen share
// of games starts from random endgames recorded in their records, those
// games replay, and the games that start from the setup are the same as
// without the curriculum.
func TestSelfPlayEndgames(t *testing.T) {
	cfg := testConfig(t, 1)
	m := modeltest.NewModel(t, "frostviken", 2)
	play := func(fraction float64, workers int) []*SelfPlayGame {
		sp := cfg.SelfPlay
		sp.EndgameFraction, sp.EndgameSoldiers, sp.Workers = fraction, 4, workers
		return playGames(t, m, sp, 5, 8)
	}
	plain, half := play(0, 2), play(0.5, 2)
	if again := play(0.5, 1); !slices.EqualFunc(half, again, sameGame) {
		t.Fatal("curriculum games differ between 1 and 2 workers")
	}
	endgames := 0
	for i, g := range half {
		if g.Endgame != (g.Record.Setup != "") {
			t.Fatalf("game %d: endgame %v, setup %q", i, g.Endgame, g.Record.Setup)
		}
		end, err := g.Record.Replay(m.Rules)
		if err != nil {
			t.Fatalf("game %d does not replay: %v", i, err)
		}
		if end.Status() != g.Status {
			t.Fatalf("game %d: status %v, replayed %v", i, g.Status, end.Status())
		}
		if g.Endgame {
			endgames++
			continue
		}
		if !slices.Equal(g.Record.Turns, plain[i].Record.Turns) {
			t.Fatalf("game %d starts from the setup but differs from the game without the curriculum", i)
		}
	}
	if endgames == 0 || endgames == len(half) {
		t.Fatalf("%d of %d games are endgames at fraction 0.5", endgames, len(half))
	}
	for i, g := range plain {
		if g.Endgame || g.Record.Setup != "" {
			t.Fatalf("game %d is an endgame without the curriculum", i)
		}
	}
}

// sameGame reports whether two self-play games have the same start and
// turns.
func sameGame(a, b *SelfPlayGame) bool {
	return a.Record.Setup == b.Record.Setup && slices.Equal(a.Record.Turns, b.Record.Turns)
}

// playGames plays self-play games 0 to n-1 of m with sp and seed.
func playGames(t *testing.T, m *model.Model, sp SelfPlayConfig, seed uint64, n int) []*SelfPlayGame {
	t.Helper()
	games, err := SelfPlay(context.Background(), m, sp, seed, 0, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	return games
}
