package train

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/train/rundir"
	"github.com/dablot-zero/dablot/train/runlog"
)

// TestSnapshots: a run keeps, for each snapshot it reaches, the best
// network of the first generation at or past its CPU hours, and only
// those; a snapshot is never rewritten, and one a kill left unwritten is
// written from the records.
func TestSnapshots(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snap")
	cfg := testConfig(t, 3)
	cfg.Snapshots = []float64{1e-12} // reached by the first generation
	trainRun(t, cfg, dir)
	gens, err := runlog.ReadGenerations(filepath.Join(dir, runlog.MetricsFile))
	if err != nil || len(gens) != 3 {
		t.Fatalf("metrics: %d generations, %v", len(gens), err)
	}
	model := func(g int) []byte {
		data, err := os.ReadFile(filepath.Join(dir, rundir.ModelDir, modelName(g)))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	snap := func(h float64) string {
		return filepath.Join(dir, rundir.SnapshotDir, rundir.SnapshotName("frostviken", h))
	}
	if data, err := os.ReadFile(snap(1e-12)); err != nil || !bytes.Equal(data, model(gens[0].Best)) {
		t.Fatalf("the snapshot of the first generation: %v (same as generation %d's best: %v)", err, gens[0].Best, err == nil && bytes.Equal(data, model(gens[0].Best)))
	}

	r, err := ResumeRun(dir, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	mid := (gens[1].CPUHours + gens[2].CPUHours) / 2
	r.Config.Snapshots = []float64{gens[0].CPUHours, mid, 10 * gens[2].CPUHours}
	os.WriteFile(snap(gens[0].CPUHours), []byte("kept"), 0o644) // never rewritten
	if err := r.keepSnapshots(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(snap(gens[0].CPUHours)); string(data) != "kept" {
		t.Errorf("an existing snapshot was rewritten")
	}
	if data, err := os.ReadFile(snap(mid)); err != nil || !bytes.Equal(data, model(gens[2].Best)) {
		t.Errorf("the snapshot between generations 2 and 3 is not generation 3's best: %v", err)
	}
	if _, err := os.Stat(snap(10 * gens[2].CPUHours)); !os.IsNotExist(err) {
		t.Errorf("a snapshot not reached was written: %v", err)
	}
	os.Remove(snap(mid)) // as if killed after the checkpoint
	if err := r.Train(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(snap(mid)); err != nil || !bytes.Equal(data, model(gens[2].Best)) {
		t.Errorf("a resumed run did not write the missing snapshot: %v", err)
	}
}

// TestSnapshotsConfig: snapshots must increase, each a finite number above
// 0, and overnight keeps the curve's five.
func TestSnapshotsConfig(t *testing.T) {
	for _, bad := range [][]float64{{0}, {2, 1}, {1, 1}, {-1}} {
		cfg := testConfig(t, 1)
		cfg.Snapshots = bad
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "snapshots") {
			t.Errorf("snapshots %v: %v", bad, err)
		}
	}
	if got := preset(t, "overnight").Snapshots; len(got) != 5 || got[0] != 1 || got[4] != 16 {
		t.Errorf("overnight's snapshots: %v", got)
	}
}
