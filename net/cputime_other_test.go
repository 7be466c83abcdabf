//go:build !unix

package net

import "time"

// cpuTime is not measured on this system (the benchmarks then skip the
// per-CPU-second metric).
func cpuTime() time.Duration { return 0 }
