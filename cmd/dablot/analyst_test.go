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
// settings, whose node budget depends on each query's limits, and its
// description is its player in full.
func TestAnalystGuard(t *testing.T) {
	path := testModel(t, "frostviken")
	m, err := model.LoadModel(path)
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
		{mcts.DefaultGuardDepth, mcts.Limits{Sims: 4}, mcts.DefaultGuardDepth, mcts.DefaultGuardNodes, "guard=16,gmargin=50,gshare=0.5,gnodes=50000,"},
		{mcts.DefaultGuardDepth, mcts.Limits{Sims: 4, Time: 50 * time.Millisecond}, mcts.MaxGuardDepth, 0, "guard=16,"},
		{0, mcts.Limits{Sims: 4}, 0, 0, "guard=0,"},
		{5, mcts.Limits{Sims: 4, Time: 50 * time.Millisecond}, 5, 0, "guard=5,"},
		{5, mcts.Limits{Sims: 4}, 5, mcts.DefaultGuardNodes, "guard=5,"},
	} {
		s := searchSettings{Sims: 4, Threads: 1, Guard: tc.guard, Search: "puct", Solve: true, Forced: true}
		a, err := newAnalyst(m, s.player(path, m.Rules), s)
		if err != nil {
			t.Fatal(err)
		}
		if d := a.describe(); !strings.Contains(d, tc.describe) || !strings.HasPrefix(d, "mcts:model="+path+",sims=4,") {
			t.Errorf("guard %d: described as %q, want %q in it", tc.guard, d, tc.describe)
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

// newTestAnalyst is newAnalyst with the player of settings s, which a
// test gives as a struct literal: PUCT unless it says Search, and no
// guard or tables unless it says Guard or Endgames.
func newTestAnalyst(m *model.Model, s searchSettings) (*analyst, error) {
	if s.Search == "" {
		s.Search = "puct"
	}
	return newAnalyst(m, s.player("", m.Rules), s)
}
