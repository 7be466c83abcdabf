package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/net/model"
)

// engineSession runs "dablot engine" with args on a script and returns its
// output lines.
func engineSession(t *testing.T, script string, args ...string) []string {
	t.Helper()
	var out bytes.Buffer
	if err := engineMain(args, strings.NewReader(script), &out); err != nil {
		t.Fatalf("engine: %v\n%s", err, out.String())
	}
	return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
}

// TestEngineSession is a scripted session: every command, good and bad,
// answered in order, and the engine still up after errors.
func TestEngineSession(t *testing.T) {
	modelFile := testModel(t, "keyland")
	script := strings.Join([]string{
		"uci",
		"isready",
		"",
		"newgame",
		"position startpos moves i5-i7",
		"fen",
		"legal",
		"go sims 12",
		"position startpos moves i5-i9", // illegal: the position stays
		"fen",
		"bogus",
		"go sims 0",
		"go sims",
		"go depth 3",
		"go movetime 30",
		"position fen ssssss/sssss/ssssss/sssss/ssssss/p4/k4K/4P/SSSSSS/SSSSS/SSSSSS/SSSSS/SSSSSS n",
		"fen",
		"position fen 5/4/5 s",
		"isready extra",
		"position",
		"quit",
		"isready", // not read: quit came first
	}, "\n")
	lines := engineSession(t, script, "--model", modelFile, "--sims", "8")
	r := mustModelRules(t, modelFile)
	start := r.Start()
	after := start
	if err := after.ApplyTurn("i5-i7"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"id name dablot-zero",
		"id variant keyland",
		"uciok",
		"readyok",
		"fen " + after.FEN(),
		"legal ",
		"info sims ",
		"bestmove ",
		`error turn 1: move "i5-i9": `,
		"fen " + after.FEN(),
		`error unknown command "bogus"`,
		"error go sims 0: want 1 to ",
		"error go sims needs a value",
		`error go "depth": want sims N, movetime MS or infinite`,
		"info sims ",
		"bestmove ",
		"fen " + strings.Replace(start.FEN(), " s", " n", 1),
		"error ",
		`error unexpected argument "extra"`,
		"error position needs startpos or fen",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want it to start with %q", i+1, lines[i], w)
		}
	}
	// The info line has the documented fields; the best move is legal in the
	// position after i5-i7 and heads the principal variation.
	f := strings.Fields(lines[6])
	if len(f) < 10 || f[0] != "info" || f[1] != "sims" || f[3] != "value" || f[5] != "wdl" || f[9] != "pv" {
		t.Fatalf("info line %q: want info sims N value V wdl W D L pv ...", lines[6])
	}
	best := strings.TrimPrefix(lines[7], "bestmove ")
	if len(f) < 11 || f[10] != best {
		t.Errorf("pv %v does not start with the best move %s", f[10:], best)
	}
	if n := len(strings.Fields(lines[5])) - 1; n != after.CountTurns() {
		t.Errorf("legal lists %d turns, want %d", n, after.CountTurns())
	}
	if err := after.ApplyTurn(best); err != nil {
		t.Errorf("bestmove %s is not legal: %v", best, err)
	}
}

func mustModelRules(t *testing.T, path string) *game.Rules {
	t.Helper()
	m, err := model.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	return m.Rules
}

// TestEnginePositions: a table of position commands, good and bad.
func TestEnginePositions(t *testing.T) {
	modelFile := testModel(t, "frostviken")
	m, err := model.LoadModel(modelFile)
	if err != nil {
		t.Fatal(err)
	}
	a, err := newTestAnalyst(m, searchSettings{Sims: 4, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	startFEN := m.Rules.Start()
	for _, tc := range []struct {
		line    string
		wantErr string // "" if the position must be accepted
	}{
		{"position startpos", ""},
		{"position startpos moves", ""},
		{"position fen " + startFEN.FEN(), ""},
		{"position fen " + startFEN.FEN() + " moves", ""},
		{"position fen", "needs a FEN"},
		{"position fen moves e3-e4", "needs a FEN"},
		{"position fen x s", "FEN"},
		{"position startpos e3-e4", `unexpected "e3-e4"`},
		{"position startpos moves a2-a3", "turn 1"},
		{"position startpos moves pass", "turn 1"},
		{"position somewhere", `position "somewhere"`},
	} {
		var out bytes.Buffer
		e := newEngine(a, &out)
		e.handle(context.Background(), tc.line)
		e.out.Flush()
		got := strings.TrimSpace(out.String())
		switch {
		case tc.wantErr == "" && got != "":
			t.Errorf("%q: answered %q, want silence", tc.line, got)
		case tc.wantErr != "" && (!strings.HasPrefix(got, "error ") || !strings.Contains(got, tc.wantErr)):
			t.Errorf("%q: answered %q, want an error with %q", tc.line, got, tc.wantErr)
		}
	}
}

// TestEngineGameOver: go and legal in a finished game.
func TestEngineGameOver(t *testing.T) {
	modelFile := testModel(t, "frostviken")
	// North has no pieces left: South has won.
	lines := engineSession(t, "position fen 5/4/5/4/4S/4/5/4/5 n\nlegal\ngo sims 4\nisready\n", "--model", modelFile)
	want := []string{"legal", "error the game is over", "readyok"}
	if len(lines) != len(want) {
		t.Fatalf("lines %q, want %q", lines, want)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want %q", i+1, lines[i], w)
		}
	}
}

// TestEngineLongLine: a line over the limit is refused and the engine goes
// on.
func TestEngineLongLine(t *testing.T) {
	modelFile := testModel(t, "frostviken")
	script := "position startpos moves " + strings.Repeat("e3-e4 ", engineMaxLine/6+10) + "\nisready\n"
	lines := engineSession(t, script, "--model", modelFile)
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "error line too long") || lines[1] != "readyok" {
		t.Errorf("lines %q", lines)
	}
}

