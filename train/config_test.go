package train

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/net/trainer"
	"github.com/dablot-zero/dablot/train/rundir"
)

// withBases returns a lookup of bases: the files of extra by name, then
// the built-in presets.
func withBases(extra map[string]string) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		if data, ok := extra[name]; ok {
			return []byte(data), nil
		}
		return configs.PresetYAML(name)
	}
}

// preset returns the preset spec (LoadPreset), freshly parsed.
func preset(t *testing.T, spec string) *Config {
	t.Helper()
	c, err := LoadPreset(spec)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sameConfig fails t unless got and want have the same YAML, naming the
// settings that differ.
func sameConfig(t *testing.T, what string, got, want *Config) {
	t.Helper()
	if !bytes.Equal(got.YAML(), want.YAML()) {
		t.Errorf("%s: differs from what it should be in %s", what, strings.Join(configDiff(got, want, want.Variant), "; "))
	}
}

func TestConfigBase(t *testing.T) {
	for _, tc := range []struct {
		name  string
		data  string
		bases map[string]string
		want  func(c *Config) // applied to the built-in hour
	}{
		{"override", "base: hour\nname: x\nseed: 9\nvariant: keyland\n", nil,
			func(c *Config) { c.Name, c.Seed, c.Variant = "x", 9, "keyland" }},
		{"nested override", "base: hour\nname: x\nnetwork: {blocks: 5}\nselfplay:\n  games: 16\n  endgame_soldiers: 3\n", nil,
			func(c *Config) {
				c.Name, c.Network.Blocks, c.SelfPlay.Games, c.SelfPlay.EndgameSoldiers = "x", 5, 16, 3
			}},
		{"list replaced, not merged", "base: hour\nname: x\nrating: {anchors: [uct:playouts=10]}\n", nil,
			func(c *Config) { c.Name, c.Rating.Anchors = "x", []string{"uct:playouts=10"} }},
		{"list emptied", "base: hour\nname: x\nrating: {anchors: []}\n", nil,
			func(c *Config) { c.Name, c.Rating.Anchors = "x", []string{} }},
		{"chain of bases", "base: mid\nname: x\ntrain: {reuse: 3}\n",
			map[string]string{"mid": "base: hour\nname: mid\nnetwork: {blocks: 4}\ntrain: {reuse: 2, mirror: false}\nselfplay: {endgame_soldiers: 3}\n"},
			func(c *Config) {
				c.Name, c.Network.Blocks, c.Train.Reuse, c.Train.Mirror, c.SelfPlay.EndgameSoldiers = "x", 4, 3, false, 3
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseConfig([]byte(tc.data), withBases(tc.bases))
			if err != nil {
				t.Fatal(err)
			}
			want := preset(t, "hour")
			tc.want(want)
			sameConfig(t, tc.name, got, want)
			if bytes.Contains(got.YAML(), []byte("base:")) || bytes.Contains(got.YAML(), []byte("description:")) {
				t.Errorf("the config as merged names a base or a description:\n%s", got.YAML())
			}
		})
	}
	// The description, like the name, is a file's own.
	for data, want := range map[string]string{"base: hour\nname: x\n": "", "base: hour\nname: x\ndescription: mine\n": "mine"} {
		if got, err := decodePreset([]byte(data), &Config{}, configs.PresetYAML, nil); err != nil || got != want {
			t.Errorf("%q: description %q, %v; want %q", data, got, err, want)
		}
	}
}

func TestConfigBaseErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		data  string
		bases map[string]string
		want  []string
	}{
		{"itself", "base: a\nname: x\n", map[string]string{"a": "base: a\nname: a\n"},
			[]string{`base "a": a cycle of bases (a -> a)`}},
		{"a cycle", "base: a\nname: x\n", map[string]string{"a": "base: b\nname: a\n", "b": "base: a\nname: b\n"},
			[]string{`base "a": a cycle of bases (a -> b -> a)`}},
		{"unknown base", "base: hours\nname: x\n", nil,
			[]string{`base "hours": unknown preset "hours" (built-in presets: hour, hour-score, overnight, short, smoke)`}},
		{"a path as base", "base: configs/train/hour.yaml\nname: x\n", nil,
			[]string{`unknown preset "configs/train/hour.yaml"`}},
		{"base not a name", "base: [hour]\nname: x\n", nil, []string{"cannot unmarshal !!seq into string"}},
		{"no name of its own", "base: hour\nseed: 2\n", nil,
			[]string{"name: a config with a base needs a name of its own (its base's, hour, is not inherited)"}},
		{"unknown key", "base: hour\nname: x\nselfplay: {gamez: 3}\n", nil, []string{"field gamez not found"}},
		{"unknown key in a base", "base: bad\nname: x\n", map[string]string{"bad": "name: bad\nnetwrk: {blocks: 1}\n"},
			[]string{`base "bad"`, "line 2: field netwrk not found"}},
		{"an empty base", "base: empty\nname: x\n", map[string]string{"empty": ""}, []string{`base "empty": empty`}},
		{"a base too large", "base: big\nname: x\n", map[string]string{"big": "name: big\n" + strings.Repeat("#", maxConfigBytes)},
			[]string{`base "big": 65546 bytes, more than the 65536`}},
		{"out of range as merged", "base: hour\nname: x\nselfplay: {fast_sims: 65}\n", nil,
			[]string{"selfplay.fast_sims = 65: want 1 to full_sims"}},
		{"score weight without the head", "base: hour\nname: x\ntrain: {score_weight: 1}\n", nil,
			[]string{"train.score_weight = 1: want no value without network.score_head"}},
		{"score utility without the head", "base: hour\nname: x\nselfplay: {score_utility: 0.2}\n", nil,
			[]string{"selfplay.score_utility = 0.2: want 0 without network.score_head"}},
		{"score weight out of range", "base: hour-score\nname: x\ntrain: {score_weight: -1}\n", nil,
			[]string{"train.score_weight = -1: want 0 to 100"}},
		{"score utility out of range", "base: hour-score\nname: x\nselfplay: {score_utility: 1.5}\n", nil,
			[]string{"selfplay.score_utility = 1.5: want 0 to 1"}},
		{"score head without a horizon", "base: hour-score\nname: x\nselfplay: {material_horizon: 0}\n", nil,
			[]string{"selfplay.material_horizon = 0: want more than 0 with network.score_head"}},
		{"score head without a scale", "base: hour-score\nname: x\nselfplay: {adjudication: 0, adjudication_scale: 0}\n", nil,
			[]string{"selfplay.adjudication_scale = 0: want a finite number more than 0 with network.score_head"}},
		{"ownership weight without the head", "base: hour\nname: x\nnetwork: {ownership_head: false}\ntrain: {ownership_weight: 1}\n", nil,
			[]string{"train.ownership_weight = 1: want no value without network.ownership_head"}},
		{"ownership weight out of range", "base: hour\nname: x\nnetwork: {ownership_head: true}\ntrain: {ownership_weight: -0.5}\n", nil,
			[]string{"train.ownership_weight = -0.5: want 0 to 100"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseConfig([]byte(tc.data), withBases(tc.bases))
			if err == nil || c != nil {
				t.Fatalf("got %v, %v; want an error", c, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q, want one with %q", err, w)
				}
			}
		})
	}
}

