package main

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model/modeltest"
)

func TestInfo(t *testing.T) {
	model := testModel(t, "keyland")
	code, out, stderr := run("info", model)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wantOutput(t, out,
		"variant       keyland",
		"\nrules:\n  name: keyland\n",
		"\n  board: {columns: 6, rows: 7}\n",
		"\n    soldier: {step: all, must_capture: false, chain_must_continue: false}\n",
		"\n  no_capture_limit: 400\n",
		"board         6 × 7 lines, 72 points",
		"encoding      version ",
		"architecture  1 residual block × 8 channels, value head 8",
		"score head    no\n",
		"short-term    no\n",
		"ownership     no\n",
		"tactical      no\n",
		"parameters    ",
		"generation    3",
		"training      1,234 games, 56,789 samples, 0 steps, 0.25 hours",
		"run           test-run",
		"started from  models/earlier.dbm (sha256 0123abcd)",
		"created       ",
		"checksum      sha256 ",
		"metadata sha256 ",
		"ratings:\n  name    elo    err95  games  score  anchor\n  gen3    152.5  30.1   40     0.710  false",
	)
	// The rules are the YAML a user writes, without internal codes (a step
	// set as its bits, 255; the temporary path may hold "255" by chance).
	for _, bad := range []string{`"step"`, "step: 255", `{"name"`} {
		if strings.Contains(out, bad) {
			t.Errorf("output has %q:\n%s", bad, out)
		}
	}
}

// TestInfoHeads: info shows a model's auxiliary heads: the score head with
// the score utility it was trained with, the short-term value heads, the
// ownership head; and its tactical input planes.
func TestInfoHeads(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*net.Config)
		want []string
	}{
		{"score", func(c *net.Config) { c.ScoreHead = true }, []string{
			"score head    yes: material lead, squashed; score utility 0.25 (value + 0.25·score; su= overrides)\n",
			"short-term    no\n"}},
		{"short-term", func(c *net.Config) { c.ShortTermHeads = 2 }, []string{
			"score head    no\n",
			"short-term    2 value heads: future search values (training aids; the search ignores them)\n"}},
		{"ownership", func(c *net.Config) { c.OwnershipHead = true }, []string{
			"short-term    no\n",
			"ownership     yes: who holds each point at the end of the game (a training aid; the search ignores it)\n"}},
		{"tactical", func(c *net.Config) { c.TacticalPlanes = true }, []string{
			"encoding      version 2\n",
			"architecture  1 residual block × 8 channels, value head 8, 46 input planes\n",
			"tactical      yes: 4 input planes of capture facts (threatened and takeable pieces, where captures end)\n"}},
	} {
		cfg := modeltest.TinyNet
		tc.edit(&cfg)
		m := modeltest.NewModelOf(t, "frostviken", cfg, 2)
		if cfg.ScoreHead {
			m.ScoreUtility = 0.25
		}
		path := filepath.Join(t.TempDir(), "s.dbm")
		if err := m.Save(path, nil); err != nil {
			t.Fatal(err)
		}
		code, out, stderr := run("info", path)
		for _, want := range tc.want {
			if code != 0 || !strings.Contains(out, want) {
				t.Errorf("%s: exit %d (%s), output lacks %q:\n%s", tc.name, code, stderr, want, out)
			}
		}
	}
}

func TestInfoErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.dbm")
	if err := os.WriteFile(garbage, []byte("hello, world: not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.dbm")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A real model cut short within its header.
	shipped, err := os.ReadFile("../../models/keyland.dbm")
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.dbm")
	if err := os.WriteFile(cut, shipped[:1000], 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(testModel(t, "frostviken"))
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(dir, "truncated.dbm")
	if err := os.WriteFile(truncated, data[:len(data)-100], 0o644); err != nil {
		t.Fatal(err)
	}
	// The rules edited by hand (as a user would, with a text editor on the
	// JSON header): frostviken with a 3-ply limit, its canonical form to
	// match, its fingerprint as it was.
	edited := filepath.Join(dir, "edited.dbm")
	other := configs.MustVariant("frostviken,max_plies=3")
	n := binary.LittleEndian.Uint64(data)
	var h map[string]any
	if err := json.Unmarshal(data[8:8+n], &h); err != nil {
		t.Fatal(err)
	}
	meta := h["__metadata__"].(map[string]any)
	meta["rules_yaml"], meta["rules_canonical"] = string(other.YAML()), other.Canonical()
	hj, _ := json.Marshal(h)
	img := binary.LittleEndian.AppendUint64(nil, uint64(len(hj)))
	if err := os.WriteFile(edited, append(append(img, hj...), data[8+n:]...), 0o644); err != nil {
		t.Fatal(err)
	}
	flipped := filepath.Join(dir, "flipped.dbm")
	data[len(data)-5] ^= 0x40
	if err := os.WriteFile(flipped, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"info"}, 2, "which model file"},
		{[]string{"info", "a.dbm", "b.dbm"}, 2, "unexpected argument"},
		{[]string{"info", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"info", filepath.Join(dir, "missing.dbm")}, 1, "no such file"},
		{[]string{"info", garbage}, 1, "model " + garbage + ": net: load: not a dablot model file: it begins with \"hello, w\""},
		{[]string{"info", empty}, 1, "model " + empty + ": net: load: not a dablot model file: the file is empty"},
		{[]string{"info", "../../README.md"}, 1, "model ../../README.md: net: load: not a dablot model file"},
		{[]string{"info", cut}, 1, "model " + cut + ": net: load: truncated file: header length "},
		{[]string{"info", truncated}, 1, "model " + truncated + ": net: load: tensor"},
		{[]string{"info", flipped}, 1, "checksum"},
		{[]string{"info", edited}, 1, "metadata checksum mismatch: the metadata were changed after the file was written"},
		{[]string{"engine", "--model", edited}, 1, "metadata checksum mismatch"},
	} {
		code, _, stderr := run(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "goroutine") {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

func TestInfoRatings(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`[{"Name":"a","Elo":10},{"Name":"b","Elo":-3.25,"Extra":"x"}]`, "  name  elo   extra\n  a     10\n  b     -3.2  x\n"},
		{`[{"player":"random","elo":0}]`, "  player  elo\n  random  0\n"},
		{`{"gen2": 40, "random": 0, "gen5": 120.5}`, "  player  Elo\n  gen5    120.5\n  gen2    40\n  random  0\n"},
		{`not json at all`, "  not json at all\n"},
		{`[]`, "  []\n"},
		{`[1, 2]`, "  [1, 2]\n"},
	} {
		if got := formatRatings(tc.in); got != tc.want {
			t.Errorf("formatRatings(%s) =\n%s\nwant\n%s", tc.in, got, tc.want)
		}
	}
}

func TestGroupDigits(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -45678: "-45,678"} {
		if got := groupDigits(n); got != want {
			t.Errorf("groupDigits(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestFormatJSONValue(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{float64(0), "0"},
		{-1e-9, "0"},
		{1e-9, "0"},
		{-0.25, "-0.250"},
		{0.6111, "0.611"},
		{466.34, "466.3"},
		{-120.06, "-120.1"},
		{float64(18), "18"},
		{"x", "x"},
		{nil, "-"},
		{true, "true"},
	} {
		if got := formatJSONValue(tc.in); got != tc.want {
			t.Errorf("formatJSONValue(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
