package train

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/dablot-zero/dablot/internal/durable"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/train/rundir"
	"github.com/dablot-zero/dablot/train/samples"
)

// WorkerOptions set up a self-play process working for a run.
type WorkerOptions struct {
	// Name identifies the worker in its shard names; it must be unique
	// among the run's workers (such as a host name and a number).
	Name string
	// Games per shard (0: the run's selfplay.games).
	Games int
	// Shards to write before returning (0: until the run finishes or ctx
	// is cancelled).
	Shards int
	// Out receives a line per shard.
	Out io.Writer
}

var workerNameRE = regexp.MustCompile(`^[A-Za-z0-9_.]+$`)

// SelfPlayWorker plays self-play games for the run in dir with its current
// best model, as an extra process beside the trainer (on this machine or
// another that mounts the directory). It meets the trainer only through the
// directory: it reads best.dbm (published by atomic rename) and writes
// complete shards under new names, which the trainer takes in at its next
// generation.
func SelfPlayWorker(ctx context.Context, dir string, opts WorkerOptions) error {
	if !workerNameRE.MatchString(opts.Name) || trainerWorker(opts.Name) {
		return fmt.Errorf("worker name %q: use letters, digits, '_' and '.', and not %q or %q", opts.Name, mainWorker, reanalyseWorker)
	}
	if _, err := readState(dir); err != nil {
		return err
	}
	cfg, err := LoadConfig(filepath.Join(dir, rundir.ConfigFile))
	if err != nil {
		return err
	}
	rules, err := rundir.ReadRules(dir)
	if err != nil {
		return err
	}
	games := opts.Games
	if games <= 0 {
		games = cfg.SelfPlay.Games
	}
	h := fnv.New64a()
	h.Write([]byte(opts.Name))
	workerSeed := mcts.Mix(cfg.Seed, h.Sum64())
	seq, err := nextShardSeq(filepath.Join(dir, rundir.ShardDir), opts.Name)
	if err != nil {
		return err
	}
	for written := 0; opts.Shards == 0 || written < opts.Shards; written++ {
		st, err := readState(dir)
		if err != nil {
			return err
		}
		if st.Finished {
			logf(opts.Out, "worker %s: the run is finished\n", opts.Name)
			return nil
		}
		best, err := model.LoadModel(filepath.Join(dir, rundir.BestFile))
		if err != nil {
			return err
		}
		if err := best.CheckRules(rules); err != nil {
			return err
		}
		gen := best.Training.Generation
		began := time.Now()
		played, err := SelfPlay(ctx, best, cfg.SelfPlay, mcts.Mix(workerSeed, uint64(seq)), 0, games, nil)
		if err != nil {
			return err
		}
		var all []samples.Sample
		full := 0
		for _, g := range played {
			all = append(all, g.Samples...)
			full += g.FullSearches
		}
		name := shardName(gen, opts.Name, seq)
		hdr := samples.Header{Generation: gen, Model: best.Metadata[net.MetaChecksum], Worker: opts.Name, Games: len(played), Run: st.Run}
		if err := samples.Write(filepath.Join(dir, rundir.ShardDir, name), rules, hdr, all); err != nil {
			return err
		}
		logf(opts.Out, "worker %s: %s: %d games, %d samples (%d full searches) with generation %d in %.0f s\n",
			opts.Name, name, len(played), len(all), full, gen, time.Since(began).Seconds())
		seq++
	}
	return nil
}

// nextShardSeq returns the first shard number the worker has not used.
func nextShardSeq(dir, worker string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	next := 0
	for _, e := range entries {
		n := strings.TrimSuffix(e.Name(), rundir.ShardExt)
		if n == e.Name() || strings.HasPrefix(n, ".") {
			continue
		}
		i := strings.LastIndexByte(n, '-')
		if i < 0 || !strings.HasSuffix(n[:i], "-"+worker) {
			continue
		}
		var seq int
		if _, err := fmt.Sscanf(n[i+1:], "%d", &seq); err == nil && seq >= next {
			next = seq + 1
		}
	}
	return next, nil
}

// maxStateBytes bounds a run's state file; it takes a few hundred bytes
// and a line per shard taken in.
const maxStateBytes = 16 << 20

// readState reads the state file of the run in dir and verifies its
// checksum (a legacy state has none).
func readState(dir string) (runState, error) {
	var st runState
	path := filepath.Join(dir, rundir.StateFile)
	data, err := durable.ReadFile(path, "run state file", maxStateBytes)
	if err != nil {
		return st, fmt.Errorf("%s is not a run directory: %w", dir, err)
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return st, fmt.Errorf("%s: %v", path, err)
	}
	switch st.Format {
	case stateFormat:
		sum, err := st.checksum()
		if err != nil {
			return st, fmt.Errorf("%s: %v", path, err)
		}
		if st.Checksum != sum {
			return st, fmt.Errorf("%s: checksum mismatch: the file was damaged or edited after the run wrote it (it records checksum %q, its content has %s)", path, st.Checksum, sum)
		}
	case legacyStateFormat:
		if st.Checksum != "" || st.Run != "" {
			return st, fmt.Errorf("%s: format %d has no checksum or run identity, yet the file has them: it was edited by hand", path, st.Format)
		}
	default:
		return st, fmt.Errorf("%s has format %d, this program reads %d (and %d)", path, st.Format, stateFormat, legacyStateFormat)
	}
	return st, nil
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}
