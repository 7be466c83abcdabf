package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/mcts/analysis"
)

// cmdEngine answers the engine protocol.
var cmdEngine = &command{
	name:  "engine",
	usage: "--model FILE [--sims N | --movetime MS] [--gumbel] [--variant V] [--pv N]",
	short: "answer a UCI-like line protocol on standard input and output",
	long: `Reads commands from standard input, one a line, and answers on standard output
(see the README's "Engine protocol"): uci, isready, newgame, position startpos|fen F [moves T...],
go [sims N] [movetime MS] | go infinite, stop, legal, fen, quit. A bad line is
answered "error <reason>". While go searches, stop, isready and quit are answered at
once; other commands wait until the search has answered.`,
	run: runEngine,
}

// Bounds of the engine's input.
const (
	engineMaxLine  = 256 << 10 // bytes in one command line
	engineMaxMoves = 10_000    // turns after "moves"
	// lines read ahead while a search runs; the input is not read beyond
	engineMaxQueued = 1024
)

// runEngine runs "dablot engine" on standard input.
func runEngine(args []string, out io.Writer) error { return engineMain(args, os.Stdin, out) }

// engineMain runs "dablot engine" on the commands read from in.
func engineMain(args []string, in io.Reader, out io.Writer) error {
	fs := newFlags("engine", out)
	model := fs.String("model", "", "model file (required)")
	variant := fs.String("variant", "", "variant (default: the model's; if given, it must match)")
	pv := rangeFlag(fs, "pv", 8, 0, 100, "turns of principal variation in info lines after the best turn (0: none; PUCT only)")
	var ss searchSettings
	ss.addFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *model == "" {
		return usagef("--model FILE is required")
	}
	a, err := openAnalyst(*model, *variant, ss)
	if err != nil {
		return err
	}
	defer a.Close()
	e := newEngine(a, out)
	e.pvTurns = *pv
	return e.run(context.Background(), in)
}

// engine is the state of one engine session: the model and the position.
type engine struct {
	a        *analyst
	out      *bufio.Writer
	pos      game.Position
	pvTurns  int
	maxSims  int           // the largest "go sims" accepted
	maxTime  time.Duration // the largest "go movetime" accepted
	started  *search       // set by cmdGo for handleLine
	commands map[string]func(ctx context.Context, args []string) error
}

// newEngine starts a session at the variant's start position.
func newEngine(a *analyst, out io.Writer) *engine {
	e := &engine{a: a, out: bufio.NewWriter(out), pos: a.Rules().Start(), pvTurns: 8,
		maxSims: mcts.MaxSims, maxTime: maxSearchMoveTime}
	e.commands = map[string]func(context.Context, []string) error{"position": e.cmdPosition, "go": e.cmdGo}
	for name, fn := range map[string]func(){ // the commands without arguments
		"uci":     e.cmdUCI,
		"isready": func() { e.reply("readyok") },
		"newgame": func() { e.pos = e.a.Rules().Start() },
		"legal":   e.cmdLegal,
		"fen":     func() { e.reply("fen " + e.pos.FEN()) },
		"quit":    func() {},
		"stop":    func() {}, // no search runs: nothing to stop
	} {
		e.commands[name] = e.noArgs(name, fn)
	}
	return e
}

// engineCommandNames lists the commands for error messages.
const engineCommandNames = "uci, isready, newgame, position, go, stop, legal, fen, quit"

// searchAnswer is what a background search ends with.
type searchAnswer struct {
	an  *analysis.Analysis
	err error
}

// search is the engine's search in progress.
type search struct {
	stop     chan struct{} // closed by "stop" and "quit"
	answered chan searchAnswer
	infinite bool // "go infinite": only stop (or the end of the input) ends it
}

// halt ends the search early; a second halt does nothing.
func (s *search) halt() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
}

