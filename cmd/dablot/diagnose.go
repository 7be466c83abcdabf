package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/game/endgame"
	"github.com/dablot-zero/dablot/internal/cputime"
	"github.com/dablot-zero/dablot/internal/research/diagnose"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/train"
	"github.com/dablot-zero/dablot/train/progress"
)

// cmdDiagnose groups the measurements of why self-play stops teaching
// (docs/diagnosis.md).
var cmdDiagnose = &command{
	name:  "diagnose",
	short: "why self-play stops teaching: value head, search gain, guard, value targets",
	long: `Diagnose measures what self-play training teaches a model (docs/diagnosis.md):
selfplay plays a few self-play games of a model and takes its value targets apart;
targets prints that again from the samples it wrote; positions judges the value
head against exact tables and a deep alpha-beta search, and self-play's searches
against the prior, on the samples' positions; guard measures how often the
shipped player's guard overrules the network.`,
}

var cmdDiagnoseSelfPlay = &command{
	name:  "selfplay",
	usage: "--model FILE [--config P] [--games N] [--seed S] --out DIR",
	short: "play self-play games of a model and take their value targets apart",
	long: `Plays --games self-play games of the model with the self-play settings of the
training config --config (a preset or a file: searches, exploration, curriculum,
targets; train.SelfPlay, as a run's generation plays them), writes their records
to DIR/games.jsonl and their samples (position and value target) to
DIR/samples.jsonl, and prints the value target's parts by phase (as targets does).`,
	run: runDiagnoseSelfPlay,
}

var cmdDiagnoseTargets = &command{
	name:  "targets",
	usage: "--samples FILE [--config P]",
	short: "the parts of the value targets of self-play samples",
	long: `Takes the value target each sample of FILE (written by diagnose selfplay) trains
towards apart, under the training config --config: the game's result, the
adjudicated material of a drawn game, the material term material_horizon
decisions on (hand-written both), and the search's root value (train.q_weight),
and prints by phase their mean magnitudes and their shares of the target's
variance (Cov(term, target)/Var(target), which sum to 1).`,
	run: runDiagnoseTargets,
}

var cmdDiagnosePositions = &command{
	name:  "positions",
	usage: "--model FILE --samples FILE [--config P] [--per-phase N] [--depths D,D,D,D,D] [--max-ms T] [--out FILE [--resume]] [--threads T] [--seed S]",
	short: "the value head and self-play's search against exact tables and deep alpha-beta",
	long: `Picks up to --per-phase positions of each phase (pieces left) from the samples
of FILE (written by diagnose selfplay) and measures in each: the network's value,
with self-play's material blend, and the material count's, against the exact
tables (3 pieces or fewer) and a deep alpha-beta search of --depths turns, one
depth for each phase (diagnose.DeepConfig: ordered, single replies extended, the
king at 10 soldiers); self-play's search at its full and fast budgets (with its noise),
with and without the blend, against the prior's top decision, the decisions
judged by the deep search. Rows go to --out as JSON lines; --resume measures
only the positions the file lacks. Prints the tables of docs/diagnosis.md.`,
	run: runDiagnosePositions,
}

var cmdDiagnoseGuard = &command{
	name:  "guard",
	usage: "--model FILE --records FILE [--player S] [--every N] [--nodes N] [--sims N] [--eg N] [--out FILE | --rows FILE] [--threads T]",
	short: "how often the shipped player's guard overrules the network",
	long: `Replays game records (such as ladder --out writes) and, before each decision of
every --every-th turn of the player whose name contains --player, runs the
shipped player's guard (16 turns, a margin of half a soldier) within --nodes
alpha-beta nodes, the network's Gumbel search of --sims simulations with and
without it, and the endgame tables of --eg pieces. Nodes and simulations stand
in for the time of a decision, so that a loaded machine measures what an idle
one plays: the guard's CPU time a decision is printed beside. Prints by phase
the shares of decisions that are forced, from the tables, left one decision by
the guard, or left a choice, and how often the guard vetoes the network's own
choice. --rows prints the tables of rows an earlier --out wrote with the same
records, --player and --every, measuring nothing. The intervals count the
decisions of a game as a cluster (the wider of Wilson's and a bootstrap over
games).`,
	run: runDiagnoseGuard,
}

