package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestProcessAndThreadAdvance: burning CPU makes both clocks advance where
// they are measured, and the peak memory is known where the process time
// is.
func TestProcessAndThreadAdvance(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p0 := Process()
	t0, threadOK := Thread()
	x := 1.0
	for began := time.Now(); time.Since(began) < 50*time.Millisecond; {
		x = x*1.0000001 + 1e-9
	}
	_ = x
	p1 := Process()
	t1, _ := Thread()
	if p0 == 0 && p1 == 0 {
		t.Skip("CPU time is not measured on this platform")
	}
	if p1 <= p0 {
		t.Errorf("process CPU time went from %v to %v over 50 ms of work", p0, p1)
	}
	if threadOK && t1 <= t0 {
		t.Errorf("thread CPU time went from %v to %v over 50 ms of work", t0, t1)
	}
	if PeakRSS() <= 0 {
		t.Errorf("peak RSS %d, want > 0", PeakRSS())
	}
}
