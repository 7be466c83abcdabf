package progress

import (
	"testing"
	"time"
)

func TestShortDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "0s"},
		{0, "0s"},
		{1400 * time.Millisecond, "1s"},
		{59*time.Second + 600*time.Millisecond, "1m00s"},
		{4*time.Minute + 10*time.Second, "4m10s"},
		{9*time.Minute + 59*time.Second + 700*time.Millisecond, "10m"},
		{35*time.Minute + 20*time.Second, "35m"},
		{59*time.Minute + 40*time.Second, "1h00m"},
		{7*time.Hour + 35*time.Minute + 10*time.Second, "7h35m"},
		{26 * time.Hour, "26h00m"},
	} {
		if got := ShortDuration(tc.d); got != tc.want {
			t.Errorf("ShortDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// TestBarText: a bar names its two times, and the time left is the rate
// so far applied to the steps left.
func TestBarText(t *testing.T) {
	for _, tc := range []struct {
		label   string
		done, n int
		elapsed time.Duration
		want    string
	}{
		{"gen 4 self-play", 0, 64, 2 * time.Second, "gen 4 self-play · 2s elapsed"},
		{"gen 4 self-play", 16, 64, 12 * time.Second, "gen 4 self-play · 12s elapsed, 36s left"},
		{"games", 29, 64, 58 * time.Second, "games · 58s elapsed, 1m10s left"},
		{"games", 64, 64, 3 * time.Minute, "games · 3m00s elapsed, 0s left"},
	} {
		if got := barText(tc.label, tc.done, tc.n, tc.elapsed); got != tc.want {
			t.Errorf("barText(%q, %d, %d, %v) = %q, want %q", tc.label, tc.done, tc.n, tc.elapsed, got, tc.want)
		}
	}
}
