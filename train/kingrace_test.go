package train

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/net/model/modeltest"
)

// TestSelfPlayKingRace checks selfplay.king_race on dablot: a game from the
// setup ends after the first turn that leaves one side holding the only
// king, as that side's adjudicated win, with the race's value as every
// sample's target; up to there it is the game played without the option;
// and the curriculum's games play on.
func TestSelfPlayKingRace(t *testing.T) {
	cfg := testConfig(t, 1)
	// Short games: the comparison plays each game out without the race.
	variant := filepath.Join(t.TempDir(), "race.yaml")
	if err := os.WriteFile(variant, []byte("base: dablot\nname: dablot-race\nno_capture_limit: 40\nmax_plies: 150\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := modeltest.NewModel(t, variant, 2)
	play := func(race, endgames float64) []*SelfPlayGame {
		sp := cfg.SelfPlay
		sp.KingRace, sp.FullFraction, sp.MaterialWeight, sp.MaterialHorizon = race, 1, 0, 0
		sp.EndgameFraction, sp.EndgameSoldiers = endgames, 3
		games, err := SelfPlay(context.Background(), m, sp, 11, 0, 5, nil)
		if err != nil {
			t.Fatal(err)
		}
		return games
	}
	plain, raced := play(0, 0), play(0.75, 0)
	ended, sampled := 0, 0
	for i, g := range raced {
		full := plain[i].Record.Turns
		if len(g.Record.Turns) > len(full) || !slices.Equal(g.Record.Turns, full[:len(g.Record.Turns)]) {
			t.Fatalf("game %d departs from the game without the race", i)
		}
		if g.Status.Reason != game.Adjudicated {
			if !slices.Equal(g.Record.Turns, full) {
				t.Fatalf("game %d ended by %v, yet shorter than without the race", i, g.Status)
			}
			continue
		}
		ended++
		// The position after the last turn has one king; before it, two.
		p := m.Rules.Start()
		var before game.Position
		for _, turn := range g.Record.Turns {
			before = p
			if err := p.ApplyTurn(turn); err != nil {
				t.Fatalf("game %d: %v", i, err)
			}
		}
		holder, ok := onlyKing(&p)
		if _, was := onlyKing(&before); !ok || was || before.Pieces(game.South, game.King).Empty() {
			t.Fatalf("game %d ends in %s (only king: %v), after %s", i, p.FEN(), ok, before.FEN())
		}
		if want := (game.Status{Outcome: game.WinFor(holder), Reason: game.Adjudicated}); g.Status != want ||
			g.Record.Result != want.Outcome.Result() || g.Record.Termination != "adjudicated" {
			t.Fatalf("game %d: status %v, record %s (%s); want %v", i, g.Status, g.Record.Result, g.Record.Termination, want)
		}
		sampled += len(g.Samples)
		for _, s := range g.Samples {
			want := float32(-0.75)
			if s.Position.SideToMove() == holder {
				want = 0.75
			}
			if s.Target != want {
				t.Fatalf("game %d: target %v for %s to move, want %v", i, s.Target, s.Position.SideToMove(), want)
			}
		}
	}
	if ended == 0 || sampled == 0 {
		t.Fatalf("%d games of %d ended by the race, with %d samples", ended, len(raced), sampled)
	}
	t.Logf("%d games of %d ended by the race, with %d samples", ended, len(raced), sampled)
	// The curriculum's games are not cut short: each replays to the end.
	for i, g := range play(0.75, 1) {
		if !g.Endgame || g.Status.Reason == game.Adjudicated {
			t.Fatalf("curriculum game %d: endgame %v, status %v", i, g.Endgame, g.Status)
		}
	}
}

// TestKingRaceRules: the race may end games only where the side holding
// the only king cannot lose, and a run on other rules is refused.
func TestKingRaceRules(t *testing.T) {
	for _, tc := range []struct{ variant, want string }{
		{"dablot", ""},
		{"cyningstan-modern", ""},
		{"daablot", "lone king loses"},
		{"winther", "lone king loses"},
		{"keyland", "cannot move loses"},
	} {
		err := KingRaceRules(configs.MustVariant(tc.variant))
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.variant, err, tc.want)
		}
	}
	cfg := testConfig(t, 1)
	cfg.SelfPlay.KingRace = 0.5
	if _, err := CreateRun(t.TempDir(), cfg, configs.MustVariant("winther"), "", RunOptions{}); err == nil || !strings.Contains(err.Error(), "selfplay.king_race") {
		t.Errorf("a race on winther: %v", err)
	}
	m := modeltest.NewModel(t, "winther", 2)
	if _, err := SelfPlay(context.Background(), m, cfg.SelfPlay, 1, 0, 1, nil); err == nil || !strings.Contains(err.Error(), "selfplay.king_race") {
		t.Errorf("self-play of winther with the race: %v", err)
	}
	cfg.SelfPlay.KingRace, cfg.SelfPlay.RaceTarget = 0, 0.5
	if _, err := CreateRun(t.TempDir(), cfg, configs.MustVariant("winther"), "", RunOptions{}); err == nil || !strings.Contains(err.Error(), "selfplay.race_target: in winther") {
		t.Errorf("the race's target on winther: %v", err)
	}
	if _, err := SelfPlay(context.Background(), m, cfg.SelfPlay, 1, 0, 1, nil); err == nil || !strings.Contains(err.Error(), "selfplay.race_target") {
		t.Errorf("self-play of winther with the race's target: %v", err)
	}
}

