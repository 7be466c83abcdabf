package train

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/dablot-zero/dablot/configs"
)

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
// passes Validate and reads back, through YAML, as itself. Its bases are the
// built-in presets, "fuzz" (the second input) and "self" (the config
// itself, a cycle).
func FuzzParseConfig(f *testing.F) {
	for _, name := range configs.PresetNames() {
		data, err := configs.PresetYAML(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, []byte(nil))
		f.Add([]byte("base: fuzz\nname: x\nnetwork: {blocks: 4}\n"), data)
	}
	f.Add([]byte("base: hour\nname: x\nrating: {anchors: [random]}\nstop: {hours: 0.5}\n"), []byte(nil))
	f.Add([]byte("base: fuzz\nname: x\n"), []byte("base: hour\nname: y\ntrain: {reuse: 2}\n"))
	f.Add([]byte("base: fuzz\nname: x\n"), []byte("base: fuzz\nname: y\n"))
	f.Add([]byte("base: self\nname: x\n"), []byte(nil))
	f.Add([]byte("base: hour\n"), []byte(nil))
	f.Add([]byte("name: x\ntrain: {learning_rate: .nan}\n"), []byte(nil))
	f.Add([]byte("name: x\nselfplay: {games: -1}\n"), []byte(nil))
	f.Add([]byte("name: [\n"), []byte(nil))
	f.Fuzz(func(t *testing.T, data, base []byte) {
		lookup := func(name string) ([]byte, error) {
			switch name {
			case "fuzz":
				return base, nil
			case "self":
				return data, nil
			}
			return configs.PresetYAML(name)
		}
		c, err := parseConfig(data, lookup)
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
