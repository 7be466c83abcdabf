package main

import (
	"bytes"
	"strings"
	"testing"
)

func run(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = runMain(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestCommandErrors: bad arguments give a clear message and a non-zero exit,
// never a stack trace.
func TestCommandErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"nosuch"}, 2, "unknown command"},
		{[]string{"show"}, 2, "--variant is required"},
		{[]string{"show", "--variant", "nosuch"}, 1, "unknown variant"},
		{[]string{"show", "--variant", "keyland", "--fen", "sssss/ssss/pssss/ksss/5/SSSK/SSSSP/SSSS/SSSSS s"}, 1, "rows"},
		{[]string{"show", "--variant", "keyland", "--fen", "x"}, 1, "FEN"},
		{[]string{"show", "--variant", "keyland", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"show", "--variant", "keyland", "extra"}, 2, "unexpected argument"},
		{[]string{"legal", "--variant", "keyland,no_return=maybe"}, 1, "no_return"},
		{[]string{"legal", "--variant", "keyland,=1"}, 1, "want key=value"},
		{[]string{"legal", "--variant", "/nonexistent/v.yaml"}, 1, "variant file"},
		{[]string{"perft", "--variant", "keyland"}, 2, "--depth"},
		{[]string{"perft", "--variant", "keyland", "--depth", "99"}, 2, "--depth"},
		{[]string{"bench"}, 2, "which benchmark"},
		{[]string{"bench", "nosuch"}, 2, "unknown benchmark"},
		{[]string{"bench", "playouts", "--threads", "0"}, 2, "--threads"},
	} {
		code, _, stderr := run(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "goroutine") {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

func TestCommands(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"help"}, []string{"variants", "perft", "bench"}},
		{[]string{"variants"}, []string{"keyland", "daablot-16", "41 points"}},
		{[]string{"variants", "-v"}, []string{"assumed"}},
		{[]string{"show", "--variant", "keyland"}, []string{" 13 s---s", "a b c d e f g h i j k", "15 legal turns"}},
		{[]string{"legal", "--variant", "keyland"}, []string{"i5-i7\nj6-i7\nk7-i7"}},
		{[]string{"legal", "--variant", "keyland", "--decisions"}, []string{"i5-i7"}},
		{[]string{"perft", "--variant", "keyland", "--depth", "3"}, []string{"perft(3) = 4361 turns"}},
		{[]string{"perft", "--variant", "keyland", "--depth", "2", "--divide"}, []string{"total\t223"}},
		{[]string{"perft", "--variant", "winther", "--depth", "2", "--decisions", "--divide"}, []string{"total\t167"}},
		{[]string{"bench", "playouts", "--variant", "frostviken", "--seconds", "0.2", "--threads", "2"}, []string{"playouts/s", "decisions/s"}},
		{[]string{"bench", "net", "--blocks", "1", "--channels", "16", "--seconds", "0.05"}, []string{"inference", "training", "sgemm 512³", "peak memory (resident)"}},
	} {
		code, stdout, stderr := run(tc.args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", tc.args, code, stderr)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args, w, stdout)
			}
		}
	}
}
