package train

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// presetFiles returns the training presets of configs/train.
func presetFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("../configs/train/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// roundTrip checks that c's YAML reads back as a config with the same YAML.
func roundTrip(c *Config) error {
	out := c.YAML()
	again, err := ParseConfig(out)
	if err != nil {
		return fmt.Errorf("its YAML does not read back: %w\n%s", err, out)
	}
	if !bytes.Equal(again.YAML(), out) {
		return fmt.Errorf("YAML changes on a round trip:\n%s\nthen\n%s", out, again.YAML())
	}
	return nil
}

// FuzzParseConfig: a training config either gives an error or a config that
// passes Validate and reads back, through YAML, as itself.
func FuzzParseConfig(f *testing.F) {
	for _, p := range presetFiles(f) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("name: x\ntrain: {learning_rate: .nan}\n"))
	f.Add([]byte("name: x\nselfplay: {games: -1}\n"))
	f.Add([]byte("name: [\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			if c != nil {
				t.Fatalf("an error (%v) and a config", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("parsed, but Validate says %v", err)
		}
		if err := roundTrip(c); err != nil {
			t.Fatal(err)
		}
	})
}
