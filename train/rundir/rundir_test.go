package rundir

import (
	"fmt"
	"testing"
)

// TestSnapshotName: a snapshot's name reads back as its variant and CPU
// hours, hyphenated variants and fractions of an hour too; other names,
// and hours that SnapshotName would write otherwise, are not snapshots.
func TestSnapshotName(t *testing.T) {
	for _, tc := range []struct {
		variant string
		h       float64
		name    string
	}{
		{"dablot", 1, "dablot-1h.dbm"},
		{"dablot", 0.5, "dablot-0.5h.dbm"},
		{"frostviken", 16, "frostviken-16h.dbm"},
		{"daablot-17", 4, "daablot-17-4h.dbm"},
		{"winther-all-must-capture", 1e-12, "winther-all-must-capture-1e-12h.dbm"},
	} {
		if got := SnapshotName(tc.variant, tc.h); got != tc.name {
			t.Errorf("SnapshotName(%s, %g) = %q, want %q", tc.variant, tc.h, got, tc.name)
		}
		v, h, ok := ParseSnapshotName(tc.name)
		if !ok || v != tc.variant || h != tc.h {
			t.Errorf("ParseSnapshotName(%q) = %q, %g, %v", tc.name, v, h, ok)
		}
	}
	for _, name := range []string{
		"best.dbm", "dablot.dbm", "dablot-h.dbm", "-1h.dbm", "dablot-1h.dbm.tmp", "dablot-1h.pt",
		"dablot-0h.dbm", "dablot--1h.dbm", "dablot-NaNh.dbm", "dablot-Infh.dbm", "dablot-01h.dbm", "dablot-1.0h.dbm",
	} {
		if v, h, ok := ParseSnapshotName(name); ok {
			t.Errorf("ParseSnapshotName(%q) = %q, %g: want no snapshot", name, v, h)
		}
	}
}

func ExampleParseSnapshotName() {
	for _, name := range []string{SnapshotName("daablot-17", 2), "best.dbm"} {
		v, h, ok := ParseSnapshotName(name)
		fmt.Println(name, v, h, ok)
	}
	// Output:
	// daablot-17-2h.dbm daablot-17 2 true
	// best.dbm  0 false
}
