// Command dablot trains, plays and measures Dablot models. Run "dablot help"
// for the commands, "dablot help COMMAND" for one of them.
//
// The command line is built as Go's own cmd/go is: each command is a value
// (cmdTrain, cmdPlay, ...) with its usage line, a short description for the
// list and a long one for its help, and the lists below give them in help
// order. The research tools are grouped under "dablot analyse".
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
)

// command is one command of dablot, or a group of commands (such as
// analyse) when it has subcommands instead of run.
type command struct {
	name  string // the word that selects it
	usage string // what follows "dablot NAME" in its usage line
	short string // one line for the list of commands
	long  string // what "dablot help NAME" says below the usage line
	// run runs the command with the arguments after its name; nil for a
	// group.
	run    func(args []string, out io.Writer) error
	sub    []*command // a group's commands, in help order
	parent *command   // set by link
}

// dablot is the root of the commands.
var dablot = &command{
	name: "dablot",
	long: "Dablot learns Dablot Prejjesne and its variants by self-play, and plays them.",
}

// cmdAnalyse groups the research tools: studies of the variants, of game
// records and of the program's speed. Training and playing need none of them.
var cmdAnalyse = &command{
	name:  "analyse",
	short: "research tools: balance, blunders, kinghunt, kingrace, loneking, endgame, book, compare, diagnose, perft, bench",
	long: `Analyse holds the research tools: studies of the variants, of game records and of
the program's speed. Training and playing need none of them.`,
}

// cmdBench groups the speed measurements.
var cmdBench = &command{
	name:  "bench",
	short: "measure the speed of the rules, the network and the search",
	long:  "Bench measures speed; each measurement prints what it did and its rate.",
}

func init() {
	dablot.sub = []*command{
		cmdTrain,
		cmdPlay,
		cmdServe,
		cmdEngine,
		cmdReport,
		cmdExport,
		cmdInfo,
		cmdSelfPlay,
		cmdArena,
		cmdLadder,
		cmdVariants,
		cmdShow,
		cmdLegal,
		cmdAnalyse,
	}
	cmdAnalyse.sub = []*command{
		cmdBalance,
		cmdBlunders,
		cmdKingHunt,
		cmdKingRace,
		cmdLoneKing,
		cmdEndgame,
		cmdBook,
		cmdCompare,
		cmdDiagnose,
		cmdPerft,
		cmdBench,
	}
	cmdDiagnose.sub = []*command{
		cmdDiagnoseSelfPlay,
		cmdDiagnoseTargets,
		cmdDiagnosePositions,
		cmdDiagnoseGuard,
	}
	cmdBench.sub = []*command{
		cmdBenchPlayouts,
		cmdBenchNet,
		cmdBenchSearch,
	}
	link(dablot)
}

// byPath holds every command by its path, such as "analyse blunders".
var byPath = map[string]*command{}

// link sets the parents of c's subcommands, recursively, and enters them in
// byPath.
func link(c *command) {
	for _, s := range c.sub {
		s.parent = c
		byPath[s.path()] = s
		link(s)
	}
}

// all returns c's subcommands and theirs, in help order, each group before
// its commands.
func (c *command) all() []*command {
	var out []*command
	for _, s := range c.sub {
		out = append(out, s)
		out = append(out, s.all()...)
	}
	return out
}

// path returns the words that select c after "dablot", such as
// "analyse blunders" ("" for the root).
func (c *command) path() string {
	if c.parent == nil {
		return ""
	}
	if p := c.parent.path(); p != "" {
		return p + " " + c.name
	}
	return c.name
}

// line returns the command as typed, such as "dablot analyse blunders".
func (c *command) line() string {
	return strings.TrimSpace("dablot " + c.path())
}

// lookup returns the subcommand of c called name, or nil.
func (c *command) lookup(name string) *command {
	for _, s := range c.sub {
		if s.name == name {
			return s
		}
	}
	return nil
}

// names returns the names of c's subcommands, in help order.
func (c *command) names() string {
	names := make([]string, len(c.sub))
	for i, s := range c.sub {
		names[i] = s.name
	}
	return strings.Join(names, ", ")
}

// usageError is a mistake in the command line: it exits with status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

func main() {
	os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
}

// runMain runs one command line and returns the exit status.
func runMain(args []string, stdout, stderr io.Writer) int {
	c, err := dispatch(args, stdout)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	}
	fmt.Fprintf(stderr, "%s: %v\n", c.line(), err)
	var ue usageError
	if errors.As(err, &ue) {
		what := "its usage"
		if c.run == nil {
			what = "the commands"
		}
		fmt.Fprintf(stderr, "run %q for %s\n", strings.TrimSpace("dablot help "+c.path()), what)
		return 2
	}
	return 1
}

// dispatch finds the command that args name and runs it; it returns the
// command (or the group that does not know the next word) and its error.
func dispatch(args []string, out io.Writer) (*command, error) {
	c := dablot
	for c.run == nil {
		if len(args) == 0 {
			if c == dablot {
				printHelp(c, out)
				return c, nil
			}
			return c, usagef("which command? one of: %s", c.names())
		}
		switch args[0] {
		case "help":
			if c == dablot {
				return help(args[1:], out)
			}
		case "-h", "-help", "--help":
			printHelp(c, out)
			return c, nil
		}
		s := c.lookup(args[0])
		if s == nil {
			return c, unknown(c, args[0])
		}
		c, args = s, args[1:]
	}
	return c, c.run(args, out)
}

// unknown is the error for a word that names no subcommand of c; it points
// to the command of that name elsewhere in the tree, if any.
func unknown(c *command, name string) error {
	for _, s := range dablot.all() {
		if s.name == name && s.parent != c {
			return usagef("unknown command %q: did you mean %q?", name, s.line())
		}
	}
	return usagef("unknown command %q (one of: %s)", name, c.names())
}

// help runs "dablot help [COMMAND...]": the list of commands, a group's
// list, or a command's usage, long description and flags.
func help(words []string, out io.Writer) (*command, error) {
	c := dablot
	for i, w := range words {
		s := c.lookup(w)
		if s == nil {
			return dablot, usagef("help %s: unknown command %q", strings.Join(words[:i+1], " "), w)
		}
		c = s
	}
	if c.run == nil {
		printHelp(c, out)
		return c, nil
	}
	// A command's flags are defined where it runs: -h prints its help
	// (newFlags) and runs nothing.
	return c, c.run([]string{"-h"}, out)
}

// printHelp writes the help of a group: its description and its commands
// with their short descriptions.
func printHelp(c *command, out io.Writer) {
	fmt.Fprintf(out, "%s\n\nUsage:\n\n\t%s <command> [arguments]\n\nThe commands are:\n\n", c.long, c.line())
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, s := range c.sub {
		fmt.Fprintf(tw, "\t%s\t%s\n", s.name, s.short)
	}
	tw.Flush()
	fmt.Fprintf(out, "\nUse %q for more about a command, its flags included.\n", strings.Join(strings.Fields("dablot help "+c.path()+" <command>"), " "))
}
