package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/research/ladder"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
)

// TestLadder plays a tiny ladder (5 ms a move, 4 games a match) of a
// model against alphabeta:ms=5 and against a second model: the summary of
// each match is printed, and each appends a row to the results file that
// reads back with the printed W/D/L.
func TestLadder(t *testing.T) {
	dir := t.TempDir()
	modelFile := testModel(t, "frostviken")
	data, err := os.ReadFile(modelFile)
	if err != nil {
		t.Fatal(err)
	}
	model2 := filepath.Join(dir, "other.dbm")
	if err := os.WriteFile(model2, data, 0o644); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "ladder.tsv")
	records := filepath.Join(dir, "games.jsonl")
	out, err := runCmd(t, "ladder", modelFile, "--ms", "5", "--games", "4", "--threads", "2", "--vs", model2,
		"--results", results, "--out", records)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	wantOutput(t, out, "openings: the first 2 of the 50 in configs/books/frostviken.txt",
		"B = alphabeta:ms=5,", "B = "+mcts.ShippedKind()+":model="+model2+",ms=5,batch=8,", "A W/D/L", "as south", "score", "95% CI", "Elo",
		"row appended to "+results, "records written to "+records)
	// How the games ended: every game is a win, a loss or a draw, each
	// counted by its reason.
	ends := regexp.MustCompile(`(?m)^(?:A won  |A lost |draws  ) (\d+) \(`).FindAllStringSubmatch(out, -1)
	total := 0
	for _, e := range ends {
		var n int
		fmt.Sscan(e[1], &n)
		total += n
	}
	if total != 8 {
		t.Errorf("the ends count %d games, want 8:\n%s", total, out)
	}
	wdls := regexp.MustCompile(`(?m)^A W/D/L (\d+)/(\d+)/(\d+)`).FindAllStringSubmatch(out, -1)
	rows, err := ladder.Read(results)
	if err != nil || len(rows) != 2 || len(wdls) != 2 {
		t.Fatalf("%d rows (%v), %d W/D/L lines", len(rows), err, len(wdls))
	}
	m, err := model.LoadModel(modelFile)
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range rows {
		if got := fmt.Sprintf("%d/%d/%d", row.WDL.W, row.WDL.D, row.WDL.L); got != strings.Join(wdls[i][1:], "/") {
			t.Errorf("row %d: W/D/L %s, printed %s", i, got, wdls[i][0])
		}
		full := func(path string) string { return mustPlayer(t, mcts.ShippedKind()+":model="+path+",ms=5", m.Rules) }
		wantOpp := []string{"alphabeta:ms=5", full(model2)}[i]
		if row.Model != modelFile || row.ModelSHA256 != m.Metadata[net.MetaChecksum] || row.ModelSHA256 == "" ||
			row.Variant != "frostviken" || row.Player != full(modelFile) || row.Opponent != wantOpp ||
			row.MS != 5 || row.WDL.Games() != 4 || row.AsSouth.Games() != 2 || row.AsNorth.Games() != 2 ||
			row.Book != "configs/books/frostviken.txt" || row.Threads != 2 || row.Seed != 1 || row.Code != buildName() {
			t.Errorf("row %d: %+v", i, row)
		}
	}
	// A second ladder appends below the first; guard=0 measures the
	// search without the guard.
	if out, err := runCmd(t, "ladder", modelFile, "--ms", "5", "--games", "2", "--results", results, "--seed", "3", "--player", mcts.ShippedKind()+":guard=0"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rows, err := ladder.Read(results); err != nil || len(rows) != 3 || rows[2].Seed != 3 || rows[2].WDL.Games() != 2 ||
		rows[2].Player != mustPlayer(t, mcts.ShippedKind()+":model="+modelFile+",ms=5,guard=0", m.Rules) {
		t.Errorf("after a second ladder: %d rows (%v), %+v", len(rows), err, rows[len(rows)-1])
	}
}

