package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dablot-zero/dablot/train/rundir"
)

// failingTerminal is a terminal that takes ok writes, then fails.
type failingTerminal struct {
	ok  int
	got bytes.Buffer
}

func (f *failingTerminal) Write(p []byte) (int, error) {
	if f.ok == 0 {
		return 0, syscall.EPIPE
	}
	f.ok--
	return f.got.Write(p)
}

// TestRunOutput: what a run prints goes to the terminal until it fails,
// and all of it to the log, what came before the log was attached first,
// after a line naming the session; the terminal's failure calls broken
// once and is said in the log; no write fails.
func TestRunOutput(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ok      int  // writes the terminal takes
		stops   bool // broken stops the run
		term    string
		logTail string
		calls   int
	}{
		{"terminal lives", 10, true, "a\nb\nc\n", "a\nb\nc\n", 0},
		{"terminal fails after the log is attached", 2, true, "a\nb\n",
			"a\nb\nc\n\nthe terminal failed (broken pipe): finishing this generation, then stopping, as on Ctrl-C; the run's output goes on in this log only\n", 1},
		{"terminal fails before", 0, true, "",
			"a\n\nthe terminal failed (broken pipe): finishing this generation, then stopping, as on Ctrl-C; the run's output goes on in this log only\nb\nc\n", 1},
		{"terminal fails once the run stops", 1, false, "a\n",
			"a\nb\n\nthe terminal failed (broken pipe); the run's output goes on in this log only\nc\n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term := &failingTerminal{ok: tc.ok}
			calls := 0
			o := newRunOutput(term, func() bool { calls++; return tc.stops })
			write := func(s string) {
				if n, err := io.WriteString(o, s); n != len(s) || err != nil {
					t.Errorf("write %q: %d, %v", s, n, err)
				}
			}
			write("a\n")
			path := filepath.Join(t.TempDir(), rundir.LogFile)
			if err := os.WriteFile(path, []byte("an earlier session\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := o.attach(path, []string{"dablot", "train", "--resume", "r"}); err != nil {
				t.Fatal(err)
			}
			write("b\n")
			write("c\n")
			if err := o.Close(); err != nil {
				t.Fatal(err)
			}
			log, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			head := regexp.MustCompile(`^an earlier session\n\n== \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ: dablot train --resume r \(process \d+\)\n`).FindString(string(log))
			if head == "" || string(log[len(head):]) != tc.logTail {
				t.Errorf("log %q, want the earlier session, a line naming this one, then %q", log, tc.logTail)
			}
			if term.got.String() != tc.term || calls != tc.calls {
				t.Errorf("terminal %q, broken called %d times; want %q, %d", term.got.String(), calls, tc.term, tc.calls)
			}
			if o.Terminal() != nil { // a failingTerminal is no file
				t.Error("Terminal() returned a file")
			}
		})
	}
}

