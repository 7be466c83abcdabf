package train

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/durable"
	"github.com/dablot-zero/dablot/train/rundir"
)

// HasRun reports whether dir holds a run: its state file exists.
func HasRun(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, rundir.StateFile))
	return err == nil
}

// CheckSameRun reports whether the run in dir is the one CreateRun would
// start in dir from cfg, rules and init: the same preset but for its stop
// condition (which the run keeps, as a resumed run does), the same rules and
// the same initial model. The error names what differs. It changes no file.
func CheckSameRun(dir string, cfg *Config, rules *game.Rules, init string) error {
	st, err := readState(dir)
	if err != nil {
		return err
	}
	if st.Fingerprint != rules.Fingerprint() {
		return fmt.Errorf("%s holds a run of other rules: %s (fingerprint %s), not %s (fingerprint %s)",
			dir, st.Variant, st.Fingerprint, rules.Name, rules.Fingerprint())
	}
	if st.InitFrom != init {
		from := func(m string) string {
			if m == "" {
				return "no --init"
			}
			return "--init " + m
		}
		return fmt.Errorf("%s holds a run started with %s, not %s", dir, from(st.InitFrom), from(init))
	}
	have, err := LoadConfig(filepath.Join(dir, rundir.ConfigFile))
	if err != nil {
		return err
	}
	if diff := configDiff(have, cfg, rules.Name); len(diff) > 0 {
		return fmt.Errorf("%s holds a run of another preset (%s in the run's %s, in the preset given)",
			dir, strings.Join(diff, "; "), rundir.ConfigFile)
	}
	return nil
}

// configDiff lists the settings in which run and preset differ, by their
// YAML paths ("selfplay.games: 16, 32"), leaving out the stop condition
// and taking both to play variant.
func configDiff(run, preset *Config, variant string) []string {
	flat := func(c Config) map[string]string {
		c.Stop, c.Variant = StopConfig{}, variant
		var doc map[string]any
		if err := yaml.Unmarshal(c.YAML(), &doc); err != nil {
			panic("train: reading back a config: " + err.Error()) // Config.YAML is read back by ParseConfig
		}
		out := map[string]string{}
		var walk func(prefix string, v any)
		walk = func(prefix string, v any) {
			if m, ok := v.(map[string]any); ok {
				for k, x := range m {
					walk(strings.TrimPrefix(prefix+"."+k, "."), x)
				}
				return
			}
			out[prefix] = fmt.Sprint(v)
		}
		walk("", doc)
		return out
	}
	a, b := flat(*run), flat(*preset)
	var diff []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			diff = append(diff, fmt.Sprintf("%s: %s, %s", k, v, w))
		}
	}
	for k, w := range b {
		if _, ok := a[k]; !ok {
			diff = append(diff, fmt.Sprintf("%s: none, %s", k, w))
		}
	}
	slices.Sort(diff)
	return diff
}

// SetAside renames dir, if it holds anything, to dir-TIME, TIME being when
// its state was last written (else when the directory last changed), such
// as runs/keyland-hour-20261124-153012; it returns the new name, or "" if
// there was nothing to move. Nothing is deleted.
func SetAside(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) || err == nil && len(entries) == 0:
		return "", nil
	case err != nil:
		return "", err
	}
	fi, err := os.Stat(filepath.Join(dir, rundir.StateFile))
	if err != nil {
		if fi, err = os.Stat(dir); err != nil {
			return "", err
		}
	}
	return durable.MoveAside(dir, fi.ModTime(), "")
}
