// Package report turns the records of a training run directory
// (runlog.MetricsFile and runlog.RatingsFile) into PNG plots and a
// markdown summary, with what decided the last generations' self-play games
// (study.AnalyseGames).
package report

import (
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/durable"
	"github.com/dablot-zero/dablot/internal/recordio"
	"github.com/dablot-zero/dablot/internal/research/study"
	"github.com/dablot-zero/dablot/mcts/match/rating"
	"github.com/dablot-zero/dablot/train/rundir"
	"github.com/dablot-zero/dablot/train/runlog"
)

// The files Write makes in the output directory.
const (
	RatingPlot  = "rating.png"
	LossPlot    = "loss.png"
	LengthPlot  = "length.png"
	DrawsPlot   = "draws.png"
	SummaryFile = "summary.md"
)

// Run is what a training run directory records.
type Run struct {
	Dir         string
	Generations []runlog.Generation
	Matches     []runlog.Match
}

// Load reads the records of the run directory dir. It is an error if dir
// has no metrics file; a missing ratings file means no matches.
func Load(dir string) (*Run, error) {
	path := filepath.Join(dir, runlog.MetricsFile)
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s has no %s: not a training run directory", dir, runlog.MetricsFile)
		}
		return nil, err
	}
	gens, err := runlog.ReadGenerations(path)
	if err != nil {
		return nil, err
	}
	matches, err := runlog.ReadMatches(filepath.Join(dir, runlog.RatingsFile))
	if err != nil {
		return nil, err
	}
	return &Run{Dir: dir, Generations: gens, Matches: matches}, nil
}

// Results turns matches into rating results. A match of a player against
// itself says nothing about ratings and is left out.
func Results(matches []runlog.Match) []rating.Result {
	out := make([]rating.Result, 0, len(matches))
	for _, m := range matches {
		if m.Player == m.Opponent {
			continue
		}
		out = append(out, rating.Result{A: m.Player, B: m.Opponent, Wins: m.Wins, Draws: m.Draws, Losses: m.Losses})
	}
	return out
}

