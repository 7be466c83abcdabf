package main

import (
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/net/model"
)

// TestMakefileHourModels: each model that make bars-hour measures
// (HOUR_<variant> ?= FILE) is there and plays that variant.
func TestMakefileHourModels(t *testing.T) {
	data, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for line := range strings.Lines(string(data)) {
		name, path, ok := strings.Cut(strings.TrimSpace(line), " ?= ")
		variant, isHour := strings.CutPrefix(name, "HOUR_")
		if !ok || !isHour {
			continue
		}
		found++
		m, err := model.LoadModel("../../" + path)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if m.Rules.Name != variant {
			t.Errorf("%s = %s plays %s", name, path, m.Rules.Name)
		}
	}
	if found != 3 {
		t.Errorf("%d HOUR_ models in the Makefile, want 3 (dablot, winther, frostviken)", found)
	}
}

// TestMakeCurve: make curve runs the binary BIN as it is (a pinned one
// too, never building it) on the run RUN: the ladder's curve, whose
// command line parses, resumed from curves/NAME, then its plot; without
// RUN it stops with a message.
func TestMakeCurve(t *testing.T) {
	makeN := func(vars ...string) (string, error) {
		cmd := exec.Command("make", append([]string{"-n", "-s", "--no-print-directory", "-C", "../..", "curve"}, vars...)...)
		for _, kv := range os.Environ() {
			name, _, _ := strings.Cut(kv, "=")
			if !slices.Contains([]string{"BIN", "RUN", "MS", "CURVE_GAMES", "SPRT", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"}, name) {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := makeN("RUN=runs/dablot-overnight/", "BIN=/pinned/dablot", "SPRT=0,50")
	if err != nil {
		t.Fatalf("make -n curve: %v\n%s", err, out)
	}
	var ladderArgs []string
	reports := 0
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		switch {
		case len(f) > 1 && f[0] == "/pinned/dablot" && f[1] == "ladder":
			ladderArgs = f[2:]
		case len(f) > 1 && f[0] == "/pinned/dablot" && f[1] == "report":
			reports++
			if !strings.Contains(line, "--curve docs/curve.tsv --snapshots runs/dablot-overnight/ --ms 100") {
				t.Errorf("the plot: %s", line)
			}
		case strings.Contains(line, "go build") || strings.Contains(line, "bin/dablot "):
			t.Errorf("make curve with a pinned binary builds or runs another: %s", line)
		}
	}
	if ladderArgs == nil || reports != 1 {
		t.Fatalf("make -n curve printed no ladder and report commands:\n%s", out)
	}
	lf, err := parseLadder(ladderArgs, io.Discard)
	if err != nil || lf.curve != "runs/dablot-overnight/" || lf.ms != 100 || lf.games != 50 || lf.sprt == nil || lf.sprt.Elo1 != 50 ||
		lf.out != "curves/dablot-overnight" || !lf.resume || lf.results != curveDefaultResults {
		t.Errorf("make curve runs ladder %q: %+v, %v", ladderArgs, lf, err)
	}
	if out, err := makeN(); err == nil || !strings.Contains(out, "make curve RUN=DIR") {
		t.Errorf("make curve without RUN: %v\n%s", err, out)
	}
}

// TestMakefileKind: the bars' players search as the shipped player does
// (mcts.ShippedKind), which the Makefile cannot read from the code.
func TestMakefileKind(t *testing.T) {
	data, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	if want := "\nKIND ?= " + mcts.ShippedKind() + "\n"; !strings.Contains(string(data), want) {
		t.Errorf("the Makefile has no line %q", strings.TrimSpace(want))
	}
}
