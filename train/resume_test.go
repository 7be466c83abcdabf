package train

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/durable"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/net/trainer"
	"github.com/dablot-zero/dablot/train/rundir"
	"github.com/dablot-zero/dablot/train/runlog"
	"github.com/dablot-zero/dablot/train/samples"
)

// fixture is a run of the smoke preset made once for the tests of this
// file (see smokeRun), removed by TestMain.
var fixture struct {
	once sync.Once
	root string // the run is root/run; root also holds trainer-000001.ckpt
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	os.RemoveAll(fixture.root) // nothing when no test made it
	os.Exit(code)
}

// smokeRun returns a copy, in a directory of the test's own, of a run of
// the smoke preset (stop raised to 8 generations) left as a SIGKILL during
// its third generation leaves it: the checkpoint of generation 2, with a
// shard of an external worker taken in, and after it generation 3's model,
// games, main shard, trainer checkpoint, log lines and a temporary file.
// It also returns the trainer checkpoint of generation 1, from before the
// checkpoint of generation 2 replaced it.
func smokeRun(t *testing.T) (dir, ckpt1 string) {
	t.Helper()
	fixture.once.Do(func() { fixture.err = makeSmokeRun() })
	if fixture.err != nil {
		t.Fatal(fixture.err)
	}
	dir = filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(fixture.root, "run"))); err != nil {
		t.Fatal(err)
	}
	return dir, filepath.Join(fixture.root, trainerName(1))
}

// fixtureRules are the smoke run's: keyland's, with a limit of 200 plies.
// Its games of a tiny network run to keyland's 1000-ply limit; at 200 the
// fixture takes a fifth of the time and tests the same.
func fixtureRules() *game.Rules {
	rules := *configs.MustVariant("keyland")
	rules.MaxPlies = 200
	return &rules
}

func makeSmokeRun() (err error) {
	if fixture.root, err = os.MkdirTemp("", "dablot-resume-test-"); err != nil {
		return err
	}
	cfg, err := LoadConfig("../configs/train/smoke.yaml")
	if err != nil {
		return err
	}
	cfg.Stop = StopConfig{Generations: 8}
	dir := filepath.Join(fixture.root, "run")
	r, err := CreateRun(dir, cfg, fixtureRules(), "", RunOptions{})
	if err != nil {
		return err
	}
	defer r.Close()
	ctx := context.Background()
	if err := r.generation(ctx); err != nil {
		return err
	}
	if err := os.CopyFS(fixture.root, os.DirFS(filepath.Join(dir, rundir.CheckDir))); err != nil {
		return err
	}
	if err := SelfPlayWorker(ctx, dir, WorkerOptions{Name: "w1", Games: 2, Shards: 1}); err != nil {
		return err
	}
	if err := r.generation(ctx); err != nil {
		return err
	}
	// What generation 3 had written when it was killed.
	for _, c := range []struct{ sub, from, to string }{
		{rundir.ModelDir, modelName(2), modelName(3)},
		{rundir.GamesDir, "gen-000002.pgn", "gen-000003.pgn"},
		{rundir.ShardDir, shardName(2, mainWorker, 0), shardName(3, mainWorker, 0)},
		{rundir.ShardDir, shardName(2, mainWorker, 0), shardName(3, reanalyseWorker, 0)},
		{rundir.CheckDir, trainerName(2), trainerName(3)},
	} {
		data, err := os.ReadFile(filepath.Join(dir, c.sub, c.from))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, c.sub, c.to), data, 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, rundir.ShardDir, ".gen-000003-w1-000001.samples.zst.tmp42"), []byte("half a shard"), 0o600); err != nil {
		return err
	}
	if err := runlog.Append(filepath.Join(dir, runlog.MetricsFile), runlog.Generation{Generation: 3}); err != nil {
		return err
	}
	return runlog.Append(filepath.Join(dir, runlog.RatingsFile), runlog.Match{Generation: 3, Player: "gen3", Opponent: "random"})
}

