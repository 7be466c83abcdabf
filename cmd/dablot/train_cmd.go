package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"text/tabwriter"

	"golang.org/x/term"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/durable"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/train"
	"github.com/dablot-zero/dablot/train/rundir"
)

// cmdTrain trains a model by self-play.
var cmdTrain = &command{
	name: "train",
	usage: `--config PRESET|FILE.yaml --variant V [--run DIR] [--init MODEL.dbm] [--fresh] [--hours H] [--cpu-hours H] [--generations N]
       dablot train --resume DIR [--hours H] [--cpu-hours H] [--generations N]
       dablot train --fork DIR --run NEWDIR --set PATH=VALUE [--set ...] [--cpu-hours H] ...`,
	short: "train a model by self-play (make train runs it)",
	long: `Trains in DIR (default runs/<variant>-<preset>). If DIR already holds a run of the
same preset, variant and --init model, it is continued where it stopped (so the same
command, such as make train, picks up where Ctrl-C left it); a run of anything else
is refused. --fresh starts a new run instead, after moving the one in DIR aside to
DIR-<time of its last checkpoint> (nothing is deleted).
Ctrl-C once: finish the generation under way, checkpoint, stop. Twice: stop at once
(the last checkpoint stands). A hangup (the terminal closed) or a broken output (a
closed pipe, as when the tee of "make train | tee" ends) counts as the first Ctrl-C;
the process is not killed. Everything train prints also goes to DIR/train.log,
appended to by every session of the run. --resume DIR continues any run.

--hours, --cpu-hours and --generations replace the preset's stop: condition (a bound
not given is none). Hours count the whole training history, a model given to --init
included. CPU hours count the run's own CPU time (this process, resumes included;
external workers not): an ablation and its control stopped at the same CPU hours had
the same compute, whatever else shared the machine. A
continued run keeps its own stop condition unless they are given: they extend (or
shorten, not below the generations done) it, a finished run too, and its config.yaml
records the new condition.

--config names a built-in preset (below) or, given a path (with a / or ending in
.yaml), a preset file, which may start "base: hour" and state only what differs.
The run records the whole config in its config.yaml; --resume reads only that.

--fork DIR copies the run in DIR (not in training) into the new directory --run
NEWDIR with settings of its config.yaml changed, each --set naming one by its YAML path
(--set train.learning_rate=0.0005 --set selfplay.full_sims=128), and continues the
copy: same generation, replay buffer and optimiser state, only those settings changed.
That is an ablation of a long run against the run itself continued as its control
(the network and the variant cannot change). DIR is left as it was.`,
	run: runTrain,
}

func init() { cmdTrain.long += presetHelp() }

// presetHelp lists the built-in presets for the help of train.
func presetHelp() string {
	var b strings.Builder
	b.WriteString("\n\nBuilt-in presets (they name no variant: --variant, or the --init model's, decides):\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, p := range train.Presets() {
		fmt.Fprintf(tw, "  %s\t%s\n", p.Name, p.Description)
	}
	tw.Flush()
	return b.String()
}

func runTrain(args []string, out io.Writer) (err error) {
	f, err := parseTrainFlags(args, out)
	if err != nil {
		return err
	}
	if f.profile != "" {
		stop, err := startCPUProfile(f.profile)
		if err != nil {
			return err
		}
		defer stop()
	}
	// Ctrl-C, a hangup and a broken output are caught from here on (see
	// runOutput and watchStop): before the first generation begins they
	// stop the run there. Everything printed goes to the run's log too,
	// once it is open; so does the error, if any, that the terminal gets
	// on standard error.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := newStopper(cancel)
	tout := newRunOutput(out, st.finish)
	defer func() {
		if err != nil {
			tout.logOnly("dablot train: %v\n", err)
		}
		if cerr := tout.Close(); err == nil {
			err = cerr
		}
	}()
	defer watchSignals(tout, st)()
	opts := train.RunOptions{Out: tout, Progress: isTerminal(out), Threads: f.threads, Program: os.Args[0]}
	run, unlock, err := f.open(tout, opts)
	if err != nil {
		return err
	}
	defer unlock()
	defer run.Close()
	return trainOpened(ctx, run, f, tout, st, args)
}

// trainFlags are the flags of dablot train.
type trainFlags struct {
	cfgPath, variant, dir, init, resume, profile, fork string
	fresh                                              bool
	threads                                            int
	set                                                stringList
	bound                                              *train.StopConfig // set when --hours, --cpu-hours or --generations is given
}