// TestLadderWithoutModelOrBook: a search without a network is measured
// with --variant, and a variant without a book gets generated openings,
// with a note; --results "" appends nothing.
func TestLadderWithoutModelOrBook(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	out, err := runCmd(t, "ladder", "--player", "mcts:eval=material", "--variant", "daablot,no_return=true", "--ms", "5", "--games", "2", "--results", "")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	wantOutput(t, out, "has no opening book; generating 1 level openings", "A = mcts:eval=material,ms=5,",
		"games from generated:1", "A W/D/L")
	if strings.Contains(out, "row appended") {
		t.Errorf("a row was appended with --results \"\":\n%s", out)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files written: %v", entries)
	}
}

// TestLadderErrors: bad flags are usage errors that name the problem,
// found before any game is played, and leave the results file as it was.
func TestLadderErrors(t *testing.T) {
	dir := t.TempDir()
	modelFile := testModel(t, "frostviken")
	dablot := testModel(t, "dablot")
	foreign := filepath.Join(dir, "notes.tsv")
	os.WriteFile(foreign, []byte("name\tvalue\n"), 0o644)
	badBook := filepath.Join(dir, "bad.txt")
	os.WriteFile(badBook, []byte("# a book\n\nsssss/ssss/pssss/ksss/5/SSSK/SSSSP/SSSS/SSSSS q\n"), 0o644)
	otherBoard := filepath.Join(dir, "dablot.txt")
	os.WriteFile(otherBoard, []byte("ssssss/sssss/ssssss/sssss/ssssss/p4/k4K/4P/SSSSSS/SSSSS/SSSSSS/SSSSS/SSSSSS s\n"), 0o644)
	results := filepath.Join(dir, "ladder.tsv")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{}, 2, "a MODEL is required"},
		{[]string{modelFile, modelFile}, 2, "one MODEL, not 2"},
		{[]string{modelFile, "--games", "5"}, 2, "--games 5: want an even number"},
		{[]string{modelFile, "--games", "0"}, 2, "--games 0"},
		{[]string{modelFile, "--ms", "0"}, 2, "--ms 0: want 1 to 600000"},
		{[]string{modelFile, "--threads", "0"}, 2, "--threads 0"},
		{[]string{modelFile, "--player", "uct"}, 2, `--player "uct": want gumbel or mcts`},
		{[]string{modelFile, "--player", "gumbel:ms=5"}, 2, "ms= is the ladder's to set"},
		{[]string{modelFile, "--player", "gumbel:sims=5"}, 2, "sims= is the ladder's to set"},
		{[]string{modelFile, "--player", "gumbel:nosuch=1"}, 2, `unknown key "nosuch"`},
		{[]string{modelFile, "--player", "gumbel:m=0"}, 2, "m=0"},
		{[]string{modelFile, "--player", "mcts:eval=material"}, 2, "eval= plays without a model"},
		{[]string{"--player", "mcts:eval=material"}, 2, "--variant is required"},
		{[]string{"--player", "mcts:eval=material", "--variant", "frostviken", "--vs", modelFile}, 2, "--vs compares two models"},
		{[]string{filepath.Join(dir, "nosuch.dbm")}, 1, "nosuch.dbm"},
		{[]string{modelFile, "--vs", dablot}, 2, "plays dablot, not frostviken"},
		{[]string{modelFile, "--variant", "keyland"}, 2, "the model plays frostviken, not keyland"},
		{[]string{modelFile, "--results", foreign}, 2, "not the ladder's header"},
		{[]string{modelFile, "--results", filepath.Join(dir, "nosuch", "l.tsv")}, 2, "does not exist"},
		{[]string{modelFile, "--book", badBook}, 1, "bad.txt:3: FEN"},
		{[]string{modelFile, "--book", otherBoard}, 1, "dablot.txt:1: FEN"},
		{[]string{modelFile, "--book", filepath.Join(dir, "nosuch.txt")}, 1, "nosuch.txt"},
		{[]string{modelFile, "--sprt", "50"}, 2, `--sprt "50": want elo0,elo1`},
		{[]string{modelFile, "--sprt", "50,0"}, 2, "elo1 must be greater than elo0"},
	} {
		args := append([]string{"ladder"}, tc.args...)
		if !slices.Contains(tc.args, "--results") {
			args = append(args, "--results", results)
		}
		code, stdout, stderr := run(args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Contains(stdout, "game 1/") {
			t.Errorf("%v: exit %d, stderr %q, want %d and %q\n%s", tc.args, code, stderr, tc.code, tc.want, stdout)
		}
	}
	if data, _ := os.ReadFile(foreign); string(data) != "name\tvalue\n" {
		t.Errorf("the foreign results file was changed: %q", data)
	}
	if _, err := os.Stat(results); err == nil {
		t.Error("a failed ladder wrote the results file")
	}
}