// run answers the lines of in until "quit" or the end of the input. Lines
// are handled in order, and input is read on while "go" searches: a "stop",
// "isready" or "quit" that is next in order is handled at once (stop ends
// the search, quit ends it and then the session); any other line waits for
// the search's answer. When the input ends, a "go infinite" search stops as
// if "stop" had come (nothing else could end it); a bounded one answers in
// full. Only run's goroutine writes to the output.
func (e *engine) run(ctx context.Context, in io.Reader) error {
	done := make(chan struct{})
	defer close(done)
	lines, readErr := readInput(in, engineMaxLine, done)

	var (
		cur   *search     // the search in progress, if any
		queue []inputLine // lines read and not yet handled, in order
		quit  bool        // "quit" came during the search
	)
	for {
		// Handle, in order, every line that can be handled now.
		for len(queue) > 0 && !quit {
			l := queue[0]
			if cur == nil {
				queue = queue[1:]
				if cur, quit = e.handleLine(ctx, l); quit {
					return e.out.Flush()
				}
				continue
			}
			if w := searchCommand(l); w == "stop" {
				cur.halt()
			} else if w == "isready" {
				e.reply("readyok")
			} else if w == "quit" {
				cur.halt()
				quit = true
			} else {
				break // l waits for the search's answer
			}
			queue = queue[1:]
		}
		if err := e.out.Flush(); err != nil {
			return err
		}
		if lines == nil && cur != nil && cur.infinite {
			cur.halt() // the input has ended: no stop can come
		}
		if cur == nil && lines == nil {
			return <-readErr
		}
		var input <-chan inputLine
		if len(queue) < engineMaxQueued {
			input = lines
		}
		var answered <-chan searchAnswer
		if cur != nil {
			answered = cur.answered
		}
		select {
		case l, ok := <-input:
			if !ok {
				lines = nil // the input ended; a search still answers
				continue
			}
			queue = append(queue, l)
		case a := <-answered:
			cur = nil
			e.answerGo(a)
			if quit {
				return e.out.Flush()
			}
		}
	}
}

// searchCommand returns the command of l if it is one that is answered while
// a search runs ("stop", "isready" or "quit", without arguments), or "".
func searchCommand(l inputLine) string {
	if f := strings.Fields(l.text); len(f) == 1 && !l.tooLong {
		switch f[0] {
		case "stop", "isready", "quit":
			return f[0]
		}
	}
	return ""
}

// handleLine answers one line read while no search runs; it returns the
// search the line started, if any, and whether it was "quit".
func (e *engine) handleLine(ctx context.Context, l inputLine) (*search, bool) {
	if l.tooLong {
		e.reply(fmt.Sprintf("error line too long: more than %d bytes", engineMaxLine))
		return nil, false
	}
	e.started = nil
	quit := e.handle(ctx, l.text)
	return e.started, quit
}

// handle answers one command line and reports whether it was "quit".
func (e *engine) handle(ctx context.Context, line string) (quit bool) {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return false
	}
	name, args := fields[0], fields[1:]
	cmd, ok := e.commands[name]
	if !ok {
		e.replyError(fmt.Errorf("unknown command %q (known: %s)", name, engineCommandNames))
		return false
	}
	if err := cmd(ctx, args); err != nil {
		e.replyError(err)
		return false
	}
	return name == "quit"
}

// noArgs wraps command name, which takes no arguments.
func (e *engine) noArgs(name string, fn func()) func(context.Context, []string) error {
	return func(_ context.Context, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("unexpected argument %q: %s takes none", strings.Join(args, " "), name)
		}
		fn()
		return nil
	}
}

// reply writes one line of the protocol.
func (e *engine) reply(line string) {
	e.out.WriteString(oneLine(line))
	e.out.WriteByte('\n')
}

// replyError answers "error <reason>".
func (e *engine) replyError(err error) { e.reply("error " + err.Error()) }

// oneLine makes s safe to send as one protocol line: control characters
// (line breaks among them) become spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}

// cmdUCI answers "uci" with the engine's identity.
func (e *engine) cmdUCI() {
	e.reply("id name dablot-zero")
	e.reply("id variant " + e.a.Rules().Name)
	e.reply("uciok")
}

