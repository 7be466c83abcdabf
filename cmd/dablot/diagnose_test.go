package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/internal/research/diagnose"
)

// TestDiagnoseCommands runs the diagnosis end to end with a tiny untrained
// winther model (its games end by the king's capture or the limit): self-play
// writes its games and samples, targets prints the same table again, positions
// measures and resumes, and guard replays the self-play games.
func TestDiagnoseCommands(t *testing.T) {
	dir := t.TempDir()
	modelPath := filepath.Join(dir, "winther.dbm")
	saveTinyModel(t, "winther", modelPath)
	cfgPath := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(cfgPath, []byte(`base: hour
name: tiny
selfplay: {games: 2, workers: 2, full_sims: 4, fast_sims: 2, full_fraction: 0.5, endgame_fraction: 1, endgame_soldiers: 2}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	sp := filepath.Join(dir, "sp")
	code, out, stderr := run("analyse", "diagnose", "selfplay", "--model", modelPath, "--config", cfgPath, "--games", "2", "--out", sp)
	if code != 0 {
		t.Fatalf("selfplay: exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "selfplay: winther, 2 games") || !strings.Contains(out, "| all |") {
		t.Errorf("selfplay printed:\n%s", out)
	}
	table := out[strings.Index(out, "value target ="):]
	samples := filepath.Join(sp, "samples.jsonl")
	code, out, stderr = run("analyse", "diagnose", "targets", "--samples", samples, "--config", cfgPath)
	if code != 0 || out != table {
		t.Errorf("targets: exit %d (%s), printed\n%s\nwant the table of selfplay:\n%s", code, stderr, out, table)
	}

	rows := filepath.Join(dir, "rows.jsonl")
	args := []string{"analyse", "diagnose", "positions", "--model", modelPath, "--samples", samples, "--config", cfgPath,
		"--per-phase", "2", "--depths", "2,2,2,2,2", "--threads", "2", "--out", rows}
	code, out, stderr = run(args...)
	if code != 0 || !strings.Contains(out, "Against the deep search") || !strings.Contains(out, "| 4 | all |") {
		t.Fatalf("positions: exit %d (%s):\n%s", code, stderr, out)
	}
	measured, err := readRows[diagnose.PositionRow](rows)
	if err != nil || len(measured) == 0 {
		t.Fatalf("rows: %v, %d", err, len(measured))
	}
	if code, _, stderr = run(args...); code == 0 || !strings.Contains(stderr, "exists") {
		t.Errorf("positions again without --resume: exit %d, %s", code, stderr)
	}
	code, again, stderr := run(append(args, "--resume")...)
	if code != 0 || !strings.Contains(again, "measured before") {
		t.Errorf("positions --resume: exit %d (%s):\n%s", code, stderr, again)
	}
	if strings.Contains(again, "\nmeasured") && !strings.Contains(again, "measured 0 positions") {
		t.Errorf("positions --resume measured again:\n%s", again)
	}
	redone := filepath.Join(dir, "redone.jsonl")
	code, out, stderr = run(append(args, "--redo-searches", redone)...)
	if code != 0 || !strings.Contains(out, "searched") || out[strings.Index(out, "Against"):] != again[strings.Index(again, "Against"):] {
		t.Errorf("positions --redo-searches: exit %d (%s):\n%s\nwant the tables of\n%s", code, stderr, out, again)
	}

	guardRows := filepath.Join(dir, "guard.jsonl")
	guard := []string{"analyse", "diagnose", "guard", "--model", modelPath, "--records", filepath.Join(sp, "games.jsonl"),
		"--player", "", "--every", "5", "--nodes", "2000", "--sims", "4", "--threads", "2"}
	code, out, stderr = run(append(guard, "--out", guardRows)...)
	if code != 0 || !strings.Contains(out, "guard leaves a choice") || !strings.Contains(out, "| all |") {
		t.Fatalf("guard: exit %d (%s):\n%s", code, stderr, out)
	}
	code, again, stderr = run(append(guard, "--rows", guardRows)...)
	if tables := out[strings.Index(out, "| phase"):]; code != 0 || !strings.HasSuffix(again, tables) {
		t.Errorf("guard --rows: exit %d (%s):\n%s\nwant the tables:\n%s", code, stderr, again, tables)
	}
}
