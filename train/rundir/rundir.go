// Package rundir is the layout of a training run's directory: the names of
// its files and folders, and the reading of the rules a run plays. The
// records it keeps are package runlog's; the run itself is package train's.
// Readers of a run (dablot report) need only these two, not the pipeline.
package rundir

import (
	"fmt"
	"path/filepath"

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
