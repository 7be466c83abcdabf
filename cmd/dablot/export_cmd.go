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
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/train"
	"github.com/dablot-zero/dablot/train/rundir"
)

// cmdExport exports a run's best model.
var cmdExport = &command{
	name:  "export",
	usage: "DIR --out models/NAME.dbm",
	short: "export a run's best model with its ratings",
	long: `Writes the best model of the run in DIR (DIR/best.dbm: network, variant, rules and
training history) to --out, with the ratings of the run's matches added, and prints
them. The file is what play, serve, engine and arena take.`,
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
	table, err := bestRatings(dir)
	if err != nil {
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
	fmt.Fprintf(out, "exported %s: %s, generation %d, %d games, %.2f hours of training\n",
		*dest, m.Rules.Name, m.Training.Generation, m.Training.Games, m.Training.Hours)
	if table != nil {
		fmt.Fprint(out, table.Markdown())
	}
	return nil
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
