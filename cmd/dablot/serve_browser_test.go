package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"golang.org/x/term"
)

// chromeBinary finds Chromium or Chrome. Without one the browser test is
// skipped, saying so (skipBrowser), except in CI (CI=true), where it fails.
func chromeBinary(t *testing.T) string {
	t.Helper()
	names := []string{"chromium", "chromium-browser", "google-chrome"}
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := fmt.Sprintf("no Chromium or Chrome binary in PATH (looked for %s): install Debian's chromium to run the browser test (.ci/run does)", strings.Join(names, ", "))
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	skipBrowser(t, msg)
	return ""
}

// terminal is where skipBrowser writes when the test's output is not a
// terminal: the terminal of the person running the tests
// ($DABLOT_TEST_TERMINAL in the tests of it).
var terminal = cmp.Or(os.Getenv("DABLOT_TEST_TERMINAL"), "/dev/tty")

// skipBrowser skips t for want of a browser, with msg as the reason. With
// -v (and -json) the skip shows it. Without, the testing package prints
// nothing of a skip, so skipBrowser writes one line saying it to the
// test's output itself: go test shows it in the log of a package that
// fails, in local directory mode and when the binary is run directly.
// go test ./... shows nothing at all of a package whose tests pass, so
// when the output is not a terminal the line also goes to the terminal,
// if there is one.
func skipBrowser(t *testing.T, msg string) {
	t.Helper()
	if !testing.Verbose() {
		line := fmt.Sprintf("cmd/dablot: %s skipped: %s\n", t.Name(), msg)
		fmt.Print(line)
		if !term.IsTerminal(int(os.Stdout.Fd())) {
			if tty, err := os.OpenFile(terminal, os.O_WRONLY|os.O_APPEND, 0); err == nil {
				fmt.Fprint(tty, line)
				tty.Close()
			}
		}
	}
	t.Skip(msg)
}

// TestBrowserSkipLine: without a browser (outside CI) the browser test is
// skipped with one line saying why in its output, with -v too (as go test
// -v prints a skip) and on the terminal; with CI=true it fails instead.
// Each case runs the test binary without a browser in its PATH.
func TestBrowserSkipLine(t *testing.T) {
	if os.Getenv("DABLOT_TEST_TERMINAL") != "" {
		t.Skip("in a child process of TestBrowserSkipLine")
	}
	const why = "no Chromium or Chrome binary in PATH (looked for chromium, chromium-browser, google-chrome)"
	for _, tc := range []struct {
		name     string
		verbose  bool
		ci       string
		fails    bool
		out, tty string // what the output holds; how the terminal's one line begins ("": no line)
	}{
		{"skipped", false, "", false, "cmd/dablot: TestBrowserPlay skipped: " + why, "cmd/dablot: TestBrowserPlay skipped: " + why},
		{"skipped, -v", true, "", false, "--- SKIP: TestBrowserPlay", ""},
		{"CI", false, "true", true, "--- FAIL: TestBrowserPlay", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tty := filepath.Join(t.TempDir(), "tty")
			if err := os.WriteFile(tty, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestBrowserPlay$", "-test.v="+strconv.FormatBool(tc.verbose))
			cmd.Env = append(os.Environ(), "PATH="+t.TempDir(), "CI="+tc.ci, "DABLOT_TEST_TERMINAL="+tty)
			out, err := cmd.CombinedOutput()
			if failed := err != nil; failed != tc.fails {
				t.Fatalf("failed: %v (%v), want %v:\n%s", failed, err, tc.fails, out)
			}
			if !strings.Contains(string(out), tc.out) || !strings.Contains(string(out), why) {
				t.Errorf("the output lacks %q and why:\n%s", tc.out, out)
			}
			got, err := os.ReadFile(tty)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(string(got), "\n")
			if ok := tc.tty == "" && len(got) == 0 || len(lines) == 2 && lines[1] == "" && strings.HasPrefix(lines[0], tc.tty); !ok {
				t.Errorf("the terminal got %q, want one line beginning %q (none for \"\")", got, tc.tty)
			}
		})
	}
}

