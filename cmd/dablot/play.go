package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/durable"
	"github.com/dablot-zero/dablot/mcts/analysis"
)

// cmdPlay plays at the terminal.
var cmdPlay = &command{
	name:  "play",
	usage: "--model FILE [--model FILE2 | --opponent SPEC] [--side s|n] [--sims N | --movetime MS] [--gumbel] [--variant V] [--fen F] [--record FILE]",
	short: "play a model (or a baseline player) in the terminal",
	long: `With one player (--model FILE, or --opponent SPEC with --variant V) a person plays it at
the terminal. With two (--model twice, or --model and --opponent) the program plays both
sides, the first South, and prints the game. The game record is written on exit to
--record FILE, if given; "save FILE" at the prompt writes it at any time.

At the prompt: a turn such as i5-i7 or a7xe7xg5 (or pass), legal, undo, hint, fen, board,
save FILE, help, quit.`,
	run: runPlay,
}

// playHelp is the help shown at the prompt.
const playHelp = `Type a turn in the notation: a step such as i5-i7, a capture chain such as a7xe7xg5
(it ends where you stop it, where the rules allow), or pass. Commands:
  legal       the legal turns
  undo        take back your last turn and the reply to it
  hint        the model's three best turns with win/draw/loss chances
  fen         the position in FEN
  board       the board again
  save FILE   write the game record (PGN-like) to FILE
  help        this text
  quit        stop (the record goes to --record FILE, if given)`

// playMaxLine bounds a line of the person's input, in bytes.
const playMaxLine = 1 << 20

// playOptions are the settings of "dablot play".
type playOptions struct {
	models   stringList
	opponent string
	side     string
	variant  string
	fen      string
	record   string
	search   searchSettings
}

// runPlay runs "dablot play" reading the person's turns from standard input.
func runPlay(args []string, out io.Writer) error { return playMain(args, os.Stdin, out) }

