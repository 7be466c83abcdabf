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
	"time"

	"golang.org/x/term"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/train"
)

func init() {
	register(&command{"train", "self-play training: --config FILE [--variant V] [--run DIR] [--init MODEL] | --resume DIR; [--hours H] [--generations N]", runTrain})
}

const trainUsage = `--config configs/train/PRESET.yaml [--variant V] [--run DIR] [--init MODEL.dbm] [--hours H] [--generations N]
       dablot train --resume DIR [--hours H] [--generations N]

Starts a training run in DIR (default runs/<variant>-<preset>-<time>) or resumes one.
Ctrl-C once: finish the generation under way, checkpoint, stop. Twice: stop at once
(the last checkpoint stands). Resume with --resume DIR.

--hours and --generations replace the preset's stop: condition (a bound not given is
none). Hours count the whole training history, a model given to --init included. With
--resume they extend (or shorten) the run, a finished one too, and its config.yaml
records the new condition.`

func runTrain(args []string, out io.Writer) error {
	fs := newFlags("train", trainUsage, out)
	cfgPath := fs.String("config", "", "training preset (YAML)")
	variant := fs.String("variant", "", "variant (default: the preset's)")
	dir := fs.String("run", "", "run directory (default runs/<variant>-<preset>-<time>)")
	init := fs.String("init", "", "warm-start from this model file")
	resume := fs.String("resume", "", "continue the run in this directory")
	threads := fs.Int("threads", 0, "threads of the network's forward pass (default: all cores)")
	profile := fs.String("cpuprofile", "", "write a CPU profile to this file")
	hours := fs.Float64("hours", 0, "stop after this many hours of training in all (replaces the preset's stop:)")
	generations := fs.Int("generations", 0, "stop after this many generations of the run (replaces the preset's stop:)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var bound *train.StopConfig // set when --hours or --generations is given
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "hours" || f.Name == "generations" {
			bound = &train.StopConfig{Generations: *generations, Hours: *hours}
		}
	})
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	opts := train.RunOptions{Out: out, Progress: isTerminal(out), Threads: *threads, Program: os.Args[0]}
	var run *train.Run
	var err error
	switch {
	case *resume != "" && (*cfgPath != "" || *variant != "" || *init != "" || *dir != ""):
		return usagef("--resume takes the run's own config; give no --config, --variant, --init or --run (--hours and --generations change its stop)")
	case *resume != "":
		run, err = train.ResumeRun(*resume, opts)
	case *cfgPath == "":
		return usagef("--config is required (such as --config configs/train/hour.yaml)")
	default:
		cfg, err := train.LoadConfig(*cfgPath)
		if err != nil {
			return err
		}
		if bound != nil {
			cfg.Stop = *bound
		}
		spec := cfg.Variant
		if *variant != "" {
			spec = *variant
		}
		if spec == "" && *init != "" {
			m, err := train.LoadModel(*init)
			if err != nil {
				return err
			}
			spec = m.Rules.Name
		}
		rules, err := configs.Variant(spec)
		if err != nil {
			return err
		}
		if *dir == "" {
			*dir = filepath.Join("runs", fmt.Sprintf("%s-%s-%s", rules.Name, cfg.Name, time.Now().Format("20060102-150405")))
		}
		run, err = train.CreateRun(*dir, cfg, rules, *init, opts)
		if err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	defer run.Close()
	if bound != nil && *resume != "" {
		if err := run.SetStop(*bound); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "run %s: %s on %s, %d generations done; %s\n", run.Dir, run.Config.Name, run.Rules.Name, run.Generation(), run.Progress())

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := make(chan struct{})
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	go func() {
		if _, ok := <-sig; !ok {
			return
		}
		fmt.Fprintln(out, "\ninterrupt: finishing this generation, then stopping (Ctrl-C again to stop now)")
		close(stop)
		if _, ok := <-sig; ok {
			fmt.Fprintln(out, "\ninterrupt: stopping now; the last checkpoint stands")
			cancel()
		}
	}()
	err = run.Train(ctx, stop)
	if ctx.Err() != nil {
		fmt.Fprintf(out, "stopped; continue with: %s\n", run.ResumeCommand())
		return nil
	}
	return err
}

// isTerminal reports whether out is a terminal (progress bars are drawn only
// there).
func isTerminal(out io.Writer) bool {
	f, ok := out.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
