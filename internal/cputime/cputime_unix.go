//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process returns the CPU time (user and system) this process has used.
// Unlike wall-clock time it does not count time the host took away from a
// virtual machine (steal), so rates per CPU-second are comparable across
// loaded and idle machines.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// PeakRSS returns the largest resident set size this process has had, in
// bytes (0 where it is not known).
func PeakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return peakRSSBytes(int64(ru.Maxrss))
}
