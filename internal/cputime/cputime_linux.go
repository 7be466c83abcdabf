//go:build linux

package cputime

import (
	"syscall"
	"time"
)

// Thread returns the CPU time of the calling OS thread, and true; the
// caller locks its goroutine to the thread around what it measures.
func Thread() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// peakRSSBytes converts getrusage's ru_maxrss (KiB on Linux) to bytes.
func peakRSSBytes(maxrss int64) int64 { return maxrss * 1024 }
