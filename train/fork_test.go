package train

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestSetPath: a fork's --set changes a setting the run's file states,
// adds one it leaves out (at its zero value, as selfplay.score_utility is,
// or newer than the file) if this binary knows it, and refuses any other,
// such as a setting that left the program (selfplay.reanalyse).
func TestSetPath(t *testing.T) {
	const file = "selfplay:\n  games: 64\ntrain:\n  learning_rate: 0.002\n"
	for _, tc := range []struct {
		kv, want, err string
	}{
		{"selfplay.games=32", "games: 32", ""},
		{"selfplay.score_utility=0.2", "score_utility: 0.2", ""},
		{"selfplay.reanalyse=0.25", "", "the run's config has no selfplay.reanalyse"},
		{"train.nosuch=1", "", "the run's config has no train.nosuch"},
		{"nosuch.games=1", "", "the run's config has no nosuch"},
		{"selfplay.games.x=1", "", "selfplay.games is not a section"},
		{"selfplay.games", "", "want PATH=VALUE"},
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(file), &doc); err != nil {
			t.Fatal(err)
		}
		err := setPath(doc.Content[0], tc.kv)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want an error with %q", tc.kv, err, tc.err)
			}
			continue
		}
		out, _ := yaml.Marshal(&doc)
		if err != nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s: %v\n%s", tc.kv, err, out)
			continue
		}
	}
}
