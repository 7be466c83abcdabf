//go:build !linux

package progress

import (
	"os"
	"testing"
)

// openPty skips the test: pseudo-terminals are opened on Linux only.
func openPty(t *testing.T) (master, slave *os.File) {
	t.Helper()
	t.Skip("no pseudo-terminal here (Linux only)")
	return nil, nil
}
