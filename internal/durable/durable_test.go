package durable

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("12345678"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limit int64
		err   string
	}{
		{8, ""},
		{100, ""},
		{7, path + " is 8 bytes, more than a preset may have (7 bytes)"},
	} {
		data, err := ReadFile(path, "preset", tc.limit)
		if tc.err == "" {
			if err != nil || string(data) != "12345678" {
				t.Errorf("limit %d: %q, %v", tc.limit, data, err)
			}
		} else if err == nil || err.Error() != tc.err {
			t.Errorf("limit %d: %v, want %q", tc.limit, err, tc.err)
		}
	}
	// A large file is refused by its size, without reading it.
	big := filepath.Join(dir, "big")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1<<31 + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	if _, err := ReadFile(big, "model file", 1<<30); err == nil || !strings.Contains(err.Error(), "is 2 GiB (2147483649 bytes), more than a model file may have (1 GiB)") {
		t.Errorf("a 2 GiB model: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "none"), "model file", 1<<30); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v, want ErrNotExist", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 1023: "1023 bytes", 1024: "1 KiB", 64 << 10: "64 KiB",
		3 << 29: "1.5 GiB", 1<<30 + 1: "1 GiB (1073741825 bytes)", 1 << 40: "1 TiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestMoveAside: a file is renamed with the time given before its
// extension, a taken name gets a number, and nothing is deleted.
func TestMoveAside(t *testing.T) {
	dir := t.TempDir()
	when := time.Date(2026, 11, 27, 3, 15, 0, 0, time.Local)
	path := filepath.Join(dir, "games.jsonl")
	for i, want := range []string{"games-20261127-031500.jsonl", "games-20261127-031500-2.jsonl", "games-20261127-031500-3.jsonl"} {
		if err := os.WriteFile(path, []byte{byte('a' + i)}, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := MoveAside(path, when, ".jsonl")
		if err != nil || got != filepath.Join(dir, want) {
			t.Fatalf("move %d: %q, %v; want %s", i+1, got, err, want)
		}
	}
	for i, name := range []string{"games-20261127-031500.jsonl", "games-20261127-031500-2.jsonl", "games-20261127-031500-3.jsonl"} {
		if data, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(data) != string(rune('a'+i)) {
			t.Errorf("%s: %q, %v", name, data, err)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s still there: %v", path, err)
	}
	if _, err := MoveAside(path, when, ".jsonl"); err == nil {
		t.Error("moving a file that is not there: no error")
	}
}