// TestPresets: every built-in preset reads (its bases merged) and
// validates, under its own name, with a one-line description; it names no
// variant (the run's command line does); it reads back from its YAML, which
// names no base.
func TestPresets(t *testing.T) {
	names := configs.PresetNames()
	if want := []string{"hour", "hour-score", "overnight", "short", "smoke"}; !slices.Equal(names, want) {
		t.Fatalf("presets %v, want %v", names, want)
	}
	listed := Presets()
	for i, name := range names {
		cfg, err := LoadPreset(name)
		if err != nil {
			t.Error(err)
			continue
		}
		if cfg.Name != name {
			t.Errorf("preset %s is named %q", name, cfg.Name)
		}
		if cfg.Variant != "" {
			t.Errorf("preset %s names a variant, %s", name, cfg.Variant)
		}
		if err := roundTrip(cfg); err != nil {
			t.Errorf("%s: does not round-trip: %v", name, err)
		}
		if p := listed[i]; p.Name != name || p.Description == "" || strings.HasPrefix(p.Description, "(") || strings.Contains(p.Description, "\n") {
			t.Errorf("Presets() lists %+v for %s", p, name)
		}
	}
}

// TestOvernightAndShortAreHour: overnight and short are hour but for what
// they say (overnight.yaml once stated every setting; as merged it is what
// that file was, but that it names no variant).
func TestOvernightAndShortAreHour(t *testing.T) {
	want := preset(t, "hour")
	want.Name = "overnight"
	want.Network.Blocks = 3
	want.Train.WindowMax = 1000000
	want.Train.RateDrops = []RateDrop{{Samples: 1_000_000, Rate: 0.0005}}
	want.SelfPlay.PlainRaces = true
	want.Rating.Anchors = []string{"alphabeta:depth=2", "alphabeta:depth=4"}
	want.Rating.Every = 40
	want.Stop.Hours = 8
	want.Snapshots = []float64{1, 2, 4, 8, 16}
	sameConfig(t, "overnight", preset(t, "overnight"), want)

	want = preset(t, "hour")
	want.Name = "short"
	want.Stop = StopConfig{Generations: 8}
	sameConfig(t, "short", preset(t, "short"), want)
}