// diagnoseConfig loads a training config for the diagnosis.
func diagnoseConfig(spec string) (*train.Config, error) {
	cfg, err := train.LoadPreset(spec)
	if err != nil {
		return nil, usagef("--config: %v", err)
	}
	return cfg, nil
}

func runDiagnoseSelfPlay(args []string, out io.Writer) error {
	fs := newFlags("analyse diagnose selfplay", out)
	modelPath := fs.String("model", "", "the model whose self-play is measured")
	config := fs.String("config", "overnight", "the training config (preset or file) whose self-play settings are used")
	games := rangeFlag(fs, "games", 64, 1, 100_000, "self-play games to play")
	seed := fs.Uint64("seed", 1, "the games' seed")
	dir := fs.String("out", "", "directory to write games.jsonl and samples.jsonl to")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *modelPath == "" || *dir == "" {
		return usagef("--model and --out are required")
	}
	cfg, err := diagnoseConfig(*config)
	if err != nil {
		return err
	}
	m, err := model.LoadModel(*modelPath)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start, cpu0 := time.Now(), cputime.Process()
	bar := progress.New(out, *games, "games")
	recs, ss, err := diagnose.SelfPlay(ctx, m, cfg.SelfPlay, *seed, *games, func(*train.SelfPlayGame) { bar.Add(1) })
	bar.Finish()
	if err != nil {
		return err
	}
	if err := writeRows(filepath.Join(*dir, "games.jsonl"), recs); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(*dir, "samples.jsonl"), func(w io.Writer) error { return diagnose.WriteSamples(w, ss) }); err != nil {
		return err
	}
	fmt.Fprintf(out, "selfplay: %s, %d games, %d samples, %v, %.1f CPU minutes (config %s, seed %d)\n",
		m.Rules.Name, len(recs), len(ss), time.Since(start).Round(time.Second), (cputime.Process() - cpu0).Minutes(), cfg.Name, *seed)
	return printTargets(out, ss, cfg)
}

func runDiagnoseTargets(args []string, out io.Writer) error {
	fs := newFlags("analyse diagnose targets", out)
	samples := fs.String("samples", "", "samples written by diagnose selfplay")
	config := fs.String("config", "overnight", "the training config (preset or file) they were played with")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *samples == "" {
		return usagef("--samples is required")
	}
	cfg, err := diagnoseConfig(*config)
	if err != nil {
		return err
	}
	ss, err := readSamplesFile(*samples)
	if err != nil {
		return err
	}
	return printTargets(out, ss, cfg)
}

// printTargets prints the table of the value targets' parts.
func printTargets(out io.Writer, ss []diagnose.SamplePosition, cfg *train.Config) error {
	sum, err := diagnose.SummariseTargets(ss, &cfg.SelfPlay, cfg.Train.QWeight)
	if err != nil {
		return err
	}
	sp := &cfg.SelfPlay
	fmt.Fprintf(out, "value target = %.2g·[(1−%.2g)·outcome + %.2g·%.2g·tanh(lead in %d decisions/%g)] + %.2g·search value; material_blend %g\n\n",
		1-cfg.Train.QWeight, sp.MaterialWeight, sp.MaterialWeight, sp.Adjudication, sp.MaterialHorizon, sp.AdjudicationScale, cfg.Train.QWeight, sp.MaterialBlend)
	fmt.Fprintln(out, "| phase | samples (games) | of drawn games | target mean ± SD | mean abs: result / adjudication / material / search | share of variance: result / adjudication / material / search | hand-written: share of magnitude | share of variance |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|")
	for _, s := range sum {
		fmt.Fprintf(out, "| %s | %d (%d) | %s | %+.3f ± %.3f | %.3f / %.3f / %.3f / %.3f | %.2f / %.2f / %.2f / %.2f | %s | %s |\n",
			s.Phase, s.Samples, s.Games, pct(s.Drawn), s.Mean, s.SD,
			s.Abs.Result, s.Abs.Adjudication, s.Abs.Material, s.Abs.Search,
			s.VarShare.Result, s.VarShare.Adjudication, s.VarShare.Material, s.VarShare.Search,
			interval(s.HandAbs), interval(s.HandVar))
	}
	return nil
}

