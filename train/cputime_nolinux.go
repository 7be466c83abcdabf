//go:build !linux

package train

import "time"

// threadCPUTime is not measured on this platform.
func threadCPUTime() (time.Duration, bool) { return 0, false }
