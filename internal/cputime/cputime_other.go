//go:build !unix

package cputime

import "time"

// Process is not measured on this platform.
func Process() time.Duration { return 0 }

// PeakRSS is not measured on this platform.
func PeakRSS() int64 { return 0 }