func runDiagnosePositions(args []string, out io.Writer) error {
	f, err := parsePositionsFlags(args, out)
	if err != nil {
		return err
	}
	in, err := f.load()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var tables *endgame.Tables
	if f.redo == "" {
		if tables, err = solveTables(ctx, out, in.m.Rules, in.ps); err != nil {
			return err
		}
	}
	opt := diagnose.PositionOptions{Depths: f.depths, MaxTime: time.Duration(f.maxMS) * time.Millisecond, SelfPlay: in.cfg.SelfPlay,
		Sims: []int{in.cfg.SelfPlay.FullSims, in.cfg.SelfPlay.FastSims}, Tables: tables, Seed: f.seed, Threads: f.threads}
	if f.redo != "" {
		return redoSearches(ctx, out, f, in, opt)
	}
	return measureNewPositions(ctx, out, f, in, opt)
}

// positionsFlags are the flags of analyse diagnose positions.
type positionsFlags struct {
	modelPath, samplesPath, config, depthList, outPath, redo string
	perPhase, maxMS, threads                                 int
	resume                                                   bool
	seed                                                     uint64
	depths                                                   []int
}

// parsePositionsFlags reads the flags of analyse diagnose positions.
func parsePositionsFlags(args []string, out io.Writer) (*positionsFlags, error) {
	f := &positionsFlags{}
	fs := newFlags("analyse diagnose positions", out)
	fs.StringVar(&f.modelPath, "model", "", "the model whose value head and search are measured")
	fs.StringVar(&f.samplesPath, "samples", "", "samples written by diagnose selfplay: the positions")
	fs.StringVar(&f.config, "config", "overnight", "the training config (preset or file) whose self-play search is measured")
	perPhase := rangeFlag(fs, "per-phase", 120, 1, 100_000, "positions of each phase")
	fs.StringVar(&f.depthList, "depths", "7,7,8,11,11", "the deep alpha-beta search's depth in turns in each phase (≥ 20, 12–19, 6–11, 4–5, ≤ 3 pieces)")
	maxMS := rangeFlag(fs, "max-ms", 60_000, 0, 3_600_000, "cap on each deep search, wall-clock milliseconds (0: none); a capped search counts its deepest depth completed")
	fs.StringVar(&f.outPath, "out", "", "append the rows to this file (JSON lines)")
	fs.BoolVar(&f.resume, "resume", false, "measure only the positions --out lacks")
	fs.StringVar(&f.redo, "redo-searches", "", "run the self-play searches of the rows of --out again (the same noise), keeping their deep results, and write the rows to this file")
	threads := threadsFlag(fs, runtime.NumCPU(), "positions measured at once")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the choice of positions and of the searches' noise")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	f.perPhase, f.maxMS, f.threads = *perPhase, *maxMS, *threads
	switch {
	case f.modelPath == "" || f.samplesPath == "":
		return nil, usagef("--model and --samples are required")
	case (f.resume || f.redo != "") && f.outPath == "":
		return nil, usagef("--resume and --redo-searches need --out")
	}
	var err error
	f.depths, err = parseDepths(f.depthList)
	return f, err
}

// positionsInput is what analyse diagnose positions measures: the model,
// the config, the positions selected from the samples, and the rows of
// --out measured before (with --resume or --redo-searches).
type positionsInput struct {
	m    *model.Model
	cfg  *train.Config
	sel  []diagnose.Selected
	ps   []game.Position
	done []diagnose.PositionRow
}