// TestEngineFlags: command-line errors.
func TestEngineFlags(t *testing.T) {
	modelFile := testModel(t, "keyland")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"engine"}, 2, "--model FILE is required"},
		{[]string{"engine", "--model", modelFile, "--pv", "-1"}, 2, "--pv -1"},
		{[]string{"engine", "--model", modelFile, "--variant", "winther"}, 1, "not winther"},
		{[]string{"engine", "--model", "/nonexistent.dbm"}, 1, "no such file"},
	} {
		code, _, stderr := run(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// handleWait answers line as run does when no search is in progress, and
// waits for the answer of a search the line starts.
func handleWait(e *engine, line string) (quit bool) {
	e.started = nil
	quit = e.handle(context.Background(), line)
	if s := e.started; s != nil {
		e.started = nil
		e.answerGo(<-s.answered)
	}
	return quit
}

// TestEngineStop: while go searches, stop, isready and quit are answered at
// once and other commands wait their turn.
func TestEngineStop(t *testing.T) {
	modelFile := testModel(t, "keyland")
	r := mustModelRules(t, modelFile)
	start := r.Start()
	for _, tc := range []struct {
		name   string
		script string
		want   []string
		gumbel bool
	}{
		// "go infinite" would search for an hour: only stop ends it. isready
		// is answered during the search, fen after it, in order.
		{"stop", "go infinite\nisready\nstop\nfen\n\nisready extra\nfen\n",
			[]string{"readyok", "info sims ", "bestmove ", "fen " + start.FEN(), `error unexpected argument "extra"`, "fen "}, false},
		// A line that is not stop, isready or quit waits for the search, and
		// so does every line after it: here, go sims 30 answers first.
		{"order", "go sims 30\nfen\nisready\nstop\n",
			[]string{"info sims 30 ", "bestmove ", "fen ", "readyok"}, false},
		// quit stops the search; the answer comes before the engine exits.
		{"quit", "go infinite\nquit\nisready\n", []string{"info sims ", "bestmove "}, false},
		// The input ends while a bounded search runs: it still answers.
		{"end of input", "go sims 20", []string{"info sims 20 ", "bestmove "}, false},
		// stop with no search running does nothing.
		{"stop idle", "stop\nisready\n", []string{"readyok"}, false},
		{"infinite with limits", "go infinite sims 5\n", []string{"error go infinite takes no sims"}, false},
		// The Gumbel search has no fixed budget under movetime or infinite:
		// it halves in passes of doubling budgets until the time or stop.
		{"gumbel movetime", "go movetime 50\n", []string{"info sims ", "bestmove "}, true},
		{"gumbel infinite", "go infinite\nisready\nstop\n", []string{"readyok", "info sims ", "bestmove "}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"--model", modelFile, "--sims", "8", "--search", "puct"}
			if tc.gumbel {
				args = append(args, "--search", "gumbel")
			}
			lines := engineSession(t, tc.script, args...)
			if len(lines) != len(tc.want) {
				t.Fatalf("lines %q, want %d starting %q", lines, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(lines[i], w) {
					t.Errorf("line %d = %q, want it to start with %q", i+1, lines[i], w)
				}
			}
			for i, l := range lines {
				if best, ok := strings.CutPrefix(l, "bestmove "); ok {
					p := r.Start()
					if err := p.ApplyTurn(best); err != nil {
						t.Errorf("line %d: %s is not legal: %v", i+1, best, err)
					}
				}
			}
		})
	}
}

// TestEngineInfiniteAtEOF: when the input ends during "go infinite" (which
// would otherwise search for an hour or a million simulations), the search
// stops at once as if "stop" had come, answers, and the engine exits. A
// bounded search still answers in full ("end of input" in TestEngineStop).
func TestEngineInfiniteAtEOF(t *testing.T) {
	modelFile := testModel(t, "keyland")
	for _, gumbel := range []bool{false, true} {
		args := []string{"--model", modelFile, "--sims", "8", "--search", "puct"}
		if gumbel {
			args = append(args, "--search", "gumbel")
		}
		done := make(chan []string, 1)
		began := time.Now()
		go func() { done <- engineSession(t, "position startpos moves i5-i7\ngo infinite\n", args...) }()
		select {
		case lines := <-done:
			if len(lines) != 2 || !strings.HasPrefix(lines[0], "info sims ") || !strings.HasPrefix(lines[1], "bestmove ") {
				t.Errorf("gumbel %v: %q, want info and bestmove", gumbel, lines)
			}
			t.Logf("gumbel %v: answered %v after the end of the input: %s", gumbel, time.Since(began).Round(time.Millisecond), lines[0])
		case <-time.After(20 * time.Second):
			t.Fatalf("gumbel %v: go infinite still searches 20 s after the end of the input", gumbel)
		}
	}
}

// engineReplies are the first words of every line the engine may send.
var engineReplies = map[string]bool{"id": true, "uciok": true, "readyok": true, "info": true,
	"bestmove": true, "legal": true, "fen": true, "error": true}

// FuzzEngine feeds the engine arbitrary scripts: it must never panic, answer
// every line with lines of the protocol, answer every bad line with exactly
// one error line, and stay up (answer isready) afterwards.
func FuzzEngine(f *testing.F) {
	for _, seed := range []string{
		"uci\nisready\nnewgame\nposition startpos moves e3-e5\ngo sims 4\nlegal\nfen\nquit\n",
		"position startpos moves e3-e5 e7xe3xc5\ngo movetime 5\n",
		"position startpos moves e3-e5\ngo sims 8\nposition startpos moves e3-e5 e7xe3\n",
		"position fen sssss/ssss/pssss/ksss/5/SSSK/SSSSP/SSSS/SSSSS s moves i3-i5\ngo\n",
		"position fen 5/4/5/4/4S/4/5/4/5 n\ngo\nlegal\n",
		"go sims 99999999\ngo movetime -1\ngo sims\ngo sims x\n",
		"position\nposition fen\nposition fen moves\nposition startpos moves zz\n",
		"bogus\n\x00\xff\r\n  \t\nuci extra\nPOSITION startpos\n",
		"go infinite\nstop\ngo infinite sims 3\ngo sims 3 infinite\nstop extra\n",
		"position startpos moves e3-e5 e3-e5\nposition fen 5/4/5 s\nposition startpos moves e3-e4\n",
	} {
		f.Add(seed)
	}
	modelFile := testModel(f, "frostviken")
	m, err := model.LoadModel(modelFile)
	if err != nil {
		f.Fatal(err)
	}
	a, err := newTestAnalyst(m, searchSettings{Sims: 4, Threads: 1})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(a.Close)
	f.Fuzz(func(t *testing.T, script string) {
		var out bytes.Buffer
		e := newEngine(a, &out)
		e.maxSims, e.maxTime, e.pvTurns = 8, 20*time.Millisecond, 3
		answer := func(line string) (replies []string, quit bool) {
			out.Reset()
			quit = handleWait(e, line)
			e.out.Flush()
			if s := out.String(); s != "" {
				if !strings.HasSuffix(s, "\n") {
					t.Fatalf("%q: answer %q does not end a line", line, s)
				}
				replies = strings.Split(strings.TrimSuffix(s, "\n"), "\n")
			}
			return replies, quit
		}
		for _, line := range strings.Split(script, "\n") {
			replies, quit := answer(line)
			fields := strings.Fields(line)
			for _, r := range replies {
				if w := strings.Fields(r); len(w) == 0 || !engineReplies[w[0]] || strings.ContainsAny(r, "\r\n") {
					t.Fatalf("%q: answer line %q is not of the protocol", line, r)
				}
			}
			errs := 0
			for _, r := range replies {
				if strings.HasPrefix(r, "error ") {
					errs++
				}
			}
			if errs > 0 && len(replies) != 1 {
				t.Fatalf("%q: an error among other answers: %q", line, replies)
			}
			switch {
			case len(fields) == 0:
				if len(replies) != 0 {
					t.Fatalf("blank line %q answered %q", line, replies)
				}
			case e.commands[fields[0]] == nil:
				if errs != 1 {
					t.Fatalf("unknown command %q answered %q, want one error line", line, replies)
				}
			case len(replies) == 0:
				// Silent success: only these commands, well formed.
				ok := fields[0] == "position" && len(fields) > 1 && (fields[1] == "startpos" || fields[1] == "fen") ||
					len(fields) == 1 && (fields[0] == "newgame" || fields[0] == "quit" || fields[0] == "stop")
				if !ok {
					t.Fatalf("%q: no answer", line)
				}
			case fields[0] == "go" && errs == 0:
				last := replies[len(replies)-1]
				if !strings.HasPrefix(last, "bestmove ") || len(replies) < 2 {
					t.Fatalf("%q: answered %q, want info lines then bestmove", line, replies)
				}
				q := e.pos
				if err := q.ApplyTurn(strings.TrimPrefix(last, "bestmove ")); err != nil {
					t.Fatalf("%q: %s is not legal: %v", line, last, err)
				}
			}
			if quit {
				return
			}
		}
		if replies, _ := answer("isready"); len(replies) != 1 || replies[0] != "readyok" {
			t.Fatalf("after the script, isready answered %q", replies)
		}
	})
}

// TestEngineProof: with the solver (on unless --solve=false) the info line
// reports a proven result, here a luring win of the shipped
// winther-all-must-capture model (g5-g7 or g5-f6: a sacrifice whose forced
// recapture opens a double capture of the king), and the exact WDL; with
// --solve=false, no proof is reported.
func TestEngineProof(t *testing.T) {
	modelFile := "../../models/winther-all-must-capture.dbm"
	script := "position startpos moves e5-d6 c9-d8 c5-b6 a7xc5xe7\ngo sims 400\n"
	lines := engineSession(t, script, "--model", modelFile, "--search", "gumbel") // the solver is on by default
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "info ") {
		t.Fatalf("lines %q", lines)
	}
	f := strings.Fields(lines[0])
	if len(f) < 14 || f[9] != "proven" || f[10] != "win" || f[12] != "pv" {
		t.Fatalf("info line %q: want info sims N value V wdl W D L proven win N pv ...", lines[0])
	}
	if f[4] != "1.000" || f[6] != "1.000" || f[7] != "0.000" || f[8] != "0.000" {
		t.Errorf("info line %q: a proven win has value 1 and wdl 1 0 0", lines[0])
	}
	if best := strings.TrimPrefix(lines[1], "bestmove "); f[11] != "5" || (best != "g5-g7" && best != "g5-f6") || f[13] != best {
		t.Errorf("got %q, %q: want a win in 5 decisions by g5-g7 or g5-f6, heading the pv", lines[0], lines[1])
	}

	lines = engineSession(t, script, "--model", modelFile, "--search", "gumbel", "--solve=false", "--forced=false")
	if len(lines) != 2 || strings.Contains(lines[0], "proven") {
		t.Errorf("with --solve=false: %q", lines)
	}

	// After g5-f6 North's only turn is e7xg5, lost in 4 decisions: the
	// forced root is searched too, and its loss proven.
	lines = engineSession(t, "position startpos moves e5-d6 c9-d8 c5-b6 a7xc5xe7 g5-f6\ngo sims 400\n", "--model", modelFile, "--search", "gumbel")
	if len(lines) != 2 {
		t.Fatalf("forced root: lines %q", lines)
	}
	f = strings.Fields(lines[0])
	if len(f) < 14 || f[2] == "0" || f[4] != "-1.000" || strings.Join(f[9:14], " ") != "proven loss 4 pv e7xg5" || lines[1] != "bestmove e7xg5" {
		t.Errorf("forced root: %q; want a search (sims > 0) proving a loss in 4 by e7xg5, value -1", lines)
	}
}

