package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

// maxThreads bounds the flags that set goroutines (--threads): more is a
// mistake on any machine the program runs on.
const maxThreads = 256

// flagSet is the flags of one command: a flag.FlagSet that parses without
// printing, the command it belongs to (for -h), and the range checks of its
// numeric flags (rangeFlag), run after parsing.
type flagSet struct {
	*flag.FlagSet
	cmd    *command
	out    io.Writer
	checks []func() error
}

// newFlags makes the flag set of the command at path (such as "train" or
// "analyse blunders"); its -h writes the command's help to out.
func newFlags(path string, out io.Writer) *flagSet {
	c := byPath[path]
	if c == nil { // not in the lists of main.go: help says only its name
		c = &command{name: path}
	}
	fs := flag.NewFlagSet(c.line(), flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned, help is printHelp's
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, cmd: c, out: out}
}

// printHelp writes the command's usage line, long description and flags.
func (fs *flagSet) printHelp() {
	c := fs.cmd
	fmt.Fprintf(fs.out, "usage: %s %s\n", c.line(), c.usage)
	if c.long != "" {
		fmt.Fprintf(fs.out, "\n%s\n", strings.TrimRight(c.long, "\n"))
	}
	empty := true
	fs.VisitAll(func(*flag.Flag) { empty = false })
	if !empty {
		fmt.Fprint(fs.out, "\nFlags:\n")
		fs.SetOutput(fs.out)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
}

// parse parses args: -h prints the help and returns flag.ErrHelp, a bad
// flag is a usage error.
func (fs *flagSet) parse(args []string) error {
	err := fs.FlagSet.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.printHelp()
		return err
	case err != nil:
		return usageError{err.Error()}
	}
	return nil
}

// first makes check run before the range checks (and any check given to
// first before), for a setting that must be reported first.
func (fs *flagSet) first(check func() error) {
	fs.checks = append([]func() error{check}, fs.checks...)
}

// check runs the range checks of the numeric flags, in the order they were
// defined, and returns the first error.
func (fs *flagSet) check() error {
	for _, c := range fs.checks {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}

// parseFlags parses args, rejects stray positional arguments and checks
// the ranges of the numeric flags.
func parseFlags(fs *flagSet, args []string) error {
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", strings.Join(fs.Args(), " "))
	}
	return fs.check()
}

// parseArgs parses flags that may come before or after the positional
// arguments, checks the ranges of the numeric flags, and returns the
// positional arguments.
func parseArgs(fs *flagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, fs.check()
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// stringList is a flag that may be given several times.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// rangeFlag defines a numeric flag (int or float64) whose value, given or
// default, must lie in [lo, hi]; parseFlags and parseArgs check it
// (inRange) and report a value outside as a usage error. The usage gets the
// range appended.
func rangeFlag[T int | float64](fs *flagSet, name string, def, lo, hi T, usage string) *T {
	p := new(T)
	rangeVar(fs, p, name, def, lo, hi, usage)
	return p
}

// rangeVar is rangeFlag storing the value in p.
func rangeVar[T int | float64](fs *flagSet, p *T, name string, def, lo, hi T, usage string) {
	usage = fmt.Sprintf("%s (from %v to %v)", usage, lo, hi)
	switch v := any(p).(type) {
	case *int:
		fs.IntVar(v, name, int(def), usage)
	case *float64:
		fs.Float64Var(v, name, float64(def), usage)
	}
	fs.checks = append(fs.checks, func() error {
		if err := inRange("--"+name, *p, lo, hi); err != nil {
			return usageError{err.Error()}
		}
		return nil
	})
}

// millisVar defines a flag of whole milliseconds in [lo, hi] that stores
// its value, once checked, in p as a duration.
func millisVar(fs *flagSet, p *time.Duration, name string, lo, hi int, usage string) {
	ms := rangeFlag(fs, name, int(p.Milliseconds()), lo, hi, usage)
	fs.checks = append(fs.checks, func() error {
		*p = time.Duration(*ms) * time.Millisecond
		return nil
	})
}

// threadsFlag defines --threads, goroutines from 1 to maxThreads.
func threadsFlag(fs *flagSet, def int, usage string) *int {
	return rangeFlag(fs, "threads", def, 1, maxThreads, usage)
}

// inRange is the one range check of numbers a user gives, flags (rangeFlag)
// and the numbers of the engine's and the web page's requests alike: nil if
// v lies in [lo, hi] (NaN does not), else an error naming the input, such as
// "--games 0: want 1 to 1000" or "go sims 0: want 1 to 1000000".
func inRange[T int | float64](name string, v, lo, hi T) error {
	if v >= lo && v <= hi {
		return nil
	}
	return fmt.Errorf("%s %v: want %v to %v", name, v, lo, hi)
}
