//go:build unix

package train

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// LockRun takes the run directory dir for this process's trainer, so that
// a second trainer (a second `make train` in another terminal) cannot
// write into the same run; unlock releases it, and so does the end of the
// process. Self-play workers (dablot selfplay) take no lock. The lock is an
// flock(2) on the directory itself, which follows it if it is renamed.
func LockRun(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("%s is not a run directory: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("another trainer is running in %s (two would corrupt the run): stop it first, or choose another --run", dir)
		}
		return nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	return func() { f.Close() }, nil
}
