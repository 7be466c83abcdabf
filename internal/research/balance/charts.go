package balance

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/research/report"
)

// The charts WriteCharts makes.
const (
	ScoreChart    = "first-player-score.png" // score at the main strength, 95 % intervals
	LadderChart   = "score-by-sims.png"      // score against simulations per decision
	OutcomesChart = "outcomes.png"           // first-player wins, draws, second-player wins
	EndsChart     = "ends.png"               // share of games by end condition
)

const plotHeight = 4.5 * vg.Inch

// plotWidth grows with the number of variants so that their names fit.
func plotWidth(n int) vg.Length { return max(7*vg.Inch, vg.Length(n)*0.75*vg.Inch) }

// WriteCharts writes the charts (the files named by the constants above)
// to dir, creating it if need be, and returns the paths written.
func WriteCharts(dir string, results []*VariantResult) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	charts := []struct {
		name string
		make func([]*VariantResult) (*plot.Plot, error)
	}{
		{ScoreChart, scorePlot},
		{LadderChart, ladderPlot},
		{OutcomesChart, outcomesPlot},
		{EndsChart, endsPlot},
	}
	var written []string
	for _, c := range charts {
		p, err := c.make(results)
		if err != nil {
			return written, fmt.Errorf("%s: %w", c.name, err)
		}
		path := filepath.Join(dir, c.name)
		if err := save(p, plotWidth(len(results)), plotHeight, path); err != nil {
			return written, fmt.Errorf("%s: %w", path, err)
		}
		written = append(written, path)
	}
	return written, nil
}

// save writes p as a PNG of size w × h, its legend (if any) in a column
// of its own to the right of the plot, where it hides no data.
func save(p *plot.Plot, w, h vg.Length, path string) error {
	img := report.NewCanvas(w, h)
	dc := draw.New(img)
	legend := p.Legend
	p.Legend = plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.XOffs, legend.YOffs = vg.Points(6), -p.Title.TextStyle.Height(p.Title.Text)-vg.Points(12)
	plotArea := dc
	if r := legend.Rectangle(dc); r.Max.X > r.Min.X {
		lw := r.Max.X - r.Min.X + vg.Points(16)
		plotArea = draw.Crop(dc, 0, -lw, 0, 0)
		legend.Draw(draw.Crop(dc, w-lw, 0, 0, 0))
	}
	p.Draw(plotArea)
	return report.WritePNG(img, path)
}

// shareTicks marks shares from 0 to 1 by fifths.
var shareTicks = plot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 0.2, Label: "0.2"}, {Value: 0.4, Label: "0.4"},
	{Value: 0.5}, {Value: 0.6, Label: "0.6"}, {Value: 0.8, Label: "0.8"}, {Value: 1, Label: "1"}}

// withMain returns the results that have a main strength.
func withMain(results []*VariantResult) []*VariantResult {
	var out []*VariantResult
	for _, v := range results {
		if v.Main() != nil {
			out = append(out, v)
		}
	}
	return out
}

// scorePlot draws each variant's first-player score at the main strength
// with its 95 % interval; unreliable variants in grey.
func scorePlot(results []*VariantResult) (*plot.Plot, error) {
	vs := withMain(results)
	p := report.NewPlot("First-player score at the main strength (95 % intervals)", "", "first-player score")
	if len(vs) == 0 {
		report.EmptyPlot(p, "no variants studied")
		return p, nil
	}
	groups := []struct {
		label    string
		reliable bool
		col      color.Color
	}{
		{"reliable", true, plotutil.Color(0)},
		{Unreliable, false, color.Gray{Y: 140}},
	}
	for k, g := range groups {
		var xys plotter.XYs
		var errs plotter.YErrors
		for i, v := range vs {
			if v.Reliable != g.reliable {
				continue
			}
			m := v.Main()
			xys = append(xys, plotter.XY{X: float64(i), Y: m.FirstScore})
			errs = append(errs, struct{ Low, High float64 }{m.FirstScore - m.CILow, m.CIHigh - m.FirstScore})
		}
		if len(xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		sc.Color = g.col
		sc.Shape = plotutil.Shape(k)
		sc.Radius = vg.Points(4)
		bars, err := report.ErrorBars(xys, errs)
		if err != nil {
			return nil, err
		}
		bars.Color = g.col
		bars.Width = vg.Points(1.5)
		p.Add(bars, sc)
		p.Legend.Add(g.label, sc)
	}
	half(p)
	nominal(p, vs)
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = shareTicks
	return p, nil
}

// ladderPlot draws the first-player score of each variant against the
// simulations per decision (log scale).
func ladderPlot(results []*VariantResult) (*plot.Plot, error) {
	p := report.NewPlot("First-player score as the search grows stronger", "simulations per decision", "first-player score")
	var ticks []int
	for _, v := range results {
		for _, s := range v.PerSims {
			ticks = append(ticks, s.Sims)
		}
	}
	if len(ticks) == 0 {
		report.EmptyPlot(p, "no variants studied")
		return p, nil
	}
	slices.Sort(ticks)
	ticks = slices.Compact(ticks)
	lo, hi := float64(ticks[0]), float64(ticks[len(ticks)-1])
	if lo == hi {
		lo, hi = lo/2, hi*2
	}
	// Spread the variants a little sideways so their bars do not hide
	// each other.
	spread := math.Pow(hi/lo, 0.01)
	for i, v := range results {
		if len(v.PerSims) == 0 {
			continue
		}
		shift := math.Pow(spread, float64(i)-float64(len(results)-1)/2)
		xys := make(plotter.XYs, len(v.PerSims))
		errs := make(plotter.YErrors, len(v.PerSims))
		for k, s := range v.PerSims {
			xys[k] = plotter.XY{X: float64(s.Sims) * shift, Y: s.FirstScore}
			errs[k].Low, errs[k].High = s.FirstScore-s.CILow, s.CIHigh-s.FirstScore
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.Variant, err)
		}
		bars, err := report.ErrorBars(xys, errs)
		if err != nil {
			return nil, err
		}
		c := plotutil.Color(i)
		line.Color, points.Color, bars.Color = c, c, c
		line.Dashes = plotutil.Dashes(i)
		points.Shape = plotutil.Shape(i)
		p.Add(line, bars, points)
		label := v.Variant
		if !v.Reliable {
			label += " (" + Unreliable + ")"
		}
		p.Legend.Add(label, line, points)
	}
	p.X.Scale = plot.LogScale{}
	var marks plot.ConstantTicks
	for _, t := range ticks {
		marks = append(marks, plot.Tick{Value: float64(t), Label: fmt.Sprint(t)})
	}
	p.X.Tick.Marker = marks
	p.X.Min, p.X.Max = lo/math.Pow(hi/lo, 0.08), hi*math.Pow(hi/lo, 0.08)
	half(p)
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = shareTicks
	return p, nil
}

