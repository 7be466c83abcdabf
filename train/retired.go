package train

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// retiredKey is a training setting that left the code: it was measured
// and lost or came out level (docs/experiments/ keeps its record), or it
// was never set nor measured and its default became a constant. A config
// written before it left, such as a run directory's config.yaml, still
// reads: the key at one of its off values is dropped with a note; any
// other value is refused, since the run would no longer do what it says.
type retiredKey struct {
	path string // such as "selfplay.trade_down"
	// off are the values at which the setting did what the program now
	// does without it, as YAML writes them: scalars such as "0", "[]" for
	// an empty list and "null" for null (however spelled).
	off    []string
	record string // where its measurement is kept, or why it left unmeasured
}

// retiredKeys are the settings that left, with their records.
var retiredKeys = []retiredKey{
	{"selfplay.quiescence", []string{"0"}, "docs/keyland.md (capture search): self-play turned passive"},
	{"selfplay.trade_down", []string{"0"}, "docs/experiments/2026-11-ablations.md §12"},
	{"network.short_term_heads", []string{"0"}, shortTermRecord},
	{"selfplay.short_term_horizons", []string{"[]", "null"}, shortTermRecord},
	{"train.short_term_weight", []string{"null"}, shortTermRecord},
	{"network.tactical_planes", []string{"false"}, tacticalRecord},
	{"selfplay.king_race", []string{"0"}, "docs/experiments/2026-11-ablations.md §13: lost"},
	{"selfplay.race_target", []string{"0"}, "docs/experiments/2026-11-ablations.md §14: level"},
	{"selfplay.horizon_result", []string{"false"}, "docs/experiments/2026-11-ablations.md §16: level"},
	{"selfplay.opponent_fraction", []string{"0"}, leagueRecord},
	{"selfplay.opponents", []string{"[]", "null"}, leagueRecord},
	{"selfplay.batch_wait_ms", []string{"0"}, "never set by a preset nor measured in training: self-play's batches do not wait"},
	{"selfplay.endgame_king_chance", []string{"0.9", "null"}, endgameRecord},
	{"selfplay.endgame_prince_chance", []string{"0.5", "null"}, endgameRecord},
	{"selfplay.guard", []string{"0"}, guardRecord},
	{"selfplay.guard_margin", []string{"null"}, guardRecord},
	{"selfplay.reanalyse", []string{"0"}, "reanalysis of the replay window's positions behind the guard and the tables, docs/experiments/2026-12-learning.md (Stage B): 46.5 %, level or below"},
	{"selfplay.defence_sims", []string{"0"}, "a full search for the side without a king once the other holds the only king, docs/experiments/2026-12-learning.md (Stage B, technique 7): 42.0 %, lost"},
	{"selfplay.endgame_tables", []string{"0"}, "self-play games ended at N pieces with the tables' result, docs/experiments/2026-12-learning.md (Stage B): 48.0 %, level"},
	{"selfplay.attack_full", []string{"false"}, "a full search for every decision of the side holding the only king, docs/experiments/2026-12-learning.md (Stage B, technique 10): 48.5 %, level"},
	{"selfplay.race_defence", []string{"0"}, "alpha-beta of four turns defending self-play's races once one side holds the only king, docs/experiments/2026-12-learning.md (Stage B, technique 12): 47.5 %, level or below"},
}

// The records of settings that left, those that more than one key or
// message names.
const (
	shortTermRecord = "short-term value heads, docs/experiments/2026-11-ablations.md §3: no measurable gain"
	tacticalRecord  = "tactical input planes, docs/experiments/2026-11-ablations.md §6: lost"
	leagueRecord    = "fixed opponents in self-play, docs/keyland.md (training against the anchor): no better"
	guardRecord     = "the guard in every self-play decision, docs/experiments/2026-11-ablations.md §4: lost"
	endgameRecord   = "never set by a preset nor measured: the endgame curriculum keeps match.DefaultEndgame's chances"
)

// dropRetired removes the retired keys from the YAML document data and
// returns it with a note for each key dropped, or an error for a retired
// key at a value that did something. Data without retired keys is
// returned as it is.
func dropRetired(data []byte) ([]byte, []string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return data, nil, nil // the strict decoder names the problem
	}
	var notes []string
	changed := false
	for _, k := range retiredKeys {
		section, key, _ := strings.Cut(k.path, ".")
		m := mappingValue(doc.Content[0], section)
		if m == nil || m.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value != key {
				continue
			}
			val, ok := scalarText(m.Content[i+1])
			if !ok || !slices.Contains(k.off, val) {
				return nil, nil, fmt.Errorf("%s: this setting left the program (%s); a config with it set cannot run as it says: remove it (without it the program does what it did at %s)",
					k.path, k.record, strings.Join(k.off, " or "))
			}
			m.Content = slices.Delete(m.Content, i, i+2)
			notes = append(notes, fmt.Sprintf("%s: %s dropped (the setting left the program: %s)", k.path, val, k.record))
			changed = true
			break
		}
	}
	if !changed {
		return data, nil, nil
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, nil, err
	}
	return out.Bytes(), notes, nil
}

// mappingValue returns the value of key in mapping m, or nil.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// scalarText is the value of node v as retiredKey.off writes it: a
// scalar's text, "null" for null, "[]" for an empty list; ok is false for
// a mapping or a list that holds something.
func scalarText(v *yaml.Node) (text string, ok bool) {
	switch {
	case v.Kind == yaml.SequenceNode && len(v.Content) == 0:
		return "[]", true
	case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
		return "null", true
	case v.Kind == yaml.ScalarNode:
		return v.Value, true
	}
	return "", false
}
