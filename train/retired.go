package train

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// retiredKey is a training setting that was measured, lost or came out
// level, and left the code (docs/experiments/ keeps its record). A config
// written before it left, such as a run directory's config.yaml, still
// reads: the key at one of its off values is dropped with a note; any
// other value is refused, since the run would no longer do what it says.
type retiredKey struct {
	path   string   // such as "selfplay.trade_down"
	off    []string // the values, as YAML scalars, that did nothing ("" for an empty list or null)
	record string   // where its measurement is kept
}

// retiredKeys are the settings that left, with their records.
var retiredKeys = []retiredKey{
	{"selfplay.quiescence", []string{"0"}, "docs/experiments/2026-11-training-signals.md"},
	{"selfplay.trade_down", []string{"0"}, "docs/experiments/2026-11-ablations.md §12"},
}

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
			v := m.Content[i+1]
			val := v.Value
			if v.Kind == yaml.SequenceNode && len(v.Content) == 0 || v.Tag == "!!null" {
				val = ""
			}
			if v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode && len(v.Content) > 0 || !slices.Contains(k.off, val) {
				return nil, nil, fmt.Errorf("%s: this setting left the program after it was measured (%s); a config with it set cannot run as it says: remove it (it was off at %s)",
					k.path, k.record, strings.Join(quoteEmpty(k.off), " or "))
			}
			m.Content = slices.Delete(m.Content, i, i+2)
			notes = append(notes, fmt.Sprintf("%s (off) dropped: the setting left the program (%s)", k.path, k.record))
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

// quoteEmpty writes "" as "an empty list".
func quoteEmpty(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v
		if v == "" {
			out[i] = "an empty list"
		}
	}
	return out
}
