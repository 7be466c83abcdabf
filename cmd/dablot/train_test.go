package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dablot-zero/dablot/train"
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

// TestTrainSmoke is the smoke preset end to end, as CI runs it: a run is
// started with --generations 2 instead of the preset's 3, stopped with
// Ctrl-C after its first generation (it finishes the generation and
// checkpoints), resumed to its end, extended by one generation with
// --resume --generations 3, and then reported and exported. The loss must
// fall over the run.
func TestTrainSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("a few minutes of training")
	}
	dir := filepath.Join(t.TempDir(), "smoke")
	var out bytes.Buffer
	cmd := exec.Command(os.Args[0], "-test.run=^TestTrainChild$")
	cmd.Env = append(os.Environ(), "DABLOT_CHILD_ARGS="+strings.Join([]string{"train", "--config", "../../configs/train/smoke.yaml", "--run", dir, "--generations", "2"}, "\x1f"))
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Minute)
	for {
		data, err := os.ReadFile(filepath.Join(dir, train.StateFile))
		if err == nil && bytes.Contains(data, []byte(`"trainer"`)) {
			break // the run exists: interrupt its first generation
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no run after 5 minutes:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("interrupted run: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "stopped after generation 1") {
		t.Fatalf("the interrupted run did not finish its generation and stop:\n%s", out.String())
	}
	t.Logf("first part:\n%s", out.String())

	// Resume to the end, then extend the finished run.
	got, err := runCmd(t, "train", "--resume", dir)
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, got)
	}
	if !strings.Contains(got, "1 generations done") || !strings.Contains(got, "run finished: 2 generations") {
		t.Fatalf("resume output:\n%s", got)
	}
	got, err = runCmd(t, "train", "--resume", dir, "--generations", "3")
	if err != nil || !strings.Contains(got, "2 generations done") || !strings.Contains(got, "run finished: 3 generations") {
		t.Fatalf("extending the run: %v\n%s", err, got)
	}
	if cfg, err := train.LoadConfig(filepath.Join(dir, train.ConfigFile)); err != nil || cfg.Stop != (train.StopConfig{Generations: 3}) {
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
	model := filepath.Join(t.TempDir(), "smoke.dbm")
	if got, err := runCmd(t, "export", dir, "--out", model); err != nil || !strings.Contains(got, "generation 3") {
		t.Errorf("export: %v\n%s", err, got)
	}
	m, err := train.LoadModel(model)
	if err != nil {
		t.Fatal(err)
	}
	var table []map[string]any
	if err := json.Unmarshal([]byte(m.Metadata[train.MetaRatings]), &table); err != nil || len(table) < 2 {
		t.Errorf("exported ratings %q: %v", m.Metadata[train.MetaRatings], err)
	}
	if m.Training.Generation != 3 || m.Training.Games != 48 || m.Training.Hours <= 0 {
		t.Errorf("exported training summary %+v", m.Training)
	}
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
		{[]string{"train", "--config", "../../configs/train/smoke.yaml", "--generations", "0"}, "stop = neither"},
		{[]string{"train", "--config", "../../configs/train/smoke.yaml", "--hours", "an hour"}, "invalid value"},
		{[]string{"export", t.TempDir(), "--out", "x.dbm"}, "best.dbm"},
		{[]string{"selfplay", "--run", t.TempDir(), "--name", "a"}, "not a run directory"},
		{[]string{"selfplay", "--run", t.TempDir(), "--name", "main"}, "worker name"},
	} {
		got, err := runCmd(t, tc.args...)
		if err == nil || !strings.Contains(got+err.Error(), tc.want) {
			t.Errorf("%v: got %v\n%s\nwant an error with %q", tc.args, err, got, tc.want)
		}
	}
}
