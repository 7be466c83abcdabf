package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/durable"
	"github.com/dablot-zero/dablot/internal/research/balance"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/train"
	"github.com/dablot-zero/dablot/train/progress"
	"github.com/dablot-zero/dablot/train/rundir"
)

// cmdBalance studies how fair variants are.
var cmdBalance = &command{
	name: "balance",
	usage: `--variants V1,V2,... [--models DIR | --preset P] [--games N] [--sims 50,200,800]
       [--main-sims N] [--open K] [--temp T] [--search puct|gumbel] [--guard D] [--seed S]
       [--anchor SPEC] [--check-games N] [--threads T] [--workers W] [--out DIR] [--resume]`,
	short: "measure how fair variants are: the first player's score as models play themselves",
	long: `For each variant, its model DIR/<variant>.dbm plays itself: --games games at each
strength of --sims (simulations per decision), each game opened by --open turns drawn
from the network's policy at temperature --temp. Both sides search as the shipped
players do, with an alpha-beta guard of --guard turns that vetoes blunders. The report gives the first player's
score with its 95 % interval, the draw rate, game lengths, how games end, the network's
value of the start position and the score at each strength; a model that scores below
50 % against --anchor (in --check-games games) is flagged "balance not yet reliable".
A variant with overrides is written with them (daablot,no_return=true,frostviken), and
its model file has the full name (daablot,no_return=true.dbm).
With --preset P (a built-in preset such as short, or a YAML file), a variant without a
model file gets one trained first, in DIR/runs/ of --out. Writes balance.md,
results.json, PNG charts and the games (games/<variant>.pgn) to --out, and prints the
tables. results.json is rewritten after each variant; --resume keeps the variants in it
whose study was of the same model (by checksum) and settings, and studies the rest, so
that a long study can go on after a stop (until it reaches them, results.json still
holds the kept ones; a results file with studies it does not keep is moved aside
first). Each game's record goes to its games file as
it ends, tagged with its study: --resume counts those of the same study again rather
than play them, so a variant stopped part way goes on from its last game (a games file
of another study is moved aside first).`,
	run: runBalance,
}

// balanceFlags are the settings of one study.
type balanceFlags struct {
	variants, models, preset, sims, search, anchor, out        string
	games, mainSims, open, checkGames, threads, workers, guard int
	temp                                                       float64
	seed                                                       uint64
	resume                                                     bool
}

// runBalance runs "dablot balance": it checks every variant and model,
// then studies each variant in turn (training a model first where
// --preset asks for one), rewriting the report after each, and prints the
// tables and the files written.
func runBalance(args []string, out io.Writer) error {
	f, err := parseBalanceFlags(args, out)
	if err != nil {
		return err
	}
	opts, err := f.options()
	if err != nil {
		return err
	}
	specs := splitVariants(f.variants)
	if len(specs) == 0 {
		return usagef("--variants is required (such as --variants frostviken,daablot)")
	}
	var presetPath string
	if f.preset != "" {
		presetPath = f.preset
		if _, err := train.LoadPreset(presetPath); err != nil {
			return fmt.Errorf("--preset %s: %w", f.preset, err)
		}
	}
	// Check every variant and model before playing a game.
	jobs, err := balanceJobs(specs, f.models, presetPath)
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return err
	}
	var earlier []*balance.VariantResult
	if f.resume {
		if earlier, err = readBalance(f.out); err != nil {
			return err
		}
	}
	kept, nKept := keptStudies(jobs, earlier, opts)
	from, err := setAsideResults(out, f.out, len(earlier), nKept)
	if err != nil {
		return err
	}
	results, err := studyJobs(ctx, f, opts, jobs, kept, from, presetPath, out)
	if err != nil {
		return err
	}
	md := balance.Markdown(results)
	fmt.Fprintf(out, "\n%s\n", md)
	paths, err := writeBalance(f.out, results)
	for _, p := range paths {
		fmt.Fprintln(out, p)
	}
	return err
}