// TestAuxHeadConfigs: hour-score is hour but for the score head and its
// settings, the ablation it is for; the ownership ablation's config
// (docs/experiments/configs/hour-own-abl.yaml) is hour but for the head
// and the rating block of its control (that of hour-surprise-abl). Their
// networks' loss weighs the heads 1 (given or by default); hour has the
// ownership head (it won its ablation) and not the score head.
func TestAuxHeadConfigs(t *testing.T) {
	one := 1.0
	for _, tc := range []struct {
		spec, name string
		edit       func(*Config)
		weight     func(trainer.TrainConfig) float64
		given      func(*Config) **float64 // the head's train.*_weight
		inHour     bool                    // hour has the head too
	}{
		{"hour-score", "hour-score", func(c *Config) {
			c.Network.ScoreHead = true
			c.SelfPlay.MaterialWeight = 0
			c.SelfPlay.ScoreUtility = 0.2
			c.Train.ScoreWeight = &one
		}, func(tc trainer.TrainConfig) float64 { return tc.ScoreWeight }, func(c *Config) **float64 { return &c.Train.ScoreWeight }, false},
		{"../docs/experiments/configs/hour-own-abl.yaml", "hour-own-abl", func(c *Config) {
			c.Network.OwnershipHead = true
			c.Rating = preset(t, "../docs/experiments/configs/hour-surprise-abl.yaml").Rating
		}, func(tc trainer.TrainConfig) float64 { return tc.OwnershipWeight }, func(c *Config) **float64 { return &c.Train.OwnershipWeight }, true},
	} {
		want := preset(t, "hour")
		want.Name = tc.name
		tc.edit(want)
		got := preset(t, tc.spec)
		sameConfig(t, tc.name, got, want)
		if w := tc.weight(got.TrainConfig()); w != 1 {
			t.Errorf("%s trains its heads with weight %v, want 1", tc.name, w)
		}
		hourWeight := 0.0
		if tc.inHour {
			hourWeight = 1
		}
		if w := tc.weight(preset(t, "hour").TrainConfig()); w != hourWeight {
			t.Errorf("hour trains %s's heads with weight %v, want %v", tc.name, w, hourWeight)
		}
		if got.NetConfig().Heads() == nil {
			t.Errorf("%s: the config has no heads", tc.name)
		}
		// Without the weight, the heads' loss weighs 1; with it, as given.
		*tc.given(got) = nil
		if w := tc.weight(got.TrainConfig()); w != 1 {
			t.Errorf("%s: default weight %v, want 1", tc.name, w)
		}
		half := 0.5
		*tc.given(got) = &half
		if w := tc.weight(got.TrainConfig()); w != 0.5 {
			t.Errorf("%s: the weight 0.5 gives %v", tc.name, w)
		}
	}
}