// load reads the model, the config and the samples, selects the
// positions, and reads the rows measured before, checking that each is
// its position's.
func (f *positionsFlags) load() (*positionsInput, error) {
	cfg, err := diagnoseConfig(f.config)
	if err != nil {
		return nil, err
	}
	m, err := model.LoadModel(f.modelPath)
	if err != nil {
		return nil, err
	}
	ss, err := readSamplesFile(f.samplesPath)
	if err != nil {
		return nil, err
	}
	sel, err := diagnose.SelectPositions(m.Rules, ss, f.perPhase, f.seed)
	if err != nil {
		return nil, err
	}
	in := &positionsInput{m: m, cfg: cfg, sel: sel, ps: make([]game.Position, len(sel))}
	for i := range sel {
		in.ps[i] = sel[i].Position
	}
	if f.resume || f.redo != "" {
		if in.done, err = readRows[diagnose.PositionRow](f.outPath); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		for _, r := range in.done {
			if r.Index >= len(in.ps) || r.FEN != in.ps[r.Index].FEN() {
				return nil, fmt.Errorf("%s: row %d is not position %d of these samples, --per-phase and --seed", f.outPath, r.Index, r.Index)
			}
		}
	}
	return in, nil
}

// redoSearches runs the self-play searches of the rows measured before
// again, writes the rows to --redo-searches and prints the tables.
func redoSearches(ctx context.Context, out io.Writer, f *positionsFlags, in *positionsInput, opt diagnose.PositionOptions) error {
	done := in.done
	start, cpu0 := time.Now(), cputime.Process()
	bar := progress.New(out, len(done), "positions")
	err := diagnose.MeasureSearches(ctx, in.m, in.ps, done, opt, func() { bar.Add(1) })
	bar.Finish()
	if err != nil {
		return err
	}
	if err := writeRows(f.redo, done); err != nil {
		return err
	}
	fmt.Fprintf(out, "searched %d positions again in %v, %.1f CPU minutes, into %s\n\n", len(done), time.Since(start).Round(time.Second), (cputime.Process() - cpu0).Minutes(), f.redo)
	joinSamples(done, in.sel, in.cfg)
	printPositionTables(out, done, f.seed)
	return nil
}

// measureNewPositions measures the positions not measured before,
// appending their rows to --out, and prints the tables of all of them.
func measureNewPositions(ctx context.Context, out io.Writer, f *positionsFlags, in *positionsInput, opt diagnose.PositionOptions) error {
	var w *json.Encoder
	if f.outPath != "" {
		flag := os.O_CREATE | os.O_WRONLY | os.O_APPEND
		if !f.resume {
			flag |= os.O_EXCL
		}
		file, err := os.OpenFile(f.outPath, flag, 0o644)
		if err != nil {
			return err
		}
		defer file.Close()
		w = json.NewEncoder(file)
	}
	isDone := map[int]bool{}
	for _, r := range in.done {
		isDone[r.Index] = true
	}
	fmt.Fprintf(out, "positions: %s, %d positions (%d measured before), deep search %s turns by phase, self-play search %d and %d sims (config %s), %d threads\n",
		in.m.Rules.Name, len(in.ps), len(isDone), f.depthList, opt.Sims[0], opt.Sims[1], in.cfg.Name, f.threads)
	start, cpu0 := time.Now(), cputime.Process()
	bar := progress.New(out, len(in.ps)-len(isDone), "positions")
	rows, err := diagnose.MeasurePositions(ctx, in.m, in.ps, opt, func(i int) bool { return isDone[i] }, func(r *diagnose.PositionRow) error {
		bar.Add(1)
		if w != nil {
			return w.Encode(r)
		}
		return nil
	})
	bar.Finish()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "measured %d positions in %v, %.1f CPU minutes\n\n", len(rows), time.Since(start).Round(time.Second), (cputime.Process() - cpu0).Minutes())
	all := append(in.done, rows...)
	slices.SortFunc(all, func(a, b diagnose.PositionRow) int { return a.Index - b.Index })
	joinSamples(all, in.sel, in.cfg)
	printPositionTables(out, all, f.seed)
	return nil
}

// joinSamples gives rows their samples' game, result and trained value
// target (train.BatchMaker's, under cfg's q_weight).
func joinSamples(rows []diagnose.PositionRow, sel []diagnose.Selected, cfg *train.Config) {
	for i := range rows {
		r, s := &rows[i], &sel[rows[i].Index].Sample
		r.HasSample, r.GameResult, r.Game = true, int(s.Result), s.Game
		r.Trained = (1-cfg.Train.QWeight)*float64(s.Target) + cfg.Train.QWeight*float64(s.Value)
	}
}

