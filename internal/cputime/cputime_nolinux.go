//go:build !linux

package cputime

import (
	"runtime"
	"time"
)

// Thread is not measured on this platform.
func Thread() (time.Duration, bool) { return 0, false }

// peakRSSBytes converts getrusage's ru_maxrss to bytes: bytes on macOS,
// KiB on the BSDs.
func peakRSSBytes(maxrss int64) int64 {
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return maxrss
	}
	return maxrss * 1024
}
