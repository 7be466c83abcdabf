package main

// What dablot train prints, and what stops it: the output that goes to the
// terminal and to the run's log, and the signals and output failures that
// end a run as Ctrl-C does.

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

// runOutput is where dablot train writes: the terminal (its standard
// output, whatever that is) and, once the run's directory is known, the
// run's log file (rundir.LogFile), appended to; what is written before
// that is kept and goes to the log first. A write to the terminal that
// fails (a closed pipe, a terminal gone) ends the terminal's part for good
// and calls broken, which stops the run (stopper.finish); the log goes on
// and says so. Writes to a runOutput never fail.
type runOutput struct {
	mu      sync.Mutex
	term    io.Writer   // nil once a write to it failed
	broken  func() bool // called at the terminal's failure: did it stop the run?
	log     *os.File    // nil until attach
	logPath string
	logErr  error  // the log's first failure
	pending []byte // what was written before attach
}

// newRunOutput returns the output of a run that writes to the terminal
// term and calls broken (if not nil) when term fails.
func newRunOutput(term io.Writer, broken func() bool) *runOutput {
	return &runOutput{term: term, broken: broken}
}

// Write writes p to the terminal, if it has not failed, and to the log.
func (o *runOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.term != nil {
		if _, err := o.term.Write(p); err != nil {
			o.term = nil
			o.toLog(p)
			what := ""
			if o.broken != nil && o.broken() {
				what = ": finishing this generation, then stopping, as on Ctrl-C"
			}
			o.toLog(fmt.Appendf(nil, "\nthe terminal failed (%v)%s; the run's output goes on in this log only\n", err, what))
			return len(p), nil
		}
	}
	o.toLog(p)
	return len(p), nil
}

// Terminal returns the terminal, if it is a file and has not failed (a
// progress.Tee: progress bars are drawn there, not in the log).
func (o *runOutput) Terminal() *os.File {
	o.mu.Lock()
	defer o.mu.Unlock()
	f, _ := o.term.(*os.File)
	return f
}

// toLog writes p to the log, or keeps it until there is one.
func (o *runOutput) toLog(p []byte) {
	switch {
	case o.log == nil:
		o.pending = append(o.pending, p...)
	case o.logErr == nil:
		_, o.logErr = o.log.Write(p)
	}
}

// attach opens the log file path (appending to it), writes there a line
// with the time and the command line args, then what was written so far.
func (o *runOutput) attach(path string, args []string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("the run's log: %w", err)
	}
	sep := ""
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		sep = "\n" // after an earlier session's
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.log, o.logPath = f, path
	o.toLog(fmt.Appendf(nil, "%s== %s: %s (process %d)\n", sep, time.Now().UTC().Format(time.RFC3339), strings.Join(args, " "), os.Getpid()))
	o.toLog(o.pending)
	o.pending = nil
	return nil
}

// logOnly writes a line to the log alone, such as the error the terminal
// gets on standard error.
func (o *runOutput) logOnly(format string, args ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.log != nil {
		o.toLog(fmt.Appendf(nil, format, args...))
	}
}

// Close closes the log and returns its first failure.
func (o *runOutput) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.log == nil {
		return nil
	}
	err := o.logErr
	if cerr := o.log.Close(); err == nil {
		err = cerr
	}
	o.log = nil
	if err != nil {
		return fmt.Errorf("the run's log %s: %w", o.logPath, err)
	}
	return nil
}

// stopSignals are the signals that stop a run: Ctrl-C (SIGINT) and the
// terminal's hangup (SIGHUP), unless the process ignores it (as under
// nohup). A closed pipe stops it too, when runOutput's write to it fails;
// SIGPIPE itself is ignored (ignoreSIGPIPE).
func stopSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

// ignoreSIGPIPE makes a write to a closed pipe on standard output or error
// fail with EPIPE, as it does on other files, where Go would kill the
// process with SIGPIPE; for the rest of the process.
func ignoreSIGPIPE() { signal.Ignore(syscall.SIGPIPE) }

// stopper is how a run stops: finish closes stop, and the run ends after
// the generation under way (checkpointed); cancel abandons it, and the
// last checkpoint stands.
type stopper struct {
	mu       sync.Mutex
	stopping bool
	stop     chan struct{}
	cancel   func()
}

// newStopper returns a stopper whose cancel is cancel.
func newStopper(cancel func()) *stopper { return &stopper{stop: make(chan struct{}), cancel: cancel} }

// finish closes stop, unless it is closed already, and reports whether it
// did.
func (s *stopper) finish() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return false
	}
	s.stopping = true
	close(s.stop)
	return true
}

// watchStop stops a run for the signals on sig (stopSignals): the first
// stop (Ctrl-C, a hangup, or the terminal's failure that runOutput
// reports) finishes the generation under way; a Ctrl-C after it cancels
// the run. Only Ctrl-C counts twice: a hangup after a Ctrl-C, say, changes
// nothing. It says each on out, and returns when done is closed.
func watchStop(out io.Writer, sig <-chan os.Signal, st *stopper, done <-chan struct{}) {
	for {
		var s os.Signal
		select {
		case <-done:
			return
		case s = <-sig:
		}
		first := st.finish()
		switch {
		case first && s == os.Interrupt:
			fmt.Fprintln(out, "\ninterrupt: finishing this generation, then stopping (Ctrl-C again to stop now)")
		case first:
			fmt.Fprintln(out, "\nhangup (the terminal is gone): finishing this generation, then stopping, as on Ctrl-C; the run's train.log has the rest")
		case s == os.Interrupt:
			fmt.Fprintln(out, "\ninterrupt: stopping now; the last checkpoint stands")
			st.cancel()
			return
		}
	}
}