// parseBalanceFlags parses the arguments of "dablot balance" into its
// settings.
func parseBalanceFlags(args []string, out io.Writer) (*balanceFlags, error) {
	fs := newFlags("analyse balance", out)
	var f balanceFlags
	fs.StringVar(&f.variants, "variants", "", "variants to study, comma-separated (overrides follow their variant)")
	fs.StringVar(&f.models, "models", "models", "directory of the models, one <variant>.dbm each")
	fs.StringVar(&f.preset, "preset", "", "train a model with this preset (built-in name or YAML file) for a variant that has none")
	rangeVar(fs, &f.games, "games", 100, 1, 1_000_000, "self-play games at each strength")
	fs.StringVar(&f.sims, "sims", "50,200,800", "the strength ladder: simulations per decision")
	rangeVar(fs, &f.mainSims, "main-sims", 0, 0, mcts.MaxSims, "the fixed strength of the headline figures and the anchor check (0: the middle of --sims)")
	rangeVar(fs, &f.open, "open", 4, 0, 1000, "opening turns drawn from the network's policy (more, up to 4, where they would repeat)")
	rangeVar(fs, &f.temp, "temp", 1, 0, 100, "temperature of the opening turns (0: the most likely turn)")
	fs.StringVar(&f.search, "search", "puct", "search of both sides: puct (no noise, deterministic) or gumbel (with its Gumbel noise, so games vary)")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed: the same seed plays the same games")
	rangeVar(fs, &f.guard, "guard", mcts.DefaultGuardDepth, 0, mcts.MaxGuardDepth, fmt.Sprintf("most turns of the alpha-beta guard of both sides, within %d nodes, as the shipped players play (0: none)", mcts.DefaultGuardNodes))
	fs.StringVar(&f.anchor, "anchor", balance.DefaultAnchor, "player the model must not lose to for its figures to be reliable")
	rangeVar(fs, &f.checkGames, "check-games", 20, 0, 1_000_000, "games against --anchor (0: no check)")
	rangeVar(fs, &f.threads, "threads", runtime.NumCPU(), 1, maxThreads, "network evaluators (one goroutine each)")
	rangeVar(fs, &f.workers, "workers", 8, 1, 4096, "games played at once")
	fs.StringVar(&f.out, "out", "balance", "directory for the report, charts and games")
	fs.BoolVar(&f.resume, "resume", false, "keep the variants of --out's results.json studied with the same model and settings")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	return &f, nil
}

// balanceJob is one variant to study: its rules, the path of its model
// and the model, nil when it is still to be trained.
type balanceJob struct {
	rules *game.Rules
	path  string
	model *model.Model
}

