package main

import (
	"os"
	"strings"
	"testing"

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