// TestSelfPlayRaceTarget checks selfplay.race_target on dablot: the games
// are played as without it, whole; the samples taken while both sides
// still had a king take the race's result (the side left holding the only
// king, the one with a king at the end), the others the game's target as
// without the option.
func TestSelfPlayRaceTarget(t *testing.T) {
	cfg := testConfig(t, 1)
	variant := filepath.Join(t.TempDir(), "race.yaml")
	if err := os.WriteFile(variant, []byte("base: dablot\nname: dablot-race\nno_capture_limit: 40\nmax_plies: 150\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := modeltest.NewModel(t, variant, 2)
	play := func(target float64) []*SelfPlayGame {
		sp := cfg.SelfPlay
		sp.RaceTarget, sp.FullFraction, sp.MaterialWeight, sp.MaterialHorizon, sp.PolicySurprise = target, 1, 0, 0, false
		games, err := SelfPlay(context.Background(), m, sp, 11, 0, 5, nil)
		if err != nil {
			t.Fatal(err)
		}
		return games
	}
	plain, raced := play(0), play(0.75)
	before, after, changed := 0, 0, 0
	for i, g := range raced {
		if !slices.Equal(g.Record.Turns, plain[i].Record.Turns) || g.Status != plain[i].Status || len(g.Samples) != len(plain[i].Samples) {
			t.Fatalf("game %d differs from the game without the race's target", i)
		}
		end := m.Rules.Start()
		for _, turn := range g.Record.Turns {
			if err := end.ApplyTurn(turn); err != nil {
				t.Fatalf("game %d: %v", i, err)
			}
		}
		holder, decided := onlyKing(&end)
		for k, s := range g.Samples {
			kings := !s.Position.Pieces(game.South, game.King).Empty() && !s.Position.Pieces(game.North, game.King).Empty()
			want := plain[i].Samples[k].Target
			if kings && decided {
				before++
				want = -0.75
				if s.Position.SideToMove() == holder {
					want = 0.75
				}
				if want != plain[i].Samples[k].Target {
					changed++
				}
			} else {
				after++
			}
			if s.Target != want {
				t.Fatalf("game %d sample %d (%s): target %v, want %v", i, k, s.Position.FEN(), s.Target, want)
			}
		}
	}
	if before == 0 || after == 0 || changed == 0 {
		t.Fatalf("%d samples before a race, %d after or without one, %d targets changed", before, after, changed)
	}
	t.Logf("%d samples before a race (%d targets changed), %d after or without one", before, changed, after)
	cfg.SelfPlay.KingRace, cfg.SelfPlay.RaceTarget = 0.5, 0.5
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "selfplay.race_target") {
		t.Errorf("king_race and race_target together: %v", err)
	}
}