// balanceJobs checks each variant of specs and its model in the directory
// models: a model that exists must load and fit its variant, and one that
// does not is an error unless presetPath can train it.
func balanceJobs(specs []string, models, presetPath string) ([]balanceJob, error) {
	var jobs []balanceJob
	for _, spec := range specs {
		r, err := configs.Variant(spec)
		if err != nil {
			return nil, fmt.Errorf("--variants: %w", err)
		}
		path := filepath.Join(models, fileName(r.Name)+".dbm")
		j := balanceJob{rules: r, path: path}
		switch _, err := os.Stat(path); {
		case err == nil:
			m, err := model.LoadModel(path)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", r.Name, err)
			}
			if err := m.CheckRules(r); err != nil {
				return nil, fmt.Errorf("%s: model %s: %w", r.Name, path, err)
			}
			j.model = m
		case !errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("%s: %w", r.Name, err)
		case presetPath == "":
			return nil, fmt.Errorf("%s: no model: %s does not exist (train one and export it there with "+
				"\"dablot train\" and \"dablot export\", point --models at another directory, or pass --preset P to train one here)", r.Name, path)
		}
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// keptStudies returns, for each job, the earlier study that --resume keeps
// (one of the same model and options), or nil, and how many are kept.
// Until a variant is reached, results.json goes on holding its kept study,
// so that a run stopped part way loses none of them; an earlier results
// file that holds studies this run does not keep is moved aside first.
func keptStudies(jobs []balanceJob, earlier []*balance.VariantResult, opts balance.Options) ([]*balance.VariantResult, int) {
	kept := make([]*balance.VariantResult, len(jobs))
	nKept := 0
	for i, j := range jobs {
		for _, e := range earlier {
			if e != nil && j.model != nil && e.Matches(j.model, opts) {
				kept[i] = e
				nKept++
				break
			}
		}
	}
	return kept, nKept
}

// studyJobs studies the jobs in order and returns their results. A job
// with a kept study takes it as it is (from says where the earlier
// results are now); any other is studied, after its model is trained if
// it has none. After each study it rewrites the report with the results
// so far and the kept studies still ahead.
func studyJobs(ctx context.Context, f *balanceFlags, opts balance.Options, jobs []balanceJob, kept []*balance.VariantResult, from, presetPath string, out io.Writer) ([]*balance.VariantResult, error) {
	var results []*balance.VariantResult
	for i, j := range jobs {
		if kept[i] != nil {
			fmt.Fprintf(out, "balance: %s: kept from %s (the same model and settings)\n", j.rules.Name, from)
			results = append(results, kept[i])
			continue
		}
		m, source := j.model, j.path
		if m == nil {
			var err error
			if m, source, err = trainForBalance(ctx, j.rules, presetPath, f.out, out, f.threads); err != nil {
				return nil, fmt.Errorf("%s: training with %s: %w", j.rules.Name, presetPath, err)
			}
		}
		fmt.Fprintf(out, "balance: %s, model %s (generation %d, %d games, %.2f hours of training)\n",
			j.rules.Name, source, m.Training.Generation, m.Training.Games, m.Training.Hours)
		res, err := studyVariant(ctx, m, opts, f.out, out, f.resume)
		if err != nil {
			if ctx.Err() != nil && len(results) > 0 {
				fmt.Fprintf(out, "interrupted; %s holds the %d variants finished\n", filepath.Join(f.out, balanceReport), len(results))
			}
			return nil, fmt.Errorf("%s: %w", j.rules.Name, err)
		}
		res.Model = source
		results = append(results, res)
		pending := slices.DeleteFunc(slices.Clone(kept[i+1:]), func(e *balance.VariantResult) bool { return e == nil })
		if _, err := writeBalance(f.out, append(slices.Clone(results), pending...)); err != nil {
			return nil, err
		}
	}
	return results, nil
}

// options turns the flags into study options.
func (f *balanceFlags) options() (balance.Options, error) {
	o := balance.DefaultOptions()
	var sims []int
	for _, s := range strings.Split(f.sims, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > mcts.MaxSims {
			return o, usagef("--sims %q: want simulations per decision (1 to %d), comma-separated, such as 50,200,800", f.sims, mcts.MaxSims)
		}
		sims = append(sims, n)
	}
	search := mcts.DefaultConfig()
	switch f.search {
	case "puct":
	case "gumbel":
		search.Gumbel = true
	default:
		return o, usagef("--search %q: want puct or gumbel", f.search)
	}
	if f.checkGames > 0 {
		if err := mcts.CheckSpec(f.anchor); err != nil {
			return o, usagef("--anchor: %v", err)
		}
	}
	o.Games, o.Sims, o.MainSims = f.games, sims, f.mainSims
	o.OpeningTurns, o.OpeningTemperature = f.open, f.temp
	o.Search, o.Seed, o.Guard = &search, f.seed, f.guard
	o.CheckAnchor, o.CheckGames = f.anchor, f.checkGames
	o.Threads, o.Workers = f.threads, f.workers
	return o, o.Validate()
}

// splitVariants splits a comma-separated list of variant specs; a part
// with "=" is an override of the variant before it.
func splitVariants(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "":
		case strings.Contains(part, "=") && len(out) > 0:
			out[len(out)-1] += "," + part
		default:
			out = append(out, part)
		}
	}
	return out
}

