package train

import (
	"os"
	"strings"
	"testing"
)

// TestRetiredKeys: a run's config written before settings left the
// program (testdata/config-c3be0aa.yaml is the learning curve run's, as
// binary c3be0aa wrote it) still reads, each retired key at its off value
// dropped with a note; a retired key that was on is refused, naming it
// and its record.
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
			continue // retired before c3be0aa wrote its config
		}
		found := false
		for _, n := range cfg.Notes {
			found = found || strings.HasPrefix(n, k.path+" (off) dropped")
		}
		if !found {
			t.Errorf("no note for %s in %q", k.path, cfg.Notes)
		}
	}
	if strings.Contains(string(cfg.YAML()), "trade_down") {
		t.Errorf("the config as written again still holds trade_down")
	}
	if want := preset(t, "overnight"); cfg.Network != want.Network || cfg.Train.WindowMax != want.Train.WindowMax {
		t.Errorf("the old config reads as %+v, not overnight's network %+v", cfg.Network, want.Network)
	}
	on := strings.Replace(string(data), "trade_down: 0", "trade_down: 20", 1)
	if _, err := ParseConfig([]byte(on)); err == nil || !strings.Contains(err.Error(), "selfplay.trade_down") || !strings.Contains(err.Error(), "left the program") {
		t.Errorf("trade_down: 20: %v", err)
	}
}
