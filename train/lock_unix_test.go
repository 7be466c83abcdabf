//go:build unix

package train

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLockRun: one trainer at a time in a run directory.
func TestLockRun(t *testing.T) {
	dir := t.TempDir()
	unlock, err := LockRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockRun(dir); err == nil || !strings.Contains(err.Error(), "another trainer is running in "+dir) {
		t.Errorf("a second lock: %v", err)
	}
	unlock()
	again, err := LockRun(dir)
	if err != nil {
		t.Fatalf("after unlocking: %v", err)
	}
	again()
	if _, err := LockRun(filepath.Join(dir, "nope")); err == nil || !strings.Contains(err.Error(), "not a run directory") {
		t.Errorf("a missing directory: %v", err)
	}
}