// TestLoadPresetAnyDirectory: a built-in preset's name works from any
// directory (a file of that name there does not hide it); anything with a
// slash or ending in .yaml is a file, whose base may be a built-in preset.
func TestLoadPresetAnyDirectory(t *testing.T) {
	t.Chdir(t.TempDir())
	os.WriteFile("hour", []byte("not a preset"), 0o644)
	if c, err := LoadPreset("hour"); err != nil || c.Name != "hour" || c.Stop.Hours != 1 {
		t.Fatalf("LoadPreset(hour) from another directory: %v, %v", c, err)
	}
	os.WriteFile("mine.yaml", []byte("base: overnight\nname: mine\nstop: {hours: 2}\n"), 0o644)
	os.Mkdir("sub", 0o755)
	os.WriteFile(filepath.Join("sub", "mine"), []byte("base: short\nname: sub\n"), 0o644)
	for _, tc := range []struct{ spec, name string }{{"mine.yaml", "mine"}, {"./mine.yaml", "mine"}, {"sub/mine", "sub"}} {
		c, err := LoadPreset(tc.spec)
		if err != nil || c.Name != tc.name {
			t.Errorf("LoadPreset(%s): %v, %v", tc.spec, c, err)
		}
	}
	if c := preset(t, "mine.yaml"); c.Network.Blocks != 3 || c.Stop.Hours != 2 {
		t.Errorf("mine.yaml (base: overnight, 2 hours): blocks %d, hours %v", c.Network.Blocks, c.Stop.Hours)
	}
	for _, tc := range []struct{ spec, want string }{
		{"mine", `unknown preset "mine" (built-in presets: hour, hour-score, overnight, short, smoke); a file is given by its path, such as ./mine.yaml`},
		{"configs/train/hour.yaml", "configs/train/hour.yaml"},
		{"", `unknown preset ""`},
	} {
		if _, err := LoadPreset(tc.spec); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadPreset(%q): %v, want an error with %q", tc.spec, err, tc.want)
		}
	}
}

