package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/mcts/analysis"
	"github.com/dablot-zero/dablot/net/model"
)

// TestAnalystGuard: the model's player searches with the guard of its
// settings, whose default depth depends on each query's limits, and says so
// in its description.
func TestAnalystGuard(t *testing.T) {
	m, err := model.LoadModel(testModel(t, "frostviken"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		guard    int
		lim      mcts.Limits
		want     int    // the guard's depth (0: none)
		nodes    int64  // the guard's node budget
		describe string // in the description of searchSettings{Sims: 4, Guard: guard}
	}{
		{-1, mcts.Limits{Sims: 4}, mcts.DefaultGuardDepth, mcts.DefaultGuardNodes, "guard 16 turns within 50000 nodes"},
		{-1, mcts.Limits{Sims: 4, Time: 50 * time.Millisecond}, mcts.MaxGuardDepth, 0, "guard 16 turns within 50000 nodes"},
		{0, mcts.Limits{Sims: 4}, 0, 0, ""},
		{5, mcts.Limits{Sims: 4, Time: 50 * time.Millisecond}, 5, 0, "guard 5 turns within 50000 nodes"},
		{5, mcts.Limits{Sims: 4}, 5, mcts.DefaultGuardNodes, "guard 5 turns within 50000 nodes"},
	} {
		s := searchSettings{Sims: 4, Threads: 1, Guard: tc.guard}
		if d := s.describe(); tc.describe == "" && strings.Contains(d, "guard") || !strings.Contains(d, tc.describe) {
			t.Errorf("guard %d: described as %q, want %q in it", tc.guard, d, tc.describe)
		}
		a, err := newAnalyst(m, s)
		if err != nil {
			t.Fatal(err)
		}
		an, err := a.Analyse(context.Background(), m.Rules.Start(), analysis.Query{Limits: tc.lim})
		a.Close()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.want == 0 && a.Guard != nil:
			t.Errorf("guard %d, %+v: a guard of depth %d", tc.guard, tc.lim, a.Guard.Depth)
		case tc.want > 0 && (a.Guard == nil || a.Guard.Depth != tc.want || a.Guard.Nodes != tc.nodes):
			t.Errorf("guard %d, %+v: guard %+v, want depth %d within %d nodes", tc.guard, tc.lim, a.Guard, tc.want, tc.nodes)
		case an.Best().Text == "":
			t.Errorf("guard %d: no best turn", tc.guard)
		}
	}
}
