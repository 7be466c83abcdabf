// Package deps holds the test of the project's import graph.
package deps

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPlayingDoesNotLinkTraining: the packages a program needs to load a
// model and play (the model, the search, inference) import neither
// gorgonia nor the training pipeline.
func TestPlayingDoesNotLinkTraining(t *testing.T) {
	pkgs := []string{"./net", "./net/model", "./mcts", "./mcts/match", "./mcts/match/rating"}
	out, err := exec.Command("go", append([]string{"list", "-deps", "-test=false"}, prefixed(pkgs)...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"gorgonia.org/", "github.com/dablot-zero/dablot/train", "github.com/dablot-zero/dablot/net/trainer"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("%v depend on %s", pkgs, dep)
			}
		}
	}
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
