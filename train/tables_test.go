package train

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/net/model/modeltest"
)

// TestSelfPlayEndgameTables: with selfplay.endgame_tables a self-play game
// is the game played without it up to the first turn that leaves three
// pieces or fewer, and ends there as the tables give it, every sample's
// target that result; rules the tables cannot follow are refused.
func TestSelfPlayEndgameTables(t *testing.T) {
	cfg := testConfig(t, 1)
	m := modeltest.NewModel(t, "dablot", 2)
	play := func(tables int) []*SelfPlayGame {
		sp := cfg.SelfPlay
		sp.EndgameTables, sp.FullFraction, sp.MaterialWeight, sp.MaterialHorizon, sp.PolicySurprise = tables, 1, 0, 0, false
		sp.EndgameFraction, sp.EndgameSoldiers = 1, 2
		games, err := SelfPlay(context.Background(), m, sp, 5, 0, 6, nil)
		if err != nil {
			t.Fatal(err)
		}
		return games
	}
	plain, tabled := play(0), play(3)
	tables, err := mcts.NewEndgameTables(3)
	if err != nil {
		t.Fatal(err)
	}
	ended, sampled := 0, 0
	for i, g := range tabled {
		full := plain[i].Record.Turns
		if len(g.Record.Turns) > len(full) || !slices.Equal(g.Record.Turns, full[:len(g.Record.Turns)]) {
			t.Fatalf("game %d departs from the game without the tables", i)
		}
		p, err := g.Record.Replay(m.Rules)
		if err != nil {
			t.Fatalf("game %d: %v", i, err)
		}
		if g.Status.Reason != game.Adjudicated {
			if !slices.Equal(g.Record.Turns, full) {
				t.Fatalf("game %d ended by %v, yet shorter than without the tables", i, g.Status)
			}
			continue
		}
		ended++
		if p.PieceCount() > 3 {
			t.Fatalf("game %d adjudicated with %d pieces: %s", i, p.PieceCount(), p.FEN())
		}
		// The shared tables self-play probes (solved once a process;
		// mcts's tests check them against the endings solved afresh).
		_, res, ok, err := tables.Play(context.Background(), &p)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Fatalf("game %d: the tables do not hold %s", i, p.FEN())
		}
		if want := res.GameOutcome(p.SideToMove()); g.Status.Outcome != want {
			t.Fatalf("game %d ends %v in %s; the tables give %v to the side to move", i, g.Status, p.FEN(), res.Outcome)
		}
		for _, s := range g.Samples {
			sampled++
			want := float32(2*g.Status.Outcome.ScoreFor(s.Position.SideToMove()) - 1)
			if s.Target != want {
				t.Fatalf("game %d: target %v, want the tables' %v", i, s.Target, want)
			}
		}
	}
	if ended == 0 || sampled == 0 {
		t.Fatalf("%d of %d games ended by the tables, with %d samples", ended, len(tabled), sampled)
	}
	t.Logf("%d of %d games ended by the tables, with %d samples", ended, len(tabled), sampled)

	cfg.SelfPlay.EndgameTables = 3
	if _, err := CreateRun(t.TempDir(), cfg, configs.MustVariant("winther-promotion"), "", RunOptions{}); err == nil || !strings.Contains(err.Error(), "selfplay.endgame_tables") {
		t.Errorf("tables on winther-promotion: %v", err)
	}
}
