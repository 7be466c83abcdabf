package train

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/cputime"
	"github.com/dablot-zero/dablot/internal/durable"
	"github.com/dablot-zero/dablot/internal/numeric"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/mcts/match"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/net/trainer"
	"github.com/dablot-zero/dablot/train/rundir"
	"github.com/dablot-zero/dablot/train/runlog"
	"github.com/dablot-zero/dablot/train/samples"
)

const mainWorker = "main" // the name of the trainer's own self-play in shard names

// reanalyseWorker names the trainer's reanalysis shards,
// gen-NNNNNN-reanalyse.samples.zst, one a generation, that runs with
// selfplay.reanalyse wrote (the setting left the program:
// docs/experiments/2026-12-learning.md, Stage B). No generation writes one
// now, but an old run's still read as the trainer's: they stay in its
// replay window and are checked as the trainer's shards, and those of
// generations after the checkpoint are discarded on resume. The name stays
// reserved, so that no self-play worker takes it.
const reanalyseWorker = "reanalyse"

// trainerWorkers name the trainer's own shards, one of each a generation:
// its self-play's, and in old runs its reanalysis's.
var trainerWorkers = []string{mainWorker, reanalyseWorker}

// trainerWorker reports whether worker names the trainer's own shards,
// not another process's.
func trainerWorker(worker string) bool { return slices.Contains(trainerWorkers, worker) }

// runState is the checkpoint of a run: everything written before it is
// complete, and a resumed run starts from exactly this point.
type runState struct {
	Format      int     `json:"format"`
	Variant     string  `json:"variant"`
	Fingerprint string  `json:"fingerprint"`
	Run         string  `json:"run,omitempty"` // the run's identity (newRunID); "" in runs from before it
	Generation  int     `json:"generation"`    // generations completed
	Best        int     `json:"best"`          // generation of best.dbm
	Promotions  int     `json:"promotions"`
	Rated       int     `json:"rated"` // last generation rated against the anchors (-1: none)
	Games       int     `json:"games"`
	Samples     int64   `json:"samples"`      // samples generated, the init model's included
	InitSamples int64   `json:"init_samples"` // the init model's samples (Samples counts on from them)
	TrainSteps  int     `json:"train_steps"`
	Hours       float64 `json:"hours"` // training hours up to this checkpoint, earlier runs included
	// CPUHours is the training process's CPU time up to this checkpoint, in
	// hours (the run's own processes; warm starts and external workers are
	// not counted).
	CPUHours    float64    `json:"cpu_hours,omitempty"`
	Trainer     string     `json:"trainer,omitempty"`
	Shards      []ShardRef `json:"shards"`
	InitFrom    string     `json:"init_from,omitempty"`
	InitVariant string     `json:"init_variant,omitempty"` // set when InitFrom plays another variant
	InitSHA256  string     `json:"init_sha256,omitempty"`  // the checksum of InitFrom's data
	Finished    bool       `json:"finished"`               // the run reached its stop condition
	// Checksum is the SHA-256 (hex) of the state's JSON encoding with
	// Checksum empty: a damaged or hand-edited state.json is refused.
	Checksum string `json:"checksum,omitempty"`
}

// RunOptions are what a run needs besides its config.
type RunOptions struct {
	// Out receives one status line per generation and the run's messages.
	Out io.Writer
	// Progress shows progress bars on Out (for terminals).
	Progress bool
	// Threads is the number of threads of the network's forward pass
	// (0: all cores).
	Threads int
	// Program is the program's name as the user invoked it (such as
	// bin/dablot), for the command that continues a stopped run
	// (default "dablot").
	Program string
}

// Run is a training run living in a directory.
type Run struct {
	Dir    string
	Config *Config
	Rules  *game.Rules

	opts    RunOptions
	state   runState
	best    *model.Model
	trainer *trainer.Trainer
	replay  *Replay
	since   time.Time     // when state.Hours was last brought up to date
	cpu     time.Duration // and the process's CPU time then (state.CPUHours)

	paceGen   int     // generations done when this process began to train (Progress)
	paceHours float64 // and the hours of training then
	paceCPU   float64 // and the CPU hours
}

