// Package rundir is the layout of a training run's directory: the names of
// its files and folders, and the reading of the rules a run plays. The
// records it keeps are package runlog's; the run itself is package train's.
// Readers of a run (dablot report) need only these two, not the pipeline.
package rundir

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/durable"
)

// The files of a run directory.
const (
	ConfigFile  = "config.yaml"  // the training config as used
	VariantFile = "variant.yaml" // the variant's full rules
	StateFile   = "state.json"   // the checkpoint: written last, atomically
	BestFile    = "best.dbm"     // the current best model, published by atomic rename
	ShardDir    = "shards"       // sample shards from every self-play process
	ModelDir    = "models"       // each generation's trained network
	GamesDir    = "games"        // self-play game records
	CheckDir    = "checkpoints"  // trainer checkpoints (weights and optimiser state)
	SnapshotDir = "snapshots"    // the best network at given CPU hours (the curve)
	LogFile     = "train.log"    // what dablot train printed, every session of the run appended
	ShardExt    = ".samples.zst"
)

// SelfPlayName is the player name of the network in the records of
// self-play games (GamesDir).
const SelfPlayName = "self-play"

// ReadRules reads the rules of the run in dir, from its VariantFile.
func ReadRules(dir string) (*game.Rules, error) {
	yml, err := durable.ReadFile(filepath.Join(dir, VariantFile), "variant file", game.MaxVariantBytes)
	if err != nil {
		return nil, err
	}
	rules, err := game.ParseVariant(yml, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", VariantFile, err)
	}
	return rules, nil
}

// SnapshotName is the file name, in SnapshotDir, of the snapshot of
// variant at h CPU hours, such as dablot-4h.dbm.
func SnapshotName(variant string, h float64) string {
	return variant + "-" + strconv.FormatFloat(h, 'g', -1, 64) + "h.dbm"
}

// ParseSnapshotName reads a name that SnapshotName wrote: the variant
// (which may hold hyphens, as daablot-17 does) and the CPU hours, a finite
// number above 0 (which may hold one too, as 1e-06 does: the hours are the
// longest such ending). It reports false for any other name.
func ParseSnapshotName(name string) (variant string, h float64, ok bool) {
	rest, found := strings.CutSuffix(name, "h.dbm")
	if !found {
		return "", 0, false
	}
	for i := range len(rest) {
		if rest[i] != '-' || i == 0 || rest[i-1] == '-' {
			continue
		}
		v := rest[:i]
		h, err := strconv.ParseFloat(rest[i+1:], 64)
		if err == nil && h > 0 && !math.IsInf(h, 0) && SnapshotName(v, h) == name {
			return v, h, true
		}
	}
	return "", 0, false
}
