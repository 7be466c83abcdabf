package main

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/research/balance"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/train"
	"github.com/dablot-zero/dablot/train/rundir"
)

// saveTinyModel writes an untrained network of variant to path.
func saveTinyModel(t *testing.T, variant, path string) {
	t.Helper()
	m, err := model.NewNetwork(configs.MustVariant(variant), net.Config{Blocks: 1, Channels: 8, ValueHidden: 8}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(path, nil); err != nil {
		t.Fatal(err)
	}
}

// TestBalanceCommand runs the study end to end on two variants with tiny
// untrained models: the tables are printed, and the report, the results,
// the charts and the games are written.
func TestBalanceCommand(t *testing.T) {
	models := t.TempDir()
	for _, v := range []string{"frostviken", "daablot"} {
		saveTinyModel(t, v, filepath.Join(models, v+".dbm"))
	}
	out := filepath.Join(t.TempDir(), "study")
	code, stdout, stderr := run("analyse", "balance", "--variants", "frostviken,daablot", "--models", models, "--games", "2",
		"--sims", "4,8", "--main-sims", "4", "--open", "2", "--check-games", "2", "--anchor", "alphabeta:depth=1",
		"--guard", "1", "--threads", "1", "--workers", "2", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	wantOutput(t, stdout,
		"balance: frostviken, model "+filepath.Join(models, "frostviken.dbm"),
		"## Balance at the main strength", "| frostviken | south | 4 | 2 |", "| daablot | south | 4 | 2 |",
		"| 4 sims | 8 sims |", balance.Unreliable, "balance.md", "first-player-score.png",
	)
	md, err := os.ReadFile(filepath.Join(out, "balance.md"))
	if err != nil || !strings.Contains(string(md), "| daablot |") {
		t.Errorf("balance.md: %v\n%s", err, md)
	}
	var results []*balance.VariantResult
	data, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err == nil {
		err = json.Unmarshal(data, &results)
	}
	if err != nil || len(results) != 2 || results[1].Variant != "daablot" || len(results[1].PerSims) != 2 || results[0].AnchorWDL.Games() != 2 {
		t.Errorf("results.json: %v, %d results", err, len(results))
	}
	for _, name := range []string{balance.ScoreChart, balance.LadderChart, balance.OutcomesChart, balance.EndsChart} {
		f, err := os.Open(filepath.Join(out, name))
		if err != nil {
			t.Error(err)
			continue
		}
		if _, err := png.Decode(f); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		f.Close()
	}
	for _, v := range []string{"frostviken", "daablot"} {
		f, err := os.Open(filepath.Join(out, "games", v+".pgn"))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := game.ReadPGN(f)
		f.Close()
		if err != nil || len(recs) != 2*2+2 {
			t.Fatalf("%s games: %d records, %v", v, len(recs), err)
		}
		for _, rec := range recs {
			if _, err := rec.Replay(configs.MustVariant(v)); err != nil {
				t.Errorf("%s: %v", v, err)
			}
		}
	}
}

// TestBalancePreset: a variant without a model is trained with the preset
// (a tiny one, as a YAML file), and the study uses the run's best model;
// run again, the finished run is resumed, not trained anew.
func TestBalancePreset(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model")
	}
	cfg, err := train.LoadConfig("../../configs/train/smoke.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Name = "tiny"
	cfg.Network = train.NetworkConfig{Blocks: 1, Channels: 8, ValueHidden: 8}
	cfg.SelfPlay.Games, cfg.SelfPlay.Workers = 2, 2
	cfg.SelfPlay.FullSims, cfg.SelfPlay.FastSims = 4, 2
	cfg.Train.BatchSize, cfg.Train.MinSteps, cfg.Train.WindowMin, cfg.Train.WindowMax = 16, 1, 16, 1000
	cfg.Evaluation.Mode = "always"
	cfg.Rating.Every = 0
	cfg.Stop.Generations, cfg.Stop.Hours = 1, 0
	dir := t.TempDir()
	preset := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(preset, cfg.YAML(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "study")
	args := []string{"analyse", "balance", "--variants", "frostviken", "--models", filepath.Join(dir, "none"), "--preset", preset,
		"--games", "2", "--sims", "4", "--check-games", "0", "--guard", "0", "--threads", "1", "--workers", "2", "--out", out}
	code, stdout, stderr := run(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	best := filepath.Join(out, "runs", "frostviken-tiny", rundir.BestFile)
	wantOutput(t, stdout, "no model; training one with "+preset, "run finished: 1 generations", "model "+best,
		"strength not checked against alphabeta:depth=4")
	code, stdout, stderr = run(args...)
	if code != 0 || !strings.Contains(stdout, "resuming the training run") || strings.Contains(stdout, "no model; training") {
		t.Errorf("second run: exit %d: %s\n%s", code, stderr, stdout)
	}
}

// TestBalanceErrors: bad flags and missing or mismatched models give clear
// messages before any game is played.
func TestBalanceErrors(t *testing.T) {
	models := t.TempDir()
	saveTinyModel(t, "daablot", filepath.Join(models, "frostviken.dbm")) // the wrong variant
	missing := filepath.Join(models, "daablot-king.dbm")
	for _, tc := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{}, 2, []string{"--variants is required"}},
		{[]string{"--variants", "nosuch"}, 1, []string{"unknown variant \"nosuch\""}},
		{[]string{"--variants", "daablot-king", "--models", models}, 1, []string{missing, "does not exist", "--preset"}},
		{[]string{"--variants", "frostviken", "--models", models}, 1, []string{"frostviken.dbm", "plays daablot, not frostviken"}},
		{[]string{"--variants", "frostviken", "--games", "0"}, 2, []string{"--games 0"}},
		{[]string{"--variants", "frostviken", "--sims", "50,x"}, 2, []string{"--sims \"50,x\""}},
		{[]string{"--variants", "frostviken", "--sims", "0"}, 2, []string{"--sims"}},
		{[]string{"--variants", "frostviken", "--sims", "50,1000000000000"}, 2, []string{"--sims \"50,1000000000000\"", "1 to 1000000"}},
		{[]string{"--variants", "frostviken", "--main-sims", "1000000000000"}, 2, []string{"--main-sims 1000000000000: want 0 to 1000000"}},
		{[]string{"--variants", "frostviken", "--search", "alphabeta"}, 2, []string{"--search"}},
		{[]string{"--variants", "frostviken", "--anchor", "nosuch:depth=1"}, 2, []string{"--anchor"}},
		{[]string{"--variants", "frostviken", "--anchor", "alphabeta:depth=abc"}, 2, []string{"--anchor", "depth=abc"}},
		{[]string{"--variants", "frostviken", "--temp", "-1"}, 2, []string{"--temp"}},
		{[]string{"--variants", "frostviken", "--preset", filepath.Join(models, "nosuch.yaml")}, 1, []string{"--preset", "nosuch.yaml"}},
		{[]string{"--variants", "frostviken", "--preset", "shorts"}, 1, []string{"--preset shorts: unknown preset \"shorts\" (built-in presets: hour,"}},
		{[]string{"--variants", "frostviken", "extra"}, 2, []string{"unexpected argument"}},
	} {
		code, stdout, stderr := run(append([]string{"analyse", "balance"}, tc.args...)...)
		ok := code == tc.code && !strings.Contains(stderr, "goroutine")
		for _, w := range tc.want {
			ok = ok && strings.Contains(stderr, w)
		}
		if !ok {
			t.Errorf("%v: exit %d, stderr %q (stdout %q); want exit %d and %q", tc.args, code, stderr, stdout, tc.code, tc.want)
		}
	}
}

func TestBalanceSplitVariants(t *testing.T) {
	for in, want := range map[string][]string{
		"keyland,dablot":                         {"keyland", "dablot"},
		"daablot,no_return=true,frostviken":      {"daablot,no_return=true", "frostviken"},
		" keyland , , winther,promotion=prince ": {"keyland", "winther,promotion=prince"},
		"":                                       nil,
	} {
		if got := splitVariants(in); !slices.Equal(got, want) {
			t.Errorf("splitVariants(%q) = %q, want %q", in, got, want)
		}
	}
	if got := fileName("frostviken,setup=ss/SS s"); got != "frostviken,setup=ss_SS_s" {
		t.Errorf("fileName: %q", got)
	}
	var buf bytes.Buffer
	if code := runMain([]string{"help", "analyse"}, &buf, &buf); code != 0 || !strings.Contains(buf.String(), "\n  balance ") {
		t.Errorf("help analyse does not list balance:\n%s", buf.String())
	}
}

// TestBalanceResume: a study run again with --resume keeps each variant of
// the same model and settings, and studies again a variant whose model
// changed or, with other settings, every one.
func TestBalanceResume(t *testing.T) {
	models := t.TempDir()
	for _, v := range []string{"frostviken", "daablot"} {
		saveTinyModel(t, v, filepath.Join(models, v+".dbm"))
	}
	out := filepath.Join(t.TempDir(), "study")
	args := []string{"analyse", "balance", "--variants", "frostviken,daablot", "--models", models, "--games", "2",
		"--sims", "4", "--open", "2", "--check-games", "2", "--anchor", "alphabeta:depth=1", "--guard", "1",
		"--threads", "1", "--workers", "2", "--out", out}
	if o, err := runCmd(t, args...); err != nil {
		t.Fatalf("%v\n%s", err, o)
	}
	first, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	o, err := runCmd(t, append(args, "--resume")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, o)
	}
	for _, v := range []string{"frostviken", "daablot"} {
		if !strings.Contains(o, "balance: "+v+": kept from") {
			t.Errorf("%s not kept:\n%s", v, o)
		}
	}
	if again, _ := os.ReadFile(filepath.Join(out, "results.json")); !bytes.Equal(again, first) {
		t.Error("a study kept whole changed its results")
	}

	// Another daablot model: daablot is studied again, frostviken kept.
	m, err := model.NewNetwork(configs.MustVariant("daablot"), net.Config{Blocks: 1, Channels: 8, ValueHidden: 8}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(filepath.Join(models, "daablot.dbm"), nil); err != nil {
		t.Fatal(err)
	}
	if o, err = runCmd(t, append(args, "--resume")...); err != nil {
		t.Fatalf("%v\n%s", err, o)
	}
	if !strings.Contains(o, "balance: frostviken: kept from") || strings.Contains(o, "balance: daablot: kept") ||
		!strings.Contains(o, "balance: daablot, model") {
		t.Errorf("after a new daablot model:\n%s", o)
	}
	// Other settings: every variant is studied again.
	if o, err = runCmd(t, append(args, "--resume", "--seed", "2")...); err != nil || strings.Contains(o, "kept from") {
		t.Errorf("another seed: %v\n%s", err, o)
	}
	// A damaged results file is an error that names it.
	if err := os.WriteFile(filepath.Join(out, "results.json"), []byte("[{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if o, err = runCmd(t, append(args, "--resume")...); err == nil || !strings.Contains(o, "results.json") {
		t.Errorf("a damaged results file: %v\n%s", err, o)
	}
}

// TestBalanceResumeGames: a study stopped within a variant goes on game by
// game with --resume: the games its file holds are counted, not played
// again, and the results are those of a study run straight through. A
// games file of another study is moved aside, not overwritten.
func TestBalanceResumeGames(t *testing.T) {
	models := t.TempDir()
	saveTinyModel(t, "frostviken", filepath.Join(models, "frostviken.dbm"))
	out := filepath.Join(t.TempDir(), "study")
	args := []string{"analyse", "balance", "--variants", "frostviken", "--models", models, "--games", "4",
		"--sims", "4", "--open", "2", "--check-games", "2", "--anchor", "alphabeta:depth=1", "--guard", "0",
		"--threads", "1", "--workers", "2", "--out", out}
	if o, err := runCmd(t, args...); err != nil {
		t.Fatalf("%v\n%s", err, o)
	}
	readResults := func() []*balance.VariantResult {
		t.Helper()
		var rs []*balance.VariantResult
		data, err := os.ReadFile(filepath.Join(out, "results.json"))
		if err == nil {
			err = json.Unmarshal(data, &rs)
		}
		if err != nil || len(rs) != 1 {
			t.Fatalf("results.json: %v, %d results", err, len(rs))
		}
		rs[0].Elapsed, rs[0].ResumedGames = 0, 0
		for i := range rs[0].PerSims {
			rs[0].PerSims[i].Elapsed = 0
		}
		return rs
	}
	first := readResults()
	gamesPath := filepath.Join(out, "games", "frostviken.pgn")
	recs := readPGNFile(t, gamesPath)
	if len(recs) != 6 {
		t.Fatalf("%d games recorded, want 6", len(recs))
	}

	// Stopped after three games: results.json without the variant, the
	// games file with the three.
	var buf bytes.Buffer
	for _, rec := range recs[:3] {
		if err := rec.WritePGN(&buf); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(gamesPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(out, "results.json")); err != nil {
		t.Fatal(err)
	}
	o, err := runCmd(t, append(args, "--resume")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, o)
	}
	wantOutput(t, o, "3 of its 6 games from "+gamesPath+", played before")
	if again := readResults(); !reflect.DeepEqual(again, first) {
		t.Errorf("resumed game by game:\n%+v\nstraight through:\n%+v", again[0], first[0])
	}
	if n := len(readPGNFile(t, gamesPath)); n != 6 {
		t.Errorf("the games file holds %d games after the resumed study, want 6", n)
	}

	// Another seed: the games of the first study are moved aside.
	if err := os.Remove(filepath.Join(out, "results.json")); err != nil {
		t.Fatal(err)
	}
	if o, err = runCmd(t, append(args, "--resume", "--seed", "2")...); err != nil {
		t.Fatalf("%v\n%s", err, o)
	}
	wantOutput(t, o, "balance: moved "+gamesPath, "6 of its 6 games are of another study")
	aside, _ := filepath.Glob(filepath.Join(out, "games", "frostviken*.pgn"))
	if len(aside) != 2 {
		t.Fatalf("games files %v, want the new one and the one moved aside", aside)
	}
	for _, p := range aside {
		if n := len(readPGNFile(t, p)); n != 6 {
			t.Errorf("%s holds %d games, want 6", p, n)
		}
	}
	// A games file that does not parse is an error naming it.
	if err := os.Remove(filepath.Join(out, "results.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gamesPath, []byte("[Variant \"frostviken\"\n\n1. z99-z98\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if o, err = runCmd(t, append(args, "--resume")...); err == nil || !strings.Contains(o, gamesPath) {
		t.Errorf("a damaged games file: %v\n%s", err, o)
	}
}

// TestBalanceResumeKeepsResults: a resumed study that stops part way
// still holds in results.json the studies it keeps of the variants it has
// not reached, and an earlier results file with studies it does not keep
// is moved aside, not overwritten.
func TestBalanceResumeKeepsResults(t *testing.T) {
	models := t.TempDir()
	for _, v := range []string{"frostviken", "daablot", "daablot-king"} {
		saveTinyModel(t, v, filepath.Join(models, v+".dbm"))
	}
	out := filepath.Join(t.TempDir(), "study")
	args := func(variants string) []string {
		return []string{"analyse", "balance", "--variants", variants, "--models", models, "--games", "2",
			"--sims", "4", "--open", "2", "--check-games", "0", "--guard", "0",
			"--threads", "1", "--workers", "2", "--out", out, "--resume"}
	}
	if o, err := runCmd(t, args("daablot,frostviken")...); err != nil {
		t.Fatalf("%v\n%s", err, o)
	}
	variants := func(path string) []string {
		t.Helper()
		var rs []*balance.VariantResult
		data, err := os.ReadFile(path)
		if err == nil {
			err = json.Unmarshal(data, &rs)
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var names []string
		for _, r := range rs {
			names = append(names, r.Variant)
		}
		return names
	}
	// A new daablot model, then a study of daablot (again), daablot-king
	// (which fails: its games file cannot be written) and frostviken (kept).
	m, err := model.NewNetwork(configs.MustVariant("daablot"), net.Config{Blocks: 1, Channels: 8, ValueHidden: 8}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(filepath.Join(models, "daablot.dbm"), nil); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(out, "games", "daablot-king.pgn"), 0o755); err != nil {
		t.Fatal(err)
	}
	o, err := runCmd(t, args("daablot,daablot-king,frostviken")...)
	if err == nil {
		t.Fatalf("a study whose games file is a directory did not fail:\n%s", o)
	}
	wantOutput(t, o, "balance: moved "+filepath.Join(out, "results.json"), "1 of its 2 studies are not kept")
	if got := variants(filepath.Join(out, "results.json")); !slices.Equal(got, []string{"daablot", "frostviken"}) {
		t.Errorf("results.json after the stop holds %v, want daablot (new) and frostviken (kept)", got)
	}
	aside, _ := filepath.Glob(filepath.Join(out, "results-*.json"))
	if len(aside) != 1 || !slices.Equal(variants(aside[0]), []string{"daablot", "frostviken"}) {
		t.Errorf("results moved aside: %v", aside)
	}
	// Resumed once more, everything is kept and nothing moved.
	if err := os.Remove(filepath.Join(out, "games", "daablot-king.pgn")); err != nil {
		t.Fatal(err)
	}
	if o, err = runCmd(t, args("daablot,daablot-king,frostviken")...); err != nil {
		t.Fatalf("%v\n%s", err, o)
	}
	wantOutput(t, o, "balance: daablot: kept", "balance: frostviken: kept")
	if strings.Contains(o, "moved") {
		t.Errorf("a resumed study that keeps every earlier study moved something:\n%s", o)
	}
	if got := variants(filepath.Join(out, "results.json")); !slices.Equal(got, []string{"daablot", "daablot-king", "frostviken"}) {
		t.Errorf("results.json holds %v", got)
	}
}
