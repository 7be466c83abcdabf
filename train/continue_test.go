package train

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/train/rundir"
)

// TestCheckSameRun: the run in a directory is continued by the same
// preset, variant and initial model, whatever the stop condition; anything
// else is refused with what differs, and no file is touched.
func TestCheckSameRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	cfg := testConfig(t, 3)
	rules := configs.MustVariant(cfg.Variant)
	r, err := CreateRun(dir, cfg, rules, "", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	before := snapshot(t, dir)

	same := testConfig(t, 5) // another stop condition only
	if err := CheckSameRun(dir, same, rules, ""); err != nil {
		t.Errorf("the same preset with another stop: %v", err)
	}
	games := testConfig(t, 3)
	games.SelfPlay.Games = 12
	anchors := testConfig(t, 3)
	anchors.Rating.Anchors = []string{"random", "greedy"}
	for _, tc := range []struct {
		name    string
		cfg     *Config
		variant string
		init    string
		want    string
	}{
		{"games", games, cfg.Variant, "", "holds a run of another preset (selfplay.games: 6, 12 in the run's config.yaml"},
		{"anchors", anchors, cfg.Variant, "", "rating.anchors: [random], [random greedy]"},
		{"rules", cfg, "keyland", "", "holds a run of other rules: frostviken"},
		{"overridden rules", cfg, "frostviken,max_plies=300", "", "holds a run of other rules: frostviken"},
		{"init", cfg, cfg.Variant, "models/frostviken.dbm", "started with no --init, not --init models/frostviken.dbm"},
	} {
		err := CheckSameRun(dir, tc.cfg, configs.MustVariant(tc.variant), tc.init)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	if err := CheckSameRun(t.TempDir(), cfg, rules, ""); err == nil || !strings.Contains(err.Error(), "not a run directory") {
		t.Errorf("an empty directory: %v", err)
	}
	if after := snapshot(t, dir); !maps.Equal(before, after) {
		t.Error("checking the run changed its files")
	}
}

// TestSetAside: a run is renamed with the time of its last checkpoint,
// every file kept; an empty or missing directory is left alone.
func TestSetAside(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "keyland-hour")
	for _, f := range []string{rundir.StateFile, "models/gen-000001.dbm"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshot(t, dir)
	fi, err := os.Stat(filepath.Join(dir, rundir.StateFile))
	if err != nil {
		t.Fatal(err)
	}
	want := dir + "-" + fi.ModTime().Format("20060102-150405")
	// That name is taken: the next one is used.
	if err := os.Mkdir(want, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := SetAside(dir)
	if err != nil || got != want+"-2" {
		t.Fatalf("SetAside = %q, %v; want %q", got, err, want+"-2")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s still exists: %v", dir, err)
	}
	if after := snapshot(t, got); !maps.Equal(before, after) {
		t.Errorf("the files set aside differ: %v, want %v", after, before)
	}
	if entries, _ := os.ReadDir(want); len(entries) != 0 {
		t.Errorf("%s, which was there before, was written to", want)
	}
	for _, d := range []string{dir, filepath.Join(root, "empty")} {
		if d != dir {
			os.Mkdir(d, 0o755)
		}
		if got, err := SetAside(d); got != "" || err != nil {
			t.Errorf("SetAside(%s) = %q, %v; want nothing done", d, got, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "empty")); err != nil {
		t.Errorf("the empty directory was moved: %v", err)
	}
}
