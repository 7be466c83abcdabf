//go:build unix

package durable

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// specialFiles makes, in a temporary directory, a path of each kind that
// is not a regular file, with a regular file "target" that the symbolic
// link points to.
func specialFiles(t *testing.T) (dir string, paths map[string]string) {
	t.Helper()
	dir = t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	paths = map[string]string{
		"a symbolic link": filepath.Join(dir, "link"),
		"a named pipe":    filepath.Join(dir, "fifo"),
		"a directory":     filepath.Join(dir, "sub"),
	}
	if err := os.Symlink(target, paths["a symbolic link"]); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(paths["a named pipe"], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(paths["a directory"], 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, paths
}

// TestWriteRefusesSpecialFiles: a write over a symbolic link, a named pipe
// or a directory is refused, and each stays what it was (the rename of an
// atomic write made a symbolic link, or a device node as root, a regular
// file).
func TestWriteRefusesSpecialFiles(t *testing.T) {
	dir, paths := specialFiles(t)
	for what, path := range paths {
		before, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		for name, write := range map[string]func() error{
			"WriteFile": func() error { return WriteFile(path, []byte("new")) },
			"Create":    func() error { f, err := Create(path); closeIf(f); return err },
			"Append":    func() error { f, err := Append(path); closeIf(f); return err },
		} {
			err := write()
			if err == nil || !strings.Contains(err.Error(), what+", not a regular file") {
				t.Errorf("%s over %s: %v, want an error saying it is %s", name, path, err, what)
			}
			after, err := os.Lstat(path)
			if err != nil || after.Mode() != before.Mode() {
				t.Errorf("%s over %s: it is now %v (%v), was %v", name, what, after.Mode(), err, before.Mode())
			}
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "target")); string(got) != "keep" {
		t.Errorf("the symbolic link's target holds %q, want it unchanged", got)
	}
	// A device is refused too (only checked: a write would replace it).
	if err := CheckTarget(os.DevNull); err == nil || !strings.Contains(err.Error(), "a character device") {
		t.Errorf("CheckTarget(%s): %v, want an error naming a character device", os.DevNull, err)
	}
}

func closeIf(f *os.File) {
	if f != nil {
		f.Close()
	}
}

// TestReadFileRefusesSpecialFiles: a device grows without bound and a
// named pipe blocks its reader for ever; both are refused at once, as is a
// directory. A symbolic link to a regular file is read.
func TestReadFileRefusesSpecialFiles(t *testing.T) {
	_, paths := specialFiles(t)
	paths["a character device"] = "/dev/zero"
	for what, path := range paths {
		if what == "a symbolic link" {
			continue
		}
		done := make(chan error, 1)
		go func() {
			_, err := ReadFile(path, "variant file", 1<<16)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || err.Error() != path+" is "+what+", not a regular file (want a variant file)" {
				t.Errorf("ReadFile(%s): %v, want an error saying it is %s", path, err, what)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadFile(%s) (%s) still runs after 10 s", path, what)
		}
	}
	data, err := ReadFile(paths["a symbolic link"], "variant file", 1<<16)
	if err != nil || string(data) != "keep" {
		t.Errorf("ReadFile through a symbolic link: %q, %v", data, err)
	}
}
