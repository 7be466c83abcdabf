//go:build !unix

package train

import "time"

// CPUTime is not measured on this platform.
func CPUTime() time.Duration { return 0 }

// PeakRSS is not measured on this platform.
func PeakRSS() int64 { return 0 }
