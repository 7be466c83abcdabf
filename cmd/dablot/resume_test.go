package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/internal/recordio"
	"github.com/dablot-zero/dablot/internal/research/ladder"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
)

// keepRecords cuts a JSON-lines records file to its first n records, and
// adds a torn line after them if torn is set, as a kill would leave it.
func keepRecords(t *testing.T, path string, n int, torn bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) < n {
		t.Fatalf("%s: %d lines, want at least %d", path, len(lines), n)
	}
	text := strings.Join(lines[:n], "")
	if torn {
		text += lines[n][:len(lines[n])/2]
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestArenaResume: a match stopped after two of its four games (and a
// record torn by the kill) is continued by the same command with
// --resume: it plays only the games left and ends as the whole match did.
// Without --resume the records are moved aside, not overwritten, and a
// record of another match is refused.
func TestArenaResume(t *testing.T) {
	dir := t.TempDir()
	records := filepath.Join(dir, "games.jsonl")
	args := []string{"arena", "--variant", "dablot", "--a", "alphabeta:depth=1", "--b", "mcts:eval=rollout,sims=8,rollout=40,guard=0",
		"--games", "4", "--open", "2", "--threads", "2", "--seed", "5", "--out", records}
	wdl := regexp.MustCompile(`(?m)^A W/D/L .*$`)
	whole, err := runCmd(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, whole)
	}
	keepRecords(t, records, 2, true)
	out, err := runCmd(t, append(args, "--resume")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"dropping the last line of " + records, "resuming: 2 of 4 games already played", wdl.FindString(whole)} {
		if !strings.Contains(out, want) {
			t.Errorf("resumed output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "game 1/4") || strings.Contains(out, "game 2/4") || !strings.Contains(out, "game 4/4") {
		t.Errorf("the resumed match played games it had, or not those it lacked:\n%s", out)
	}
	recs, err := recordio.ReadFile(records)
	if err != nil || len(recs) != 4 {
		t.Fatalf("after resuming: %d records, %v", len(recs), err)
	}
	for i, rec := range recs {
		if rec.Tags["Game"] != string(rune('1'+i)) {
			t.Errorf("record %d is game %s", i+1, rec.Tags["Game"])
		}
	}

	// Another seed is another match: refused, the file untouched.
	before, _ := os.ReadFile(records)
	other := append(append([]string{}, args...), "--resume")
	other[len(other)-4] = "6" // the seed
	if out, err := runCmd(t, other...); err == nil || !strings.Contains(out, "record 1: tag Seed") {
		t.Errorf("records of another seed: %v\n%s", err, out)
	}
	if after, _ := os.ReadFile(records); string(after) != string(before) {
		t.Errorf("a refused resume changed the records")
	}

	// Without --resume the old records are moved aside.
	out, err = runCmd(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m := regexp.MustCompile(`moved the earlier records in \S+ to (\S+\.jsonl)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no move aside:\n%s", out)
	}
	if aside, err := os.ReadFile(m[1]); err != nil || string(aside) != string(before) {
		t.Errorf("the records set aside (%s) differ from the old ones: %v", m[1], err)
	}

	if out, err := runCmd(t, "arena", "--variant", "dablot", "--a", "greedy", "--b", "random", "--games", "2", "--resume"); err == nil ||
		!strings.Contains(out, "give --out") {
		t.Errorf("--resume without --out: %v\n%s", err, out)
	}
	// Records are written plain: a compressed file is not resumed, nor
	// named as --out.
	var z bytes.Buffer
	zw, err := zstd.NewWriter(&z)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(before)
	zw.Close()
	if err := os.WriteFile(records, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := runCmd(t, append(args, "--resume")...); err == nil || !strings.Contains(out, records+" is compressed (zstd)") {
		t.Errorf("resuming compressed records: %v\n%s", err, out)
	}
	if after, _ := os.ReadFile(records); !bytes.Equal(after, z.Bytes()) {
		t.Errorf("a refused resume changed the compressed records")
	}
	zargs := append([]string{}, args...)
	zargs[len(zargs)-1] = records + ".zst"
	if out, err := runCmd(t, zargs...); err == nil || !strings.Contains(out, "records are written plain") {
		t.Errorf("--out a .zst file: %v\n%s", err, out)
	}
	if _, err := os.Stat(records + ".zst"); err == nil {
		t.Errorf("--out a .zst file wrote it")
	}
}

// TestLadderResume: a ladder whose first match is done and whose second
// was stopped after one game plays only the second's games left, and
// appends the row of the second match alone: the first's is there already.
func TestLadderResume(t *testing.T) {
	dir := t.TempDir()
	modelFile := testModel(t, "frostviken")
	model2 := filepath.Join(dir, "other.dbm")
	data, err := os.ReadFile(modelFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(model2, data, 0o644); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "ladder.tsv")
	records := filepath.Join(dir, "games.jsonl")
	args := []string{"ladder", modelFile, "--ms", "5", "--games", "4", "--threads", "2", "--vs", model2,
		"--results", results, "--out", records}
	if out, err := runCmd(t, args...); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	keepRecords(t, records, 5, false)
	// As if an earlier build had played the games kept.
	data, err = os.ReadFile(records)
	if err != nil {
		t.Fatal(err)
	}
	code := regexp.MustCompile(`"Code":"[^"]*"`)
	if n := len(code.FindAll(data, -1)); n != 5 {
		t.Fatalf("%d of 5 records name the code that played them", n)
	}
	if err := os.WriteFile(records, code.ReplaceAll(data, []byte(`"Code":"old-build"`)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCmd(t, append(args, "--resume")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	wantOutput(t, out, "resuming: 4 of 4 games already played", "holds the match's row already",
		"resuming: 1 of 4 games already played", "row appended to "+results,
		"builds  2 played the games (a resumed match): old-build, "+buildName())
	rows, err := ladder.Read(results)
	if err != nil || len(rows) != 3 {
		t.Fatalf("%d rows, %v; want 3 (two, and the resumed second match)", len(rows), err)
	}
	if !rows[0].SameMatch(rows[0]) || rows[2].Opponent != rows[1].Opponent || rows[2].WDL.Games() != 4 ||
		rows[2].Code != "old-build+"+buildName() {
		t.Errorf("the resumed match's row: %+v", rows[2])
	}
	if recs, err := recordio.ReadFile(records); err != nil || len(recs) != 8 {
		t.Errorf("after resuming: %d records, %v", len(recs), err)
	}

	// Another model at the same path is another match.
	other, err := model.NewNetwork(configs.MustVariant("frostviken"), net.Config{Blocks: 1, Channels: 8, ValueHidden: 8}, 8)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Save(model2, nil); err != nil {
		t.Fatal(err)
	}
	keepRecords(t, records, 5, false)
	if out, err := runCmd(t, append(args, "--resume")...); err == nil || !strings.Contains(out, "record 1: tag ModelB is") {
		t.Errorf("resumed with another model: %v\n%s", err, out)
	}
}