// parseDepths reads the deep search's depths, one for each phase.
func parseDepths(list string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(list, ",") {
		d, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || d < 2 || d > 64 {
			return nil, usagef("--depths %s: %q is not a depth from 2 to 64", list, f)
		}
		out = append(out, d)
	}
	if len(out) != len(diagnose.Phases) {
		return nil, usagef("--depths %s: want %d depths, one for each phase", list, len(diagnose.Phases))
	}
	return out, nil
}

// solveTables solves the endings of the positions of ps with at most
// mcts.MaxEndgamePieces pieces (nil if none, or the rules refuse tables).
func solveTables(ctx context.Context, out io.Writer, r *game.Rules, ps []game.Position) (*endgame.Tables, error) {
	if endgame.Check(r) != nil {
		return nil, nil
	}
	var ms []endgame.Material
	for i := range ps {
		if ps[i].PieceCount() <= mcts.MaxEndgamePieces {
			if m := endgame.MaterialOf(&ps[i]); !slices.Contains(ms, m) {
				ms = append(ms, m)
			}
		}
	}
	if len(ms) == 0 {
		return nil, nil
	}
	start := time.Now()
	t, err := endgame.Solve(ctx, r, ms, nil)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "endgame tables: %d endings solved in %v\n", len(t.Classes), time.Since(start).Round(time.Second))
	return t, nil
}

// printPositionTables prints the tables of diagnose positions.
func printPositionTables(out io.Writer, rows []diagnose.PositionRow, seed uint64) {
	vs := diagnose.SummariseValues(rows, seed)
	for _, s := range vs {
		if s.Exact == 0 || s.Phase == "all" {
			continue
		}
		fmt.Fprintf(out, "Against the exact tables, %s pieces: %d positions they hold, %d won, %d drawn, %d lost for the side to move\n", s.Phase, s.Exact, s.Wins, s.Draws, s.Losses)
		fmt.Fprintln(out, "(a value above 1/3 calls a win, below −1/3 a loss; the WDL its most probable; the deep search a soldier or more):")
		fmt.Fprintln(out)
		fmt.Fprintln(out, "| judge | draws called a draw | wins and losses called right | mean abs error |")
		fmt.Fprintln(out, "|---|---|---|---|")
		for _, name := range diagnose.ExactJudgeNames {
			j, ok := s.ExactJudges[name]
			if !ok {
				continue
			}
			fmt.Fprintf(out, "| %s | %s | %s | %s |\n", name, pct(j.Draws), pct(j.Decisive), mean(j.Err, 3))
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out, "Against the deep search (Spearman's ρ with its score, and partial ρ with the material count held fixed; signs where it finds a soldier or more):")
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| phase | positions | depth | ρ network | ρ material | partial ρ: network | + blend | decided | sign: network | material | network where material is wrong or level | blend shift |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, s := range vs {
		fmt.Fprintf(out, "| %s | %d | %s | %s | %s | %s | %s | %d | %s | %s | %s (%d) | %s |\n", s.Phase, s.Positions, mean(s.DeepDepth, 1),
			interval(s.NetRho), interval(s.MaterialRho), interval(s.NetPartial), interval(s.BlendPartial), s.Decisive,
			pct(s.NetSign), pct(s.MaterialSign), pct(s.MaterialWrong), int(s.MaterialWrong.N), mean(s.BlendShift, 3))
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, "Self-play's search against the prior (deep scores in hundredths of a soldier, capped at ±2000):")
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| sims | phase | positions | differs from prior | of those: better / same / worse | mean gain there | regret: search / prior | gain over all | plays the deep best: search / prior | partial ρ: root value / network | deep best's probability: prior / target / gain | KL(target ‖ prior) | blend: value shift / choice changed |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, s := range diagnose.SummariseSearches(rows, seed) {
		fmt.Fprintf(out, "| %d | %s | %d | %s | %s / %s / %s | %s | %s / %s | %s | %s / %s | %s / %s | %s / %s / %s | %s | %s / %s |\n", s.Sims, s.Phase, s.Positions,
			pct(s.Differ), pct(s.Better), pct(s.Same), pct(s.Worse), mean(s.Gain, 0), mean(s.ChoiceRegret, 0), mean(s.PriorRegret, 0), mean(s.RegretGain, 0),
			pct(s.ChoiceBest), pct(s.PriorBest), interval(s.ValuePartial), interval(s.NetPartial),
			mean(s.PriorMass, 3), mean(s.PolicyMass, 3), mean(s.MassGain, 3), mean(s.Surprise, 3), mean(s.BlendShift, 3), pct(s.BlendChoice))
	}
}

