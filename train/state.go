package train

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/train/rundir"
	"github.com/dablot-zero/dablot/train/samples"
)

// The formats of state.json.
const (
	// stateFormat is written: the state carries its own checksum, the
	// run's identity and the checksum of every shard it names.
	stateFormat = 2
	// legacyStateFormat is read: a state from before checksums. Such a run
	// resumes after every cross-check of its files, and its next
	// checkpoint is written in stateFormat.
	legacyStateFormat = 1
)

// newRunID returns a new run identity: random, so that no two runs share
// one, even runs of the same preset and seed.
func newRunID() string { return rand.Text() }

// checksum returns the state's checksum (see runState.Checksum).
func (st runState) checksum() (string, error) {
	st.Checksum = ""
	data, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// check verifies that the state of the run in dir is one a run can write:
// counters in range, the trainer checkpoint of its generation, and shard
// names inside the run's shard directory whose samples add up to its total.
func (st *runState) check(dir string) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s", filepath.Join(dir, rundir.StateFile), fmt.Sprintf(format, args...))
	}
	g := st.Generation
	switch {
	case g < 0:
		return bad("generation %d is negative", g)
	case st.Best < 0 || st.Best > g:
		return bad("best = %d is not a generation of the run (0 to %d)", st.Best, g)
	case st.Promotions < 0 || st.Promotions > g:
		return bad("promotions = %d is not between 0 and the %d generations", st.Promotions, g)
	case st.Rated < -1 || st.Rated > g:
		return bad("rated = %d is neither -1 nor a generation of the run (0 to %d)", st.Rated, g)
	case st.Games < 0 || st.TrainSteps < 0 || st.InitSamples < 0:
		return bad("games = %d, train_steps = %d, init_samples = %d: none may be negative", st.Games, st.TrainSteps, st.InitSamples)
	case !(st.Hours >= 0) || math.IsInf(st.Hours, 0):
		return bad("hours = %v is not a number of hours", st.Hours)
	case st.Trainer != trainerName(g):
		return bad("trainer %q is not the trainer checkpoint of generation %d (%s)", st.Trainer, g, trainerName(g))
	}
	total := st.InitSamples
	for _, ref := range st.Shards {
		sg, _, ok := parseShardName(ref.Name)
		if !ok {
			return bad("shard %q is not the name of a shard file in %s (gen-NNNNNN-WORKER…%s)", ref.Name, filepath.Join(dir, rundir.ShardDir), rundir.ShardExt)
		}
		if sg > g {
			return bad("shard %s is of generation %d, after the checkpoint's generation %d", ref.Name, sg, g)
		}
		if ref.Count < 0 {
			return bad("shard %s has %d samples", ref.Name, ref.Count)
		}
		total += int64(ref.Count)
	}
	if total != st.Samples {
		return bad("samples = %d, but init_samples and the shards it names add up to %d", st.Samples, total)
	}
	return nil
}

// checkStop refuses a state of the run in dir that has gone past the stop
// of cfg: a run stops at its stop, so only a run that finished there may be
// beyond it (one whose stop was later shortened, as earlier versions
// allowed).
func (st *runState) checkStop(dir string, cfg *Config) error {
	if n := cfg.Stop.Generations; n > 0 && st.Generation > n && !st.Finished {
		return fmt.Errorf("%s is at generation %d, past the run's stop (stop.generations = %d in %s), yet the run is not finished: one of the two files was changed",
			filepath.Join(dir, rundir.StateFile), st.Generation, n, filepath.Join(dir, rundir.ConfigFile))
	}
	return nil
}

// trainerName is the file name, in rundir.CheckDir, of the trainer checkpoint of
// generation g.
func trainerName(g int) string { return fmt.Sprintf("trainer-%06d.ckpt", g) }

// Metadata keys of a trainer checkpoint of a run.
const (
	ckptGeneration = "generation"
	ckptRun        = "run"
	ckptSteps      = "train_steps"
	ckptSamples    = "samples"
)