// fileName makes a variant's name (which may carry overrides) safe as a
// file name.
func fileName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.,=", c) >= 0) {
			b[i] = '_'
		}
	}
	return string(b)
}

// trainForBalance trains a model of r with the preset in a run directory
// under outDir (resuming it if it exists) and returns its best model.
func trainForBalance(ctx context.Context, r *game.Rules, presetPath, outDir string, out io.Writer, threads int) (*model.Model, string, error) {
	cfg, err := train.LoadPreset(presetPath)
	if err != nil {
		return nil, "", err
	}
	dir := filepath.Join(outDir, "runs", fileName(r.Name)+"-"+cfg.Name)
	opts := train.RunOptions{Out: out, Progress: isTerminal(out), Threads: threads}
	var run *train.Run
	if _, err := os.Stat(filepath.Join(dir, rundir.StateFile)); err == nil {
		fmt.Fprintf(out, "balance: %s: resuming the training run %s\n", r.Name, dir)
		run, err = train.ResumeRun(dir, opts)
		if err != nil {
			return nil, "", err
		}
		if err := run.Best().CheckRules(r); err != nil {
			run.Close()
			return nil, "", fmt.Errorf("run %s: %w", dir, err)
		}
	} else {
		fmt.Fprintf(out, "balance: %s: no model; training one with %s in %s\n", r.Name, presetPath, dir)
		if run, err = train.CreateRun(dir, cfg, r, "", opts); err != nil {
			return nil, "", err
		}
	}
	defer run.Close()
	if err := run.Train(ctx, nil); err != nil {
		return nil, "", err
	}
	if err := ctx.Err(); err != nil {
		return nil, "", fmt.Errorf("training stopped (resume it by running the same command): %w", err)
	}
	return run.Best(), filepath.Join(dir, rundir.BestFile), nil
}