// playMain runs "dablot play" reading the person's input from in.
func playMain(args []string, in io.Reader, out io.Writer) error {
	fs := newFlags("play", out)
	var o playOptions
	fs.Var(&o.models, "model", "model file (twice: the model plays itself, the first South)")
	fs.StringVar(&o.opponent, "opponent", "", "a baseline player instead of (or against) a model, such as alphabeta:depth=4 (see \"dablot arena -h\")")
	fs.StringVar(&o.side, "side", "s", "the person's side: s (South, moves first in most variants) or n")
	fs.StringVar(&o.variant, "variant", "", "variant (default: the model's; with a model, it must match)")
	fs.StringVar(&o.fen, "fen", "", "start position (default: the variant's)")
	fs.StringVar(&o.record, "record", "", "write the game record (PGN-like) to this file on exit")
	o.search.addFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	sideSet := false
	fs.Visit(func(f *flag.Flag) { sideSet = sideSet || f.Name == "side" })
	players := len(o.models)
	if o.opponent != "" {
		players++
	}
	switch {
	case players == 0:
		return usagef("--model FILE is required (or --opponent SPEC with --variant V)")
	case players > 2:
		return usagef("%d players given: at most two (--model twice, or --model and --opponent)", players)
	case players == 2 && sideSet:
		return usagef("--side: no person plays when two players are given")
	}
	human, err := parseSide(o.side)
	if err != nil {
		return err
	}
	if err := o.search.validate(); err != nil {
		return err
	}

	// The players, and the rules from the first model (or --variant).
	var programs []gamePlayer
	var hinter *analyst
	var r *game.Rules
	for _, path := range o.models {
		a, err := openAnalyst(path, o.variant, o.search)
		if err != nil {
			return err
		}
		defer a.Close()
		m := a.model
		if r == nil {
			r = m.Rules
		} else if err := m.CheckRules(r); err != nil {
			return fmt.Errorf("model %s: %w", path, err)
		}
		if hinter == nil {
			hinter = a
		}
		programs = append(programs, &modelPlayer{name: modelName(path, m), a: a})
	}
	if r == nil {
		if o.variant == "" {
			return usagef("--opponent without --model needs --variant V")
		}
		if r, err = configs.Variant(o.variant); err != nil {
			return err
		}
	}
	if o.opponent != "" {
		sp, f, err := newSpecPlayer(o.opponent, r, o.search.Threads, o.search.Seed)
		if err != nil {
			return usagef("--opponent: %v", err)
		}
		defer f.Close()
		programs = append(programs, sp)
	}
	start, err := game.ParseSetup(r, o.fen)
	if err != nil {
		return err
	}
	if len(start.Decisions(nil)) == 0 {
		return fmt.Errorf("--fen: %v", analysis.GameOverError(&start))
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	search := ""
	if hinter != nil {
		search = hinter.describe()
	}
	g := &playGame{r: r, out: out, history: []game.Position{start}, search: search}
	if len(programs) == 2 {
		g.names = [2]string{programs[0].Name(), programs[1].Name()}
		err = g.autoplay(ctx, [2]gamePlayer{programs[0], programs[1]})
	} else {
		g.names[human] = "person"
		g.names[human.Other()] = programs[0].Name()
		done := make(chan struct{})
		lines, _ := readInput(in, playMaxLine, done) // a read error ends the input
		s := &playSession{playGame: g, human: human, program: programs[0], hinter: hinter, lines: lines}
		err = s.run(ctx)
		close(done)
	}
	if o.record != "" {
		if werr := g.save(o.record); werr != nil {
			return errors.Join(err, werr)
		}
		fmt.Fprintf(out, "game record written to %s\n", o.record)
	}
	return err
}

// parseSide reads s, south, n or north.
func parseSide(s string) (game.Side, error) {
	switch strings.ToLower(s) {
	case "s", "south":
		return game.South, nil
	case "n", "north":
		return game.North, nil
	}
	return 0, usagef("--side %q: want s (South) or n (North)", s)
}

// playGame is a game in progress: its positions and turns.
type playGame struct {
	r       *game.Rules
	out     io.Writer
	history []game.Position // history[0] is the start; one more position per turn
	turns   []string
	paths   [][]int   // the points of each turn (game.Turn.Path), for the board
	names   [2]string // South's and North's players
	search  string    // how the model searches, for the record
}

// pos returns the current position.
func (g *playGame) pos() game.Position { return g.history[len(g.history)-1] }

// play plays a complete turn given by its decisions.
func (g *playGame) play(ds []game.Decision) string {
	p := g.pos()
	t, _, _ := p.DecisionsToTurn(ds)
	turn := t.Format(p.Board())
	for _, d := range ds {
		p.Apply(d)
	}
	g.history = append(g.history, p)
	g.turns = append(g.turns, turn)
	g.paths = append(g.paths, t.Path)
	return turn
}

// takeBack takes back every turn from the n-th (0-based) on and returns
// them.
func (g *playGame) takeBack(n int) []string {
	taken := g.turns[n:]
	g.history, g.turns, g.paths = g.history[:n+1], g.turns[:n], g.paths[:n]
	return taken
}

// save writes the game record so far to path.
func (g *playGame) save(path string) error {
	end := g.pos()
	rec := gameRecord(&g.history[0], &end, g.turns, g.names[game.South], g.names[game.North], map[string]string{"Search": g.search})
	if err := durable.Write(path, rec.WritePGN); err != nil {
		return fmt.Errorf("saving the game to %s: %w", path, err)
	}
	return nil
}

// showBoard prints the diagram with the last turn's start and end marked,
// the legend, and who is to move, or how the game ended.
func (g *playGame) showBoard() {
	p := g.pos()
	var marks []int
	last := ""
	if n := len(g.turns); n > 0 {
		mover := sideName(g.history[n-1].SideToMove())
		last = fmt.Sprintf("the last turn: %s passed\n", mover)
		if path := g.paths[n-1]; len(path) > 0 {
			marks = []int{path[0], path[len(path)-1]}
			last = fmt.Sprintf("[ ] marks the last turn, %s's %s\n", mover, g.turns[n-1])
		}
	}
	fmt.Fprint(g.out, "\n"+p.DiagramMarked(marks)+g.legend()+last)
	if st := p.Status(); st.Over() {
		fmt.Fprintf(g.out, "game over after %d turns: %s (%s)\n", len(g.turns), st, st.Outcome.Result())
		return
	}
	s := p.SideToMove()
	fmt.Fprintf(g.out, "%s (%s) to move", sideName(s), g.names[s])
	if c := p.Chain(); c >= 0 {
		fmt.Fprintf(g.out, ", continuing the capture chain of %s", p.Board().Name(c))
	}
	fmt.Fprintln(g.out)
}

// legend says which letter of the diagram is which piece: the ranks of
// the start position and the rank soldiers are promoted to, such as
// "pieces: S soldier, K king of South; s, k of North".
func (g *playGame) legend() string {
	var names, north []string
	for r := range game.Rank(game.NumRanks) {
		start := g.history[0]
		if start.Pieces(game.South, r).Empty() && start.Pieces(game.North, r).Empty() && (r == game.Soldier || r != g.r.PromoteTo) {
			continue
		}
		names = append(names, fmt.Sprintf("%c %s", game.PieceLetter(game.South, r), r))
		north = append(north, string(game.PieceLetter(game.North, r)))
	}
	return fmt.Sprintf("pieces: %s of South; %s of North\n", strings.Join(names, ", "), strings.Join(north, ", "))
}

// autoplay lets two programs play from the current position to the end.
func (g *playGame) autoplay(ctx context.Context, players [2]gamePlayer) error {
	fmt.Fprintf(g.out, "%s: South %s, North %s [%s]\n", g.r.Name, g.names[0], g.names[1], g.search)
	for {
		p := g.pos()
		if p.Status().Over() {
			break
		}
		s := p.SideToMove()
		ds, note, err := players[s].Move(ctx, p)
		if err != nil {
			return fmt.Errorf("%s (%s): %w", sideName(s), g.names[s], err)
		}
		turn := g.play(ds)
		if note != "" {
			note = "  " + note
		}
		fmt.Fprintf(g.out, "%4d. %-5s %-14s%s\n", len(g.turns), sideName(s), turn, note)
	}
	g.showBoard()
	return nil
}

// playSession is a person playing a program at the terminal.
type playSession struct {
	*playGame
	human   game.Side
	program gamePlayer
	hinter  *analyst // the model, for hints (nil if the program is a baseline)
	lines   <-chan inputLine
	// moved says that the position changed since the board was last
	// shown: it is shown before the next prompt, so once a turn.
	moved bool
}

// run plays until the person quits or the input ends.
func (s *playSession) run(ctx context.Context) error {
	fmt.Fprintf(s.out, "%s: you play %s against %s [%s]. Type help for the commands.\n",
		s.r.Name, sideName(s.human), s.program.Name(), s.search)
	s.moved = true
	for {
		p := s.pos()
		if !p.Status().Over() && p.SideToMove() != s.human {
			if err := s.programMoves(ctx); err != nil {
				return err
			}
			continue
		}
		if s.moved {
			s.showBoard()
			s.moved = false
		}
		fmt.Fprintf(s.out, "%s> ", s.human)
		var line inputLine
		var ok bool
		select {
		case line, ok = <-s.lines:
		case <-ctx.Done():
		}
		switch {
		case !ok: // the input or the session ended
			fmt.Fprintln(s.out)
			return nil
		case line.tooLong:
			fmt.Fprintf(s.out, "line too long: more than %d bytes\n", playMaxLine)
		default:
			if quit := s.command(ctx, strings.TrimSpace(line.text)); quit {
				return nil
			}
		}
	}
}

// programMoves lets the program play its turn.
func (s *playSession) programMoves(ctx context.Context) error {
	p := s.pos()
	side := p.SideToMove()
	ds, note, err := s.program.Move(ctx, p)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("%s: %w", s.program.Name(), err)
	}
	turn := s.play(ds)
	if note != "" {
		note = " (" + note + ")"
	}
	fmt.Fprintf(s.out, "%s plays %s%s\n", sideName(side), turn, note)
	s.moved = true
	return nil
}