// trainerMeta is the metadata the trainer checkpoint of state st records.
func (st *runState) trainerMeta() map[string]string {
	return map[string]string{ckptGeneration: strconv.Itoa(st.Generation), ckptRun: st.Run,
		ckptSteps: strconv.Itoa(st.TrainSteps), ckptSamples: strconv.FormatInt(st.Samples, 10)}
}

// checkTrainer verifies that the metadata meta of the trainer checkpoint
// at path is that of state st: its generation and run (an empty run is
// that of a run from before run identities), and its training steps and
// samples, which checkpoints from before them do not record.
func (st *runState) checkTrainer(path string, meta map[string]string) error {
	want := st.trainerMeta()
	for _, k := range slices.Sorted(maps.Keys(want)) {
		got, ok := meta[k]
		if got != want[k] && (ok || k == ckptGeneration || k == ckptRun) {
			return fmt.Errorf("%s records %s %q, %s says %q: a trainer checkpoint of another run or generation is in its place", path, k, got, rundir.StateFile, want[k])
		}
	}
	return nil
}

// checkModel verifies that the model m read from path is the run's
// network of generation g.
func (st *runState) checkModel(path string, m *model.Model, g int) error {
	switch {
	case m.Training.RunID != st.Run:
		return fmt.Errorf("%s is a network of another run (run %q, this run is %q)", path, m.Training.RunID, st.Run)
	case m.Training.Generation != g:
		return fmt.Errorf("%s is the network of generation %d, not %d", path, m.Training.Generation, g)
	}
	return nil
}

// shardNameRE matches the names shardName gives: generation, then "main"
// or, in old runs, "reanalyse" (the trainer's: trainerWorkers) or a
// worker's name and sequence number.
var shardNameRE = regexp.MustCompile(`^gen-([0-9]{6,9})-(?:(main|reanalyse)|([A-Za-z0-9_.]+)-[0-9]{6,9})\.samples\.zst$`)

// parseShardName reads the generation and worker of a shard's file name
// as shardName writes it.
func parseShardName(name string) (gen int, worker string, ok bool) {
	m := shardNameRE.FindStringSubmatch(name)
	if m == nil {
		return 0, "", false
	}
	gen, _ = strconv.Atoi(m[1])
	return gen, m[2] + m[3], true
}

// checkShard verifies that a shard named name with header h is one the
// run wrote under that name: its own run, the worker of its name, and
// games of the model its name says (the trainer's shards of generation g
// hold searches of an earlier generation's model; another worker's shard
// is named by the generation of the model that played).
func (st *runState) checkShard(name string, h samples.Header) error {
	gen, worker, ok := parseShardName(name)
	switch {
	case !ok:
		return fmt.Errorf("not a shard name of a run (gen-NNNNNN-WORKER…%s)", rundir.ShardExt)
	case h.Run != st.Run:
		return fmt.Errorf("from another run (run %q, this run is %q)", h.Run, st.Run)
	case h.Worker != worker:
		return fmt.Errorf("written by worker %q, not by %q as its name says: it was renamed", h.Worker, worker)
	case trainerWorker(worker) && h.Generation >= gen, !trainerWorker(worker) && h.Generation != gen:
		return fmt.Errorf("holds games of generation %d's network, which its name rules out: it was renamed", h.Generation)
	}
	return nil
}

// checkWithRules checks what of cfg depends on the rules: by making every
// player of the rating anchors once, that no anchor's model file is
// missing or plays other rules. So these are errors when a run starts or
// resumes, not a generation later.
func checkWithRules(cfg *Config, rules *game.Rules) error {
	for _, spec := range cfg.Rating.Anchors {
		f, err := mcts.ParseFactory(spec, model.SpecOptions(rules, 1))
		if err != nil {
			return fmt.Errorf("rating.anchors: %w", err)
		}
		f.Close()
	}
	return nil
}
