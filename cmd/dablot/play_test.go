package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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
		"a b c d e f g h i j k\npieces: S soldier, P prince, K king of South; s, p, k of North\n",
		"undo        take back", // help
		start.FEN(),
		"15 legal turns:\na5-b6 c5-b6",
		`not played: move "a1-a3"`,
		`not played:`,
		"North plays ",
		"the model's best turns for South, the side to move (values and chances are South's):\n  1. ",
		"taken back: i5-i7 ",
		"game record written to "+rec,
	)
	if n := strings.Count(out, "  1. "); n != 1 {
		t.Errorf("hint printed %d first lines", n)
	}
	// The board once a turn: at the start, after the reply to i5-i7, after
	// the undo and after the reply to j6-i7.
	if n := strings.Count(out, "a b c d e f g h i j k\n"); n != 4 {
		t.Errorf("the board was printed %d times, want 4 (once a turn):\n%s", n, out)
	}
	checkReplies(t, out)
	checkHint(t, out, 8)
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

// checkReplies checks each of the model's turns in a play session's out:
// its value names its side, and the board after it marks its start and
// end and says which turn that was.
func checkReplies(t *testing.T, out string) {
	t.Helper()
	replies := regexp.MustCompile(`(?m)(?:^|> )(South|North) plays (\S+) \((.*)\)\n\n((?:.*\n)*?)(South|North) \(person\) to move`).FindAllStringSubmatch(out, -1)
	if len(replies) == 0 {
		t.Fatalf("no turn of the model's followed by the board:\n%s", out)
	}
	for _, m := range replies {
		side, turn, note, board := m[1], m[2], m[3], m[4]
		if !strings.HasPrefix(note, "value ") || !strings.Contains(note, " for "+side+", W/D/L ") {
			t.Errorf("%s's %s: note %q does not say whose value it is", side, turn, note)
		}
		if !strings.Contains(board, "\n[ ] marks the last turn, "+side+"'s "+turn+"\n") {
			t.Errorf("the board after %s's %s does not name it as the last turn:\n%s", side, turn, board)
		}
		if n := strings.Count(board, "["); n != 3 || strings.Count(board, "]") != 3 {
			t.Errorf("the board after %s's %s has %d marks, want its start and end:\n%s", side, turn, n-1, board)
		}
	}
}

// checkHint checks the hint in a play session's out: the visits of its
// turns are within the simulations it reports (sims a search) and those it
// says the search kept.
func checkHint(t *testing.T, out string, sims int) {
	t.Helper()
	m := regexp.MustCompile(`the model's best turns for .*\n((?:  \d\. .*\n)+)  \((\d+) simulations(?:; the visits also count (\d+) that the search kept from the model's last one)?\)\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no hint with its simulations:\n%s", out)
	}
	reported, _ := strconv.Atoi(m[2])
	kept, _ := strconv.Atoi(m[3])
	if reported != sims {
		t.Errorf("the hint reports %d simulations, the search ran %d", reported, sims)
	}
	for _, v := range regexp.MustCompile(`\((\d+) visits?\)`).FindAllStringSubmatch(m[1], -1) {
		if n, _ := strconv.Atoi(v[1]); n > reported+kept {
			t.Errorf("a turn of %d visits, more than the %d simulations and %d kept the hint reports:\n%s", n, reported, kept, m[0])
		}
	}
}

// TestPlayLegend: the legend names the pieces of the start position and
// the rank soldiers are promoted to.
func TestPlayLegend(t *testing.T) {
	for _, tc := range []struct{ spec, fen, want string }{
		{"keyland", "", "pieces: S soldier, P prince, K king of South; s, p, k of North\n"},
		{"daablot-king", "", "pieces: S soldier, K king of South; s, k of North\n"},
		{"frostviken", "5/4/5/s3/5/4/5/3S/5 s", "pieces: S soldier of South; s of North\n"},
		{"frostviken,promotion=prince", "5/4/5/s3/5/4/5/3S/5 s", "pieces: S soldier, P prince of South; s, p of North\n"},
	} {
		r := configs.MustVariant(tc.spec)
		start, err := game.ParseSetup(r, tc.fen)
		if err != nil {
			t.Fatal(err)
		}
		g := &playGame{r: r, history: []game.Position{start}}
		if got := g.legend(); got != tc.want {
			t.Errorf("%s %q: legend %q, want %q", tc.spec, tc.fen, got, tc.want)
		}
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
	// The board first shows the model's first turn.
	if n := strings.Count(out, "a b c d e f g h i\n"); n != 1 {
		t.Errorf("the board was printed %d times, want once:\n%s", n, out)
	}
	checkReplies(t, out)
}

// TestPlayHint: the hint's visits agree with the simulations it reports:
// in a fresh tree they are its own; after the model's reply a PUCT search
// keeps what its search of the reply left in the tree, so they also count
// those, which the hint then says (the shipped model, whose search of
// i5-i7's reply goes deep into the line it plays: its best turn has more
// visits than the hint's simulations).
func TestPlayHint(t *testing.T) {
	for _, input := range []string{"hint\nquit\n", "i5-i7\nhint\nquit\n"} {
		out, err := playScript(t, input, "--model", "../../models/keyland.dbm", "--sims", "32")
		if err != nil {
			t.Fatalf("play: %v\n%s", err, out)
		}
		checkHint(t, out, 32)
	}
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
		{[]string{"play", "--model", model, "--sims", "-3"}, 2, "--sims -3"},
		{[]string{"play", "--model", model, "--movetime", "abc"}, 2, `invalid value "abc" for flag -movetime`},
		{[]string{"play", "--model", model, "--search", "alphabeta"}, 2, `--search "alphabeta": want gumbel or puct`},
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
