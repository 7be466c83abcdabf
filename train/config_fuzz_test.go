package train

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseConfig: a training config either gives an error or a config that
// passes Validate and reads back, through YAML, as itself.
func FuzzParseConfig(f *testing.F) {
	presets, _ := filepath.Glob("../configs/train/*.yaml")
	for _, p := range presets {
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
		out := c.YAML()
		again, err := ParseConfig(out)
		if err != nil {
			t.Fatalf("its YAML does not read back: %v\n%s", err, out)
		}
		if !bytes.Equal(again.YAML(), out) {
			t.Fatalf("YAML changes on a round trip:\n%s\nthen\n%s", out, again.YAML())
		}
	})
}