// TestBrowserPlay plays on the page in headless Chromium: before its
// script has loaded the page shows a placeholder of the board; a turn made
// by clicks is answered by the model (the move list grows by two) and the
// evaluation panel names the position it describes; the line on how to
// move is on the page, visible; an illegal click is
// refused with a message and leaves the position as it was; and the page
// logs no console errors or exceptions.
func TestBrowserPlay(t *testing.T) {
	bin := chromeBinary(t)
	srv := newTestWebServer(t, "keyland", 8)

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox, // root in containers and CI has no sandbox
		chromedp.Flag("disable-gpu", true),
		chromedp.WindowSize(1200, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	defer cancelCtx()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	var mu sync.Mutex
	var problems []string
	err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range e.Args {
					args = append(args, a.Description+string(a.Value))
				}
				problems = append(problems, fmt.Sprintf("console.%s: %s", e.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			d := e.ExceptionDetails
			text := d.Text
			if d.Exception != nil {
				text += " " + d.Exception.Description
			}
			problems = append(problems, fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber+1, text))
		}
	})
	if err != nil {
		t.Fatalf("starting the browser: %v", err)
	}
	report := func() string {
		mu.Lock()
		defer mu.Unlock()
		return fmt.Sprintf("%q", problems)
	}
	sq := func(name string) chromedp.CSS { return chromedp.CSS(`[data-sq="` + name + `"]`) }
	const countMoves = `document.querySelectorAll("#moves li").length`

	// Without its script (here: blocked) the page shows the board's place,
	// at the board's size, saying it is loading.
	block := func(urls ...string) error {
		var patterns []*network.BlockPattern
		for _, u := range urls {
			patterns = append(patterns, &network.BlockPattern{URLPattern: u, Block: true})
		}
		_, err := chromedp.Call(ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: patterns})
		return err
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if err := block(srv.URL + "/app.js"); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx, chromedp.Navigate(srv.URL), chromedp.WaitVisible(chromedp.CSS("#board .placeholder")))
	if err != nil {
		t.Fatalf("the page without its script: %v", err)
	}
	placeholder, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => {
		const r = document.getElementById("board").getBoundingClientRect();
		return [r.width, r.height, document.querySelectorAll("#board .placeholder").length, typeof S === "undefined" ? 0 : 1];
	})()`))
	if err != nil || len(placeholder) != 4 || placeholder[0] < 200 || placeholder[1] < 200 || placeholder[2] != 1 || placeholder[3] != 0 {
		t.Fatalf("the board's place before the script: [width height placeholders script] %v, %v", placeholder, err)
	}
	if err := block(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	problems = nil // the blocked script's load error
	mu.Unlock()

	// South plays i5-i7 by clicking the piece, then its landing point; the
	// model answers, so the move list holds two turns.
	err = chromedp.Do(ctx,
		chromedp.Navigate(srv.URL),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)),
		chromedp.Click(sq("i5")),
		chromedp.WaitReady(chromedp.CSS(`[data-target="i7"]`)),
		chromedp.Click(sq("i7")),
		chromedp.Poll[chromedp.Void](countMoves+` === 2 && document.getElementById("message").textContent.startsWith("The model played")`,
			chromedp.WithPollingTimeout(30*time.Second)),
	)
	if err != nil {
		t.Fatalf("playing i5-i7: %v (console: %s)", err, report())
	}
	// The page says how to move, where it can be seen.
	howto, err := chromedp.Run(ctx, chromedp.Evaluate[[]any](`(() => {
		const e = document.getElementById("howto");
		const r = e.getBoundingClientRect();
		return [e.innerText, r.width > 0 && r.height > 0 && getComputedStyle(e).visibility === "visible"];
	})()`))
	if err != nil || len(howto) != 2 || howto[0] != howToMove || howto[1] != true {
		t.Errorf("the line on how to move: [text visible] %v, %v; want %q, visible", howto, err, howToMove)
	}
	// The evaluation is of the position the model answered.
	texts, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[document.getElementById("evalpos").textContent, document.getElementById("message").textContent]`))
	if err != nil {
		t.Fatal(err)
	}
	reply := strings.TrimSuffix(strings.TrimPrefix(texts[1], "The model played "), ".")
	if want := "Of the position after 1. i5-i7, North to move (the model replied 2. " + reply + ")"; texts[0] != want {
		t.Errorf("evaluation panel: %q, want %q", texts[0], want)
	}
	fenBefore, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#fen")))
	if err != nil {
		t.Fatal(err)
	}
	// A piece of South's that can move, and a North piece where none of its
	// turns goes (and that starts no turn of South's).
	pick, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(() => {
		const st = S.state;
		const from = st.legal.find((t) => t.path.length === 2).path[0];
		const to = new Set(st.legal.filter((u) => u.path[0] === from).map((u) => u.path[1]));
		const bad = st.pieces.find((p) => p.side !== st.side && !to.has(p.point));
		return [S.info.board.points[from].name, S.info.board.points[bad.point].name];
	})()`))
	if err != nil || len(pick) != 2 {
		t.Fatalf("choosing an illegal click: %v %q", err, pick)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(sq(pick[0])),
		chromedp.Click(sq(pick[1])),
		chromedp.Poll[chromedp.Void](`document.getElementById("message").className === "error"`,
			chromedp.WithPollingTimeout(10*time.Second)),
	)
	if err != nil {
		t.Fatalf("illegal click %s then %s: %v (console: %s)", pick[0], pick[1], err, report())
	}
	message, err1 := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#message")))
	moves, err2 := chromedp.Run(ctx, chromedp.Evaluate[int](countMoves))
	fenAfter, err3 := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#fen")))
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(message, "Not legal: ") {
		t.Errorf("illegal click %s → %s: message %q, want it to say why", pick[0], pick[1], message)
	}
	if moves != 2 || fenAfter != fenBefore {
		t.Errorf("the illegal click changed the game: %d moves, FEN %q → %q", moves, fenBefore, fenAfter)
	}
	if p := report(); p != "[]" {
		t.Errorf("console errors: %s", p)
	}
}
