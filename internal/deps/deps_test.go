// Package deps holds the test of the project's import graph.
package deps

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/dablot-zero/dablot/"

// TestImportGraph: the packages a program needs to load a model and play
// (the model, the search, inference) import neither gorgonia nor the
// training pipeline, the analysis engine needs only the rules (with their
// endgame tables) and the search, the analysis tools of research/study need neither the pipeline
// nor the trainer, and the run reports read a run directory without the pipeline.
func TestImportGraph(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pkgs   []string
		banned []string // import paths; a path ending in /... bans the tree under it too
		only   []string // if set, the project's packages they may depend on (besides themselves)
	}{
		{
			name:   "playing",
			pkgs:   []string{"./net", "./net/model", "./mcts", "./mcts/match", "./mcts/match/rating", "./mcts/analysis"},
			banned: []string{"gorgonia.org/...", mod + "train/...", mod + "net/trainer/..."},
		},
		{
			name: "analysis",
			pkgs: []string{"./mcts/analysis"},
			only: []string{mod + "game", mod + "game/endgame", mod + "mcts", mod + "mcts/analysis"},
		},
		{
			name:   "study",
			pkgs:   []string{"./internal/research/study"},
			banned: []string{"gorgonia.org/...", mod + "train", mod + "net/trainer/..."},
		},
		{
			name:   "report",
			pkgs:   []string{"./internal/research/report"},
			banned: []string{"gorgonia.org/...", mod + "train", mod + "net/trainer/..."},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := exec.Command("go", append([]string{"list", "-deps", "-test=false"}, prefixed(tc.pkgs)...)...).CombinedOutput()
			if err != nil {
				t.Fatalf("go list: %v\n%s", err, out)
			}
			for _, dep := range strings.Fields(string(out)) {
				for _, b := range tc.banned {
					if matches(dep, b) {
						t.Errorf("%v depend on %s", tc.pkgs, dep)
					}
				}
				if tc.only != nil && strings.HasPrefix(dep, mod) && !slices.Contains(tc.only, dep) {
					t.Errorf("%v depend on %s: want only %v", tc.pkgs, dep, tc.only)
				}
			}
		})
	}
}

// matches reports whether import path dep is pattern, or lies under it if
// the pattern ends in /... (as in the go command's package patterns).
func matches(dep, pattern string) bool {
	if tree, ok := strings.CutSuffix(pattern, "/..."); ok {
		return dep == tree || strings.HasPrefix(dep, tree+"/")
	}
	return dep == pattern
}

// prefixed makes the package paths relative to the module root, two
// directories up from this test's.
func prefixed(pkgs []string) []string {
	out := make([]string, len(pkgs))
	for i, p := range pkgs {
		out[i] = "../../" + strings.TrimPrefix(p, "./")
	}
	return out
}