// GenerationOf returns N for a player named "genN".
func GenerationOf(player string) (int, bool) {
	s, ok := strings.CutPrefix(player, "gen")
	if !ok || s == "" || s[0] == '+' || s[0] == '-' {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// Options control Write.
type Options struct {
	// Out is the directory written; the default is DIR/report.
	Out string
	// Anchor is the player rated 0. The default is rating.DefaultAnchor
	// if it played, else the anchor (a player not named "genN") with the
	// most games, else the player with the most games.
	Anchor string
}

// Ratings fits the ratings of the run's matches with the given anchor (its
// default as for Options.Anchor) and returns them with the anchor used. A
// run without matches has an empty table. Players not connected to the
// anchor are in the table, unrated, together with a
// *rating.DisconnectedError.
func (r *Run) Ratings(anchor string) (rating.Table, string, error) {
	results := Results(r.Matches)
	games := map[string]int{}
	for _, res := range results {
		n := res.Wins + res.Draws + res.Losses
		games[res.A] += n
		games[res.B] += n
	}
	if anchor == "" {
		anchor = defaultAnchor(games)
	}
	if len(games) == 0 {
		return nil, anchor, nil
	}
	if games[anchor] == 0 {
		return nil, anchor, fmt.Errorf("anchor %q played no rating games", anchor)
	}
	table, err := rating.Fit(results, anchor)
	return table, anchor, err
}

// defaultAnchor picks the anchor as Options.Anchor describes.
func defaultAnchor(games map[string]int) string {
	if games[rating.DefaultAnchor] > 0 {
		return rating.DefaultAnchor
	}
	// Most games first, ties by name.
	names := slices.Sorted(maps.Keys(games))
	slices.SortStableFunc(names, func(a, b string) int { return cmp.Compare(games[b], games[a]) })
	for _, name := range names {
		if _, isGen := GenerationOf(name); !isGen && games[name] > 0 {
			return name
		}
	}
	if len(names) > 0 && games[names[0]] > 0 {
		return names[0]
	}
	return rating.DefaultAnchor
}

// Write reads the run directory dir and writes the plots and the summary
// (the files named by the constants of this package) to opts.Out, creating
// it if need be. It returns the paths written. A run with no generations
// or no matches still gets every file, the plots saying that they are
// empty.
func Write(dir string, opts Options) ([]string, error) {
	run, err := Load(dir)
	if err != nil {
		return nil, err
	}
	out := opts.Out
	if out == "" {
		out = filepath.Join(dir, "report")
	}
	table, anchor, ratingErr := run.Ratings(opts.Anchor)
	var disconnected *rating.DisconnectedError
	if ratingErr != nil && !errors.As(ratingErr, &disconnected) {
		return nil, fmt.Errorf("ratings: %w", ratingErr)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}

	plots := []struct {
		name string
		make func() (*plot.Plot, error)
	}{
		{RatingPlot, func() (*plot.Plot, error) { return ratingPlot(run, table, anchor) }},
		{LossPlot, func() (*plot.Plot, error) {
			return generationPlot(run.Generations, genPlot{title: "Training loss", ylabel: "loss", series: lossSeries(run.Generations), reference: math.NaN()})
		}},
		{LengthPlot, func() (*plot.Plot, error) {
			return generationPlot(run.Generations, genPlot{title: "Self-play game length", ylabel: "complete turns per game", series: []series{
				{"mean", func(g runlog.Generation) float64 { return g.MeanLength }},
				{"median", func(g runlog.Generation) float64 { return g.MedianLength }},
			}, reference: math.NaN(), wholeY: true})
		}},
		{DrawsPlot, func() (*plot.Plot, error) {
			return generationPlot(run.Generations, genPlot{title: "Self-play draws and first-player score", ylabel: "fraction of games / score", series: []series{
				{"draw rate", func(g runlog.Generation) float64 { return g.DrawRate }},
				{"first-player score", func(g runlog.Generation) float64 { return g.FirstPlayerScore }},
			}, reference: 0.5})
		}},
	}
	var written []string
	for _, pl := range plots {
		p, err := pl.make()
		if err != nil {
			return written, fmt.Errorf("%s: %w", pl.name, err)
		}
		path := filepath.Join(out, pl.name)
		if err := savePlot(p, path); err != nil {
			return written, fmt.Errorf("%s: %w", path, err)
		}
		written = append(written, path)
	}
	path := filepath.Join(out, SummaryFile)
	factors, err := loadSelfPlay(dir, factorGenerations)
	if err != nil {
		return written, err
	}
	if err := durable.WriteFile(path, []byte(summary(run, table, anchor, disconnected, factors))); err != nil {
		return written, err
	}
	return append(written, path), nil
}

// series is one line of a plot against generation.
type series struct {
	name  string
	value func(runlog.Generation) float64
}

// auxLosses are the losses of the auxiliary heads, above 0 only in the
// generations of runs whose networks have the head.
var auxLosses = []series{
	{"score loss", func(g runlog.Generation) float64 { return g.ScoreLoss }},
	{"short-term value loss", func(g runlog.Generation) float64 { return g.ShortTermLoss }},
	{"ownership loss", func(g runlog.Generation) float64 { return g.OwnershipLoss }},
}

// lossSeries returns the losses to plot: policy and value, and the
// auxiliary heads' (auxLosses) where the run's networks have them.
func lossSeries(gens []runlog.Generation) []series {
	ss := []series{
		{"policy loss", func(g runlog.Generation) float64 { return g.PolicyLoss }},
		{"value loss", func(g runlog.Generation) float64 { return g.ValueLoss }},
	}
	for _, aux := range auxLosses {
		if slices.ContainsFunc(gens, func(g runlog.Generation) bool { return aux.value(g) > 0 }) {
			ss = append(ss, aux)
		}
	}
	return ss
}

// genPlot is a plot of series against generation.
type genPlot struct {
	title, ylabel string
	series        []series
	reference     float64 // drawn as a dotted horizontal line unless NaN
	wholeY        bool    // the values are counts: whole-number ticks
}

// generationPlot plots each series of gp against generation, on an axis of
// whole generations.
func generationPlot(gens []runlog.Generation, gp genPlot) (*plot.Plot, error) {
	p := NewPlot(gp.title, "generation", gp.ylabel)
	if len(gens) == 0 {
		EmptyPlot(p, "no generations yet")
		return p, nil
	}
	var covered plotter.XYs
	for i, s := range gp.series {
		xys := make(plotter.XYs, len(gens))
		for k, g := range gens {
			xys[k] = plotter.XY{X: float64(g.Generation), Y: s.value(g)}
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		line.Color = plotutil.Color(i)
		line.Dashes = plotutil.Dashes(i)
		points.Color = plotutil.Color(i)
		points.Shape = plotutil.Shape(i)
		p.Add(line, points)
		p.Legend.Add(s.name, line, points)
		covered = append(covered, along(xys)...)
	}
	pad(&p.X, 0.03)
	wholeAxis(&p.X)
	if reference := gp.reference; !math.IsNaN(reference) {
		f := plotter.NewFunction(func(float64) float64 { return reference })
		f.Color = color.Gray{Y: 128}
		f.Dashes = []vg.Length{vg.Points(1), vg.Points(3)}
		p.Add(f)
		p.Y.Min, p.Y.Max = min(p.Y.Min, reference), max(p.Y.Max, reference)
		covered = append(covered, along(plotter.XYs{{X: p.X.Min, Y: reference}, {X: p.X.Max, Y: reference}})...)
	}
	pad(&p.Y, 0.05)
	if gp.wholeY {
		wholeAxis(&p.Y)
	}
	placeLegend(p, covered)
	if len(gens) == 1 {
		p.Title.Text += " (one generation)"
	}
	return p, nil
}

// genPoint is one model's rating for the rating plot.
type genPoint struct {
	gen        int
	hours, elo float64
	err95      float64
}

// ratingPlot plots the rating of each generation's model against training
// hours, with 95 % error bars, and the anchors as labelled horizontal
// lines.
func ratingPlot(run *Run, table rating.Table, anchor string) (*plot.Plot, error) {
	p := NewPlot("Rating of each generation's model", "training hours", fmt.Sprintf("Elo (%s = 0)", anchor))
	points := genPoints(run, table)
	var anchors []rating.Rating
	for _, r := range table {
		if _, isGen := GenerationOf(r.Name); !isGen && !math.IsNaN(r.Elo) {
			anchors = append(anchors, r)
		}
	}
	if len(points) == 0 && len(anchors) == 0 {
		EmptyPlot(p, "no rating matches yet")
		return p, nil
	}
	var covered plotter.XYs
	if len(points) > 0 {
		xys := make(plotter.XYs, len(points))
		errs := make(plotter.YErrors, len(points))
		for i, pt := range points {
			xys[i] = plotter.XY{X: pt.hours, Y: pt.elo}
			errs[i].Low, errs[i].High = pt.err95, pt.err95
			covered = append(covered, along(plotter.XYs{{X: pt.hours, Y: pt.elo - pt.err95}, {X: pt.hours, Y: pt.elo + pt.err95}})...)
		}
		covered = append(covered, along(xys)...)
		line, scatter, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		bars, err := ErrorBars(xys, errs)
		if err != nil {
			return nil, err
		}
		line.Color, scatter.Color, bars.Color = plotutil.Color(0), plotutil.Color(0), plotutil.Color(0)
		if len(points) > 1 {
			// The 95 % band over the training hours, under the line.
			band, err := plotter.NewPolygon(errorBand(xys, errs))
			if err != nil {
				return nil, err
			}
			band.Color, band.LineStyle.Width = bandColor, 0
			p.Add(band)
		}
		p.Add(line, bars, scatter)
		p.Legend.Add("models, with 95 % intervals", line, scatter)
		if len(points) == 1 {
			p.Title.Text += " (one model)"
		}
	} else {
		p.X.Min, p.X.Max = 0, 1
		p.Title.Text += " (no models rated yet)"
	}
	pad(&p.X, 0.03)
	if len(anchors) > 0 {
		var names []string
		var elos []float64
		var colors []color.Color
		for i, a := range anchors {
			elo := a.Elo
			f := plotter.NewFunction(func(float64) float64 { return elo })
			f.Color = anchorColor(i)
			f.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
			p.Add(f)
			p.Y.Min, p.Y.Max = min(p.Y.Min, elo), max(p.Y.Max, elo)
			names, elos, colors = append(names, a.Name), append(elos, elo), append(colors, f.Color)
			covered = append(covered, along(plotter.XYs{{X: p.X.Min, Y: elo}, {X: p.X.Max, Y: elo}})...)
		}
		// Named at their right ends, outside the data.
		p.Add(newLineLabels(p, names, elos, colors))
	}
	pad(&p.Y, 0.06)
	placeLegend(p, covered)
	return p, nil
}

// bandColor fills the rating's 95 % band: the models' colour, light.
var bandColor = color.NRGBA{R: 0xf0, G: 0xc0, B: 0xc0, A: 0x80}

// errorBand returns the outline of the band between xys minus and plus
// errs: along the lower ends, then back along the upper ones.
func errorBand(xys plotter.XYs, errs plotter.YErrors) plotter.XYs {
	band := make(plotter.XYs, 0, 2*len(xys))
	for i, pt := range xys {
		band = append(band, plotter.XY{X: pt.X, Y: pt.Y - errs[i].Low})
	}
	for i := len(xys) - 1; i >= 0; i-- {
		band = append(band, plotter.XY{X: xys[i].X, Y: xys[i].Y + errs[i].High})
	}
	return band
}

// anchorColor is the colour of the i-th anchor's line: plotutil's colours
// but the first (the models') and the sixth (too close to it).
func anchorColor(i int) color.Color {
	return plotutil.Color([]int{1, 2, 3, 4, 6}[i%5])
}

// genPoints returns the rated models "genN" in order of generation, each
// at the earliest hours of a match it played as Player, or else at the
// hours its generation ended.
func genPoints(run *Run, table rating.Table) []genPoint {
	hours := map[int]float64{}
	for _, m := range run.Matches {
		if g, ok := GenerationOf(m.Player); ok {
			if h, seen := hours[g]; !seen || m.Hours < h {
				hours[g] = m.Hours
			}
		}
	}
	for _, g := range run.Generations {
		if _, seen := hours[g.Generation]; !seen {
			hours[g.Generation] = g.Hours
		}
	}
	var pts []genPoint
	for _, r := range table {
		g, ok := GenerationOf(r.Name)
		h, known := hours[g]
		if !ok || !known || math.IsNaN(r.Elo) {
			continue
		}
		pts = append(pts, genPoint{gen: g, hours: h, elo: r.Elo, err95: r.Err95})
	}
	slices.SortFunc(pts, func(a, b genPoint) int { return cmp.Compare(a.gen, b.gen) })
	return pts
}

// What the summary's section on self-play games looks at: the games of the
// last factorGenerations generations, sampled every factorEvery turns from
// turn factorFrom, with leads compared factorHorizon turns later.
const (
	factorGenerations = 10
	factorFrom        = 20
	factorEvery       = 5
	factorHorizon     = 40
)

// selfPlay is the study.GameFactors of the self-play games of generations
// first to last.
type selfPlay struct {
	study.GameFactors
	first, last int
}

// origin is where a game record was read: its file and its number there.
type origin struct {
	path string
	game int
}

// loadSelfPlay analyses the self-play games of the last n generations of
// the run in dir that start from the variant's setup and have the network
// on both sides (not a fixed opponent, which runs of the retired
// selfplay.opponents played). It returns nil without error when the run
// has no game records or no variant file.
func loadSelfPlay(dir string, n int) (*selfPlay, error) {
	files, err := filepath.Glob(filepath.Join(dir, rundir.GamesDir, "gen-*.pgn"))
	if err != nil || len(files) == 0 {
		return nil, err
	}
	rules, err := rundir.ReadRules(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	slices.Sort(files) // gen-NNNNNN: numeric order
	files = files[max(0, len(files)-n):]
	sp := &selfPlay{}
	var (
		recs []*game.Record
		from []origin // of each record
	)
	for i, path := range files {
		var g int
		if _, err := fmt.Sscanf(filepath.Base(path), "gen-%d.pgn", &g); err != nil {
			return nil, fmt.Errorf("%s: not a generation's game file", path)
		}
		if i == 0 {
			sp.first = g
		}
		sp.last = g
		rs, err := recordio.ReadFile(path)
		if err != nil {
			return nil, err
		}
		for k, rec := range rs {
			if rec.Setup == "" && rec.South == rec.North { // not against a fixed opponent
				recs = append(recs, rec)
				from = append(from, origin{path, k + 1})
			}
		}
	}
	sp.GameFactors, err = study.AnalyseGames(recs, rules, factorFrom, factorEvery, factorHorizon)
	if re := (*study.RecordError)(nil); errors.As(err, &re) {
		in := *re
		in.Record = from[re.Record-1].game
		return nil, fmt.Errorf("%s: %w", from[re.Record-1].path, &in)
	}
	if err != nil {
		return nil, fmt.Errorf("self-play games: %w", err)
	}
	return sp, nil
}
