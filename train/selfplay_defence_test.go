package train

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/net/model"
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

// TestSelfPlayRaceDefence: with selfplay.race_defence the games stay legal
// and the same for any number of workers; a defended game carries the
// tag, and none of its samples is of a position the defender played; a
// game the draw left alone, or one that never reaches a race, is the game
// played without the setting; and the setting changes some game. The
// games are dablot's (where a king is taken only by a king, so a game goes
// on without one), from the curriculum's random endgames.
func TestSelfPlayRaceDefence(t *testing.T) {
	cfg := testConfig(t, 1)
	m := modeltest.NewModel(t, "dablot", 2)
	play := func(share float64, workers int) []*SelfPlayGame {
		sp := cfg.SelfPlay
		sp.EndgameFraction, sp.EndgameSoldiers, sp.Workers, sp.RaceDefence = 1, 6, workers, share
		sp.PolicySurprise = false // a sample for each full search, no copies
		games, err := SelfPlay(context.Background(), m, sp, 5, 0, 8, nil)
		if err != nil {
			t.Fatal(err)
		}
		return games
	}
	sameGame := func(a, b *SelfPlayGame) bool {
		return a.Record.Setup == b.Record.Setup && slices.Equal(a.Record.Turns, b.Record.Turns)
	}
	plain, half := play(0, 2), play(0.5, 2)
	if again := play(0.5, 1); !slices.EqualFunc(half, again, sameGame) {
		t.Fatal("games with race_defence differ between 1 and 2 workers")
	}
	defended, changed := 0, 0
	for i, g := range half {
		if _, err := g.Record.Replay(m.Rules); err != nil {
			t.Fatalf("game %d does not replay: %v", i, err)
		}
		tag, ok := g.Record.Tags[raceDefenceTag]
		same := sameGame(g, plain[i])
		switch {
		case !ok && !same:
			t.Errorf("game %d was not defended, yet it differs from the game without race_defence", i)
		case ok && tag != raceDefenderName:
			t.Errorf("game %d: tag %s %q, want %q", i, raceDefenceTag, tag, raceDefenderName)
		case ok && !same && !reachesDefence(t, m.Rules, plain[i].Record):
			t.Errorf("game %d never reaches a race, yet the defender changed it", i)
		}
		if ok {
			defended++
			for j := range g.Samples {
				if defending(&g.Samples[j].Position) {
					t.Errorf("game %d, sample %d: a position the defender played (%s)", i, j, g.Samples[j].Position.FEN())
				}
			}
		}
		if !same {
			changed++
		}
	}
	t.Logf("%d of %d games defended, %d changed", defended, len(half), changed)
	if defended == 0 || defended == len(half) {
		t.Errorf("%d of %d games defended at a share of 0.5", defended, len(half))
	}
	if changed == 0 {
		t.Error("race_defence changed no game")
	}
}

// reachesDefence reports whether rec, replayed, reaches a position where
// the side to move defends at the start of its turn.
func reachesDefence(t *testing.T, r *game.Rules, rec *game.Record) bool {
	t.Helper()
	p, err := rec.StartPosition(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, turn := range rec.Turns {
		if defending(&p) {
			return true
		}
		_, ds, err := p.ParseTurn(turn)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			p.Apply(d)
		}
	}
	return defending(&p)
}

// BenchmarkSelfPlayRaceDefence plays four self-play games of the shipped
// dablot network with the overnight preset, without the race defence and
// with it in every game, and reports the turns a game and the time a turn.
func BenchmarkSelfPlayRaceDefence(b *testing.B) {
	cfg, err := LoadPreset("overnight")
	if err != nil {
		b.Fatal(err)
	}
	m, err := model.LoadModel("../models/dablot.dbm")
	if err != nil {
		b.Fatal(err)
	}
	for _, share := range []float64{0, 1} {
		b.Run(fmt.Sprintf("share=%g", share), func(b *testing.B) {
			sp := cfg.SelfPlay
			sp.Workers, sp.RaceDefence = 2, share
			turns := 0
			for b.Loop() {
				games, err := SelfPlay(context.Background(), m, sp, 99, 0, 4, nil)
				if err != nil {
					b.Fatal(err)
				}
				for _, g := range games {
					turns += len(g.Record.Turns)
				}
			}
			b.ReportMetric(float64(turns)/float64(4*b.N), "turns/game")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(turns)/1e6, "ms/turn")
		})
	}
}

// TestTagGame: the run's tags join those self-play gave the record.
func TestTagGame(t *testing.T) {
	for _, tc := range []struct {
		name string
		tags map[string]string
		want map[string]string
	}{
		{"no tags", nil, map[string]string{"Generation": "12", "Game": "3"}},
		{"a defended game", map[string]string{raceDefenceTag: raceDefenderName},
			map[string]string{"Generation": "12", "Game": "3", raceDefenceTag: raceDefenderName}},
	} {
		rec := &game.Record{Tags: tc.tags}
		tagGame(rec, 12, 3)
		if !maps.Equal(rec.Tags, tc.want) {
			t.Errorf("%s: tags %v, want %v", tc.name, rec.Tags, tc.want)
		}
	}
}
