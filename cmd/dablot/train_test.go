package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/train"
	"github.com/dablot-zero/dablot/train/rundir"
	"github.com/dablot-zero/dablot/train/runlog"
)

// TestTrainChild is not a test: it runs "dablot" with the arguments in
// DABLOT_CHILD_ARGS, for tests that need a real process to signal.
func TestTrainChild(t *testing.T) {
	args := os.Getenv("DABLOT_CHILD_ARGS")
	if args == "" {
		t.Skip("child process only")
	}
	os.Exit(runMain(strings.Split(args, "\x1f"), os.Stdout, os.Stderr))
}

// TestTrainSmoke is the smoke preset end to end, as CI runs it, started
// as `make train PRESET=smoke` starts it (the command line make -n prints,
// with --generations 2 instead of the preset's 3, in a directory of its
// own, without the repository's configs): stopped with Ctrl-C after its first generation (it finishes the
// generation and checkpoints), the same command again continues the same
// run to its end; then the run is extended by one generation with --resume
// --generations 3, reported and exported, and make train FRESH=1 moves it
// aside for a new run. The loss must fall over the run.
func TestTrainSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("a few minutes of training")
	}
	root := t.TempDir() // holds no configs: the preset is the binary's own
	args := makeTrain(t, "PRESET=smoke")
	if want := "train --config smoke --variant dablot"; strings.Join(args, " ") != want {
		t.Fatalf("make train runs dablot %q, want dablot %s", args, want)
	}
	args = append(args, "--generations", "2")
	const rel = "runs/dablot-smoke" // the run's directory, relative to root
	dir := filepath.Join(root, rel)

	var out bytes.Buffer
	cmd := childCommand(root, args, &out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(10 * time.Minute)
	for {
		if _, err := os.Stat(filepath.Join(dir, rundir.GamesDir, "gen-000001.pgn")); err == nil {
			break // the first generation has played its games: interrupt it
		}
		select {
		case err := <-exited:
			t.Fatalf("dablot %q ended (%v) before generation 1 played its games in %s:\n%s", args, err, rel, out.String())
		case <-deadline:
			cmd.Process.Kill()
			<-exited
			t.Fatalf("no games of generation 1 in %s after 10 minutes:\n%s", rel, out.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := <-exited; err != nil {
		t.Fatalf("interrupted run: %v\n%s", err, out.String())
	}
	// The hint names the program as it was invoked.
	if want := "stopped after generation 1; continue with: " + os.Args[0] + " train --resume " + rel + "\n"; !strings.Contains(out.String(), want) {
		t.Fatalf("the interrupted run did not finish its generation and stop with %q:\n%s", want, out.String())
	}
	t.Logf("first part:\n%s", out.String())
	gen1, err := os.ReadFile(filepath.Join(dir, rundir.ModelDir, "gen-000001.dbm"))
	if err != nil {
		t.Fatal(err)
	}

	// The same command again continues the same run to its end.
	out.Reset()
	if err := childCommand(root, args, &out).Run(); err != nil {
		t.Fatalf("the same command again: %v\n%s", err, out.String())
	}
	for _, want := range []string{"continuing the run in " + rel, "1 generations done", "run finished: 2 generations"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("the same command again did not continue the run (no %q):\n%s", want, out.String())
		}
	}
	// The network's kernel is named when it is the slow one.
	if note := "note: matrix kernel gonum-blas32"; strings.Contains(out.String(), note) != (net.GemmImplementation() == "gonum-blas32") {
		t.Errorf("kernel %s, note %q printed: %v\n%s", net.GemmImplementation(), note, strings.Contains(out.String(), note), out.String())
	}
	if again, err := os.ReadFile(filepath.Join(dir, rundir.ModelDir, "gen-000001.dbm")); err != nil || !bytes.Equal(again, gen1) {
		t.Errorf("generation 1's model changed when the run was continued (%v)", err)
	}
	if runs, err := os.ReadDir(filepath.Join(root, "runs")); err != nil || len(runs) != 1 {
		t.Errorf("runs/ holds %v (%v), want the one run", runs, err)
	}

	// Extend the finished run.
	got, err := runCmd(t, "train", "--resume", dir, "--generations", "3")
	if err != nil || !strings.Contains(got, "2 generations done") || !strings.Contains(got, "run finished: 3 generations") {
		t.Fatalf("extending the run: %v\n%s", err, got)
	}
	if cfg, err := train.LoadConfig(filepath.Join(dir, rundir.ConfigFile)); err != nil || cfg.Stop != (train.StopConfig{Generations: 3}) {
		t.Fatalf("the run's config after --generations 3: %+v, %v", cfg.Stop, err)
	}
	gens, err := runlog.ReadGenerations(filepath.Join(dir, runlog.MetricsFile))
	if err != nil || len(gens) != 3 {
		t.Fatalf("metrics: %d generations, %v", len(gens), err)
	}
	first, last := gens[0], gens[len(gens)-1]
	if !(last.PolicyLoss+last.ValueLoss < first.PolicyLoss+first.ValueLoss) {
		t.Errorf("the loss did not fall: %.3f+%.3f → %.3f+%.3f", first.PolicyLoss, first.ValueLoss, last.PolicyLoss, last.ValueLoss)
	}
	if last.Utilisation <= 0 || last.Games != 48 {
		t.Errorf("last generation: %+v", last)
	}

	// A finished run resumes to nothing more.
	if got, err := runCmd(t, "train", "--resume", dir); err != nil || !strings.Contains(got, "run finished: 3 generations") {
		t.Errorf("resuming a finished run: %v\n%s", err, got)
	}
	// Report, export, info.
	if got, err := runCmd(t, "report", dir); err != nil || !strings.Contains(got, "rating.png") {
		t.Errorf("report: %v\n%s", err, got)
	}
	// The export is the best network: the last one promoted.
	if last.Best < 1 {
		t.Fatalf("no generation was promoted: %+v", last)
	}
	modelFile := filepath.Join(t.TempDir(), "smoke.dbm")
	best := gens[last.Best-1]
	if got, err := runCmd(t, "export", dir, "--out", modelFile); err != nil || !strings.Contains(got, fmt.Sprintf("generation %d,", last.Best)) {
		t.Errorf("export: %v\n%s", err, got)
	}
	m, err := model.LoadModel(modelFile)
	if err != nil {
		t.Fatal(err)
	}
	var table []map[string]any
	if err := json.Unmarshal([]byte(m.Metadata[model.MetaRatings]), &table); err != nil || len(table) < 2 {
		t.Errorf("exported ratings %q: %v", m.Metadata[model.MetaRatings], err)
	}
	if m.Training.Generation != last.Best || m.Training.Games != best.Games || m.Training.Hours <= 0 {
		t.Errorf("exported training summary %+v", m.Training)
	}

	// make train FRESH=1 moves the run aside and starts anew (here it ends at
	// once: --hours is a moment, though a fast machine may reach the first
	// check of it within the moment and train one generation).
	fargs := makeTrain(t, "PRESET=smoke", "FRESH=1")
	if !slices.Contains(fargs, "--fresh") {
		t.Fatalf("make train FRESH=1 runs dablot %q, without --fresh", fargs)
	}
	out.Reset()
	if err := childCommand(root, append(fargs, "--hours", "0.000001"), &out).Run(); err != nil {
		t.Fatalf("FRESH=1: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "--fresh: the run that was in "+rel+" is now in "+rel+"-") ||
		!regexp.MustCompile(`run finished: [01] generations`).MatchString(out.String()) {
		t.Fatalf("FRESH=1 output:\n%s", out.String())
	}
	runs, err := os.ReadDir(filepath.Join(root, "runs"))
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs/ after FRESH=1: %v, %v", runs, err)
	}
	aside := filepath.Join(root, "runs", runs[1].Name())
	if gens, err := runlog.ReadGenerations(filepath.Join(aside, runlog.MetricsFile)); err != nil || len(gens) != 3 {
		t.Errorf("the run set aside in %s has %d generations (%v), want its 3", aside, len(gens), err)
	}
}

// makeTrain returns the arguments of dablot in the command line `make
// train` runs with the given variables (as make -n prints it), checking
// that it runs bin/dablot. Variables of the environment that the Makefile
// reads are left out, so that it runs with its defaults.
func makeTrain(t *testing.T, vars ...string) []string {
	t.Helper()
	cmd := exec.Command("make", append([]string{"-n", "-s", "--no-print-directory", "-C", "../..", "train"}, vars...)...)
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains([]string{"BIN", "VARIANT", "PRESET", "HOURS", "FRESH", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"}, name) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n train: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "bin/dablot" && f[1] == "train" {
			return f[1:]
		}
	}
	t.Fatalf("make -n train printed no bin/dablot train command:\n%s", out)
	return nil
}

// childCommand is dablot run with args in a process of its own, in the
// directory dir, writing to out.
func childCommand(dir string, args []string, out *bytes.Buffer) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestTrainChild$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DABLOT_CHILD_ARGS="+strings.Join(args, "\x1f"))
	cmd.Stdout, cmd.Stderr = out, out
	return cmd
}

// runCmd runs dablot with args and returns its output (stdout and
// stderr) and an error for a non-zero exit.
func runCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	code, stdout, stderr := run(args...)
	if code != 0 {
		return stdout + stderr, fmt.Errorf("exit status %d: %s", code, strings.TrimSpace(stderr))
	}
	return stdout + stderr, nil
}

// TestTrainHelp: dablot train --help lists every built-in preset with its
// description.
func TestTrainHelp(t *testing.T) {
	out, err := runCmd(t, "train", "--help")
	if err != nil {
		t.Fatal(err)
	}
	presets := train.Presets()
	if len(presets) != len(configs.PresetNames()) {
		t.Fatalf("%d presets listed of %d", len(presets), len(configs.PresetNames()))
	}
	for _, p := range presets {
		if p.Description == "" || strings.HasPrefix(p.Description, "(") {
			t.Errorf("preset %s: description %q", p.Name, p.Description)
		}
		line := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(p.Name) + ` +` + regexp.QuoteMeta(p.Description) + `$`)
		if !line.MatchString(out) {
			t.Errorf("dablot train --help does not list %s (%q):\n%s", p.Name, p.Description, out)
		}
	}
}

func TestTrainErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("name: x\nselfplay: {games: 0}\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"train"}, "--config is required"},
		{[]string{"train", "--config", "nope.yaml"}, "nope.yaml"},
		{[]string{"train", "--config", bad}, "network.channels"},
		{[]string{"train", "--resume", t.TempDir()}, "not a run directory"},
		{[]string{"train", "--resume", "x", "--config", "y"}, "--resume takes the run's own config"},
		{[]string{"train", "--config", "../../configs/train/smoke.yaml", "--variant", "nosuch"}, "nosuch"},
		{[]string{"train", "--config", "../../configs/train/smoke.yaml", "--hours", "-1"}, "stop.hours"},
		{[]string{"train", "--config", "../../configs/train/smoke.yaml", "--generations", "0"}, "stop = none"},
		{[]string{"train", "--config", "../../configs/train/smoke.yaml", "--hours", "an hour"}, "invalid value"},
		{[]string{"train", "--config", "smoke", "--hours", "-1"}, "stop.hours"},
		{[]string{"train", "--config", "smoke"}, "--variant is required: preset smoke names no variant"},
		{[]string{"train", "--config", "hours"}, `unknown preset "hours" (built-in presets: hour, hour-score, overnight, short, smoke)`},
		{[]string{"train", "--config", "configs/train/nosuch.yaml"}, "configs/train/nosuch.yaml"},
		{[]string{"export", t.TempDir(), "--out", "x.dbm"}, "best.dbm"},
		{[]string{"selfplay", "--run", t.TempDir(), "--name", "a"}, "not a run directory"},
		{[]string{"selfplay", "--run", t.TempDir(), "--name", "main"}, "worker name"},
		{[]string{"selfplay", "--run", t.TempDir(), "--name", "reanalyse"}, "worker name"}, // old runs' reanalysis shards keep the name
	} {
		got, err := runCmd(t, tc.args...)
		if err == nil || !strings.Contains(got+err.Error(), tc.want) {
			t.Errorf("%v: got %v\n%s\nwant an error with %q", tc.args, err, got, tc.want)
		}
	}
}

