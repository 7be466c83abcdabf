package train

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/dablot-zero/dablot/internal/durable"
	"github.com/dablot-zero/dablot/train/rundir"
	"github.com/dablot-zero/dablot/train/runlog"
)

// keepSnapshots writes each snapshot of the config that the run has
// reached and does not yet have: a copy of the best network at the end of
// the first generation whose CPU hours (metrics.jsonl) reach the
// snapshot's. It is derived from the records alone, so a run killed
// between its checkpoint and a snapshot writes the same file when it
// resumes. A snapshot file is never rewritten.
func (r *Run) keepSnapshots() error {
	if len(r.Config.Snapshots) == 0 {
		return nil
	}
	gens, err := runlog.ReadGenerations(filepath.Join(r.Dir, runlog.MetricsFile))
	if err != nil {
		return err
	}
	for _, h := range r.Config.Snapshots {
		i := firstAt(gens, h)
		if i < 0 {
			return nil // not reached, nor the later ones
		}
		path := filepath.Join(r.Dir, rundir.SnapshotDir, rundir.SnapshotName(r.Rules.Name, h))
		if _, err := os.Stat(path); err == nil {
			continue
		} else if !os.IsNotExist(err) {
			return err
		}
		g := gens[i]
		data, err := os.ReadFile(filepath.Join(r.Dir, rundir.ModelDir, modelName(g.Best)))
		if err != nil {
			return fmt.Errorf("snapshot at %g CPU hours: %w", h, err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := durable.WriteFile(path, data); err != nil {
			return err
		}
		r.printf("snapshot at %g CPU hours: %s (generation %d's best, generation %d, %.2f CPU hours)\n",
			h, path, g.Best, g.Generation, g.CPUHours)
	}
	return nil
}

// firstAt returns the index of the first generation record at or past h
// CPU hours, or -1.
func firstAt(gens []runlog.Generation, h float64) int {
	for i, g := range gens {
		if g.CPUHours >= h {
			return i
		}
	}
	return -1
}
