package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
)

// testModels caches the model files made for the tests, by variant spec.
var testModels struct {
	sync.Mutex
	dir   string
	paths map[string]string
}

// testModel returns the path of a small fresh model of variant spec, made
// once per test binary.
func testModel(t testing.TB, spec string) string {
	t.Helper()
	testModels.Lock()
	defer testModels.Unlock()
	if p, ok := testModels.paths[spec]; ok {
		return p
	}
	if testModels.dir == "" {
		dir, err := os.MkdirTemp("", "dablot-play-test")
		if err != nil {
			t.Fatal(err)
		}
		testModels.dir = dir
		testModels.paths = map[string]string{}
	}
	m, err := model.NewNetwork(configs.MustVariant(spec), net.Config{Blocks: 1, Channels: 8, ValueHidden: 8}, 7)
	if err != nil {
		t.Fatal(err)
	}
	m.Training = model.TrainingSummary{Run: "test-run", Generation: 3, Games: 1234, Samples: 56789, Hours: 0.25, Seed: 7,
		InitFrom: "models/earlier.dbm", InitSHA256: "0123abcd"}
	path := filepath.Join(testModels.dir, strings.NewReplacer(",", "_", "=", "-").Replace(spec)+".dbm")
	extra := map[string]string{model.MetaRatings: `[{"Name":"gen3","Elo":152.5,"Err95":30.1,"Games":40,"Score":0.71,"Anchor":false},{"Name":"random","Elo":0,"Err95":0,"Games":40,"Score":0.29,"Anchor":true}]`}
	if err := m.Save(path, extra); err != nil {
		t.Fatal(err)
	}
	testModels.paths[spec] = path
	return path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if testModels.dir != "" {
		os.RemoveAll(testModels.dir)
	}
	os.Exit(code)
}

// playScript runs "dablot play" with args on the input lines.
func playScript(t *testing.T, input string, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := playMain(args, strings.NewReader(input), &out)
	return out.String(), err
}

// TestPlaySession plays a short game at the "terminal": turns, errors,
// commands and the record written on exit.
func TestPlaySession(t *testing.T) {
	model := testModel(t, "keyland")
	rec := filepath.Join(t.TempDir(), "game.pgn")
	input := strings.Join([]string{
		"help",
		"fen",
		"legal",
		"a1-a3",       // not a piece of South's that can step there
		"zz9",         // not a square
		"i5-i7",       // a legal turn: the model answers
		"hint",        // the model's best three turns
		"undo",        // takes back i5-i7 and the reply
		"fen",         // the start again
		"j6-i7",       // another turn
		"save " + rec, // explicit save
		"quit",
	}, "\n")
	out, err := playScript(t, input, "--model", model, "--sims", "8", "--record", rec)
	if err != nil {
		t.Fatalf("play: %v\n%s", err, out)
	}
	start := configs.MustVariant("keyland").Start()
	wantOutput(t, out,
		"you play South against keyland.dbm, generation 3 [",
		" 13 s---s", // the diagram
		"a b c d e f g h i j k",
		"undo        take back", // help
		start.FEN(),
		"15 legal turns:\na5-b6 c5-b6",
		`not played: move "a1-a3"`,
		`not played:`,
		"North plays ",
		"the model's best turns for South (",
		"  1. ",
		"taken back: i5-i7 ",
		"game record written to "+rec,
	)
	if n := strings.Count(out, "  1. "); n != 1 {
		t.Errorf("hint printed %d first lines", n)
	}
	f, err := os.Open(rec)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := game.ReadPGN(f)
	if err != nil || len(recs) != 1 {
		t.Fatalf("record: %v (%d records)", err, len(recs))
	}
	r := recs[0]
	if len(r.Turns) != 2 || r.Turns[0] != "j6-i7" || r.South != "person" || r.Result != "*" {
		t.Errorf("record %+v: want j6-i7 and the model's reply, South the person, result *", r)
	}
	if _, err := r.Replay(configs.MustVariant("keyland")); err != nil {
		t.Errorf("record does not replay: %v", err)
	}
}

// TestPlayNorth: the person plays North, so the model moves first; undo
// with nothing of the person's to take back says so; the end of the input
// ends the session.
func TestPlayNorth(t *testing.T) {
	model := testModel(t, "frostviken")
	out, err := playScript(t, "undo\nlegal\n", "--model", model, "--side", "n", "--sims", "8")
	if err != nil {
		t.Fatalf("play: %v\n%s", err, out)
	}
	wantOutput(t, out, "you play North", "South plays ", "North (person) to move", "nothing to undo", "legal turns:", "north> ")
}