// CreateRun starts a new run in dir, which must not exist or be empty. With
// init set, the first network is that model file's (warm start); otherwise
// a new one of the config's architecture.
func CreateRun(dir string, cfg *Config, rules *game.Rules, init string, opts RunOptions) (*Run, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("run directory %s already holds a run (resume it with --resume %s, or choose another --run)", dir, dir)
	}
	if err := checkWithRules(cfg, rules); err != nil {
		return nil, err
	}
	var first *model.Model
	st := runState{Format: stateFormat, Variant: rules.Name, Fingerprint: rules.Fingerprint(), Run: newRunID(), Rated: -1}
	if init != "" {
		m, err := model.LoadModel(init)
		if err != nil {
			return nil, err
		}
		// The graph network's weights fit any board of the family, so a
		// model of another variant is a warm start too (transfer): say so.
		if err := m.CheckRules(rules); err != nil {
			st.InitVariant = m.Rules.Name
			if opts.Out != nil {
				fmt.Fprintf(opts.Out, "warm start across variants: %s (%v); it is trained on as %s\n", init, err, rules.Name)
			}
		}
		st.InitFrom, st.InitSHA256, st.Hours = init, m.Metadata[net.MetaChecksum], m.Training.Hours
		st.Games, st.Samples, st.InitSamples = m.Training.Games, m.Training.Samples, m.Training.Samples
		st.TrainSteps = m.Training.TrainSteps
		if h := cfg.Stop.Hours; h > 0 && st.Hours >= h {
			return nil, fmt.Errorf("stop.hours = %g is reached before the run begins: --init %s has %.2f hours of training, and hours count the whole history (ask for more, such as --hours %.2f for another hour)", h, init, st.Hours, st.Hours+1)
		}
		if err := checkInitArchitecture(m.Weights.Config, cfg); err != nil {
			return nil, fmt.Errorf("--init %s: %w", init, err)
		}
		weights, want := m.Weights, cfg.NetConfig()
		if added := addedHeads(m.Weights.Config, want); added != "" || want.Blocks > m.Weights.Config.Blocks {
			grow := m.Weights.Config
			grow.ScoreHead, grow.OwnershipHead = want.ScoreHead, want.OwnershipHead
			grow.Blocks = max(grow.Blocks, want.Blocks)
			if weights, err = m.Weights.Grow(grow, mcts.Mix(cfg.Seed, 0xA11CE)); err != nil {
				return nil, fmt.Errorf("--init %s: %w", init, err)
			}
			if opts.Out != nil && added != "" {
				fmt.Fprintf(opts.Out, "warm start with new heads: %s has no %s; the run adds them with fresh weights (the %s preset has them)\n", init, added, cfg.Name)
			}
			if opts.Out != nil && grow.Blocks > m.Weights.Config.Blocks {
				fmt.Fprintf(opts.Out, "warm start with more blocks: %s has %d residual blocks, the %s preset %d; the run appends %d, each starting as the identity (the network plays as before)\n",
					init, m.Weights.Config.Blocks, cfg.Name, grow.Blocks, grow.Blocks-m.Weights.Config.Blocks)
			}
		}
		if first, err = model.NewModel(rules, weights, st.summary(cfg, filepath.Base(dir), 0, st.Hours)); err != nil {
			return nil, fmt.Errorf("--init %s: %w", init, err)
		}
	} else {
		var err error
		if first, err = model.NewNetwork(rules, cfg.NetConfig(), mcts.Mix(cfg.Seed, 0xA11CE)); err != nil {
			return nil, err
		}
	}
	for _, d := range []string{dir, filepath.Join(dir, rundir.ShardDir), filepath.Join(dir, rundir.ModelDir), filepath.Join(dir, rundir.GamesDir), filepath.Join(dir, rundir.CheckDir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	first.Training.Run = filepath.Base(dir)
	first.Training.RunID = st.Run
	first.Training.Preset = cfg.Name
	first.ScoreUtility = cfg.SelfPlay.ScoreUtility
	cfg.Variant = rules.Name
	if err := durable.WriteFile(filepath.Join(dir, rundir.ConfigFile), cfg.YAML()); err != nil {
		return nil, err
	}
	if err := durable.WriteFile(filepath.Join(dir, rundir.VariantFile), rules.YAML()); err != nil {
		return nil, err
	}
	if err := first.Save(filepath.Join(dir, rundir.ModelDir, modelName(0)), nil); err != nil {
		return nil, err
	}
	if err := first.Save(filepath.Join(dir, rundir.BestFile), nil); err != nil {
		return nil, err
	}
	tr, err := trainer.NewTrainer(first.Topology, first.Weights, cfg.TrainConfig())
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, Config: cfg, Rules: rules, opts: opts, state: st, best: first, trainer: tr, since: time.Now(), cpu: cputime.Process()}
	r.replay = r.newReplay()
	if err := r.checkpoint(); err != nil {
		return nil, err
	}
	return r, nil
}

