package train

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/net/model/modeltest"
)

// TestSelfPlayRaceGuard: with selfplay.race_guard the games stay legal and
// the same for any number of workers; every sample of a position with both
// kings on the board gives no policy to a decision the guard vetoes there;
// and the setting changes some game. The games are dablot's, from the
// curriculum's random endgames, most of which have a king on each side.
func TestSelfPlayRaceGuard(t *testing.T) {
	cfg := testConfig(t, 1)
	m := modeltest.NewModel(t, "dablot", 2)
	play := func(guard bool, workers int) []*SelfPlayGame {
		sp := cfg.SelfPlay
		sp.EndgameFraction, sp.EndgameSoldiers, sp.Workers, sp.RaceGuard = 1, 6, workers, guard
		sp.PolicySurprise = false // a sample for each full search, no copies
		return playGames(t, m, sp, 5, 8)
	}
	plain, guarded := play(false, 2), play(true, 2)
	if again := play(true, 1); !slices.EqualFunc(guarded, again, sameGame) {
		t.Fatal("games with race_guard differ between 1 and 2 workers")
	}
	g, err := RaceGuard()
	if err != nil {
		t.Fatal(err)
	}
	checked, vetoed, changed := 0, 0, 0
	for i, gm := range guarded {
		if _, err := gm.Record.Replay(m.Rules); err != nil {
			t.Fatalf("game %d does not replay: %v", i, err)
		}
		if !sameGame(gm, plain[i]) {
			changed++
		}
		for j := range gm.Samples {
			s := &gm.Samples[j]
			if !bothKings(&s.Position) {
				continue
			}
			checked++
			ex, err := g.Excluded(context.Background(), &s.Position, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			vetoed += len(ex)
			for _, d := range ex {
				k := m.Encoder.PolicyIndex(&s.Position, d)
				for _, e := range s.Policy {
					if int(e.Index) == k && e.Prob > 0 {
						t.Errorf("game %d, sample %d (%s): policy %.3f on %s, which the guard vetoes",
							i, j, s.Position.FEN(), e.Prob, s.Position.DecisionString(d))
					}
				}
			}
		}
	}
	t.Logf("%d samples with both kings, %d vetoed decisions among them; %d of %d games changed", checked, vetoed, changed, len(guarded))
	if checked == 0 || vetoed == 0 {
		t.Errorf("%d samples with both kings and %d vetoes: the test checks nothing", checked, vetoed)
	}
	if changed == 0 {
		t.Error("race_guard changed no game")
	}
}

// TestBothKings: the race is on while each side has a king.
func TestBothKings(t *testing.T) {
	r := modeltest.NewModel(t, "dablot", 1).Rules
	p := r.Start()
	start := p.FEN()
	for _, tc := range []struct {
		name, fen string
		want      bool
	}{
		{"the setup", start, true},
		{"North without its king", strings.Replace(start, "k", "s", 1), false},
		{"South without its king", strings.Replace(start, "K", "S", 1), false},
	} {
		p, err := game.ParseFEN(r, tc.fen)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := bothKings(&p); got != tc.want {
			t.Errorf("%s: bothKings = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// BenchmarkSelfPlayRaceGuard plays four self-play games of the shipped
// dablot network with the overnight preset, without the race guard and
// with it, and reports the turns a game and the time a turn.
func BenchmarkSelfPlayRaceGuard(b *testing.B) {
	cfg, err := LoadPreset("overnight")
	if err != nil {
		b.Fatal(err)
	}
	m, err := model.LoadModel("../models/dablot.dbm")
	if err != nil {
		b.Fatal(err)
	}
	for _, guard := range []bool{false, true} {
		b.Run(fmt.Sprintf("race_guard=%v", guard), func(b *testing.B) {
			sp := cfg.SelfPlay
			sp.Workers, sp.RaceGuard = 2, guard
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
