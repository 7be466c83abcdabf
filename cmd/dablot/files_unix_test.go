//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runWithin runs dablot with args and fails the test if it has not ended
// within a few seconds (a named pipe blocked its reader for ever, and a
// device such as /dev/zero grew the memory without bound).
func runWithin(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, stdout, stderr := run(args...)
		done <- result{code, stdout, stderr}
	}()
	select {
	case r := <-done:
		return r.code, r.stdout, r.stderr
	case <-time.After(20 * time.Second):
		t.Fatalf("%v still runs after 20 s", args)
		return
	}
}

// TestReadsRefuseSpecialFiles: every kind of file the program reads is
// refused at once when it is a device or a named pipe, with a message that
// says so.
func TestReadsRefuseSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, special := range []struct{ path, kind string }{{"/dev/zero", "a character device"}, {fifo, "a named pipe"}} {
		for _, args := range [][]string{
			{"info", special.path},
			{"show", "--variant", special.path},
			{"train", "--config", special.path},
			{"analyse", "kinghunt", "--records", special.path, "--depth", "1"},
			{"engine", "--model", special.path},
			{"arena", "--variant", "frostviken", "--a", "gumbel:model=" + special.path + ",sims=2", "--b", "random", "--games", "1"},
			{"ladder", "--player", "mcts:eval=material", "--variant", "frostviken", "--games", "2", "--results", "", "--book", special.path},
		} {
			code, _, stderr := runWithin(t, args...)
			if code == 0 || !strings.Contains(stderr, special.path+" is "+special.kind+", not a regular file") {
				t.Errorf("%v: exit %d, %q; want an error saying it is %s", args, code, stderr, special.kind)
			}
		}
	}
}

// TestWritesRefuseSpecialFiles: a command's output path that holds a
// symbolic link, a named pipe or a directory is refused and left as it
// was; a new path or a regular file is written.
func TestWritesRefuseSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if err := os.Mkdir(run, 0o755); err != nil {
		t.Fatal(err)
	}
	saveTinyModel(t, "frostviken", filepath.Join(run, "best.dbm"))
	if err := os.WriteFile(filepath.Join(run, "metrics.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link, fifo, sub := filepath.Join(dir, "link.dbm"), filepath.Join(dir, "fifo.dbm"), filepath.Join(dir, "sub.dbm")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{link: "a symbolic link", fifo: "a named pipe", sub: "a directory"} {
		before, _ := os.Lstat(path)
		for _, args := range [][]string{
			{"export", run, "--out", path},
			{"arena", "--variant", "frostviken", "--a", "random", "--b", "random", "--games", "1", "--out", path},
			{"ladder", "--player", "mcts:eval=material", "--variant", "frostviken", "--games", "2", "--results", path},
		} {
			code, _, stderr := runWithin(t, args...)
			if code == 0 || !strings.Contains(stderr, path+" is "+kind+", not a regular file: refusing to write over it") {
				t.Errorf("%v: exit %d, %q; want an error saying it is %s", args, code, stderr, kind)
			}
			if after, err := os.Lstat(path); err != nil || after.Mode() != before.Mode() {
				t.Errorf("%v: %s is now %v (%v), was %v", args, kind, after.Mode(), err, before.Mode())
			}
		}
	}
	if got, _ := os.ReadFile(target); string(got) != "keep" {
		t.Errorf("the symbolic link's target holds %q", got)
	}
	// A new path, then the regular file it made.
	out := filepath.Join(dir, "new.dbm")
	for range 2 {
		if code, _, stderr := runWithin(t, "export", run, "--out", out); code != 0 {
			t.Fatalf("export to %s: exit %d, %s", out, code, stderr)
		}
	}
	if code, stdout, stderr := runWithin(t, "info", out); code != 0 || !strings.Contains(stdout, "frostviken") {
		t.Errorf("info of the exported model: exit %d, %s%s", code, stdout, stderr)
	}
}