// command carries out one line of the person's input and reports whether
// the person quits.
func (s *playSession) command(ctx context.Context, line string) (quit bool) {
	word, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	p := s.pos()
	switch strings.ToLower(word) {
	case "":
	case "quit", "exit", "q":
		return true
	case "help", "?":
		fmt.Fprintln(s.out, playHelp)
	case "board", "show":
		s.showBoard()
	case "fen":
		fmt.Fprintln(s.out, p.FEN())
	case "legal":
		if p.Status().Over() {
			fmt.Fprintf(s.out, "no legal turns: %v\n", analysis.GameOverError(&p))
			break
		}
		_, texts := p.SortedTurns()
		fmt.Fprintf(s.out, "%d legal turns:\n%s\n", len(texts), wrapWords(texts, 76))
	case "undo":
		s.undo()
	case "hint":
		s.hint(ctx)
	case "save":
		if arg == "" {
			fmt.Fprintln(s.out, "save needs a file name: save FILE")
			break
		}
		if err := s.save(arg); err != nil {
			fmt.Fprintln(s.out, err)
			break
		}
		fmt.Fprintf(s.out, "game record written to %s\n", arg)
	default:
		if p.Status().Over() {
			fmt.Fprintf(s.out, "%v; type undo, save FILE or quit\n", analysis.GameOverError(&p))
			break
		}
		_, ds, err := p.ParseTurn(line)
		if err != nil {
			fmt.Fprintf(s.out, "not played: %v (type legal for the legal turns, help for the commands)\n", err)
			break
		}
		s.play(ds)
		s.moved = true
	}
	return false
}

