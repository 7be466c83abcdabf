package configs_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// The variants docs/rules.md requires.
var required = []string{"keyland", "dablot", "cyningstan", "cyningstan-modern", "winther", "winther-promotion",
	"winther-all-must-capture", "frostviken", "daablot", "daablot-king", "daablot-17", "daablot-16"}

func TestBuiltInVariants(t *testing.T) {
	names := configs.VariantNames()
	for _, n := range required {
		if !slices.Contains(names, n) {
			t.Errorf("variant %s is missing", n)
		}
	}
	for _, n := range names {
		r, err := configs.Variant(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if r.Name != n || r.Description == "" || r.Source == "" {
			t.Errorf("%s: name %q, description %q, source %q", n, r.Name, r.Description, r.Source)
		}
		start := r.Start()
		if start.Status().Over() || start.CountTurns() == 0 {
			t.Errorf("%s: the start position has no play", n)
		}
	}
}

func TestOverrides(t *testing.T) {
	r, err := configs.Variant("daablot,no_return=true,promotion=prince,ranks.king.must_capture=true,max_plies=300")
	if err != nil {
		t.Fatal(err)
	}
	base := configs.MustVariant("daablot")
	if !r.NoReturn || r.PromoteTo != 1 || !r.Ranks[2].MustCapture || r.MaxPlies != 300 {
		t.Errorf("overrides not applied: %+v", r)
	}
	if r.Ranks[0] != base.Ranks[0] || r.Setup != base.Setup || !slices.Equal(r.Assumed, base.Assumed) {
		t.Error("overrides changed other fields")
	}
	for _, bad := range []string{"daablot,name=x", "daablot,promotion", "daablot,colour=red", "nosuch", "", "../x"} {
		if _, err := configs.Variant(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// A key given twice is an error, not the last one winning; so is a key
	// given a value and keys of its own.
	for spec, want := range map[string]string{
		"daablot,no_return=true,no_return=false":                             `override "no_return=false": no_return is given twice`,
		"daablot,max_plies=300,promotion=prince,max_plies=200":               `override "max_plies=200": max_plies is given twice`,
		"daablot,ranks.king.must_capture=true,ranks.king.must_capture=false": "ranks.king.must_capture is given twice",
		"daablot,ranks.king=x,ranks.king.step=all":                           "ranks.king is given both a value and keys of its own",
		"daablot,ranks.king.step=all,ranks.king=x":                           "ranks.king is given both a value and keys of its own",
		"daablot,ranks..step=all":                                            `"ranks..step": an empty part in the key`,
	} {
		if _, err := configs.Variant(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error saying %q", spec, err, want)
		}
	}
}

func TestVariantFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mine.yaml")
	text := "base: keyland\nname: mine\ndescription: keyland with compulsory captures\nranks:\n  soldier: {step: all, must_capture: true, chain_must_continue: true}\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := configs.Variant(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "mine" || !r.Ranks[0].MustCapture || r.Ranks[1].MustCapture || !r.SingleCombat {
		t.Errorf("file variant: %+v", r)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(text, "step: all", "step: up", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := configs.Variant(path + ",max_plies=5"); err == nil || !strings.Contains(err.Error(), "ranks.soldier.step") {
		t.Errorf("bad file: %v", err)
	}
}

func TestFingerprints(t *testing.T) {
	seen := map[string]string{}
	for _, n := range configs.VariantNames() {
		fp := configs.MustVariant(n).Fingerprint()
		if other, ok := seen[fp]; ok {
			t.Errorf("%s and %s have the same fingerprint", n, other)
		}
		seen[fp] = n
	}
	if configs.MustVariant("keyland").Fingerprint() == configs.MustVariant("keyland,max_plies=999").Fingerprint() {
		t.Error("max_plies does not change the fingerprint")
	}
}

// FuzzVariantSpec: a variant spec of a built-in name and overrides either
// gives an error or rules whose variant file reads back to the same rules;
// it never panics. (Specs naming a file are left out: the fuzzer would
// read the machine's files.)
func FuzzVariantSpec(f *testing.F) {
	for _, s := range []string{"keyland", "daablot,no_return=true,promotion=prince", "daablot,ranks.king.must_capture=true,max_plies=300",
		"winther,no_return=true,no_return=false", "daablot,ranks.king=x,ranks.king.step=all", "dablot,ranks..step=all", "frostviken,max_plies=3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		base, _, _ := strings.Cut(spec, ",")
		if strings.ContainsAny(base, "/\\") || strings.HasSuffix(base, ".yaml") || strings.HasSuffix(base, ".yml") {
			return
		}
		r, err := configs.Variant(spec)
		if err != nil {
			return
		}
		back, err := game.ParseVariant(r.YAML(), nil)
		if err != nil || back.Canonical() != r.Canonical() {
			t.Fatalf("%q: its rules read back as %v (%v)", spec, back, err)
		}
	})
}

// TestPresetFiles: the training presets are embedded (train.LoadPreset
// reads them, see its tests), and a name that is a path is none of them.
func TestPresetFiles(t *testing.T) {
	t.Chdir(t.TempDir())
	if names := configs.PresetNames(); !slices.Equal(names, []string{"hour", "hour-score", "overnight", "short", "smoke"}) {
		t.Errorf("presets %v", names)
	}
	for _, tc := range []struct {
		spec string
		path bool
	}{
		{"hour", false}, {"hour.yaml", true}, {"my.yml", true}, {"./hour", true}, {`train\hour`, true},
		{"train/hour", true}, {"hour,x=1", false}, {"", false},
	} {
		if got := configs.IsPath(tc.spec); got != tc.path {
			t.Errorf("IsPath(%q) = %v, want %v", tc.spec, got, tc.path)
		}
		data, err := configs.PresetYAML(tc.spec)
		if ok := tc.spec == "hour"; ok != (err == nil) || ok && !strings.Contains(string(data), "name: hour\n") {
			t.Errorf("PresetYAML(%q): %v", tc.spec, err)
		}
	}
}
