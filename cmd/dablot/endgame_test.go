package main

import (
	"strings"
	"testing"
)

func TestEndgame(t *testing.T) {
	// Game 5 of the 1 s ladder: the model's king and prince against a
	// soldier, a forced win it drew.
	const fen = "6/5/4s1/5/6/5/6/5/1K4/5/3P2/5/6 n - 0 263"
	out, err := runCmd(t, "analyse", "endgame", "--material", "KP-S", "--fen", fen)
	if err != nil {
		t.Fatal(err, out)
	}
	for _, want := range []string{
		"endgame: dablot, 3 endings, no-capture limit 100",
		"K-S     10224       6.2/93.8/0.0 %",
		"KP-S    715680      100.0/0.0/0.0 %                   0.0/0.0/100.0 %                   41",
		"position: north to move loses, settled in 30 turns (no-capture counter 0); the tables play ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--variant", "keyland", "--pieces", "2"}, "passes"},
		{[]string{"--pieces", "4"}, "--pieces 4"},
		{[]string{"--material", "KPSS-S"}, "5 pieces"},
		{[]string{"--material", "KQ-S"}, "is not K, P or S"},
		{[]string{"--material", "K-S", "--fen", "startpos"}, "not a position of the endings solved"},
	} {
		out, err := runCmd(t, append([]string{"analyse", "endgame"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one naming %q\n%s", tc.args, err, tc.want, out)
		}
	}
}
