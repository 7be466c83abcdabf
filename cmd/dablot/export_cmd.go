package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/dablot-zero/dablot/internal/research/report"
	"github.com/dablot-zero/dablot/mcts/match/rating"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/train"
	"github.com/dablot-zero/dablot/train/rundir"
)

// cmdExport exports a run's best model.
var cmdExport = &command{
	name:  "export",
	usage: "DIR --out models/NAME.dbm [--average N]",
	short: "export a run's best model with its ratings",
	long: `Writes the best model of the run in DIR (DIR/best.dbm: network, variant, rules and
training history) to --out, with the ratings of the run's matches added, and prints
them. The file is what play, serve, engine and arena take.

With --average N it writes instead the mean of the networks of the N generations up
to the best's, parameter by parameter (stochastic weight averaging), without the
ratings, which are the best network's.`,
	run: runExport,
}

// cmdSelfPlay is an extra self-play worker of a run.
var cmdSelfPlay = &command{
	name:  "selfplay",
	usage: "--run DIR [--name NAME] [--games N] [--shards N]",
	short: "play self-play games for a run as an extra worker, on this or another machine",
	long: `Plays self-play games with the current best model of the run in DIR and writes them
there as shards, which the trainer takes in at its next generation; it meets the
trainer only through the directory (a shared one, for another machine). It runs
until the run finishes, or --shards are written, or Ctrl-C (complete shards are
kept).`,
	run: runSelfPlay,
}

func runExport(args []string, out io.Writer) error {
	fs := newFlags("export", out)
	dest := fs.String("out", "", "model file to write")
	average := rangeFlag(fs, "average", 1, 1, maxAverage, "write the mean of the networks of this many generations, up to the best's")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *dest == "" {
		return usagef("want a run directory and --out FILE")
	}
	dir := pos[0]
	m, err := model.LoadModel(filepath.Join(dir, rundir.BestFile))
	if err != nil {
		return err
	}
	extra := map[string]string{}
	var table rating.Table
	if *average > 1 {
		if m, err = averageRun(dir, m, *average); err != nil {
			return err
		}
	} else if table, err = bestRatings(dir); err != nil {
		return err
	}
	if table != nil {
		data, err := json.Marshal(table)
		if err != nil {
			return err
		}
		extra[model.MetaRatings] = string(data)
	}
	if err := m.Save(*dest, extra); err != nil {
		return err
	}
	what := fmt.Sprintf("generation %d", m.Training.Generation)
	if *average > 1 {
		what = fmt.Sprintf("the mean of generations %d to %d", m.Training.Generation-*average+1, m.Training.Generation)
	}
	fmt.Fprintf(out, "exported %s: %s, %s, %d games, %.2f hours of training\n",
		*dest, m.Rules.Name, what, m.Training.Games, m.Training.Hours)
	if table != nil {
		fmt.Fprint(out, table.Markdown())
	}
	return nil
}

// maxAverage bounds export --average: more networks than a long run's
// generations.
const maxAverage = 100_000

// averageRun returns the mean of the networks of the n generations of the
// run in dir up to best's (best itself and the n-1 before it in
// rundir.ModelDir), with best's variant, training history and score
// utility, and the number averaged recorded.
func averageRun(dir string, best *model.Model, n int) (*model.Model, error) {
	g := best.Training.Generation
	if n > g {
		return nil, fmt.Errorf("export --average %d: the best network is generation %d, so at most %d trained networks end there", n, g, g)
	}
	ws := []*net.Weights{best.Weights}
	for k := g - n + 1; k < g; k++ {
		m, err := model.LoadModel(filepath.Join(dir, rundir.ModelDir, rundir.ModelName(k)))
		if err != nil {
			return nil, fmt.Errorf("export --average: %w", err)
		}
		if m.Rules.Fingerprint() != best.Rules.Fingerprint() {
			return nil, fmt.Errorf("export --average: generation %d plays %s, the best network %s", k, m.Rules.Name, best.Rules.Name)
		}
		ws = append(ws, m.Weights)
	}
	w, err := net.Average(ws)
	if err != nil {
		return nil, fmt.Errorf("export --average: %w", err)
	}
	ts := best.Training
	ts.Averaged = n
	avg, err := model.NewModel(best.Rules, w, ts)
	if err != nil {
		return nil, err
	}
	avg.ScoreUtility = best.ScoreUtility
	if v := best.Metadata[model.MetaTrainedBy]; v != "" {
		avg.Metadata[model.MetaTrainedBy] = v
	}
	return avg, nil
}

// bestRatings fits the run's rating matches (nil if it has none).
func bestRatings(dir string) (rating.Table, error) {
	r, err := report.Load(dir)
	if err != nil {
		return nil, err
	}
	if len(r.Matches) == 0 {
		return nil, nil
	}
	table, _, err := r.Ratings("")
	var disc *rating.DisconnectedError
	if err != nil && !errors.As(err, &disc) {
		return nil, err
	}
	return table, nil
}

func runSelfPlay(args []string, out io.Writer) error {
	fs := newFlags("selfplay", out)
	dir := fs.String("run", "", "the run directory (shared with the trainer)")
	name := fs.String("name", "", "this worker's name, unique among the run's workers (default: host name and process id)")
	games := rangeFlag(fs, "games", 0, 0, 1_000_000, "games per shard (0: the run's selfplay.games)")
	shards := rangeFlag(fs, "shards", 0, 0, 1_000_000, "stop after this many shards (0: when the run finishes)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return usagef("--run DIR is required")
	}
	if *name == "" {
		host, _ := os.Hostname()
		*name = fmt.Sprintf("%s.%d", sanitizeName(host), os.Getpid())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := train.SelfPlayWorker(ctx, *dir, train.WorkerOptions{Name: *name, Games: *games, Shards: *shards, Out: out})
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(out, "stopped; complete shards are kept")
		return nil
	}
	return err
}

// sanitizeName keeps the characters a worker name may hold.
func sanitizeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "worker"
	}
	return string(b)
}
