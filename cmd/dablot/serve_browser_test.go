package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromeBinary finds Chromium or Chrome. Without one the browser test is
// skipped, with a line on the terminal (skipBrowser), except in CI
// (CI=true), where it fails.
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

// terminal is where skipBrowser writes: the terminal of the person running
// the tests.
var terminal = "/dev/tty"

// skipBrowser skips t for want of a browser. go test shows nothing of a
// package whose tests pass, skips included, unless -v: so that the person
// knows the page was not tested, the reason is also written as one line to
// the terminal, if there is one (with -v, the skip shows it already).
func skipBrowser(t *testing.T, msg string) {
	t.Helper()
	if !testing.Verbose() {
		if tty, err := os.OpenFile(terminal, os.O_WRONLY|os.O_APPEND, 0); err == nil {
			fmt.Fprintf(tty, "cmd/dablot: %s skipped: %s\n", t.Name(), msg)
			tty.Close()
		}
	}
	t.Skip(msg)
}

// TestBrowserSkipLine: without a browser (outside CI) the skip is one line
// on the terminal, not only in the hidden test output.
func TestBrowserSkipLine(t *testing.T) {
	terminal = filepath.Join(t.TempDir(), "tty")
	defer func() { terminal = "/dev/tty" }()
	if err := os.WriteFile(terminal, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CI", "")
	t.Run("no browser", func(t *testing.T) { chromeBinary(t) })
	data, err := os.ReadFile(terminal)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	switch {
	case testing.Verbose():
		if len(data) > 0 {
			t.Errorf("with -v the skip shows itself, yet the terminal got %q", data)
		}
	case len(lines) != 1 || !strings.HasPrefix(lines[0], "cmd/dablot: TestBrowserSkipLine/no_browser skipped: no Chromium or Chrome binary in PATH"):
		t.Errorf("the terminal got %q, want one line saying the browser test was skipped and why", data)
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