// studyVariant runs one study with a progress bar (on terminals) and
// writes its games to outDir/games/<variant>.pgn as they end, each in one
// write. With resume the games of that file that belong to this study
// (balance.Fingerprint) are counted again rather than played (a study
// stopped within a variant goes on game by game); a file that holds
// other games is first moved aside.
func studyVariant(ctx context.Context, m *model.Model, opts balance.Options, outDir string, out io.Writer, resume bool) (*balance.VariantResult, error) {
	gamesDir := filepath.Join(outDir, "games")
	if err := os.MkdirAll(gamesDir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(gamesDir, fileName(m.Rules.Name)+".pgn")
	var f *os.File
	var err error
	if resume {
		if opts.Played, err = studyGames(out, path, balance.Fingerprint(m, opts)); err != nil {
			return nil, err
		}
		f, err = durable.Append(path)
	} else {
		f, err = durable.Create(path)
	}
	if err != nil {
		return nil, err
	}
	sink := &recordSink{f: f, path: path}
	defer sink.Close()
	bar := progress.New(out, opts.TotalGames(), m.Rules.Name)
	opts.OnGame = func(g *balance.Game) {
		if !g.Resumed {
			sink.write(g.Record)
		}
		stage := fmt.Sprintf("%s %d sims", m.Rules.Name, g.Sims)
		if g.Anchor {
			stage = m.Rules.Name + " vs anchor"
		}
		bar.Describe(stage)
		bar.Add(1)
	}
	res, err := balance.Study(ctx, m, opts)
	bar.Finish()
	if err != nil {
		return nil, err
	}
	if err := sink.Close(); err != nil {
		return nil, err
	}
	if res.ResumedGames > 0 {
		fmt.Fprintf(out, "  %d of its %d games from %s, played before\n", res.ResumedGames, opts.TotalGames(), path)
	}
	if m := res.Main(); m != nil {
		fmt.Fprintf(out, "  first player (%s) %d/%d/%d at %d sims, score %.1f %% [%.1f, %.1f], draws %.0f %%, %.0f turns; %s in %.0f s\n",
			res.FirstName, m.First.W, m.First.D, m.First.L, m.Sims, 100*m.FirstScore, 100*m.CILow, 100*m.CIHigh,
			100*m.DrawRate, m.MeanLen, reliability(res), res.Elapsed.Seconds())
	}
	return res, nil
}

// studyGames reads the game records in path (none if it does not exist)
// and returns those of the study with the given fingerprint. When the
// file holds other records too (another study's, or written before
// records carried the tag), it is moved aside and a new one written with
// the study's records alone, so that nothing is lost and the file ends as
// the games of one study.
func studyGames(out io.Writer, path, fingerprint string) ([]*game.Record, error) {
	data, err := durable.ReadFile(path, "balance games file", game.MaxRecordsBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	recs, err := game.ReadPGN(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("--resume: %s: %w (move it aside to play the variant again)", path, err)
	}
	var keep []*game.Record
	for _, rec := range recs {
		if fingerprint != "" && rec.Tags[balance.TagStudy] == fingerprint {
			keep = append(keep, rec)
		}
	}
	if len(keep) == len(recs) {
		return keep, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	to, err := durable.MoveAside(path, st.ModTime(), filepath.Ext(path))
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "balance: moved %s to %s: %d of its %d games are of another study\n", path, to, len(recs)-len(keep), len(recs))
	return keep, durable.Write(path, func(w io.Writer) error {
		for _, rec := range keep {
			if err := rec.WritePGN(w); err != nil {
				return err
			}
		}
		return nil
	})
}

func reliability(res *balance.VariantResult) string {
	if res.Reliable {
		return "reliable"
	}
	return balance.Unreliable + ": " + res.Reason
}

// The files writeBalance makes besides the charts.
const (
	balanceReport  = "balance.md"
	balanceResults = "results.json"
)

// maxBalanceResults bounds the results file that --resume reads.
const maxBalanceResults = 64 << 20

// setAsideResults moves the results file of dir aside when it holds more
// studies (earlier) than the run keeps (kept), with a note on out: the
// run rewrites it with the variants it studies alone. It returns where
// the earlier results are now.
func setAsideResults(out io.Writer, dir string, earlier, kept int) (string, error) {
	path := filepath.Join(dir, balanceResults)
	if earlier <= kept {
		return path, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	to, err := durable.MoveAside(path, st.ModTime(), filepath.Ext(path))
	if err != nil {
		return "", err
	}
	fmt.Fprintf(out, "balance: moved %s to %s: %d of its %d studies are not kept (another model or settings, or not in --variants)\n",
		path, to, earlier-kept, earlier)
	return to, nil
}

// readBalance reads the results of an earlier study in dir (none if it has
// no results file).
func readBalance(dir string) ([]*balance.VariantResult, error) {
	path := filepath.Join(dir, balanceResults)
	data, err := durable.ReadFile(path, "balance results", maxBalanceResults)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var results []*balance.VariantResult
	if err := json.Unmarshal(data, &results); err != nil {
		return nil, fmt.Errorf("--resume: %s: %w", path, err)
	}
	return results, nil
}

// writeBalance writes the report, the results and the charts to dir.
func writeBalance(dir string, results []*balance.VariantResult) ([]string, error) {
	md := "# Variant balance\n\n" + balance.Markdown(results)
	report := filepath.Join(dir, balanceReport)
	if err := durable.WriteFile(report, []byte(md)); err != nil {
		return nil, err
	}
	data, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return nil, err
	}
	resultsPath := filepath.Join(dir, balanceResults)
	if err := durable.WriteFile(resultsPath, append(data, '\n')); err != nil {
		return nil, err
	}
	charts, err := balance.WriteCharts(dir, results)
	return append([]string{report, resultsPath}, charts...), err
}
