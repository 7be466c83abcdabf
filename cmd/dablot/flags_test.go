package main

import (
	"math"
	"testing"
)

// TestInRange: the one range check, for ints and floats, flags and
// request input alike.
func TestInRange(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string // "" for no error
	}{
		{"low end", inRange("--games", 1, 1, 1000), ""},
		{"high end", inRange("--games", 1000, 1, 1000), ""},
		{"below", inRange("--games", 0, 1, 1000), "--games 0: want 1 to 1000"},
		{"above", inRange("go sims", 1_000_001, 1, 1_000_000), "go sims 1000001: want 1 to 1000000"},
		{"negative", inRange("sims", -1, 1, 100), "sims -1: want 1 to 100"},
		{"float inside", inRange("--temp", 0.5, 0, 1.5), ""},
		{"float above", inRange("--temp", 2.5, 0, 1.5), "--temp 2.5: want 0 to 1.5"},
		{"NaN", inRange("--temp", math.NaN(), 0, 1.5), "--temp NaN: want 0 to 1.5"},
		{"infinity", inRange("--temp", math.Inf(1), 0, 1.5), "--temp +Inf: want 0 to 1.5"},
	} {
		got := ""
		if tc.err != nil {
			got = tc.err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
