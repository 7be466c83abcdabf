//go:build unix

package train

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time (user and system) this process has used.
// Unlike wall-clock time it does not count time the host took away from a
// virtual machine (steal), so rates per CPU-second are comparable across
// loaded and idle machines.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