// TestTrainContinueRefused: `dablot train --config` continues the run in
// its directory only if it is the same setup; a run of other rules or
// another preset, or a directory that holds files but no run, is refused
// with how to go on, and nothing in it changes.
func TestTrainContinueRefused(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "run")
	cfg, err := train.LoadConfig("../../configs/train/smoke.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := train.CreateRun(dir, cfg, configs.MustVariant("keyland"), "", train.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	preset, err := os.ReadFile("../../configs/train/smoke.yaml")
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(tmp, "smoke.yaml")
	if err := os.WriteFile(other, bytes.Replace(preset, []byte("games: 16"), []byte("games: 32"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	notRun := filepath.Join(tmp, "notes")
	os.Mkdir(notRun, 0o755)
	os.WriteFile(filepath.Join(notRun, "todo.txt"), []byte("keep me"), 0o644)
	// The files a continued or new run would write first.
	watched := []string{filepath.Join(dir, rundir.StateFile), filepath.Join(dir, rundir.ConfigFile),
		filepath.Join(dir, rundir.BestFile), filepath.Join(notRun, "todo.txt")}
	contents := func() []string {
		var all []string
		for _, f := range watched {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, string(data))
		}
		return all
	}
	before := contents()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--config", "../../configs/train/smoke.yaml", "--variant", "dablot", "--run", dir},
			[]string{"holds a run of other rules: keyland", "continue that run with: " + os.Args[0] + " train --resume " + dir, "--fresh"}},
		{[]string{"--config", "smoke", "--init", "../../models/frostviken.dbm", "--run", dir}, // the model's variant
			[]string{"holds a run of other rules: keyland", "not frostviken"}},
		{[]string{"--config", other, "--variant", "keyland", "--run", dir},
			[]string{"holds a run of another preset (selfplay.games: 16, 32 in the run's config.yaml"}},
		{[]string{"--config", "../../configs/train/smoke.yaml", "--variant", "keyland", "--run", notRun},
			[]string{"holds files but no run (no state.json): start anew with --fresh"}},
		{[]string{"--resume", dir, "--fresh"}, []string{"give no --config, --variant, --init, --run or --fresh"}},
	} {
		got, err := runCmd(t, append([]string{"train"}, tc.args...)...)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(got, w) {
				t.Errorf("%v: %v\n%s\nwant an error with %q", tc.args, err, got, w)
			}
		}
	}
	if after := contents(); !slices.Equal(before, after) {
		t.Error("a refused command changed files")
	}
	if entries, err := os.ReadDir(notRun); err != nil || len(entries) != 1 {
		t.Errorf("%s now holds %v (%v)", notRun, entries, err)
	}
}