// TestLadderSPRT: --sprt tests each match as it goes, prints the test's
// state, and may stop it early; the row counts the games played. Against
// elo0 = 700 a random network soon falls below: two games without a win
// accept H0 (mcts/match's SPRT tests).
func TestLadderSPRT(t *testing.T) {
	results := filepath.Join(t.TempDir(), "ladder.tsv")
	out, err := runCmd(t, "ladder", testModel(t, "frostviken"), "--ms", "2", "--games", "8", "--threads", "1", "--sprt", "700,1000", "--results", results)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	wantOutput(t, out, "SPRT    elo0=700 elo1=1000 alpha=0.05 beta=0.05: LLR")
	played := len(regexp.MustCompile(`(?m)^game +\d+/8:`).FindAllString(out, -1))
	rows, err := ladder.Read(results)
	if err != nil || len(rows) != 1 || rows[0].WDL.Games() != played {
		t.Fatalf("%d rows (%v) for %d games played:\n%s", len(rows), err, played, out)
	}
	if decided := strings.Contains(out, "H0 accepted") || strings.Contains(out, "H1 accepted"); decided != (played < 8) && played < 8 {
		t.Errorf("%d of 8 games played, the test undecided:\n%s", played, out)
	}
}

// TestLadderSpec: the ladder's player spec is --player with the model and
// the time; the parsed player is the shipped player but for what it says:
// the guard and, where the rules allow, the tables.
func TestLadderSpec(t *testing.T) {
	for _, tc := range []struct{ player, model, want string }{
		{"gumbel", "m.dbm", "gumbel:model=m.dbm,ms=100"},
		{"gumbel:gmargin=100", "m.dbm", "gumbel:model=m.dbm,ms=100,gmargin=100"},
		{"gumbel:guard=0", "m.dbm", "gumbel:model=m.dbm,ms=100,guard=0"},
		{"mcts:eval=material", "", "mcts:ms=100,eval=material"},
	} {
		got, err := ladderSpec(tc.player, tc.model, 100, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.player, err)
		}
		if got != tc.want {
			t.Errorf("%s: spec %q, want %q", tc.player, got, tc.want)
		}
	}
	for _, tc := range []struct {
		variant, player string
		guard, eg       int
	}{
		{"dablot", "gumbel", mcts.MaxGuardDepth, mcts.MaxEndgamePieces},
		{"dablot", "gumbel:eg=0", mcts.MaxGuardDepth, 0},
		{"dablot", "gumbel:guard=4", 4, mcts.MaxEndgamePieces},
		{"winther", "gumbel", mcts.MaxGuardDepth, mcts.MaxEndgamePieces},
		{"keyland", "gumbel", mcts.MaxGuardDepth, 0},           // passes: no tables
		{"winther-promotion", "gumbel", mcts.MaxGuardDepth, 0}, // promotion: no tables
	} {
		r := configs.MustVariant(tc.variant)
		spec, err := ladderSpec(tc.player, "m.dbm", 100, r)
		if err != nil {
			t.Fatal(err)
		}
		c, err := mcts.ParsePlayerConfig(spec, r)
		if err != nil || c.Guard.Depth != tc.guard || c.Endgames != tc.eg || c.Guard.Depth > 0 && c.Guard.Margin != mcts.DefaultGuardMargin {
			t.Errorf("%s, %s: %s plays as %s (%v), want guard %d, tables %d", tc.variant, tc.player, spec, c, err, tc.guard, tc.eg)
		}
	}
}

// mustPlayer returns the search player spec plays as on rules r, in full.
func mustPlayer(t *testing.T, spec string, r *game.Rules) string {
	t.Helper()
	c, err := mcts.ParsePlayerConfig(spec, r)
	if err != nil {
		t.Fatal(err)
	}
	return c.String()
}