// TestPlayModelAgainstModel: two models play a whole (short) game.
func TestPlayModelAgainstModel(t *testing.T) {
	model := testModel(t, "frostviken,max_plies=12")
	rec := filepath.Join(t.TempDir(), "g.pgn")
	out, err := playScript(t, "", "--model", model, "--model", model, "--sims", "4", "--record", rec)
	if err != nil {
		t.Fatalf("play: %v\n%s", err, out)
	}
	wantOutput(t, out, "South frostviken_max_plies-12.dbm", "   1. South ", "  12. North ", "game over after 12 turns", "game record written")
	data, err := os.ReadFile(rec)
	if err != nil || !strings.Contains(string(data), `[Termination "max-plies"]`) {
		t.Errorf("record: %v\n%s", err, data)
	}
}

// TestPlayModelAgainstBaseline: a model plays a baseline player from a spec.
func TestPlayModelAgainstBaseline(t *testing.T) {
	model := testModel(t, "frostviken,max_plies=12")
	out, err := playScript(t, "", "--model", model, "--opponent", "greedy", "--sims", "4")
	if err != nil {
		t.Fatalf("play: %v\n%s", err, out)
	}
	wantOutput(t, out, ", North greedy [", "   1. South ", "   2. North ", "game over after")
}

// TestPlayOpponentSpec: a person against a baseline player, without a model.
func TestPlayOpponentSpec(t *testing.T) {
	out, err := playScript(t, "i5-i7\nhint\nquit\n", "--opponent", "greedy", "--variant", "keyland")
	if err != nil {
		t.Fatalf("play: %v\n%s", err, out)
	}
	wantOutput(t, out, "against greedy", "North plays ", "hint needs a model")
}

// TestPlayErrors: bad command lines give a clear message and exit status.
func TestPlayErrors(t *testing.T) {
	model := testModel(t, "keyland")
	bad := filepath.Join(t.TempDir(), "bad.dbm")
	if err := os.WriteFile(bad, []byte("not a model at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"play"}, 2, "--model FILE is required"},
		{[]string{"play", "--model", model, "--side", "east"}, 2, `--side "east"`},
		{[]string{"play", "--model", model, "--model", model, "--side", "n"}, 2, "no person plays"},
		{[]string{"play", "--model", model, "--model", model, "--opponent", "random"}, 2, "at most two"},
		{[]string{"play", "--model", model, "--sims", "0"}, 2, "--sims 0 needs --movetime"},
		{[]string{"play", "--model", model, "--sims", "-3"}, 2, "--sims -3"},
		{[]string{"play", "--model", model, "--movetime", "abc"}, 2, `invalid value "abc" for flag -movetime`},
		{[]string{"play", "--model", model, "--gumbel", "--sims", "0", "--movetime", "10"}, 2, "--gumbel needs --sims"},
		{[]string{"play", "--model", model, "--threads", "0"}, 2, "--threads 0"},
		{[]string{"play", "--model", model, "--variant", "dablot"}, 1, "the model plays keyland, not dablot"},
		{[]string{"play", "--model", model, "--fen", "x"}, 1, "FEN"},
		{[]string{"play", "--model", "/nonexistent/m.dbm"}, 1, "no such file"},
		{[]string{"play", "--model", bad}, 1, "not a dablot model file"},
		{[]string{"play", "--opponent", "random"}, 2, "needs --variant"},
		{[]string{"play", "--opponent", "nosuch", "--variant", "keyland"}, 2, "--opponent"},
		{[]string{"play", "--model", model, "stray"}, 2, "unexpected argument"},
	} {
		code, _, stderr := run(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "goroutine") {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// TestPlayLongLine: a line of input over the limit (1 MiB) is refused, and
// the session goes on (it used to end, silently).
func TestPlayLongLine(t *testing.T) {
	model := testModel(t, "keyland")
	long := strings.Repeat("x", 1<<20+1)
	out, err := playScript(t, long+"\nfen\nquit\n", "--model", model, "--sims", "8")
	if err != nil {
		t.Fatalf("play: %v\n%s", err, out)
	}
	start := configs.MustVariant("keyland").Start()
	if !strings.Contains(out, "line too long: more than 1048576 bytes") || !strings.Contains(out, start.FEN()) {
		t.Errorf("output lacks the refusal or the FEN after it:\n%s", out)
	}
}