// parseTrainFlags reads the flags of dablot train.
func parseTrainFlags(args []string, out io.Writer) (*trainFlags, error) {
	f := &trainFlags{}
	fs := newFlags("train", out)
	fs.StringVar(&f.cfgPath, "config", "", "training preset: a built-in name (such as hour) or a YAML file")
	fs.StringVar(&f.variant, "variant", "", "variant (default: the preset file's, else the --init model's)")
	fs.StringVar(&f.dir, "run", "", "run directory (default runs/<variant>-<preset>); a run there of the same setup is continued")
	fs.StringVar(&f.init, "init", "", "warm-start from this model file")
	fs.BoolVar(&f.fresh, "fresh", false, "start a new run: move a run already in the run directory aside")
	fs.StringVar(&f.resume, "resume", "", "continue the run in this directory")
	threads := rangeFlag(fs, "threads", 0, 0, maxThreads, "threads of the network's forward pass (0: all cores)")
	fs.StringVar(&f.profile, "cpuprofile", "", "write a CPU profile to this file")
	hours := fs.Float64("hours", 0, "stop after this many hours of training in all (replaces the preset's stop:)")
	cpuHours := fs.Float64("cpu-hours", 0, "stop after this many hours of the run's CPU time (replaces the preset's stop:)")
	generations := fs.Int("generations", 0, "stop after this many generations of the run (replaces the preset's stop:)")
	fs.StringVar(&f.fork, "fork", "", "copy the run in this directory into --run, with --set changes, and continue the copy")
	fs.Var(&f.set, "set", "with --fork: PATH=VALUE, a setting of the run's config.yaml by its YAML path (repeatable)")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	f.threads = *threads
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "hours" || fl.Name == "cpu-hours" || fl.Name == "generations" {
			f.bound = &train.StopConfig{Generations: *generations, Hours: *hours, CPUHours: *cpuHours}
		}
	})
	return f, nil
}

// startCPUProfile starts a CPU profile into path and returns its stop.
func startCPUProfile(path string) (func(), error) {
	file, err := durable.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(file); err != nil {
		file.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); file.Close() }, nil
}

// watchSignals ignores SIGPIPE and passes the stop signals to st (see
// watchStop) until the function it returns is called.
func watchSignals(tout *runOutput, st *stopper) func() {
	ignoreSIGPIPE()
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, stopSignals()...)
	done := make(chan struct{})
	go watchStop(tout, sig, st, done)
	return func() {
		close(done)
		signal.Stop(sig)
	}
}

// open opens the run the flags name, locked: a fork, a resumed run, or a
// new (or continued) run of a preset. It returns the unlock.
func (f *trainFlags) open(out io.Writer, opts train.RunOptions) (*train.Run, func(), error) {
	switch {
	case f.resume != "" && (f.cfgPath != "" || f.variant != "" || f.init != "" || f.dir != "" || f.fresh):
		return nil, nil, usagef("--resume takes the run's own config; give no --config, --variant, --init, --run or --fresh (--hours and --generations change its stop)")
	case f.fork != "" && (f.resume != "" || f.cfgPath != "" || f.variant != "" || f.init != "" || f.fresh || f.dir == "" || len(f.set) == 0):
		return nil, nil, usagef("--fork DIR takes --run NEWDIR and one --set PATH=VALUE or more, and no --resume, --config, --variant, --init or --fresh")
	case f.fork != "":
		return f.openFork(out, opts)
	case len(f.set) > 0:
		return nil, nil, usagef("--set goes with --fork")
	case f.resume != "":
		unlock, err := train.LockRun(f.resume)
		if err != nil {
			return nil, nil, err
		}
		run, err := train.ResumeRun(f.resume, opts)
		if err != nil {
			unlock()
			return nil, nil, err
		}
		return run, unlock, nil
	case f.cfgPath == "":
		return nil, nil, usagef("--config is required (such as --config hour; see dablot train --help)")
	}
	return f.openPreset(opts)
}

// openFork copies the run --fork names into --run with the --set changes
// and opens the copy.
func (f *trainFlags) openFork(out io.Writer, opts train.RunOptions) (*train.Run, func(), error) {
	unlockSrc, err := train.LockRun(f.fork)
	if err != nil {
		return nil, nil, err
	}
	changed, err := train.ForkRun(f.fork, f.dir, f.set)
	unlockSrc()
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(out, "forked %s into %s, changed (old, new): %s\n", f.fork, f.dir, strings.Join(changed, "; "))
	unlock, err := train.LockRun(f.dir)
	if err != nil {
		return nil, nil, err
	}
	run, err := train.ResumeRun(f.dir, opts)
	if err != nil {
		unlock()
		// The copy was made a moment ago and nothing has trained in it.
		if rmErr := os.RemoveAll(f.dir); rmErr != nil {
			return nil, nil, fmt.Errorf("%w (and removing the fork %s: %v)", err, f.dir, rmErr)
		}
		return nil, nil, fmt.Errorf("%w: the fork cannot go on with these settings, so %s is removed", err, f.dir)
	}
	return run, unlock, nil
}