// ResumeRun continues the run in dir from its last checkpoint: whatever
// later generations had begun to write is removed, so the run goes on
// exactly as if it had never stopped. First the whole checkpoint is checked
// (see openRun); a resume that fails there leaves every file as it was.
func ResumeRun(dir string, opts RunOptions) (*Run, error) {
	r, err := openRun(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	// Everything is checked: only now is anything removed or rewritten.
	if err := r.discardAfterCheckpoint(); err != nil {
		r.Close()
		return nil, fmt.Errorf("resume: %w", err)
	}
	// best.dbm may have been replaced by a generation after the checkpoint.
	if err := r.best.Save(filepath.Join(dir, rundir.BestFile), nil); err != nil {
		r.Close()
		return nil, fmt.Errorf("resume: %w", err)
	}
	return r, nil
}

// openRun reads the run in dir and checks its checkpoint whole, changing no
// file: state.json (its checksum and counters, and that it is within the
// run's stop), the config and the rules, the players the config names, the
// best network (its generation and run), the run's logs, the trainer
// checkpoint (its generation, run, steps and samples) and every shard the
// state names (its run, worker, generation, samples and checksum).
func openRun(dir string, opts RunOptions) (*Run, error) {
	st, err := readState(dir)
	if err != nil {
		return nil, err
	}
	if err := st.check(dir); err != nil {
		return nil, err
	}
	cfgPath := filepath.Join(dir, rundir.ConfigFile)
	cfg, err := LoadConfig(cfgPath)
	if err != nil {
		return nil, err
	}
	for _, n := range cfg.Notes {
		if opts.Out != nil {
			fmt.Fprintf(opts.Out, "%s: %s\n", cfgPath, n)
		}
	}
	if err := st.checkStop(dir, cfg); err != nil {
		return nil, err
	}
	rules, err := rundir.ReadRules(dir)
	if err != nil {
		return nil, err
	}
	if rules.Fingerprint() != st.Fingerprint {
		return nil, fmt.Errorf("the rules in %s (%s) are not the run's (%s)", rundir.VariantFile, rules.Fingerprint(), st.Fingerprint)
	}
	if err := checkWithRules(cfg, rules); err != nil {
		return nil, fmt.Errorf("%s: %w", cfgPath, err)
	}
	bestPath := filepath.Join(dir, rundir.ModelDir, modelName(st.Best))
	best, err := model.LoadModel(bestPath)
	if err != nil {
		return nil, err
	}
	if err := best.CheckRules(rules); err != nil {
		return nil, fmt.Errorf("best model: %w", err)
	}
	if err := st.checkModel(bestPath, best, st.Best); err != nil {
		return nil, err
	}
	// The logs are trimmed to the checkpoint after the checks: they must read.
	if _, err := runlog.ReadGenerations(filepath.Join(dir, runlog.MetricsFile)); err != nil {
		return nil, err
	}
	if _, err := runlog.ReadMatches(filepath.Join(dir, runlog.RatingsFile)); err != nil {
		return nil, err
	}
	ckpt := filepath.Join(dir, rundir.CheckDir, st.Trainer)
	tr, meta, err := trainer.LoadTrainer(ckpt, best.Topology, cfg.TrainConfig())
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, Config: cfg, Rules: rules, opts: opts, state: st, best: best, trainer: tr, since: time.Now(), cpu: cputime.Process()}
	if err := st.checkTrainer(ckpt, meta); err != nil {
		r.Close()
		return nil, err
	}
	r.replay = r.newReplay()
	if err := r.replay.Restore(st.Shards); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// newReplay returns the run's replay buffer (empty), which takes in only
// the run's own shards.
func (r *Run) newReplay() *Replay {
	rp := NewReplay(r.best, filepath.Join(r.Dir, rundir.ShardDir), r.Config.Train.WindowMax)
	rp.Check = func(name string, h samples.Header) error { return r.state.checkShard(name, h) }
	return rp
}

// discardAfterCheckpoint removes what generations after the checkpoint
// wrote: their models, game records, the trainer's own shards, trainer
// checkpoints and log lines. Shards of other self-play processes are kept:
// they are complete, and the trainer takes them in at its next generation.
func (r *Run) discardAfterCheckpoint() error {
	g := r.state.Generation
	later := func(sub, prefix, suffix string) error {
		entries, err := os.ReadDir(filepath.Join(r.Dir, sub))
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		for _, e := range entries {
			n := e.Name()
			if strings.HasPrefix(n, ".") { // a temporary file of an interrupted write
				os.Remove(filepath.Join(r.Dir, sub, n))
				continue
			}
			if !strings.HasSuffix(n, suffix) {
				continue
			}
			if gen, ok := generationOf(n, prefix); ok && gen > g {
				if err := os.Remove(filepath.Join(r.Dir, sub, n)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	dirs := [][3]string{{rundir.ModelDir, "gen-", ".dbm"}, {rundir.GamesDir, "gen-", ".pgn"}, {rundir.CheckDir, "trainer-", ".ckpt"}}
	for _, w := range trainerWorkers {
		dirs = append(dirs, [3]string{rundir.ShardDir, "gen-", "-" + w + rundir.ShardExt})
	}
	for _, x := range dirs {
		if err := later(x[0], x[1], x[2]); err != nil {
			return err
		}
	}
	for _, f := range []string{runlog.MetricsFile, runlog.RatingsFile} {
		if err := runlog.TrimAfter(filepath.Join(r.Dir, f), g); err != nil {
			return err
		}
	}
	return nil
}

// generationOf reads the generation number of a file named prefix + digits.
func generationOf(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	end := strings.IndexFunc(rest, func(c rune) bool { return c < '0' || c > '9' })
	if end <= 0 {
		return 0, false
	}
	n, err := strconv.Atoi(rest[:end])
	return n, err == nil
}

func modelName(gen int) string { return fmt.Sprintf("gen-%06d.dbm", gen) }

// ResumeCommand is the command line that continues the run once it has
// stopped: "bin/dablot train --resume runs/x", with the program named as
// the user invoked it (RunOptions.Program).
func (r *Run) ResumeCommand() string { return ResumeCommand(r.opts.Program, r.Dir) }

// ResumeCommand is the command line that continues the run in dir with
// the program named program ("dablot" if empty), quoted for a shell.
func ResumeCommand(program, dir string) string {
	if program == "" {
		program = "dablot"
	}
	return shellQuote(program) + " train --resume " + shellQuote(dir)
}

// shellQuote quotes s for a POSIX shell if it needs quoting.
func shellQuote(s string) string {
	safe := s != "" && strings.IndexFunc(s, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./:=,+@%", c))
	}) < 0
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Generation returns the number of generations completed.
func (r *Run) Generation() int { return r.state.Generation }

// Best returns the current best model.
func (r *Run) Best() *model.Model { return r.best }

// Close releases the trainer.
func (r *Run) Close() error { return r.trainer.Close() }

// hours returns the training hours so far.
func (r *Run) hours() float64 { return r.state.Hours + time.Since(r.since).Hours() }

// cpuHours returns the run's CPU hours so far.
func (r *Run) cpuHours() float64 { return r.state.CPUHours + (cputime.Process() - r.cpu).Hours() }

// done reports whether the run has reached its stop condition.
func (r *Run) done() bool {
	s := r.Config.Stop
	return (s.Generations > 0 && r.state.Generation >= s.Generations) || (s.Hours > 0 && r.hours() >= s.Hours) ||
		(s.CPUHours > 0 && r.cpuHours() >= s.CPUHours)
}

// SetStop replaces the stop condition of a run that exists, as `dablot
// train --resume DIR --hours` and `--generations` do: to shorten it, or to
// extend it, a finished one too (it then goes on exactly where it ended).
// The run's config file records the new condition. (A new run takes its
// stop from the config given to CreateRun.)
func (r *Run) SetStop(s StopConfig) error {
	cfg := *r.Config
	cfg.Stop = s
	if err := cfg.Validate(); err != nil {
		return err
	}
	if g := r.state.Generation; s.Generations > 0 && s.Generations < g {
		return fmt.Errorf("stop.generations = %d is below the %d generations the run has done (give %d or more; %d ends it where it stands)", s.Generations, g, g, g)
	}
	if err := durable.WriteFile(filepath.Join(r.Dir, rundir.ConfigFile), cfg.YAML()); err != nil {
		return err
	}
	r.Config.Stop = s
	if r.state.Finished && !r.done() {
		// Reopen the run for its self-play workers too.
		r.state.Finished = false
		return r.writeState()
	}
	return nil
}

// Train runs generations until the stop condition, ctx is cancelled (the
// generation under way is abandoned; the last checkpoint stands) or stop is
// closed (the generation under way is finished and checkpointed first).
func (r *Run) Train(ctx context.Context, stop <-chan struct{}) error {
	r.startPace()
	if err := r.keepSnapshots(); err != nil { // those a kill left unwritten
		return err
	}
	for !r.done() {
		select {
		case <-stop:
			r.printf("stopped after generation %d; continue with: %s\n", r.state.Generation, r.ResumeCommand())
			return nil
		default:
		}
		if err := r.generation(ctx); err != nil {
			return err
		}
	}
	if r.Config.Rating.Every > 0 && r.state.Rated != r.state.Best {
		began := time.Now()
		if err := r.rate(ctx, r.state.Generation); err != nil {
			return err
		}
		r.state.Rated = r.state.Best
		r.printf("rated generation %d against the anchors in %.0f s\n", r.state.Best, time.Since(began).Seconds())
	}
	r.state.Finished = true
	if err := r.checkpoint(); err != nil {
		return err
	}
	r.printf("run finished: %d generations, %.2f hours; best model %s (generation %d)\n",
		r.state.Generation, r.state.Hours, filepath.Join(r.Dir, rundir.BestFile), r.state.Best)
	return nil
}

// generation runs one generation, a phase at a time: self-play, training,
// evaluation (and promotion), rating, then the record and the checkpoint.
// Each phase puts what it measured in the generation's metrics.
func (r *Run) generation(ctx context.Context) error {
	g := r.state.Generation + 1
	seed := mcts.Mix(r.Config.Seed, uint64(g))
	began, cpuBegan := time.Now(), cputime.Process()
	m := &runlog.Generation{Generation: g}
	games, err := r.selfPlay(ctx, g, seed, m)
	if err != nil {
		return err
	}
	cand, err := r.train(ctx, g, seed, games, m)
	if err != nil {
		return err
	}
	promote, err := r.evaluate(ctx, g, seed, cand, m)
	if err != nil {
		return err
	}
	if promote {
		if err := r.promote(g, cand); err != nil {
			return err
		}
	}
	m.Promoted, m.Best = promote, r.state.Best
	if err := r.rateIfDue(ctx, g, promote, m); err != nil {
		return err
	}
	return r.record(g, began, cpuBegan, m)
}

// selfPlay plays generation g's self-play games with the best network
// (their seed from seed), writes their samples as the main worker's shard
// and their records to games/, puts their statistics in m and returns how
// many games it played.
func (r *Run) selfPlay(ctx context.Context, g int, seed uint64, m *runlog.Generation) (int, error) {
	began := time.Now()
	sp := r.Config.SelfPlay
	bar := r.bar(sp.Games, fmt.Sprintf("gen %d self-play", g))
	games, err := SelfPlay(ctx, r.best, sp, mcts.Mix(seed, 1), 0, sp.Games, func(*SelfPlayGame) { bar.Add(1) })
	bar.Finish()
	if err != nil {
		return 0, err
	}
	var all []samples.Sample
	var recs bytes.Buffer
	for _, gm := range games {
		all = append(all, gm.Samples...)
		tagGame(gm.Record, g, gm.Index)
		if err := gm.Record.WritePGN(&recs); err != nil {
			return 0, err
		}
	}
	countGames(m, games, r.Rules.First)
	m.GenSamples = len(all)
	hdr := samples.Header{Variant: r.Rules.Name, Fingerprint: r.Rules.Fingerprint(), Generation: r.state.Best,
		Model: r.best.Metadata[net.MetaChecksum], Worker: mainWorker, Games: len(games), Run: r.state.Run}
	if err := samples.Write(filepath.Join(r.Dir, rundir.ShardDir, shardName(g, mainWorker, 0)), r.Rules, hdr, all); err != nil {
		return 0, err
	}
	if err := durable.WriteFile(filepath.Join(r.Dir, rundir.GamesDir, fmt.Sprintf("gen-%06d.pgn", g)), recs.Bytes()); err != nil {
		return 0, err
	}
	m.SelfPlaySeconds = time.Since(began).Seconds()
	return len(games), nil
}

// tagGame adds the generation and the game's index to the tags of rec,
// keeping any it already has.
func tagGame(rec *game.Record, gen, index int) {
	if rec.Tags == nil {
		rec.Tags = map[string]string{}
	}
	rec.Tags["Generation"], rec.Tags["Game"] = strconv.Itoa(gen), strconv.Itoa(index)
}

// countGames puts the statistics of a generation's self-play games in m:
// their number, full searches and mean policy surprise; the curriculum's
// games counted apart (their number and draw rate); and of the games from
// the setup, the end reasons, the draw rate, the score of first (the side
// that moves first) and the mean and median length in turns.
func countGames(m *runlog.Generation, games []*SelfPlayGame, first game.Side) {
	var lengths []float64
	m.Ends = map[string]int{}
	for _, gm := range games {
		m.GenFullSearches += gm.FullSearches
		m.MeanSurprise += gm.Surprise
		draw := 0.0
		if gm.Status.Outcome == game.Draw {
			draw = 1
		}
		if gm.Endgame {
			m.EndgameGames++
			m.EndgameDrawRate += draw
			continue
		}
		lengths = append(lengths, float64(len(gm.Record.Turns)))
		m.Ends[gm.Status.Reason.Key()]++
		m.DrawRate += draw
		m.FirstPlayerScore += gm.Status.Outcome.ScoreFor(first)
	}
	if n := float64(len(lengths)); n > 0 {
		m.DrawRate /= n
		m.FirstPlayerScore /= n
		m.MeanLength, m.MedianLength = mean(lengths), numeric.Median(lengths)
	}
	if m.EndgameGames > 0 {
		m.EndgameDrawRate /= float64(m.EndgameGames)
	}
	m.GenGames = len(games)
	if m.GenFullSearches > 0 {
		m.MeanSurprise /= float64(m.GenFullSearches)
	}
}

// train trains the network for generation g (trainSteps), counts the
// steps, the generation's games and the samples in the run's totals, and
// saves the trained network, the candidate, as models/gen-g.dbm, which it
// returns.
func (r *Run) train(ctx context.Context, g int, seed uint64, games int, m *runlog.Generation) (*model.Model, error) {
	began := time.Now()
	steps, err := r.trainSteps(ctx, g, seed, m)
	if err != nil {
		return nil, err
	}
	r.state.TrainSteps += steps
	r.state.Games += games
	r.state.Samples = r.state.InitSamples + r.replay.Total()
	m.TrainSeconds = time.Since(began).Seconds()
	cand, err := model.NewModel(r.Rules, r.trainer.Weights(), r.summary(g))
	if err != nil {
		return nil, err
	}
	cand.ScoreUtility = r.Config.SelfPlay.ScoreUtility
	if err := cand.Save(filepath.Join(r.Dir, rundir.ModelDir, modelName(g)), nil); err != nil {
		return nil, err
	}
	return cand, nil
}

// trainSteps takes the new shards into the replay buffer and trains the
// network on batches drawn from its window (train.WarmWindow), their
// random choices from seed: reuse × new samples / batch_size steps, at
// least min_steps, scaled by the warm start's share until its buffer
// fills its window, none while the buffer holds less than a batch, at the
// learning rate of the run's history (TrainerConfig.RateAt). It puts
// the mean losses and the last learning rate in m and returns the number
// of steps.
func (r *Run) trainSteps(ctx context.Context, g int, seed uint64, m *runlog.Generation) (int, error) {
	tc := r.Config.Train
	fresh, err := r.replay.Scan()
	if err != nil {
		return 0, err
	}
	inherited := r.inheritedSamples()
	window, share := tc.WarmWindow(inherited, r.replay.Total(), r.replay.Len())
	if err := r.trainer.SetLearningRate(tc.RateAt(inherited + r.replay.Total())); err != nil {
		return 0, err
	}
	steps := max(tc.MinSteps, int(math.Ceil(tc.Reuse*float64(fresh)/float64(tc.BatchSize))))
	steps = int(math.Ceil(share * float64(steps)))
	if r.replay.Len() < tc.BatchSize {
		steps = 0 // not enough samples yet for one batch
	}
	rng := rand.New(rand.NewPCG(seed, 3))
	bm := NewBatchMaker(r.best, tc.BatchSize, tc.Mirror, tc.QWeight, r.Config.SelfPlay.AdjudicationScale)
	bar := r.bar(steps, fmt.Sprintf("gen %d training", g))
	defer bar.Finish()
	var sum trainer.Losses
	for range steps {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		b, err := bm.Make(r.replay, window, rng)
		if err != nil {
			return 0, err
		}
		l, err := r.trainer.Step(b)
		if err != nil {
			return 0, err
		}
		sum.Policy += l.Policy
		sum.Value += l.Value
		sum.Score += l.Score
		sum.Ownership += l.Ownership
		m.LearningRate = l.LearningRate
		bar.Add(1)
	}
	if steps > 0 {
		n := float64(steps)
		m.PolicyLoss, m.ValueLoss, m.ScoreLoss, m.OwnershipLoss = sum.Policy/n, sum.Value/n, sum.Score/n, sum.Ownership/n
	}
	return steps, nil
}

// inheritedSamples returns the samples of the run's history before it
// began that count towards its replay window (TrainerConfig.WarmWindow):
// the --init model's, none for a run from scratch or a transfer, which
// learns another variant than its history's.
func (r *Run) inheritedSamples() int64 {
	if r.state.InitVariant != "" {
		return 0
	}
	return r.state.InitSamples
}

// evaluate reports whether the candidate cand of generation g replaces the
// best network: always with evaluation.mode always; otherwise by its match
// against the best network (its seed from seed), whose result it puts in
// m: promoted when the SPRT accepts H1, or when the match ends undecided
// with a score of at least evaluation.threshold.
func (r *Run) evaluate(ctx context.Context, g int, seed uint64, cand *model.Model, m *runlog.Generation) (bool, error) {
	began := time.Now()
	e := r.Config.Evaluation
	promote := true
	if e.Mode != "always" {
		res, err := r.match(ctx, cand, fmt.Sprintf("gen%d", g), r.best, fmt.Sprintf("gen%d", r.state.Best), matchSpec{sims: e.Sims,
			games: e.Games, randomTurns: e.RandomTurns, seed: mcts.Mix(seed, 4), test: r.evalSPRT(), label: "gen " + strconv.Itoa(g) + " evaluation"})
		if err != nil {
			return false, err
		}
		m.CandidateWins, m.CandidateDraws, m.CandidateLosses = res.WDL.W, res.WDL.D, res.WDL.L
		m.CandidateScore = res.WDL.Score()
		promote = res.Verdict == match.AcceptH1 || (res.Verdict == match.Continue && m.CandidateScore >= e.Threshold)
	}
	m.EvalSeconds = time.Since(began).Seconds()
	return promote, nil
}

// promote makes the candidate cand of generation g the best network, and
// publishes it as best.dbm.
func (r *Run) promote(g int, cand *model.Model) error {
	r.best = cand
	r.state.Best = g
	r.state.Promotions++
	return cand.Save(filepath.Join(r.Dir, rundir.BestFile), nil)
}

// rateIfDue rates the best network, generation g's, against the anchors
// (Run.rate) when it was promoted and its promotion is a rating.every-th,
// and puts the time that took in m.
func (r *Run) rateIfDue(ctx context.Context, g int, promoted bool, m *runlog.Generation) error {
	began := time.Now()
	if rc := r.Config.Rating; promoted && rc.Every > 0 && r.state.Promotions%rc.Every == 0 {
		if err := r.rate(ctx, g); err != nil {
			return err
		}
		r.state.Rated = g
	}
	m.RatingSeconds = time.Since(began).Seconds()
	return nil
}

// record ends generation g, begun at began with the process's CPU time at
// cpuBegan: it completes m (the utilisation, the time, the run's totals)
// and appends it to metrics.jsonl, then checkpoints the run, keeps the
// snapshots now due, and prints the generation's status line.
func (r *Run) record(g int, began time.Time, cpuBegan time.Duration, m *runlog.Generation) error {
	wall := time.Since(began).Seconds()
	m.Utilisation = (cputime.Process() - cpuBegan).Seconds() / (wall * float64(runtime.NumCPU()))
	m.Time = time.Now().UTC()
	r.state.Generation = g
	m.Hours, m.CPUHours = r.hours(), r.cpuHours()
	m.Games, m.Samples, m.TrainSteps = r.state.Games, r.state.Samples, r.state.TrainSteps
	if err := runlog.Append(filepath.Join(r.Dir, runlog.MetricsFile), *m); err != nil {
		return err
	}
	if err := r.checkpoint(); err != nil {
		return err
	}
	if err := r.keepSnapshots(); err != nil {
		return err
	}
	r.printf("%s  %s\n", r.statusLine(m), r.Progress())
	return nil
}

// statusLine is the status line of the generation whose metrics are m:
// its totals, self-play, losses, the candidate's match (unless every
// candidate is promoted) and the CPU's use.
func (r *Run) statusLine(m *runlog.Generation) string {
	cfg := r.Config
	cand := ""
	if cfg.Evaluation.Mode != "always" {
		verdict := "kept gen " + strconv.Itoa(m.Best)
		if m.Promoted {
			verdict = "promoted"
		}
		cand = fmt.Sprintf("  cand %+d=%d-%d %.0f%% %s", m.CandidateWins, m.CandidateDraws, m.CandidateLosses, 100*m.CandidateScore, verdict)
	}
	games := ""
	if m.EndgameGames > 0 {
		games = fmt.Sprintf("  endgames %d (draws %.0f%%)", m.EndgameGames, 100*m.EndgameDrawRate)
	}
	if cfg.SelfPlay.PolicySurprise {
		games += fmt.Sprintf("  surprise %.3f (%d samples of %d full searches)", m.MeanSurprise, m.GenSamples, m.GenFullSearches)
	}
	heads := ""
	if cfg.Network.ScoreHead {
		heads = fmt.Sprintf(" s %.3f", m.ScoreLoss)
	}
	if cfg.Network.OwnershipHead {
		heads += fmt.Sprintf(" own %.3f", m.OwnershipLoss)
	}
	return fmt.Sprintf("gen %3d  games %5d  samples %7d  len %5.1f  draws %3.0f%%%s  loss p %.3f v %.3f%s%s  cpu %3.0f%%  %s",
		m.Generation, m.Games, m.Samples, m.MeanLength, 100*m.DrawRate, games, m.PolicyLoss, m.ValueLoss, heads, cand,
		100*m.Utilisation, formatHours(m.Hours))
}

// checkInitArchitecture returns an error unless a warm start's network, of
// architecture has, can train as the config cfg asks: no auxiliary head
// that cfg does not ask for, and none of the parts that training no
// longer trains (short-term value heads, tactical input planes: their
// settings left the program). A head that cfg asks for and the model
// lacks is added (addedHeads), and so are the residual blocks it asks for
// beyond the model's (net.Weights.Grow); a run otherwise trains the
// --init model's architecture (its channels, and its blocks when the
// config asks for fewer).
func checkInitArchitecture(has net.Config, cfg *Config) error {
	switch {
	case has.ShortTermHeads > 0:
		return fmt.Errorf("the model has %d short-term value heads, which training no longer trains (network.short_term_heads left the program: %s)", has.ShortTermHeads, shortTermRecord)
	case has.TacticalPlanes:
		return fmt.Errorf("the model has the tactical input planes, which training no longer gives (network.tactical_planes left the program: %s)", tacticalRecord)
	}
	want := cfg.NetConfig()
	for _, h := range []struct {
		key       string
		has, want bool
		head      string
	}{
		{"network.score_head", has.ScoreHead, want.ScoreHead, "a score head"},
		{"network.ownership_head", has.OwnershipHead, want.OwnershipHead, "an ownership head"},
	} {
		if h.has && !h.want {
			return fmt.Errorf("the model has %s, the training config %s %s: false (a run trains the --init model's architecture; choose a preset that agrees)",
				h.head, cfg.Name, h.key)
		}
	}
	return nil
}

// addedHeads names the auxiliary heads that want has and has lacks, such
// as "ownership head", or "" for none.
func addedHeads(has, want net.Config) string {
	var added []string
	if want.ScoreHead && !has.ScoreHead {
		added = append(added, "score head")
	}
	if want.OwnershipHead && !has.OwnershipHead {
		added = append(added, "ownership head")
	}
	return strings.Join(added, " and ")
}

// summary is the provenance of the network trained in generation g.
func (r *Run) summary(g int) model.TrainingSummary {
	return r.state.summary(r.Config, filepath.Base(r.Dir), g, r.hours())
}

// summary is the provenance of generation g's network of the run named run,
// from the totals of st and the given training hours.
func (st *runState) summary(cfg *Config, run string, g int, hours float64) model.TrainingSummary {
	return model.TrainingSummary{Run: run, RunID: st.Run, Preset: cfg.Name, Seed: cfg.Seed, Generation: g,
		Games: st.Games, Samples: st.Samples, TrainSteps: st.TrainSteps, Hours: hours,
		InitFrom: st.InitFrom, InitVariant: st.InitVariant, InitSHA256: st.InitSHA256}
}

func (r *Run) evalSPRT() *match.SPRT {
	e := r.Config.Evaluation
	if e.Mode != "sprt" {
		return nil
	}
	return &match.SPRT{Elo0: e.Elo0, Elo1: e.Elo1, Alpha: 0.05, Beta: 0.05}
}

// checkpoint saves the trainer and then, atomically, the state: the point a
// resumed run starts from.
func (r *Run) checkpoint() error {
	r.state.Hours, r.state.CPUHours = r.hours(), r.cpuHours()
	r.since, r.cpu = time.Now(), cputime.Process()
	r.state.Shards = r.replay.Shards()
	name := trainerName(r.state.Generation)
	if err := r.trainer.SaveCheckpoint(filepath.Join(r.Dir, rundir.CheckDir, name), r.state.trainerMeta()); err != nil {
		return err
	}
	prev := r.state.Trainer
	r.state.Trainer = name
	if err := r.writeState(); err != nil {
		return err
	}
	if prev != "" && prev != name {
		os.Remove(filepath.Join(r.Dir, rundir.CheckDir, prev))
	}
	return nil
}

// writeState writes the run's state file atomically, in stateFormat with
// its checksum.
func (r *Run) writeState() error {
	st := r.state
	st.Format = stateFormat
	sum, err := st.checksum()
	if err != nil {
		return err
	}
	st.Checksum = sum
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return durable.WriteFile(filepath.Join(r.Dir, rundir.StateFile), append(data, '\n'))
}

// ratingOpenings returns the start positions of rating games: the
// variant's opening book with rating.book, if it has one; else none (the
// variant's start, after rating.random_turns random turns).
func (r *Run) ratingOpenings() ([]game.Position, error) {
	if !r.Config.Rating.Book {
		return nil, nil
	}
	book, _, err := configs.Book(r.Rules)
	return book, err
}

// rate plays the best model against the previous rated generation (with
// rating.previous) and every anchor, and appends the results to
// ratings.jsonl.
func (r *Run) rate(ctx context.Context, g int) error {
	rc := r.Config.Rating
	name := fmt.Sprintf("gen%d", r.state.Best)
	openings, err := r.ratingOpenings()
	if err != nil {
		return err
	}
	type opponent struct {
		spec  string // as ratings.jsonl names it
		games int
		make  func() (f *mcts.Factory, release func(), err error)
	}
	var opps []opponent
	if prev := r.state.Rated; rc.Previous > 0 && prev >= 0 && prev != r.state.Best {
		opps = append(opps, opponent{fmt.Sprintf("gen%d", prev), rc.Previous, func() (*mcts.Factory, func(), error) {
			m, err := model.LoadModel(filepath.Join(r.Dir, rundir.ModelDir, modelName(prev)))
			if err != nil {
				return nil, nil, fmt.Errorf("rating against the previous rated generation: %w", err)
			}
			f, release := ModelFactory(fmt.Sprintf("gen%d", prev), m, r.Config.SelfPlay, rc.Sims, r.threads())
			return f, release, nil
		}})
	}
	for _, spec := range rc.Anchors {
		opps = append(opps, opponent{spec, rc.Games, func() (*mcts.Factory, func(), error) {
			f, err := mcts.ParseFactory(spec, model.SpecOptions(r.Rules, 1))
			if err != nil {
				return nil, nil, err
			}
			return f, f.Close, nil
		}})
	}
	for i, o := range opps {
		f, release, err := o.make()
		if err != nil {
			return err
		}
		res, err := r.matchFactory(ctx, r.best, name, f, matchSpec{sims: rc.Sims, games: o.games, randomTurns: rc.RandomTurns,
			openings: openings, seed: mcts.Mix(r.Config.Seed, uint64(1_000_000+1000*g+i)), label: fmt.Sprintf("gen %d vs %s", r.state.Best, o.spec)})
		release()
		if err != nil {
			return err
		}
		rec := runlog.Match{Time: time.Now().UTC(), Hours: r.hours(), Generation: g, Player: name, Opponent: o.spec,
			Wins: res.WDL.W, Draws: res.WDL.D, Losses: res.WDL.L, Settings: r.searchSettings(rc.Sims)}
		if err := runlog.Append(filepath.Join(r.Dir, runlog.RatingsFile), rec); err != nil {
			return err
		}
		r.printf("  gen %d vs %-22s %3d/%3d/%3d  score %5.1f%%\n", r.state.Best, o.spec, res.WDL.W, res.WDL.D, res.WDL.L, 100*res.WDL.Score())
	}
	return nil
}

func (r *Run) searchSettings(sims int) string {
	sp := &r.Config.SelfPlay
	s := fmt.Sprintf("%s sims=%d", sp.Search, sims)
	if sp.MaterialBlend > 0 {
		s += fmt.Sprintf(" mat=%g", sp.MaterialBlend)
	}
	if sp.ScoreUtility > 0 {
		s += fmt.Sprintf(" su=%g", sp.ScoreUtility)
	}
	return s
}

// ModelFactory returns a factory of players that search with model m,
// the network alone: the self-play search without noise, sims simulations
// per decision, without guard or tables (SelfPlayConfig.Player); and a
// function that releases the network they share.
func ModelFactory(name string, m *model.Model, sp SelfPlayConfig, sims, threads int) (*mcts.Factory, func()) {
	ev := m.NewEvaluator(sp.NetBatch, threads)
	batcher := mcts.NewBatcher(ev, sp.NetBatch, 0)
	pc := sp.Player(sims, false)
	pc.Guard, pc.Endgames = mcts.GuardConfig{}, 0
	f := mcts.NewFactory(name, func(seed uint64) (mcts.Player, error) {
		return pc.NewPlayer(batcher, seed)
	})
	return f, func() { batcher.Close(); ev.Close() }
}

// matchSpec is what a match of the run plays: games at sims simulations a
// decision, from openings (or the start) after randomTurns random turns,
// seeded by seed, stopped early by test if set; label names its progress
// bar.
type matchSpec struct {
	sims, games, randomTurns int
	openings                 []game.Position
	seed                     uint64
	test                     *match.SPRT
	label                    string
}

// match plays model a against model b.
func (r *Run) match(ctx context.Context, a *model.Model, aName string, b *model.Model, bName string, ms matchSpec) (*match.ArenaResult, error) {
	fb, release := ModelFactory(bName, b, r.Config.SelfPlay, ms.sims, r.threads())
	defer release()
	return r.matchFactory(ctx, a, aName, fb, ms)
}

// matchFactory plays model a against the players of fb.
func (r *Run) matchFactory(ctx context.Context, a *model.Model, aName string, fb *mcts.Factory, ms matchSpec) (*match.ArenaResult, error) {
	fa, release := ModelFactory(aName, a, r.Config.SelfPlay, ms.sims, r.threads())
	defer release()
	bar := r.bar(ms.games, ms.label)
	defer bar.Finish()
	return match.RunArena(ctx, match.ArenaConfig{Rules: r.Rules, A: fa, B: fb, Games: ms.games, Threads: min(ms.games, r.Config.SelfPlay.Workers),
		Seed: ms.seed, Openings: ms.openings, OpeningTurns: ms.randomTurns, SPRT: ms.test, OnGame: func(*match.ArenaGame, match.WDL) { bar.Add(1) }})
}

func (r *Run) threads() int {
	if r.opts.Threads > 0 {
		return r.opts.Threads
	}
	return runtime.NumCPU()
}

func (r *Run) printf(format string, args ...any) {
	if r.opts.Out != nil {
		fmt.Fprintf(r.opts.Out, format, args...)
	}
}

// shardName is the file name of the shard seq of worker, written by
// generation gen (the trainer's own, one a generation: trainerWorkers) or
// with generation gen's network (another worker's).
func shardName(gen int, worker string, seq int) string {
	if trainerWorker(worker) {
		return fmt.Sprintf("gen-%06d-%s%s", gen, worker, rundir.ShardExt)
	}
	return fmt.Sprintf("gen-%06d-%s-%06d%s", gen, worker, seq, rundir.ShardExt)
}

func formatHours(h float64) string {
	d := time.Duration(h * float64(time.Hour)).Round(time.Second)
	return d.String()
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
