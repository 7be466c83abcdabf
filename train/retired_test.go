package train

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// retiredOn gives each retired key a value, as YAML, at which the setting
// did something: the keys that must stay retired.
var retiredOn = map[string]string{
	"selfplay.quiescence":            "2",
	"selfplay.trade_down":            "20",
	"selfplay.defence_sims":          "64",
	"network.short_term_heads":       "2",
	"selfplay.short_term_horizons":   "[8, 32]",
	"train.short_term_weight":        "1",
	"network.tactical_planes":        "true",
	"selfplay.king_race":             "0.6",
	"selfplay.race_target":           "0.6",
	"selfplay.horizon_result":        "true",
	"selfplay.opponent_fraction":     "0.25",
	"selfplay.opponents":             `["alphabeta:depth=2"]`,
	"selfplay.batch_wait_ms":         "2",
	"selfplay.endgame_king_chance":   "0.5",
	"selfplay.endgame_prince_chance": "1",
	"selfplay.guard":                 "3",
	"selfplay.guard_margin":          "40",
	"selfplay.reanalyse":             "0.25",
	"selfplay.endgame_tables":        "3",
	"selfplay.attack_full":           "true",
	"selfplay.race_defence":          "0.5",
}

// TestRetiredKeys: a run's config written before settings left the
// program (testdata/config-c3be0aa.yaml is the learning curve run's, as
// binary c3be0aa wrote it) still reads, each retired key at its off value
// dropped with a note, and is written again without them. Every retired
// key, set in that config at each of its off values, reads with a note;
// at a value that did something it is refused, naming the key and its
// record.
func TestRetiredKeys(t *testing.T) {
	data, err := os.ReadFile("testdata/config-c3be0aa.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		t.Fatalf("the old run's config: %v", err)
	}
	for _, k := range retiredKeys {
		if !strings.Contains(string(data), strings.SplitN(k.path, ".", 2)[1]+":") {
			continue // retired before c3be0aa wrote its config, or absent at off
		}
		if !hasNote(cfg.Notes, k.path, "") {
			t.Errorf("no note for %s in %q", k.path, cfg.Notes)
		}
	}
	again := string(cfg.YAML())
	for _, k := range retiredKeys {
		if strings.Contains(again, strings.SplitN(k.path, ".", 2)[1]+":") {
			t.Errorf("the config as written again still holds %s", k.path)
		}
	}
	if want := preset(t, "overnight"); cfg.Network != want.Network || cfg.Train.WindowMax != want.Train.WindowMax {
		t.Errorf("the old config reads as %+v, not overnight's network %+v", cfg.Network, want.Network)
	}
	for _, k := range retiredKeys {
		if _, ok := retiredOn[k.path]; !ok {
			t.Errorf("retiredOn has no value of %s that did something", k.path)
		}
	}
	for _, path := range slices.Sorted(maps.Keys(retiredOn)) {
		on := retiredOn[path]
		i := slices.IndexFunc(retiredKeys, func(k retiredKey) bool { return k.path == path })
		if i < 0 {
			t.Errorf("%s is not a retired key", path)
			continue
		}
		k := retiredKeys[i]
		for _, v := range k.off {
			c, err := ParseConfig(withKey(t, data, k.path, v))
			if err != nil || !hasNote(c.Notes, k.path, v) {
				t.Errorf("%s: %s: %v, notes %q", k.path, v, err, c.Notes)
			}
		}
		_, err := ParseConfig(withKey(t, data, k.path, on))
		if want := k.path + ": this setting left the program (" + k.record + ")"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %s: %v, want an error with %q", k.path, on, err, want)
		}
	}
}

// hasNote reports whether notes say that the retired key path was
// dropped (at the value v, if v is not "").
func hasNote(notes []string, path, v string) bool {
	return slices.ContainsFunc(notes, func(n string) bool {
		head, _, ok := strings.Cut(n, " dropped (the setting left the program: ")
		return ok && strings.HasPrefix(head, path+": ") && (v == "" || head == path+": "+v)
	})
}

// withKey returns the config data with the key path (section.key) set to
// value, given as YAML: replaced where data has it, added otherwise.
func withKey(t *testing.T, data []byte, path, value string) []byte {
	t.Helper()
	var doc, v yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(value), &v); err != nil {
		t.Fatal(err)
	}
	section, key, _ := strings.Cut(path, ".")
	m := mappingValue(doc.Content[0], section)
	if m == nil {
		t.Fatalf("no section %s", section)
	}
	i := 0
	for i < len(m.Content) && m.Content[i].Value != key {
		i += 2
	}
	if i == len(m.Content) {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, nil)
	}
	m.Content[i+1] = v.Content[0]
	out, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