// snapshot returns the path, mode, size and SHA-256 of every file under
// dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[rel] = fmt.Sprintf("%v %d %x", info.Mode(), len(data), sha256.Sum256(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sameSnapshot reports the differences between two snapshots.
func sameSnapshot(t *testing.T, before, after map[string]string) {
	t.Helper()
	for path, was := range before {
		if now, ok := after[path]; !ok {
			t.Errorf("%s was removed", path)
		} else if now != was {
			t.Errorf("%s was changed: %s → %s", path, was, now)
		}
	}
	for path := range after {
		if _, ok := before[path]; !ok {
			t.Errorf("%s was created", path)
		}
	}
}

// signState rewrites the state of the run in dir as edit changes it, with
// a valid checksum: a state the run could have written, as far as its
// checksum tells.
func signState(t *testing.T, dir string, edit func(*runState)) {
	t.Helper()
	st, err := readState(dir)
	if err != nil {
		t.Fatal(err)
	}
	edit(&st)
	if err := (&Run{Dir: dir, state: st}).writeState(); err != nil {
		t.Fatal(err)
	}
}

// editConfig rewrites the config file of the run in dir as edit changes it.
func editConfig(t *testing.T, dir string, edit func(*Config)) {
	t.Helper()
	cfg, err := LoadConfig(filepath.Join(dir, rundir.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	edit(cfg)
	if err := durable.WriteFile(filepath.Join(dir, rundir.ConfigFile), cfg.YAML()); err != nil {
		t.Fatal(err)
	}
}

// replaceFile writes the file src over the file dst.
func replaceFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// rewriteShard rewrites the shard at path (of keyland, the smoke preset's
// variant) as edit changes its header and samples.
func rewriteShard(t *testing.T, path string, edit func(*samples.Header, []samples.Sample)) {
	t.Helper()
	rules := fixtureRules()
	h, ss, err := samples.Read(path, rules)
	if err != nil {
		t.Fatal(err)
	}
	edit(&h, ss)
	if err := samples.Write(path, rules, h, ss); err != nil {
		t.Fatal(err)
	}
}

// rewriteTrainer rewrites the trainer checkpoint of the run in dir with
// the metadata meta makes of its own.
func rewriteTrainer(t *testing.T, dir string, meta func(map[string]string) map[string]string) {
	t.Helper()
	st, err := readState(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.LoadModel(filepath.Join(dir, rundir.ModelDir, modelName(0)))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(filepath.Join(dir, rundir.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, rundir.CheckDir, st.Trainer)
	tr, old, err := trainer.LoadTrainer(path, m.Topology, cfg.TrainConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if err := tr.SaveCheckpoint(path, meta(old)); err != nil {
		t.Fatal(err)
	}
}

// flipByte changes a byte in the middle of the file at path.
func flipByte(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x20
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestResumeRefusesBeforeItTouches resumes damaged, edited and mixed-up
// copies of a killed smoke run: every resume must fail with an error naming
// the problem and leave every file of the run as it was (the resume used
// to delete generations, shards and checkpoints before it found the
// problem; with generation -7 it removed everything).
func TestResumeRefusesBeforeItTouches(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two generations of the smoke preset")
	}
	shard := func(dir string, g int) string {
		return filepath.Join(dir, rundir.ShardDir, shardName(g, mainWorker, 0))
	}
	for _, tc := range []struct {
		name string
		edit func(t *testing.T, dir, ckpt1 string)
		want string
	}{
		// The state itself.
		{"generation lowered by hand", func(t *testing.T, dir, _ string) {
			path := filepath.Join(dir, rundir.StateFile)
			data, _ := os.ReadFile(path)
			if !strings.Contains(string(data), `"generation": 2,`) {
				t.Fatalf("no generation 2 in\n%s", data)
			}
			os.WriteFile(path, []byte(strings.Replace(string(data), `"generation": 2,`, `"generation": 1,`, 1)), 0o644)
		}, "checksum mismatch"},
		{"generation -7 by hand", func(t *testing.T, dir, _ string) {
			path := filepath.Join(dir, rundir.StateFile)
			data, _ := os.ReadFile(path)
			os.WriteFile(path, []byte(strings.Replace(string(data), `"generation": 2,`, `"generation": -7,`, 1)), 0o644)
		}, "checksum mismatch"},
		{"state.json truncated", func(t *testing.T, dir, _ string) {
			path := filepath.Join(dir, rundir.StateFile)
			data, _ := os.ReadFile(path)
			os.WriteFile(path, data[:len(data)/2], 0o644)
		}, "state.json: unexpected end of JSON input"},
		{"negative generation", func(t *testing.T, dir, _ string) {
			signState(t, dir, func(st *runState) { st.Generation = -7 })
		}, "generation -7 is negative"},
		{"generation lowered", func(t *testing.T, dir, _ string) {
			signState(t, dir, func(st *runState) { st.Generation = 1 })
		}, "not a generation of the run"},
		{"generation lowered with the rest of the state", func(t *testing.T, dir, _ string) {
			signState(t, dir, func(st *runState) {
				st.Generation, st.Best, st.Promotions, st.Rated, st.Trainer = 1, min(st.Best, 1), min(st.Promotions, 1), min(st.Rated, 1), trainerName(1)
				st.Shards = slices.DeleteFunc(st.Shards, func(ref ShardRef) bool {
					g, _, _ := parseShardName(ref.Name)
					return g > 1
				})
				st.Samples = st.InitSamples
				for _, ref := range st.Shards {
					st.Samples += int64(ref.Count)
				}
			})
		}, "trainer-000001.ckpt: no such file"},
		{"generation past the stop", func(t *testing.T, dir, _ string) {
			editConfig(t, dir, func(cfg *Config) { cfg.Stop.Generations = 1 })
		}, "past the run's stop (stop.generations = 1"},
		{"trainer outside the run", func(t *testing.T, dir, _ string) {
			signState(t, dir, func(st *runState) { st.Trainer = "../../" + trainerName(2) })
		}, `trainer "../../trainer-000002.ckpt" is not the trainer checkpoint of generation 2`},
		{"absolute shard path", func(t *testing.T, dir, _ string) {
			signState(t, dir, func(st *runState) { st.Shards[0].Name = filepath.Join(dir, rundir.ShardDir, st.Shards[0].Name) })
		}, "is not the name of a shard file in "},
		{"shard path with ..", func(t *testing.T, dir, _ string) {
			signState(t, dir, func(st *runState) { st.Shards[0].Name = "../" + rundir.ShardDir + "/" + st.Shards[0].Name })
		}, "is not the name of a shard file in "},
		{"samples do not add up", func(t *testing.T, dir, _ string) {
			signState(t, dir, func(st *runState) { st.Samples++ })
		}, "the shards it names add up to"},

		// The files it names.
		{"best model missing", func(t *testing.T, dir, _ string) {
			st, _ := readState(dir)
			os.Remove(filepath.Join(dir, rundir.ModelDir, modelName(st.Best)))
		}, "no such file"},
		{"trainer checkpoint missing", func(t *testing.T, dir, _ string) {
			os.Remove(filepath.Join(dir, rundir.CheckDir, trainerName(2)))
		}, "trainer-000002.ckpt: no such file"},
		{"shard missing", func(t *testing.T, dir, _ string) {
			os.Remove(shard(dir, 1))
		}, "gen-000001-main.samples.zst: no such file"},
		{"trainer checkpoint damaged", func(t *testing.T, dir, _ string) {
			flipByte(t, filepath.Join(dir, rundir.CheckDir, trainerName(2)))
		}, "trainer-000002.ckpt"},
		{"shard damaged", func(t *testing.T, dir, _ string) {
			flipByte(t, shard(dir, 2))
		}, "gen-000002-main.samples.zst"},
		{"metrics.jsonl damaged", func(t *testing.T, dir, _ string) {
			path := filepath.Join(dir, runlog.MetricsFile)
			data, _ := os.ReadFile(path)
			os.WriteFile(path, append([]byte("{not json\n"), data...), 0o644)
		}, "metrics.jsonl:1"},

		// The files against each other.
		{"two shards swapped", func(t *testing.T, dir, _ string) {
			a, b := shard(dir, 1), shard(dir, 2)
			tmp := a + ".x"
			os.Rename(a, tmp)
			os.Rename(b, a)
			os.Rename(tmp, b)
		}, "gen-000001-main.samples.zst holds"},
		{"shard of another run", func(t *testing.T, dir, _ string) {
			rewriteShard(t, shard(dir, 2), func(h *samples.Header, _ []samples.Sample) { h.Run = "ANOTHERRUN" })
		}, `gen-000002-main.samples.zst: from another run (run "ANOTHERRUN"`},
		{"shard rewritten with the same header", func(t *testing.T, dir, _ string) {
			rewriteShard(t, shard(dir, 2), func(_ *samples.Header, ss []samples.Sample) { ss[0].Value = -ss[0].Value })
		}, "is not the file the checkpoint took in"},
		{"trainer checkpoint of another generation", func(t *testing.T, dir, ckpt1 string) {
			replaceFile(t, ckpt1, filepath.Join(dir, rundir.CheckDir, trainerName(2)))
		}, `records generation "1", state.json says "2"`},
		{"trainer checkpoint of another run", func(t *testing.T, dir, _ string) {
			rewriteTrainer(t, dir, func(meta map[string]string) map[string]string {
				mine := map[string]string{ckptRun: "ANOTHERRUN"}
				for _, k := range []string{ckptGeneration, ckptSteps, ckptSamples} {
					mine[k] = meta[k]
				}
				return mine
			})
		}, `records run "ANOTHERRUN"`},
		{"best model of another generation", func(t *testing.T, dir, _ string) {
			st, _ := readState(dir)
			other := 1
			if st.Best == 1 {
				other = 2
			}
			replaceFile(t, filepath.Join(dir, rundir.ModelDir, modelName(other)), filepath.Join(dir, rundir.ModelDir, modelName(st.Best)))
		}, "is the network of generation"},

		// The players the config names.
		{"anchor model missing", func(t *testing.T, dir, _ string) {
			editConfig(t, dir, func(cfg *Config) { cfg.Rating.Anchors = append(cfg.Rating.Anchors, "gumbel:model=nosuch.dbm") })
		}, `config.yaml: rating.anchors: player "gumbel:model=nosuch.dbm": model=nosuch.dbm: model nosuch.dbm: stat nosuch.dbm: no such file`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, ckpt1 := smokeRun(t)
			tc.edit(t, dir, ckpt1)
			before := snapshot(t, dir)
			r, err := ResumeRun(dir, RunOptions{})
			if err == nil {
				r.Close()
				t.Fatalf("resumed; want an error with %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want one with %q", err, tc.want)
			}
			t.Log(err)
			sameSnapshot(t, before, snapshot(t, dir))
		})
	}
}

// TestResumeDiscardsAfterChecking resumes the killed smoke run as it is:
// it must resume at its checkpoint and only then remove what generation 3
// had begun.
func TestResumeDiscardsAfterChecking(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two generations of the smoke preset")
	}
	dir, _ := smokeRun(t)
	r, err := ResumeRun(dir, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Generation() != 2 {
		t.Fatalf("resumed at generation %d, want 2", r.Generation())
	}
	for _, gone := range []string{filepath.Join(rundir.ModelDir, modelName(3)), filepath.Join(rundir.GamesDir, "gen-000003.pgn"),
		filepath.Join(rundir.ShardDir, shardName(3, mainWorker, 0)), filepath.Join(rundir.ShardDir, shardName(3, reanalyseWorker, 0)),
		filepath.Join(rundir.CheckDir, trainerName(3)),
		filepath.Join(rundir.ShardDir, ".gen-000003-w1-000001.samples.zst.tmp42")} {
		if _, err := os.Stat(filepath.Join(dir, gone)); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", gone, err)
		}
	}
	if gens, err := runlog.ReadGenerations(filepath.Join(dir, runlog.MetricsFile)); err != nil || len(gens) != 2 {
		t.Errorf("metrics after the resume: %d generations, %v", len(gens), err)
	}
	var external bool
	for _, ref := range r.replay.Shards() {
		external = external || strings.Contains(ref.Name, "-w1-")
		if ref.SHA256 == "" {
			t.Errorf("shard %s without its checksum", ref.Name)
		}
	}
	if !external {
		t.Errorf("the worker's shard is not among those taken in: %v", r.replay.Shards())
	}
	// The stop cannot go below the generations done.
	if err := r.SetStop(StopConfig{Generations: 1}); err == nil || !strings.Contains(err.Error(), "stop.generations = 1 is below the 2 generations the run has done") {
		t.Errorf("a stop below the run's generation: %v", err)
	}
	if err := r.SetStop(StopConfig{Generations: 2}); err != nil {
		t.Errorf("a stop at the run's generation: %v", err)
	}
}

// TestResumeFinishedPastItsStop: a run that finished and whose stop was
// then shortened below its generations (as earlier versions allowed) is
// genuinely finished there, and resumes as such.
func TestResumeFinishedPastItsStop(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two generations of the smoke preset")
	}
	dir, _ := smokeRun(t)
	signState(t, dir, func(st *runState) { st.Finished = true })
	editConfig(t, dir, func(cfg *Config) { cfg.Stop.Generations = 1 })
	r, err := ResumeRun(dir, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.done() || r.Generation() != 2 {
		t.Errorf("generation %d, done %v", r.Generation(), r.done())
	}
}

// TestResumeLegacyState resumes a run written before state.json had a
// checksum and before runs had an identity: it resumes after every check
// of its files, and its next checkpoint is in the current format, with the
// checksums of its shards.
func TestResumeLegacyState(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two generations of the smoke preset")
	}
	dir, _ := smokeRun(t)
	st, err := readState(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The files of a run without an identity.
	for _, ref := range st.Shards {
		rewriteShard(t, filepath.Join(dir, rundir.ShardDir, ref.Name), func(h *samples.Header, _ []samples.Sample) { h.Run = "" })
	}
	path := filepath.Join(dir, rundir.ModelDir, modelName(st.Best))
	m, err := model.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	m.Training.RunID = ""
	if err := m.Save(path, nil); err != nil {
		t.Fatal(err)
	}
	rewriteTrainer(t, dir, func(map[string]string) map[string]string { return map[string]string{ckptGeneration: "2"} })
	// The state as the first version wrote it.
	st.Format, st.Run, st.Checksum = legacyStateFormat, "", ""
	for i := range st.Shards {
		st.Shards[i].SHA256 = ""
	}
	data, _ := json.MarshalIndent(st, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, rundir.StateFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "checksum") || strings.Contains(string(data), "sha256") {
		t.Fatalf("not a legacy state:\n%s", data)
	}

	r, err := ResumeRun(dir, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.checkpoint(); err != nil {
		t.Fatal(err)
	}
	st, err = readState(dir)
	if err != nil || st.Format != stateFormat || st.Checksum == "" || st.Run != "" {
		t.Fatalf("state after the checkpoint: format %d, checksum %q, run %q, %v", st.Format, st.Checksum, st.Run, err)
	}
	for _, ref := range st.Shards {
		if ref.SHA256 == "" {
			t.Errorf("shard %s without its checksum", ref.Name)
		}
	}
	r2, err := ResumeRun(dir, RunOptions{})
	if err != nil {
		t.Fatalf("resuming the upgraded state: %v", err)
	}
	r2.Close()
	// A legacy state cannot carry what came later (it would be an edit).
	data, _ = os.ReadFile(filepath.Join(dir, rundir.StateFile))
	os.WriteFile(filepath.Join(dir, rundir.StateFile), []byte(strings.Replace(string(data), `"format": 2`, `"format": 1`, 1)), 0o644)
	if _, err := readState(dir); err == nil || !strings.Contains(err.Error(), "edited by hand") {
		t.Errorf("a format 1 state with a checksum: %v", err)
	}
}

// TestResumeOldReanalysis: a run from before selfplay.reanalyse left
// (docs/experiments/2026-12-learning.md, Stage B), whose checkpoint took in
// a reanalysis shard of the trainer's and whose metrics count it, is
// refused while its config sets the setting, changing nothing; with the
// setting at 0 it resumes with a note and the shard in its replay buffer,
// and its old metrics still read.
func TestResumeOldReanalysis(t *testing.T) {
	if testing.Short() {
		t.Skip("trains three generations of the smoke preset")
	}
	dir, _ := smokeRun(t)
	rules := fixtureRules()
	h, ss, err := samples.Read(filepath.Join(dir, rundir.ShardDir, shardName(2, mainWorker, 0)), rules)
	if err != nil {
		t.Fatal(err)
	}
	h.Worker, ss = reanalyseWorker, ss[:min(20, len(ss))]
	name := shardName(2, reanalyseWorker, 0)
	path := filepath.Join(dir, rundir.ShardDir, name)
	if err := samples.Write(path, rules, h, ss); err != nil {
		t.Fatal(err)
	}
	sum, err := fileSHA256(path)
	if err != nil {
		t.Fatal(err)
	}
	ref := ShardRef{Name: name, Count: len(ss), SHA256: sum}
	var samplesTaken int64
	signState(t, dir, func(st *runState) {
		st.Shards = append(st.Shards, ref)
		st.Samples += int64(ref.Count)
		samplesTaken = st.Samples
	})
	rewriteTrainer(t, dir, func(meta map[string]string) map[string]string {
		mine := map[string]string{ckptSamples: strconv.FormatInt(samplesTaken, 10)}
		for _, k := range []string{ckptGeneration, ckptRun, ckptSteps} {
			mine[k] = meta[k]
		}
		return mine
	})
	metrics := filepath.Join(dir, runlog.MetricsFile)
	data, err := os.ReadFile(metrics)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.ReplaceAll(string(data), "{\"generation\"", "{\"reanalysed\":20,\"reanalysed_tables\":1,\"reanalysed_vetoed\":3,\"reanalyse_seconds\":2.5,\"generation\""))
	if err := os.WriteFile(metrics, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, rundir.ConfigFile)
	cfgData, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}

	if err := os.WriteFile(cfgPath, withKey(t, cfgData, "selfplay.reanalyse", "0.25"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	if r, err := ResumeRun(dir, RunOptions{}); err == nil || !strings.Contains(err.Error(), "selfplay.reanalyse: this setting left the program") {
		if err == nil {
			r.Close()
		}
		t.Fatalf("resumed with selfplay.reanalyse: 0.25: %v", err)
	}
	sameSnapshot(t, before, snapshot(t, dir))

	if err := os.WriteFile(cfgPath, withKey(t, cfgData, "selfplay.reanalyse", "0"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r, err := ResumeRun(dir, RunOptions{Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !strings.Contains(out.String(), "selfplay.reanalyse: 0 dropped") {
		t.Errorf("no note of the setting dropped in\n%s", out.String())
	}
	if r.Generation() != 2 || !slices.Contains(r.replay.Shards(), ref) {
		t.Fatalf("resumed at generation %d with shards %v, want 2 and %v", r.Generation(), r.replay.Shards(), ref)
	}
	if gens, err := runlog.ReadGenerations(metrics); err != nil || len(gens) != 2 {
		t.Errorf("metrics with the old fields: %d generations, %v", len(gens), err)
	}
}

// TestCreateRunChecksPlayers: a run whose anchors name a model that does
// not load is refused when it starts, and leaves no directory.
func TestCreateRunChecksPlayers(t *testing.T) {
	cfg, err := LoadConfig("../configs/train/smoke.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Rating.Anchors = []string{"random", "gumbel:model=nosuch.dbm"}
	dir := filepath.Join(t.TempDir(), "run")
	r, err := CreateRun(dir, cfg, configs.MustVariant("keyland"), "", RunOptions{})
	if err == nil {
		r.Close()
		t.Fatalf("a run with %v was created", cfg.Rating.Anchors)
	}
	if want := `rating.anchors: player "gumbel:model=nosuch.dbm": model=nosuch.dbm: model nosuch.dbm: stat nosuch.dbm: no such file`; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want one with %q", err, want)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the refused run left its directory (%v)", err)
	}
}