// TestEngineTables: in an ending of three pieces the endgame tables
// (--eg, 3 by default where the rules allow them) choose the turn without
// a search and the info line says so, with the exact value; with --eg 0
// the model searches.
func TestEngineTables(t *testing.T) {
	modelFile := "../../models/dablot.dbm"
	// King and prince against a soldier, the king's side to move: won.
	script := "position fen 1p4/5/6/5/4k1/5/6/5/1S4/5/6/5/6 n - 0 265\ngo sims 16\n"
	lines := engineSession(t, script, "--model", modelFile)
	if len(lines) != 2 {
		t.Fatalf("lines %q", lines)
	}
	f := strings.Fields(lines[0])
	if len(f) < 14 || f[2] != "0" || f[4] != "1.000" || f[9] != "tables" || f[10] != "win" || f[12] != "pv" || "bestmove "+f[13] != lines[1] {
		t.Errorf("info line %q, %q: want info sims 0 value 1.000 ... tables win N pv T, bestmove T", lines[0], lines[1])
	}
	lines = engineSession(t, script, "--model", modelFile, "--eg", "0")
	if len(lines) != 2 || strings.Contains(lines[0], "tables") || strings.HasPrefix(lines[0], "info sims 0 ") {
		t.Errorf("with --eg 0: %q", lines)
	}
}