// TestTrainFork: a run of one generation forked with a lower learning rate
// trains on in its copy from the same generation, the copy's config
// changed in that setting alone and the run itself untouched; a fork that
// would change the network, names no setting the config has, or goes into
// a directory already in use is refused before anything is written.
func TestTrainFork(t *testing.T) {
	tmp := t.TempDir()
	src, dst := filepath.Join(tmp, "run"), filepath.Join(tmp, "fork")
	if out, err := runCmd(t, "train", "--config", "smoke", "--variant", "frostviken", "--run", src, "--generations", "1"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	before, err := os.ReadFile(filepath.Join(src, rundir.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--set", "network.blocks=2"}, "a fork keeps the run's network"},
		{[]string{"--set", "train.nosuch=1"}, "the run's config has no train.nosuch"},
		{[]string{"--set", "train.learning_rate"}, "want PATH=VALUE"},
		{[]string{"--set", "train.learning_rate=2"}, "train.learning_rate"},
		{[]string{"--set", "train.learning_rate=0.002"}, "--set changes nothing"},
		{[]string{}, "--fork DIR takes --run NEWDIR and one --set"},
		{[]string{"--set", "train.batch_size=32"}, "the fork cannot go on with these settings"},
	} {
		args := append([]string{"train", "--fork", src, "--run", dst, "--generations", "2"}, tc.args...)
		if out, err := runCmd(t, args...); err == nil || !strings.Contains(out, tc.want) {
			t.Errorf("%v: %v, want an error with %q\n%s", tc.args, err, tc.want, out)
		}
		if _, err := os.Stat(dst); !os.IsNotExist(err) {
			t.Fatalf("%v: the refused fork left %s (%v)", tc.args, dst, err)
		}
	}
	if out, err := runCmd(t, "train", "--config", "smoke", "--run", dst, "--set", "train.learning_rate=0.001"); err == nil || !strings.Contains(out, "--set goes with --fork") {
		t.Errorf("--set without --fork: %v\n%s", err, out)
	}
	out, err := runCmd(t, "train", "--fork", src, "--run", dst, "--set", "train.learning_rate=0.001", "--generations", "2")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"forked " + src + " into " + dst + ", changed (old, new): train.learning_rate: 0.002, 0.001",
		"1 generations done", "run finished: 2 generations"} {
		if !strings.Contains(out, want) {
			t.Errorf("the fork's output lacks %q:\n%s", want, out)
		}
	}
	after, err := os.ReadFile(filepath.Join(src, rundir.ConfigFile))
	if err != nil || string(after) != string(before) {
		t.Errorf("the forked run's config changed (%v)", err)
	}
	srcCfg, err := train.LoadConfig(filepath.Join(src, rundir.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	forkCfg, err := train.LoadConfig(filepath.Join(dst, rundir.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	srcCfg.Train.LearningRate, srcCfg.Stop = 0.001, forkCfg.Stop
	if string(srcCfg.YAML()) != string(forkCfg.YAML()) {
		t.Errorf("the fork's config differs from the run's in more than the learning rate:\n%s\n%s", srcCfg.YAML(), forkCfg.YAML())
	}
	// The run itself is still at its first generation and can go on.
	if _, err := os.Stat(filepath.Join(src, rundir.ModelDir, "gen-000002.dbm")); err == nil {
		t.Error("the fork trained in the run's directory")
	}
	if out, err := runCmd(t, "train", "--fork", src, "--run", dst, "--set", "train.learning_rate=0.0005"); err == nil || !strings.Contains(out, "already holds files") {
		t.Errorf("a fork into a used directory: %v\n%s", err, out)
	}
}