func runDiagnoseGuard(args []string, out io.Writer) error {
	fs := newFlags("analyse diagnose guard", out)
	modelPath := fs.String("model", "", "the model the shipped player searches with")
	records := fs.String("records", "", "game records whose positions the player is measured on")
	player := fs.String("player", "gumbel", "measure the turns of the player whose name in the records contains this")
	every := rangeFlag(fs, "every", 4, 1, 1_000_000, "measure every N-th of its turns")
	nodes := rangeFlag(fs, "nodes", 150_000, 1, mcts.MaxGuardNodes, "the guard's alpha-beta nodes a decision (for its half of the time)")
	sims := rangeFlag(fs, "sims", 500, 1, mcts.MaxSims, "the network search's simulations (for the time the guard leaves)")
	eg := rangeFlag(fs, "eg", mcts.MaxEndgamePieces, 0, mcts.MaxEndgamePieces, "play positions of this many pieces or fewer from exact tables (0: never)")
	outPath := fs.String("out", "", "write the rows to this file (JSON lines)")
	rowsPath := fs.String("rows", "", "print the tables of these rows (an earlier --out) instead of measuring")
	threads := threadsFlag(fs, runtime.NumCPU(), "positions measured at once")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *modelPath == "" || *records == "" {
		return usagef("--model and --records are required")
	}
	if *outPath != "" && *rowsPath != "" {
		return usagef("--out measures, --rows reads: give one")
	}
	if *eg == 1 {
		return usagef("--eg 1: the tables hold 2 or 3 pieces (0: none)")
	}
	m, err := model.LoadModel(*modelPath)
	if err != nil {
		return err
	}
	recs, r, err := readRecords(*records, "")
	if err != nil {
		return err
	}
	if err := m.CheckRules(r); err != nil {
		return err
	}
	ps, err := diagnose.PlayerPositions(recs, r, *player, *every)
	if err != nil {
		return fmt.Errorf("%s: %w", *records, err)
	}
	if len(ps) == 0 {
		return fmt.Errorf("%s: no turns of a player named like %q", *records, *player)
	}
	if endgame.Check(r) != nil {
		*eg = 0
	}
	opt := diagnose.GuardOptions{Depth: mcts.DefaultGuardDepth, Margin: mcts.DefaultGuardMargin, Nodes: int64(*nodes), Sims: *sims, Tables: *eg, Threads: *threads}
	fmt.Fprintf(out, "guard: %s, %d decisions of %q in %d games (every %d-th turn), guard %d turns within %d nodes, margin %d, Gumbel %d sims, eg=%d\n",
		r.Name, len(ps), *player, len(recs), *every, opt.Depth, opt.Nodes, opt.Margin, opt.Sims, opt.Tables)
	var rows []diagnose.GuardRow
	if *rowsPath != "" {
		if rows, err = readGuardRows(*rowsPath, ps); err != nil {
			return err
		}
		fmt.Fprintf(out, "read %d rows from %s\n\n", len(rows), *rowsPath)
	} else if rows, err = measureGuard(out, m, ps, opt); err != nil {
		return err
	}
	if *outPath != "" {
		if err := writeRows(*outPath, rows); err != nil {
			return err
		}
	}
	writeGuardTable(out, rows)
	return nil
}