// sharePart is one layer of a stacked share chart: its legend label and the
// number of games it counts at a main strength.
type sharePart struct {
	label string
	count func(m *StrengthResult) int
}

// outcomesPlot stacks the shares of first-player wins, draws and
// second-player wins at the main strength.
func outcomesPlot(results []*VariantResult) (*plot.Plot, error) {
	return sharePlot(results, "Outcomes at the main strength", []sharePart{
		{"first player wins", func(m *StrengthResult) int { return m.First.W }},
		{"draw", func(m *StrengthResult) int { return m.First.D }},
		{"second player wins", func(m *StrengthResult) int { return m.First.L }},
	})
}

// endsPlot stacks the shares of games by the reason they ended, at the
// main strength.
func endsPlot(results []*VariantResult) (*plot.Plot, error) {
	var parts []sharePart
	for r := game.NotOver + 1; r <= game.Adjudicated; r++ {
		key := r.Key()
		parts = append(parts, sharePart{key, func(m *StrengthResult) int { return m.Ends[key] }})
	}
	return sharePlot(results, "How the games end at the main strength", parts)
}

// sharePlot stacks, per variant, the share of its games at the main
// strength that each part counts; parts that count no game are left out.
func sharePlot(results []*VariantResult, title string, parts []sharePart) (*plot.Plot, error) {
	vs := withMain(results)
	p := report.NewPlot(title, "", "share of games")
	if len(vs) == 0 {
		report.EmptyPlot(p, "no variants studied")
		return p, nil
	}
	var below *plotter.BarChart
	for k, part := range parts { // colour by part, so a part keeps its colour in every study
		vals := make(plotter.Values, len(vs))
		any := false
		for i, v := range vs {
			m := v.Main()
			n := part.count(m)
			any = any || n > 0
			vals[i] = float64(n) / float64(max(m.Games, 1))
		}
		if !any {
			continue
		}
		bar, err := stacked(vals, k, below)
		if err != nil {
			return nil, err
		}
		p.Add(bar)
		p.Legend.Add(part.label, bar)
		below = bar
	}
	nominal(p, vs)
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = shareTicks
	return p, nil
}

// stacked makes bar chart k, stacked on below (if any).
func stacked(vals plotter.Values, k int, below *plotter.BarChart) (*plotter.BarChart, error) {
	bar, err := plotter.NewBarChart(vals, vg.Points(24))
	if err != nil {
		return nil, err
	}
	bar.Color = plotutil.Color(k)
	bar.LineStyle.Width = vg.Points(0.5)
	if below != nil {
		bar.StackOn(below)
	}
	return bar, nil
}

// nominal names the x axis by variant, slanting the names when there are
// many.
func nominal(p *plot.Plot, vs []*VariantResult) {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.Variant
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(vs))-0.4
	if len(vs) > 4 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
}

// half draws the fair score, one half, as a dotted line.
func half(p *plot.Plot) {
	f := plotter.NewFunction(func(float64) float64 { return 0.5 })
	f.Color = color.Gray{Y: 100}
	f.Dashes = []vg.Length{vg.Points(1), vg.Points(3)}
	p.Add(f)
}
