package durable

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	if err := WriteFile(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("new file mode %v (%v), want 0644", st.Mode().Perm(), err)
	}

	// A writer that fails part-way leaves the old file whole and no
	// temporary file behind.
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		if _, err := w.Write([]byte("tw")); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write error %v, want the writer's", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "one" {
		t.Fatalf("after a failed write the file holds %q, want %q", got, "one")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("directory holds %d entries after a failed write, want 1", len(entries))
	}

	// A replacement keeps the mode of the file it replaces.
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("two")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "two" {
		t.Fatalf("file holds %q, want %q", got, "two")
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("replaced file mode %v (%v), want 0600 kept", st.Mode().Perm(), err)
	}

	// A directory that does not exist is an error, not a panic.
	if err := WriteFile(filepath.Join(dir, "no", "f"), nil); err == nil {
		t.Fatal("write into a missing directory: no error")
	}
}
