package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/mcts"
)

// TestMakefileGuard: the guard that make bars-hour gives its players is
// the shipped players' guard without a time limit (mcts.DefaultGuardDepth
// turns within mcts.DefaultGuardNodes nodes), which the Makefile cannot
// read from the code.
func TestMakefileGuard(t *testing.T) {
	data, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("GUARD_SIMS = guard=%d,gnodes=%d\n", mcts.DefaultGuardDepth, mcts.DefaultGuardNodes)
	if !strings.Contains(string(data), want) {
		t.Errorf("the Makefile has no line %q", strings.TrimSpace(want))
	}
}
