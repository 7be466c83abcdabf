package train

import (
	"slices"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/net/model/modeltest"
)

// TestDefending: the side to move defends when it has no king and the
// other side has one, and only then.
func TestDefending(t *testing.T) {
	r, err := configs.Variant("frostviken")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, fen string
		want      bool
	}{
		{"the setup", "sssss/ssss/pssss/ksss/5/SSSK/SSSSP/SSSS/SSSSS s", false},
		{"North without its king, North to move", "sssss/ssss/pssss/ssss/5/SSSK/SSSSP/SSSS/SSSSS n", true},
		{"North without its king, South to move", "sssss/ssss/pssss/ssss/5/SSSK/SSSSP/SSSS/SSSSS s", false},
		{"South without its king, South to move", "sssss/ssss/pssss/ksss/5/SSSS/SSSSP/SSSS/SSSSS s", true},
		{"no king on either side", "sssss/ssss/pssss/ssss/5/SSSS/SSSSP/SSSS/SSSSS s", false},
	} {
		p, err := game.ParseFEN(r, tc.fen)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := defending(&p); got != tc.want {
			t.Errorf("%s: defending %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestSelfPlayDefenceSims: with selfplay.defence_sims the games stay legal
// and the same for any number of workers; a game that never reaches a
// position where the side to move defends is the game played without it,
// and the defence changes some game that does. The games are dablot's
// (where a king is taken only by a king, so a game goes on without one),
// from the curriculum's random endgames, two of which defend.
func TestSelfPlayDefenceSims(t *testing.T) {
	cfg := testConfig(t, 1)
	m := modeltest.NewModel(t, "dablot", 2)
	play := func(defence, workers int) []*SelfPlayGame {
		sp := cfg.SelfPlay
		sp.EndgameFraction, sp.EndgameSoldiers, sp.Workers, sp.DefenceSims = 1, 6, workers, defence
		return playGames(t, m, sp, 5, 4)
	}
	plain, strong := play(0, 2), play(32, 2)
	if again := play(32, 1); !slices.EqualFunc(strong, again, sameGame) {
		t.Fatal("games with defence_sims differ between 1 and 2 workers")
	}
	changed := 0
	for i, g := range strong {
		if _, err := g.Record.Replay(m.Rules); err != nil {
			t.Fatalf("game %d does not replay: %v", i, err)
		}
		same := sameGame(g, plain[i])
		if !same {
			changed++
		}
		if !same && !everDefends(t, m.Rules, plain[i].Record) {
			t.Errorf("game %d never defends, yet defence_sims changed it", i)
		}
	}
	if changed == 0 {
		t.Error("defence_sims changed no game")
	}
}

// everDefends reports whether a turn of rec begins where the side to move
// defends.
func everDefends(t *testing.T, r *game.Rules, rec *game.Record) bool {
	t.Helper()
	p, err := rec.StartPosition(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, turn := range rec.Turns {
		if defending(&p) {
			return true
		}
		if _, err := p.ApplyTurns([]string{turn}); err != nil {
			t.Fatal(err)
		}
	}
	return false
}