// openPreset opens the run of --config (its variant from --variant, the
// preset or the --init model) in --run, by default runs/VARIANT-PRESET.
func (f *trainFlags) openPreset(opts train.RunOptions) (*train.Run, func(), error) {
	cfg, err := train.LoadPreset(f.cfgPath)
	if err != nil {
		return nil, nil, err
	}
	if f.bound != nil {
		cfg.Stop = *f.bound
		if err := cfg.Validate(); err != nil {
			return nil, nil, err
		}
	}
	spec := cmp.Or(f.variant, cfg.Variant)
	if spec == "" && f.init != "" {
		m, err := model.LoadModel(f.init)
		if err != nil {
			return nil, nil, err
		}
		spec = m.Rules.Name
	}
	if spec == "" {
		return nil, nil, usagef("--variant is required: preset %s names no variant (with --init the model's is the default)", cfg.Name)
	}
	rules, err := configs.Variant(spec)
	if err != nil {
		return nil, nil, err
	}
	dir := cmp.Or(f.dir, filepath.Join("runs", rules.Name+"-"+cfg.Name))
	return openRun(dir, cfg, rules, f.init, f.fresh, opts)
}

// trainOpened trains run, opened by the flags f, until its stop, a stop
// signal (st) or ctx: its log opened, its stop set from the flags, and
// the resume command said after a stop.
func trainOpened(ctx context.Context, run *train.Run, f *trainFlags, tout *runOutput, st *stopper, args []string) error {
	if err := tout.attach(filepath.Join(run.Dir, rundir.LogFile), append([]string{os.Args[0], "train"}, args...)); err != nil {
		return err
	}
	if f.bound != nil && run.Config.Stop != *f.bound {
		if err := run.SetStop(*f.bound); err != nil {
			return err
		}
	}
	fmt.Fprintf(tout, "run %s: %s on %s, %d generations done; %s\n", run.Dir, run.Config.Name, run.Rules.Name, run.Generation(), run.Progress())
	if impl := net.GemmImplementation(); impl == "gonum-blas32" {
		fmt.Fprintf(tout, "note: matrix kernel %s: this build or CPU has no vector kernel; make build, on a CPU with AVX2 and FMA, runs the network several times faster\n", impl)
	}
	err := run.Train(ctx, st.stop)
	if ctx.Err() != nil {
		fmt.Fprintf(tout, "stopped; continue with: %s\n", run.ResumeCommand())
		return nil
	}
	return err
}

// openRun opens the run of `dablot train --config` in dir, locked for this
// process: with fresh, a new one (a run already there is moved aside
// first); else the run already there if it has the same setup (an error
// if not), or a new one. A continued run keeps its stop condition.
func openRun(dir string, cfg *train.Config, rules *game.Rules, init string, fresh bool, opts train.RunOptions) (*train.Run, func(), error) {
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, nil, err
	}
	if fresh {
		aside, err := train.SetAside(dir)
		if err != nil {
			unlock()
			return nil, nil, err
		}
		if aside != "" {
			fmt.Fprintf(opts.Out, "--fresh: the run that was in %s is now in %s\n", dir, aside)
			unlock() // the lock went with the old directory: take the new one
			if unlock, err = lockDir(dir); err != nil {
				return nil, nil, err
			}
		}
	}
	var run *train.Run
	entries, _ := os.ReadDir(dir)
	switch {
	case fresh || len(entries) == 0:
		run, err = train.CreateRun(dir, cfg, rules, init, opts)
	case !train.HasRun(dir):
		err = fmt.Errorf("%s holds files but no run (no %s): start anew with --fresh, which moves them aside, or choose another --run", dir, rundir.StateFile)
	default:
		if err = train.CheckSameRun(dir, cfg, rules, init); err != nil {
			err = fmt.Errorf("%w\ncontinue that run with: %s, or start anew with --fresh (make train FRESH=1), which moves it aside",
				err, train.ResumeCommand(os.Args[0], dir))
			break
		}
		fmt.Fprintf(opts.Out, "continuing the run in %s (--fresh starts a new one)\n", dir)
		run, err = train.ResumeRun(dir, opts)
	}
	if err != nil {
		unlock()
		return nil, nil, err
	}
	return run, unlock, nil
}

// lockDir makes the run directory dir if it does not exist and takes it
// for this process (train.LockRun).
func lockDir(dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return train.LockRun(dir)
}

// isTerminal reports whether out is a terminal (progress bars are drawn only
// there).
func isTerminal(out io.Writer) bool {
	f, ok := out.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