// undo takes back the person's last turn and every turn after it.
func (s *playSession) undo() {
	for i := len(s.history) - 2; i >= 0; i-- {
		if s.history[i].SideToMove() == s.human {
			fmt.Fprintf(s.out, "taken back: %s\n", strings.Join(s.takeBack(i), " "))
			s.moved = true
			return
		}
	}
	fmt.Fprintln(s.out, "nothing to undo: you have not played a turn yet")
}

// hint prints the model's three best turns for the person.
func (s *playSession) hint(ctx context.Context) {
	if s.hinter == nil {
		fmt.Fprintln(s.out, "hint needs a model (--model FILE)")
		return
	}
	p := s.pos()
	an, err := s.hinter.Analyse(ctx, p, analysis.Query{Limits: s.hinter.limits(), Top: 3})
	if err != nil {
		fmt.Fprintf(s.out, "no hint: %v\n", err)
		return
	}
	side := sideName(an.Side)
	fmt.Fprintf(s.out, "the model's best turns for %s, the side to move (values and chances are %s's):\n", side, side)
	for i, t := range an.Top {
		where := plural(t.Visits, "visit")
		if an.Tables != nil {
			where = "endgame tables: " + tablesText(an.Tables)
		}
		fmt.Fprintf(s.out, "  %d. %-14s value %+.2f  win %3.0f%%  draw %3.0f%%  loss %3.0f%%  (%s)\n",
			i+1, t.Text, t.Value, 100*t.WDL[0], 100*t.WDL[1], 100*t.WDL[2], where)
	}
	switch {
	case an.Tables != nil:
	case an.Kept > 0:
		fmt.Fprintf(s.out, "  (%s; the visits also count %d that the search kept from the model's last one)\n", plural(an.Sims, "simulation"), an.Kept)
	default:
		fmt.Fprintf(s.out, "  (%s)\n", plural(an.Sims, "simulation"))
	}
}

// plural writes n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// wrapWords joins words with spaces into lines of at most width characters.
func wrapWords(words []string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range words {
		if n > 0 && n+1+len(w) > width {
			b.WriteByte('\n')
			n = 0
		}
		if n > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
