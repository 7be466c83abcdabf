package train

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/dablot-zero/dablot/internal/durable"
	"github.com/dablot-zero/dablot/train/rundir"
)

// maxForkSettings bounds the settings a fork changes.
const maxForkSettings = 64

// ForkRun copies the run in src into dst, a directory that does not exist
// or is empty, with the settings of set changed in the copy's config: each
// "path=value" names a setting of the run's config.yaml by its YAML path
// (train.learning_rate, selfplay.full_sims) and gives its new value in
// YAML. The copy is the run as it stands (state, checkpoints, replay
// shards, models, logs), so resuming it continues from the same generation,
// replay buffer and optimiser state with only those settings changed: an
// ablation of a long run, against the run itself continued as its
// control. The network cannot change (the checkpoints hold its weights),
// nor can the variant. The copy keeps the run's identity, which its
// checkpoints, shards and models carry and check, so the two runs share
// their history up to the fork; their later models tell them apart by
// their directories' names (TrainingSummary.Run). src must not be in
// training (the caller holds its lock). ForkRun returns the changes, as "path: old, new"; on an error dst
// is left as it was.
func ForkRun(src, dst string, set []string) ([]string, error) {
	if !HasRun(src) {
		return nil, fmt.Errorf("--fork %s: no run there (no %s)", src, rundir.StateFile)
	}
	if _, err := readState(src); err != nil {
		return nil, err
	}
	if entries, err := os.ReadDir(dst); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("--run %s already holds files: a fork goes into a new directory", dst)
	}
	if len(set) > maxForkSettings {
		return nil, fmt.Errorf("--set: %d settings, at most %d", len(set), maxForkSettings)
	}
	path := filepath.Join(src, rundir.ConfigFile)
	_, old, err := readConfigFile(path)
	if err != nil {
		return nil, err
	}
	// The config as this binary writes it: a setting newer than the run's
	// file is there with its default, and can be set.
	data := old.YAML()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) != 1 {
		return nil, fmt.Errorf("%s: not a YAML mapping (%v)", path, err)
	}
	for _, kv := range set {
		if err := setPath(doc.Content[0], kv); err != nil {
			return nil, fmt.Errorf("--set %s: %w", kv, err)
		}
	}
	out, err := yaml.Marshal(&doc)
	if err != nil {
		return nil, err
	}
	cfg, err := ParseConfig(out)
	if err != nil {
		return nil, fmt.Errorf("--set: %w", err)
	}
	switch {
	case cfg.NetConfig() != old.NetConfig():
		return nil, fmt.Errorf("--set: a fork keeps the run's network (its checkpoints hold the weights): network: %+v, not %+v", old.NetConfig(), cfg.NetConfig())
	case cfg.Variant != old.Variant:
		return nil, fmt.Errorf("--set: a fork keeps the run's variant %s", old.Variant)
	}
	changed := configDiff(old, cfg, old.Variant)
	if cfg.Stop != old.Stop {
		changed = append(changed, fmt.Sprintf("stop: %+v, %+v", old.Stop, cfg.Stop))
	}
	if len(changed) == 0 {
		return nil, fmt.Errorf("--set changes nothing: the fork would be the run itself")
	}
	tmp := dst + ".fork-tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return nil, err
	}
	if err := copyTree(src, tmp); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("--fork: copying %s: %w", src, err)
	}
	if err := publishFork(tmp, dst, cfg); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return changed, nil
}

// publishFork writes cfg into the copy tmp and renames it to dst.
func publishFork(tmp, dst string, cfg *Config) error {
	if err := durable.WriteFile(filepath.Join(tmp, rundir.ConfigFile), cfg.YAML()); err != nil {
		return err
	}
	os.Remove(dst) // an empty directory, if any
	return os.Rename(tmp, dst)
}

// setPath sets the value at the YAML path of kv ("a.b=value") in the
// mapping m; the path must exist, and the value is parsed as YAML.
func setPath(m *yaml.Node, kv string) error {
	key, value, ok := strings.Cut(kv, "=")
	if !ok || key == "" {
		return fmt.Errorf("want PATH=VALUE, such as train.learning_rate=0.0005")
	}
	var v yaml.Node
	if err := yaml.Unmarshal([]byte(value), &v); err != nil {
		return fmt.Errorf("value %q: %v", value, err)
	}
	node := m
	parts := strings.Split(key, ".")
	for i, p := range parts {
		if node.Kind != yaml.MappingNode {
			return fmt.Errorf("%s is not a section", strings.Join(parts[:i], "."))
		}
		j := -1
		for k := 0; k+1 < len(node.Content); k += 2 {
			if node.Content[k].Value == p {
				j = k
			}
		}
		if j < 0 && i == len(parts)-1 && slices.Contains(configKeys(reflect.TypeFor[Config](), ""), key) {
			// A setting the run's file leaves out (at its zero value,
			// or newer than the file): this binary knows it.
			node.Content = append(node.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p}, nil)
			j = len(node.Content) - 2
		}
		if j < 0 {
			return fmt.Errorf("the run's config has no %s", strings.Join(parts[:i+1], "."))
		}
		if i == len(parts)-1 {
			if len(v.Content) == 1 {
				node.Content[j+1] = v.Content[0]
			} else {
				node.Content[j+1] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
			}
			return nil
		}
		node = node.Content[j+1]
	}
	return nil
}

// copyTree copies the directory src, its regular files and directories,
// into the new directory dst, each file synced.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.Mkdir(to, 0o755)
		case !d.Type().IsRegular():
			return fmt.Errorf("%s is not a regular file", path)
		}
		return durable.Write(to, func(w io.Writer) error {
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = io.Copy(w, f)
			return err
		})
	})
}

// configKeys returns the YAML paths of the leaf keys of struct type st,
// each prefixed with prefix: a struct field's keys are its fields', a
// list or a pointer is one key, and a field not written (yaml:"-") none.
func configKeys(st reflect.Type, prefix string) []string {
	var keys []string
	for f := range st.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if f.Type.Kind() == reflect.Struct {
			keys = append(keys, configKeys(f.Type, prefix+name+".")...)
			continue
		}
		keys = append(keys, prefix+name)
	}
	return keys
}
