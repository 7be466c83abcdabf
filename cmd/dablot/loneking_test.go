package main

import (
	"strings"
	"testing"
)

func TestLoneKing(t *testing.T) {
	out, err := runCmd(t, "analyse", "loneking", "--variant", "keyland", "--soldiers", "1", "--fen", "6/5/6/5/6/5/6/5/6/5/6/5/Kk1S2 s")
	if err != nil {
		t.Fatal(err, out)
	}
	wantOutput(t, out,
		"loneking: keyland, South's king and up to 1 soldiers",
		"715680      21804 of 357840 (6.09 %)   0 of 357840 (0.00 %)",
		"position: South wins by force in 1 turns",
	)
	out, err = runCmd(t, "analyse", "loneking", "--soldiers", "0", "--fen", "6/5/6/5/6/5/6/5/6/5/6/5/K2k2 s")
	if err != nil || !strings.Contains(out, "South has no forced win") {
		t.Errorf("two kings: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--soldiers", "3"}, "--soldiers 3: want 0 to 2"},
		{[]string{"--soldiers", "0", "--fen", "startpos"}, "not South's king and up to 0 soldiers"},
		{[]string{"--fen", "6/5/6/5 s"}, "fen"},
		{[]string{"--variant", "nosuch"}, "nosuch"},
	} {
		out, err := runCmd(t, append([]string{"analyse", "loneking"}, tc.args...)...)
		if err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tc.want)) {
			t.Errorf("%v: error %v, want one naming %q\n%s", tc.args, err, tc.want, out)
		}
	}
}
