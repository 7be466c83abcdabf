// Package configs holds the project's data files, the rule variants
// (variants/*.yaml), the training presets (train/*.yaml) and the opening
// books of the ladder (books/*.txt), embedded in the binary so that it
// works from any directory.
package configs

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/durable"
)

//go:embed variants/*.yaml
var variantFS embed.FS

//go:embed train/*.yaml
var presetFS embed.FS

// VariantNames returns the names of the built-in variants, sorted.
func VariantNames() []string { return embeddedNames(variantFS, "variants", ".yaml") }

// VariantYAML returns the YAML text of a built-in variant.
func VariantYAML(name string) ([]byte, error) {
	return builtInYAML(variantFS, "variants", "variant", name, VariantNames)
}

// PresetNames returns the names of the built-in training presets, sorted.
func PresetNames() []string { return embeddedNames(presetFS, "train", ".yaml") }

// PresetYAML returns the YAML text of a built-in training preset.
func PresetYAML(name string) ([]byte, error) {
	return builtInYAML(presetFS, "train", "preset", name, PresetNames)
}

// builtInYAML returns the file dir/name.yaml of fsys, or an error naming
// the built-in files of its kind.
func builtInYAML(fsys embed.FS, dir, kind, name string, names func() []string) ([]byte, error) {
	data, ok := embeddedFile(fsys, dir, name, ".yaml")
	if !ok {
		return nil, fmt.Errorf("unknown %s %q (built-in %ss: %s)", kind, name, kind, strings.Join(names(), ", "))
	}
	return data, nil
}

// IsPath reports whether spec names a file rather than a built-in variant
// or preset: it has a slash or backslash, or ends in .yaml or .yml.
func IsPath(spec string) bool {
	return strings.ContainsAny(spec, `/\`) || strings.HasSuffix(spec, ".yaml") || strings.HasSuffix(spec, ".yml")
}

// embeddedNames returns the names of the files dir/NAME+ext of fsys, sorted.
func embeddedNames(fsys embed.FS, dir, ext string) []string {
	entries, _ := fs.ReadDir(fsys, dir)
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ext); ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// embeddedFile returns the file dir/name+ext of fsys; ok is false when
// there is none (or name is a path).
func embeddedFile(fsys embed.FS, dir, name, ext string) (data []byte, ok bool) {
	if IsPath(name) {
		return nil, false
	}
	data, err := fsys.ReadFile(path.Join(dir, name+ext))
	return data, err == nil
}

var (
	cacheMu sync.Mutex
	cache   = map[string]*game.Rules{}
)

// Variant loads a variant by spec and caches it. A spec is a built-in name
// ("keyland"), the path of a YAML file ("my/variant.yaml", which may use
// "base: keyland"), or either followed by rule overrides separated by commas,
// such as "daablot,no_return=true,promotion=prince" (keys are YAML fields,
// dotted for nested ones: "ranks.king.must_capture=true").
func Variant(spec string) (*game.Rules, error) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if r, ok := cache[spec]; ok {
		return r, nil
	}
	r, err := loadVariant(spec)
	if err != nil {
		return nil, err
	}
	cache[spec] = r
	return r, nil
}

// MustVariant is Variant for built-in names in tests and examples; it panics
// on error.
func MustVariant(spec string) *game.Rules {
	r, err := Variant(spec)
	if err != nil {
		panic(err)
	}
	return r
}

func loadVariant(spec string) (*game.Rules, error) {
	if spec == "" {
		return nil, errors.New("no variant given")
	}
	base, overrides, _ := strings.Cut(spec, ",")
	var data []byte
	var err error
	if IsPath(base) {
		if data, err = durable.ReadFile(base, "variant file", game.MaxVariantBytes); err != nil {
			return nil, fmt.Errorf("variant file: %w", err)
		}
	} else if data, err = VariantYAML(base); err != nil {
		return nil, err
	}
	if overrides == "" {
		r, err := game.ParseVariant(data, VariantYAML)
		if err != nil && !strings.Contains(err.Error(), base) {
			err = fmt.Errorf("%s: %w", base, err)
		}
		return r, err
	}
	// Overrides become a variant file of their own whose base is the spec's.
	baseRules, err := game.ParseVariant(data, VariantYAML)
	if err != nil {
		return nil, err
	}
	lookup := func(name string) ([]byte, error) {
		if name == "\x00base" {
			return data, nil
		}
		return VariantYAML(name)
	}
	doc := map[string]any{"base": "\x00base", "name": baseRules.Name + "," + overrides}
	for _, kv := range strings.Split(overrides, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("variant %q: override %q: want key=value", spec, kv)
		}
		if k == "name" || k == "base" {
			return nil, fmt.Errorf("variant %q: override %q: %s cannot be overridden", spec, kv, k)
		}
		if err := setDotted(doc, k, v); err != nil {
			return nil, fmt.Errorf("variant %q: override %q: %w", spec, kv, err)
		}
	}
	return game.ParseVariant(yamlOf(doc), lookup)
}

// setDotted sets the dotted key (such as "ranks.king.step") of m to v. A
// key given twice, or both as a value and as a mapping of others
// ("ranks.king=x" and "ranks.king.step=all"), is an error: an override
// does not silently replace another.
func setDotted(m map[string]any, key, v string) error {
	keys := strings.Split(key, ".")
	for i, k := range keys {
		if k == "" {
			return fmt.Errorf("%q: an empty part in the key", key)
		}
		old, exists := m[k]
		last := i == len(keys)-1
		switch {
		case !exists && last:
			m[k] = v
			return nil
		case !exists:
			sub := map[string]any{}
			m[k], m = sub, sub
			continue
		case last && !isMap(old):
			return fmt.Errorf("%s is given twice", key)
		case last || !isMap(old):
			return fmt.Errorf("%s is given both a value and keys of its own", strings.Join(keys[:i+1], "."))
		}
		m = old.(map[string]any)
	}
	return nil
}

func isMap(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}