// readGuardRows reads the rows of an earlier --out and checks that they
// are those of the decisions ps.
func readGuardRows(path string, ps []diagnose.PlayerPosition) ([]diagnose.GuardRow, error) {
	rows, err := readRows[diagnose.GuardRow](path)
	if err != nil {
		return nil, err
	}
	if len(rows) != len(ps) {
		return nil, fmt.Errorf("%s: %d rows for %d decisions: not these records, --player and --every", path, len(rows), len(ps))
	}
	for i := range rows {
		if rows[i].Index != i || rows[i].FEN != ps[i].Position.FEN() {
			return nil, fmt.Errorf("%s: row %d is not decision %d of these records, --player and --every", path, i, i)
		}
		rows[i].Record = ps[i].Record // rows written before it had none
	}
	return rows, nil
}

// measureGuard measures the decisions ps with a progress bar, until done
// or interrupted, and says how long it took.
func measureGuard(out io.Writer, m *model.Model, ps []diagnose.PlayerPosition, opt diagnose.GuardOptions) ([]diagnose.GuardRow, error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start, cpu0 := time.Now(), cputime.Process()
	bar := progress.New(out, len(ps), "decisions")
	rows, err := diagnose.MeasureGuard(ctx, m, ps, opt, func() { bar.Add(1) })
	bar.Finish()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "measured in %v, %.1f CPU minutes\n\n", time.Since(start).Round(time.Second), (cputime.Process() - cpu0).Minutes())
	return rows, nil
}

// writeRows writes rows as JSON lines to path, which must not exist.
func writeRows[T any](path string, rows []T) error {
	return writeFile(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		for i := range rows {
			if err := enc.Encode(&rows[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeGuardTable prints the guard's measures by phase as a markdown table.
func writeGuardTable(out io.Writer, rows []diagnose.GuardRow) {
	fmt.Fprintln(out, "| phase | decisions | forced | tables | guard leaves one | guard leaves a choice | guard ran | vetoes the network's choice | vetoes the prior's top | changes the decision | share let through | guard depth | guard CPU ms | search CPU ms |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, s := range diagnose.SummariseGuard(rows) {
		fmt.Fprintf(out, "| %s | %d | %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", s.Phase, s.Decisions, pct(s.Forced), pct(s.Tables),
			pct(s.Guarded), pct(s.Choice), s.Searched, pct(s.NetVetoed), pct(s.PriorVetoed), pct(s.Changed), mean(s.Allowed, 2), mean(s.Depth, 1), mean(s.CPU, 0), mean(s.SearchCPU, 0))
	}
}

// pct formats a proportion as "62.3 % [55.1, 69.0]", "–" without trials.
func pct(p diagnose.Proportion) string {
	if p.N == 0 {
		return "–"
	}
	lo, hi := p.Interval()
	return fmt.Sprintf("%.1f %% [%.1f, %.1f]", 100*p.Rate(), 100*lo, 100*hi)
}

// mean formats a mean with its interval at prec decimals.
func mean(m diagnose.Mean, prec int) string {
	if m.N() == 0 {
		return "–"
	}
	v, lo, hi := m.Value()
	return fmt.Sprintf("%.*f [%.*f, %.*f]", prec, v, prec, lo, prec, hi)
}

// interval formats an estimate with its interval.
func interval(x diagnose.Interval) string {
	if math.IsNaN(x.Est) {
		return "–"
	}
	if math.IsNaN(x.Lo) {
		return fmt.Sprintf("%.2f", x.Est)
	}
	return fmt.Sprintf("%.2f [%.2f, %.2f]", x.Est, x.Lo, x.Hi)
}

// readSamplesFile reads a samples file of diagnose selfplay.
func readSamplesFile(path string) ([]diagnose.SamplePosition, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ss, err := diagnose.ReadSamples(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(ss) == 0 {
		return nil, fmt.Errorf("%s: no samples", path)
	}
	return ss, nil
}

// readRows reads a file of JSON lines of T.
func readRows[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<22)
	var out []T
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var x T
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", path, n, err)
		}
		out = append(out, x)
	}
	return out, sc.Err()
}

// writeFile creates path (which must not exist) and writes it with fill.
func writeFile(path string, fill func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