// TestRunRecordsMergedConfig: a run of a preset with a base records the
// whole config, so that resuming it never reads a preset again.
func TestRunRecordsMergedConfig(t *testing.T) {
	cfg := preset(t, "short")
	dir := filepath.Join(t.TempDir(), "run")
	r, err := CreateRun(dir, cfg, configs.MustVariant("keyland"), "", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	data, err := os.ReadFile(filepath.Join(dir, rundir.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]any
	if err := yaml.Unmarshal(data, &keys); err != nil {
		t.Fatal(err)
	}
	if _, ok := keys["base"]; ok {
		t.Errorf("the run's %s names a base:\n%s", rundir.ConfigFile, data)
	}
	noPresets := func(name string) ([]byte, error) { return nil, errors.New("no presets here") }
	recorded, err := parseConfig(data, noPresets)
	if err != nil {
		t.Fatalf("the run's %s needs a preset: %v", rundir.ConfigFile, err)
	}
	sameConfig(t, "recorded", recorded, cfg)
	resumed, err := ResumeRun(dir, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer resumed.Close()
	sameConfig(t, "resumed", resumed.Config, cfg)
}

// TestBlocksAblationConfig: the depth ablation's config is overnight with
// 4 residual blocks and nothing else changed, rated every 10th generation
// as overnight was when the ablation ran.
func TestBlocksAblationConfig(t *testing.T) {
	want := preset(t, "overnight")
	want.Name = "overnight-blocks4"
	want.Network.Blocks = 4
	want.Rating.Every = 10
	sameConfig(t, want.Name, preset(t, "../docs/experiments/configs/overnight-blocks4.yaml"), want)
}

// TestMovesLeftControlConfig: Stage B's moves-left control is overnight
// without ratings. Its arm (overnight-movesleft.yaml) needs the moves-left
// keys, which left the code when the arm came out level; it runs at commit
// ed1c59a (docs/experiments/2026-12-learning.md). The same control served
// the defence arm (overnight-defence.yaml), whose key left when it lost;
// that arm runs at 3f0b3ed.
func TestMovesLeftControlConfig(t *testing.T) {
	control := preset(t, "overnight")
	control.Name = "overnight-movesleft-control"
	control.Rating.Every = 0
	sameConfig(t, control.Name, preset(t, "../docs/experiments/configs/overnight-movesleft-control.yaml"), control)
}

// maxConfigKeys bounds the settings of a training config (issue 69: the
// settings that lost or came out level leave, and new ones must earn
// their place): 62 since selfplay.reanalyse and endgame_tables left
// (docs/experiments/2026-12-learning.md, Stage B); selfplay.defence_sims
// was on trial there and left when its arm lost; 63 since
// train.rate_drops won its arm (technique 8). selfplay.attack_full was on
// trial (technique 10) and left when its arm did not win; 64 since
// selfplay.plain_races won its arm (technique 11). selfplay.race_defence
// was on trial (technique 12) and left when its arm did not win; 65 with
// selfplay.race_guard on trial (technique 13), which leaves if its arm
// does not win.
const maxConfigKeys = 65

// TestConfigKeys: a training config has at most maxConfigKeys settings,
// counted as the leaf keys of its YAML (configKeys), and none of them is
// a retired key.
func TestConfigKeys(t *testing.T) {
	keys := configKeys(reflect.TypeFor[Config](), "")
	if len(keys) > maxConfigKeys {
		t.Errorf("%d settings, more than %d: %v", len(keys), maxConfigKeys, keys)
	}
	for _, k := range retiredKeys {
		if slices.Contains(keys, k.path) {
			t.Errorf("%s is retired, yet a setting", k.path)
		}
	}
	if !slices.Contains(keys, "selfplay.policy_surprise") || !slices.Contains(keys, "snapshots") || slices.Contains(keys, "notes") {
		t.Errorf("the keys counted: %v", keys)
	}
	t.Logf("%d settings", len(keys))
}

// TestWarmWindow: a run from scratch trains every step on its own window;
// a warm start keeps its history's window and trains the share of it its
// buffer holds, all the steps once the buffer fills it.
func TestWarmWindow(t *testing.T) {
	tc := TrainerConfig{WindowMin: 20000, WindowMax: 1000000, WindowExponent: 0.75}
	lineage := tc.WindowSize(1_000_000 + 50_000) // about 390,000
	for _, c := range []struct {
		name             string
		inherited, total int64
		held             int
		window           int
		share            float64
	}{
		{"scratch, first generation", 0, 6000, 6000, 20000, 1},
		{"scratch, later", 0, 500_000, 200_000, tc.WindowSize(500_000), 1},
		{"warm start, first generation", 1_000_000, 6000, 6000, tc.WindowSize(1_006_000), 6000 / float64(tc.WindowSize(1_006_000))},
		{"warm start, filling", 1_000_000, 50_000, 50_000, lineage, 50_000 / float64(lineage)},
		{"warm start, full", 1_000_000, 600_000, 600_000, tc.WindowSize(1_600_000), 1},
	} {
		window, share := tc.WarmWindow(c.inherited, c.total, c.held)
		if window != c.window || math.Abs(share-c.share) > 1e-12 {
			t.Errorf("%s: window %d, share %g; want %d, %g", c.name, window, share, c.window, c.share)
		}
	}
	if lineage < 300_000 || lineage > 450_000 {
		t.Errorf("the window after 1,050,000 samples is %d, not about 390,000", lineage)
	}
}

// TestRateAt: the rate is learning_rate until the history reaches the
// first drop, then each drop's rate from its samples on.
func TestRateAt(t *testing.T) {
	tc := TrainerConfig{LearningRate: 0.002, RateDrops: []RateDrop{{1_000_000, 0.0005}, {3_000_000, 0.000125}}}
	for _, c := range []struct {
		history int64
		want    float64
	}{
		{0, 0.002}, {999_999, 0.002}, {1_000_000, 0.0005}, {2_999_999, 0.0005}, {3_000_000, 0.000125}, {1 << 40, 0.000125},
	} {
		if got := tc.RateAt(c.history); got != c.want {
			t.Errorf("RateAt(%d) = %g, want %g", c.history, got, c.want)
		}
	}
	if got := (&TrainerConfig{LearningRate: 0.002}).RateAt(1 << 40); got != 0.002 {
		t.Errorf("no drops: RateAt = %g, want the learning rate", got)
	}
}