// TestWatchStop: the first of Ctrl-C or a hangup finishes the generation
// under way (stop closes), a Ctrl-C after it abandons it (cancel); a
// hangup after a Ctrl-C, or a second hangup, changes nothing.
func TestWatchStop(t *testing.T) {
	for _, tc := range []struct {
		name      string
		sigs      []os.Signal
		cancelled bool
		says      []string
	}{
		{"Ctrl-C", []os.Signal{os.Interrupt}, false, []string{"interrupt: finishing this generation, then stopping (Ctrl-C again to stop now)"}},
		{"Ctrl-C twice", []os.Signal{os.Interrupt, os.Interrupt}, true, []string{"Ctrl-C again to stop now", "interrupt: stopping now; the last checkpoint stands"}},
		{"hangup", []os.Signal{syscall.SIGHUP}, false, []string{"hangup (the terminal is gone): finishing this generation, then stopping, as on Ctrl-C; the run's train.log has the rest"}},
		{"hangup twice", []os.Signal{syscall.SIGHUP, syscall.SIGHUP}, false, []string{"hangup (the terminal is gone): finishing"}},
		{"Ctrl-C then hangup", []os.Signal{os.Interrupt, syscall.SIGHUP}, false, []string{"Ctrl-C again to stop now"}},
		{"hangup then Ctrl-C", []os.Signal{syscall.SIGHUP, os.Interrupt}, true, []string{"hangup (the terminal is gone): finishing", "interrupt: stopping now"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out syncBuffer
			cancelled := make(chan struct{})
			st := newStopper(func() { close(cancelled) })
			sig, done := make(chan os.Signal), make(chan struct{})
			ended := make(chan struct{})
			go func() { watchStop(&out, sig, st, done); close(ended) }()
			for _, s := range tc.sigs {
				select {
				case sig <- s:
				case <-ended:
				}
			}
			close(done)
			<-ended
			select {
			case <-st.stop:
			default:
				t.Error("stop is not closed")
			}
			select {
			case <-cancelled:
				if !tc.cancelled {
					t.Error("cancelled")
				}
			default:
				if tc.cancelled {
					t.Error("not cancelled")
				}
			}
			said := out.String()
			for _, w := range tc.says {
				if !strings.Contains(said, w) {
					t.Errorf("said %q, want %q", said, w)
				}
			}
			if n := strings.Count(said, "finishing this generation"); n != 1 {
				t.Errorf("said %d times that it finishes the generation:\n%s", n, said)
			}
		})
	}
	// The terminal's failure (runOutput's broken) is a first stop too.
	st := newStopper(func() {})
	if !st.finish() || st.finish() {
		t.Error("finish: true the first time only")
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// tinyTraining is a preset of seconds a generation, for the tests that
// run the trainer in a process of its own.
const tinyTraining = `name: tiny
description: a run of a few seconds a generation, for tests
seed: 7
network: {blocks: 1, channels: 8, value_hidden: 8}
selfplay: {games: 6, workers: 3, search: gumbel, full_sims: 8, fast_sims: 4, full_fraction: 0.5, gumbel_m: 4,
  noise: 0, temperature_turns: 0, leaf_batch: 2, net_batch: 32, random_turns: 1, adjudication: 0.5, adjudication_scale: 4}
train: {batch_size: 32, learning_rate: 0.003, weight_decay: 0.0001, value_weight: 1, reuse: 2, min_steps: 10,
  window_min: 200, window_max: 5000, window_exponent: 0.75, mirror: true, q_weight: 0.1}
evaluation: {mode: games, games: 4, threshold: 0.5, elo0: 0, elo1: 0, sims: 4, random_turns: 1}
rating: {every: 2, games: 2, sims: 4, anchors: [random], random_turns: 1}
stop: {generations: 3, hours: 0}
`

// startHangable starts cmd with SIGHUP at its default even when the tests
// run with it ignored (under nohup), which the child would inherit, and
// the trainer would then rightly go on after a hangup: while this process
// handles SIGHUP, a child starts with the default (a hangup in that
// instant is caught and dropped).
func startHangable(cmd *exec.Cmd) error {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	return cmd.Start()
}

// TestTrainHangup runs the trainer in a process of its own with its
// output a pipe, as `make train 2>&1 | tee train.log` does, and takes the
// terminal away in the first generation: the pipe's reader closes (as tee
// does on Ctrl-C), the process gets SIGHUP (the terminal closed), or both.
// Each time the trainer finishes the generation, checkpoints and exits 0,
// as on Ctrl-C, and its log, RUN/train.log, says how to resume; the same
// run then resumes and its log holds both sessions.
func TestTrainHangup(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the trainer")
	}
	for _, tc := range []struct {
		name        string
		closeReader bool
		hangup      bool
		outputSays  string // what the output said, when its reader lived
		logSaysWhy  string
		resumeAfter bool
	}{
		{"pipe closed", true, false, "", "the terminal failed (write /dev/stdout: broken pipe): finishing this generation", true},
		{"hangup", false, true, "hangup (the terminal is gone): finishing this generation", "hangup (the terminal is gone): finishing this generation", false},
		{"pipe closed and hangup", true, true, "", "finishing this generation, then stopping, as on Ctrl-C", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "tiny.yaml"), []byte(tinyTraining), 0o644); err != nil {
				t.Fatal(err)
			}
			const dir = "run"
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd := childCommand(root, []string{"train", "--config", "tiny.yaml", "--variant", "frostviken", "--run", dir}, nil)
			cmd.Stdout, cmd.Stderr = w, w
			if err := startHangable(cmd); err != nil {
				t.Fatal(err)
			}
			w.Close()
			var output bytes.Buffer
			read := make(chan error, 1)
			go func() {
				_, err := io.Copy(&output, bufio.NewReader(r))
				read <- err
			}()
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			// Once generation 1 has played its games, the terminal goes.
			deadline := time.After(5 * time.Minute)
			for {
				if _, err := os.Stat(filepath.Join(root, dir, rundir.GamesDir, "gen-000001.pgn")); err == nil {
					break
				}
				select {
				case err := <-exited:
					t.Fatalf("the trainer ended (%v) before generation 1 played its games", err)
				case <-deadline:
					cmd.Process.Kill()
					t.Fatalf("no games of generation 1 after 5 minutes")
				case <-time.After(20 * time.Millisecond):
				}
			}
			if tc.closeReader {
				r.Close()
			}
			if tc.hangup {
				if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("the trainer ended with %v, want exit status 0", err)
				}
			case <-time.After(5 * time.Minute):
				cmd.Process.Kill()
				t.Fatal("the trainer did not stop within 5 minutes")
			}
			if !tc.closeReader {
				<-read
				r.Close()
			}
			data, err := os.ReadFile(filepath.Join(root, dir, rundir.StateFile))
			if err != nil {
				t.Fatal(err)
			}
			var st struct{ Generation int }
			if err := json.Unmarshal(data, &st); err != nil {
				t.Fatal(err)
			}
			// The signal comes during generation 1; a slow machine may be
			// in generation 2 by the time the pipe is closed.
			if st.Generation < 1 || st.Generation > 2 {
				t.Fatalf("checkpoint of generation %d, want 1 (or 2), the one under way", st.Generation)
			}
			resume := fmt.Sprintf("stopped after generation %d; continue with: %s train --resume %s\n", st.Generation, os.Args[0], dir)
			logPath := filepath.Join(root, dir, rundir.LogFile)
			log, err := os.ReadFile(logPath)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"train --config tiny.yaml --variant frostviken --run run (process ", tc.logSaysWhy, resume} {
				if !strings.Contains(string(log), want) {
					t.Errorf("%s lacks %q:\n%s", rundir.LogFile, want, log)
				}
			}
			if !tc.closeReader {
				for _, want := range []string{tc.outputSays, resume} {
					if !strings.Contains(output.String(), want) {
						t.Errorf("the output lacks %q:\n%s", want, output.String())
					}
				}
			}
			if !tc.resumeAfter {
				return
			}
			var again bytes.Buffer
			if err := childCommand(root, []string{"train", "--resume", dir}, &again).Run(); err != nil {
				t.Fatalf("resuming: %v\n%s", err, again.String())
			}
			log, err = os.ReadFile(logPath)
			if err != nil {
				t.Fatal(err)
			}
			first := strings.Index(string(log), resume)
			second := strings.Index(string(log), " train --resume run (process ")
			if first < 0 || second < first || !strings.Contains(string(log[second:]), "run finished: 3 generations") {
				t.Errorf("%s after the resume does not hold both sessions in order:\n%s", rundir.LogFile, log)
			}
		})
	}
}