// cmdPosition reads "position startpos|fen <FEN> [moves <turn> ...]". The
// position changes only if the whole line is valid.
func (e *engine) cmdPosition(_ context.Context, args []string) error {
	if len(args) == 0 {
		return errors.New("position needs startpos or fen <FEN>")
	}
	r := e.a.Rules()
	var p game.Position
	rest := args[1:]
	switch args[0] {
	case "startpos":
		p = r.Start()
	case "fen":
		n := 0
		for n < len(rest) && rest[n] != "moves" {
			n++
		}
		if n == 0 {
			return errors.New("position fen needs a FEN")
		}
		var err error
		if p, err = game.ParseFEN(r, strings.Join(rest[:n], " ")); err != nil {
			return err
		}
		rest = rest[n:]
	default:
		return fmt.Errorf("position %q: want startpos or fen <FEN>", args[0])
	}
	if len(rest) > 0 {
		if rest[0] != "moves" {
			return fmt.Errorf("unexpected %q after the position: want moves <turn> ...", rest[0])
		}
		turns := rest[1:]
		if len(turns) > engineMaxMoves {
			return fmt.Errorf("%d moves: at most %d", len(turns), engineMaxMoves)
		}
		if _, err := p.ApplyTurns(turns); err != nil {
			return err
		}
	}
	e.pos = p
	return nil
}

// cmdGo starts a search of the position in the background; run answers
// with info lines and "bestmove" when it ends. "go infinite" searches until
// "stop" (within the engine's largest limits).
func (e *engine) cmdGo(ctx context.Context, args []string) error {
	var lim mcts.Limits
	infinite := false
	for i := 0; i < len(args); i += 2 {
		key := args[i]
		if key == "infinite" {
			infinite = true
			i--
			continue
		}
		if i+1 >= len(args) {
			return fmt.Errorf("go %s needs a value", key)
		}
		n, err := strconv.Atoi(args[i+1])
		if err != nil {
			return fmt.Errorf("go %s %q: not a whole number", key, args[i+1])
		}
		switch key {
		case "sims":
			lim.Sims = n
			err = inRange("go sims", n, 1, e.maxSims)
		case "movetime":
			lim.Time = time.Duration(n) * time.Millisecond
			err = inRange("go movetime", n, 1, int(e.maxTime.Milliseconds()))
		default:
			err = fmt.Errorf("go %q: want sims N, movetime MS or infinite", key)
		}
		if err != nil {
			return err
		}
	}
	switch {
	case infinite && lim != (mcts.Limits{}):
		return errors.New("go infinite takes no sims or movetime: it searches until stop")
	case infinite:
		lim = mcts.Limits{Sims: e.maxSims, Time: e.maxTime}
	case lim == (mcts.Limits{}):
		lim = e.a.limits()
		lim.Sims = min(lim.Sims, e.maxSims)
		lim.Time = min(lim.Time, e.maxTime)
	}
	if e.pos.Status().Over() {
		return analysis.GameOverError(&e.pos)
	}
	s := &search{stop: make(chan struct{}), answered: make(chan searchAnswer, 1), infinite: infinite}
	lim.Stop = s.stop
	pos, pvTurns := e.pos, e.pvTurns
	// An infinite search's time limit is only a bound: its guard is that of
	// a search by simulations, not one that deepens through half an hour.
	guardLim := lim
	if infinite {
		guardLim = mcts.Limits{Sims: lim.Sims}
	}
	go func() {
		an, err := e.a.analyseGuarded(ctx, pos, analysis.Query{Limits: lim, Top: 1, PV: pvTurns}, guardLim)
		s.answered <- searchAnswer{an, err}
	}()
	e.started = s
	return nil
}

// answerGo answers a search that has ended.
func (e *engine) answerGo(a searchAnswer) {
	if a.err != nil {
		e.replyError(a.err)
		return
	}
	b := a.an.Best()
	proven := ""
	if a.an.Proof != nil {
		proven = " proven " + a.an.Proof.String()
	}
	if a.an.Tables != nil {
		proven = " tables " + tablesText(a.an.Tables)
	}
	e.reply(fmt.Sprintf("info sims %d value %.3f wdl %.3f %.3f %.3f%s pv %s",
		a.an.Sims, b.Value, b.WDL[0], b.WDL[1], b.WDL[2], proven, strings.Join(a.an.PV, " ")))
	e.reply("bestmove " + b.Text)
}

// cmdLegal answers "legal" and the legal turns, sorted (none once the game
// is over).
func (e *engine) cmdLegal() {
	_, texts := e.pos.SortedTurns()
	e.reply(strings.Join(append([]string{"legal"}, texts...), " "))
}
