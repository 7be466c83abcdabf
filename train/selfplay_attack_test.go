package train

import (
	"context"
	"slices"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/net/model/modeltest"
)

// TestAttacking: the side to move attacks when it holds the only king,
// and only then.
func TestAttacking(t *testing.T) {
	r, err := configs.Variant("frostviken")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, fen string
		want      bool
	}{
		{"the setup", "sssss/ssss/pssss/ksss/5/SSSK/SSSSP/SSSS/SSSSS s", false},
		{"North without its king, South to move", "sssss/ssss/pssss/ssss/5/SSSK/SSSSP/SSSS/SSSSS s", true},
		{"North without its king, North to move", "sssss/ssss/pssss/ssss/5/SSSK/SSSSP/SSSS/SSSSS n", false},
		{"South without its king, North to move", "sssss/ssss/pssss/ksss/5/SSSS/SSSSP/SSSS/SSSSS n", true},
		{"no king on either side", "sssss/ssss/pssss/ssss/5/SSSS/SSSSP/SSSS/SSSSS s", false},
	} {
		p, err := game.ParseFEN(r, tc.fen)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := attacking(&p); got != tc.want {
			t.Errorf("%s: attacking %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestSelfPlayAttackFull: with selfplay.attack_full the games stay legal
// and the same for any number of workers; every decision of the side
// holding the only king becomes a sample; a game that never reaches such
// a position is the game played without it, and the setting changes some
// game that does. The games are dablot's (where a king is taken only by a
// king, so a game goes on without one), from the curriculum's random
// endgames.
func TestSelfPlayAttackFull(t *testing.T) {
	cfg := testConfig(t, 1)
	m := modeltest.NewModel(t, "dablot", 2)
	play := func(attack bool, workers int) []*SelfPlayGame {
		sp := cfg.SelfPlay
		sp.EndgameFraction, sp.EndgameSoldiers, sp.Workers, sp.AttackFull = 1, 6, workers, attack
		sp.PolicySurprise = false // a sample for each full search, no copies
		games, err := SelfPlay(context.Background(), m, sp, 5, 0, 4, nil)
		if err != nil {
			t.Fatal(err)
		}
		return games
	}
	plain, attack := play(false, 2), play(true, 2)
	if again := play(true, 1); !slices.EqualFunc(attack, again, func(a, b *SelfPlayGame) bool {
		return a.Record.Setup == b.Record.Setup && slices.Equal(a.Record.Turns, b.Record.Turns)
	}) {
		t.Fatal("games with attack_full differ between 1 and 2 workers")
	}
	changed := 0
	for i, g := range attack {
		if _, err := g.Record.Replay(m.Rules); err != nil {
			t.Fatalf("game %d does not replay: %v", i, err)
		}
		if n, want := attackSamples(g), attackDecisions(t, m.Rules, g.Record); n != want {
			t.Errorf("game %d: %d samples where the side to move holds the only king, want one for each of its %d searched decisions", i, n, want)
		}
		same := slices.Equal(g.Record.Turns, plain[i].Record.Turns)
		if !same {
			changed++
		}
		if !same && attackDecisions(t, m.Rules, plain[i].Record) == 0 {
			t.Errorf("game %d never attacks, yet attack_full changed it", i)
		}
	}
	if changed == 0 {
		t.Error("attack_full changed no game")
	}
}

// attackSamples counts the samples of g taken where the side to move
// holds the only king.
func attackSamples(g *SelfPlayGame) int {
	n := 0
	for i := range g.Samples {
		if attacking(&g.Samples[i].Position) {
			n++
		}
	}
	return n
}

// attackDecisions counts the decisions of rec, replayed, that the side
// holding the only king searched: those with more than one legal choice.
func attackDecisions(t *testing.T, r *game.Rules, rec *game.Record) int {
	t.Helper()
	p, err := rec.StartPosition(r)
	if err != nil {
		t.Fatal(err)
	}
	var buf [2 * game.MaxPoints]game.Decision
	n := 0
	for _, turn := range rec.Turns {
		_, ds, err := p.ParseTurn(turn)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if attacking(&p) && len(p.Decisions(buf[:0])) > 1 {
				n++
			}
			p.Apply(d)
		}
	}
	return n
}
