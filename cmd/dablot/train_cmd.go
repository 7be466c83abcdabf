package main

import (
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
	fs := newFlags("train", out)
	cfgPath := fs.String("config", "", "training preset: a built-in name (such as hour) or a YAML file")
	variant := fs.String("variant", "", "variant (default: the preset file's, else the --init model's)")
	dir := fs.String("run", "", "run directory (default runs/<variant>-<preset>); a run there of the same setup is continued")
	init := fs.String("init", "", "warm-start from this model file")
	fresh := fs.Bool("fresh", false, "start a new run: move a run already in the run directory aside")
	resume := fs.String("resume", "", "continue the run in this directory")
	threads := rangeFlag(fs, "threads", 0, 0, maxThreads, "threads of the network's forward pass (0: all cores)")
	profile := fs.String("cpuprofile", "", "write a CPU profile to this file")
	hours := fs.Float64("hours", 0, "stop after this many hours of training in all (replaces the preset's stop:)")
	cpuHours := fs.Float64("cpu-hours", 0, "stop after this many hours of the run's CPU time (replaces the preset's stop:)")
	generations := fs.Int("generations", 0, "stop after this many generations of the run (replaces the preset's stop:)")
	fork := fs.String("fork", "", "copy the run in this directory into --run, with --set changes, and continue the copy")
	var set stringList
	fs.Var(&set, "set", "with --fork: PATH=VALUE, a setting of the run's config.yaml by its YAML path (repeatable)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var bound *train.StopConfig // set when --hours, --cpu-hours or --generations is given
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "hours" || f.Name == "cpu-hours" || f.Name == "generations" {
			bound = &train.StopConfig{Generations: *generations, Hours: *hours, CPUHours: *cpuHours}
		}
	})
	if *profile != "" {
		f, err := durable.Create(*profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
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
	ignoreSIGPIPE()
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, stopSignals()...)
	done := make(chan struct{})
	defer func() {
		close(done)
		signal.Stop(sig)
	}()
	go watchStop(tout, sig, st, done)
	opts := train.RunOptions{Out: tout, Progress: isTerminal(out), Threads: *threads, Program: os.Args[0]}
	out = tout
	var run *train.Run
	switch {
	case *resume != "" && (*cfgPath != "" || *variant != "" || *init != "" || *dir != "" || *fresh):
		return usagef("--resume takes the run's own config; give no --config, --variant, --init, --run or --fresh (--hours and --generations change its stop)")
	case *fork != "" && (*resume != "" || *cfgPath != "" || *variant != "" || *init != "" || *fresh || *dir == "" || len(set) == 0):
		return usagef("--fork DIR takes --run NEWDIR and one --set PATH=VALUE or more, and no --resume, --config, --variant, --init or --fresh")
	case *fork != "":
		unlockSrc, err := train.LockRun(*fork)
		if err != nil {
			return err
		}
		changed, err := train.ForkRun(*fork, *dir, set)
		unlockSrc()
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "forked %s into %s, changed (old, new): %s\n", *fork, *dir, strings.Join(changed, "; "))
		unlock, err := train.LockRun(*dir)
		if err != nil {
			return err
		}
		defer unlock()
		if run, err = train.ResumeRun(*dir, opts); err != nil {
			// The copy was made a moment ago and nothing has trained in it.
			if rmErr := os.RemoveAll(*dir); rmErr != nil {
				return fmt.Errorf("%w (and removing the fork %s: %v)", err, *dir, rmErr)
			}
			return fmt.Errorf("%w: the fork cannot go on with these settings, so %s is removed", err, *dir)
		}
	case len(set) > 0:
		return usagef("--set goes with --fork")
	case *resume != "":
		unlock, err := train.LockRun(*resume)
		if err != nil {
			return err
		}
		defer unlock()
		if run, err = train.ResumeRun(*resume, opts); err != nil {
			return err
		}
	case *cfgPath == "":
		return usagef("--config is required (such as --config hour; see dablot train --help)")
	default:
		cfg, err := train.LoadPreset(*cfgPath)
		if err != nil {
			return err
		}
		if bound != nil {
			cfg.Stop = *bound
			if err := cfg.Validate(); err != nil {
				return err
			}
		}
		spec := cfg.Variant
		if *variant != "" {
			spec = *variant
		}
		if spec == "" && *init != "" {
			m, err := model.LoadModel(*init)
			if err != nil {
				return err
			}
			spec = m.Rules.Name
		}
		if spec == "" {
			return usagef("--variant is required: preset %s names no variant (with --init the model's is the default)", cfg.Name)
		}
		rules, err := configs.Variant(spec)
		if err != nil {
			return err
		}
		if *dir == "" {
			*dir = filepath.Join("runs", rules.Name+"-"+cfg.Name)
		}
		var unlock func()
		if run, unlock, err = openRun(*dir, cfg, rules, *init, *fresh, opts); err != nil {
			return err
		}
		defer unlock()
	}
	defer run.Close()
	if err := tout.attach(filepath.Join(run.Dir, rundir.LogFile), append([]string{os.Args[0], "train"}, args...)); err != nil {
		return err
	}
	if bound != nil && run.Config.Stop != *bound {
		if err := run.SetStop(*bound); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "run %s: %s on %s, %d generations done; %s\n", run.Dir, run.Config.Name, run.Rules.Name, run.Generation(), run.Progress())
	if impl := net.GemmImplementation(); impl == "gonum-blas32" {
		fmt.Fprintf(out, "note: matrix kernel %s: this build or CPU has no vector kernel; make build, on a CPU with AVX2 and FMA, runs the network several times faster\n", impl)
	}

	err = run.Train(ctx, st.stop)
	if ctx.Err() != nil {
		fmt.Fprintf(out, "stopped; continue with: %s\n", run.ResumeCommand())
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
