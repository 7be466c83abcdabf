package report

// The curve: the strength of a run's snapshots against the CPU hours they
// were kept at, from the rows of dablot ladder --curve.

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/dablot-zero/dablot/internal/research/ladder"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/mcts/match"
	"github.com/dablot-zero/dablot/train/rundir"
)

// Curve is the strength of one set of snapshots (the files
// rundir.SnapshotName names) at one time per decision: each snapshot's
// results against alpha-beta, against the classical control and against
// the snapshot before it, and the Elo those make over the first snapshot.
type Curve struct {
	Variant string
	MS      int
	// Folder holds the snapshots (a run's snapshots/ or a folder of them),
	// as the ladder named it.
	Folder string
	// Player is the snapshots' player spec, with SNAPSHOT for the file.
	Player string
	// AlphaBeta and Classical are the specs of the two fixed opponents.
	AlphaBeta, Classical string
	// Points are the snapshots in order of CPU hours.
	Points []CurvePoint
	// Joins are where the run went on from a model by --init (FindJoins
	// sets them; Curves leaves them empty).
	Joins []CurveJoin
}

// CurvePoint is one snapshot of a curve.
type CurvePoint struct {
	Hours float64
	Model string
	// AlphaBeta, Classical and Previous are the snapshot's results
	// against alpha-beta, the classical control and the snapshot before it
	// (no games: not measured); PreviousHours are that snapshot's hours.
	AlphaBeta, Classical, Previous match.WDL
	PreviousHours                  float64
	// Chain is the snapshot's Elo over the first snapshot: the sum of the
	// differences of the matches against the previous snapshot back to
	// the first, NaN where a link is missing. The 95 % interval is
	// [Chain - ChainLow, Chain + ChainHigh]: the links' own half-widths
	// (below and above, from each match's interval) added in quadrature,
	// as the errors of independent matches add.
	Chain, ChainLow, ChainHigh float64
}

// curveKey tells curves apart: the rows of one curve share it.
type curveKey struct {
	variant, folder, player string
	ms                      int
}

// Curves groups the rows of a curve's results file (written by dablot
// ladder --curve) into curves, one for each variant, time per decision,
// folder of snapshots and player settings, ordered by their last rows:
// the last curve is the one measured last. Where a snapshot has several
// rows against the same opponent (measured again), the last counts. A row
// whose model is not a snapshot, or whose opponent is none of a curve's,
// is an error.
func Curves(rows []ladder.Row) ([]*Curve, error) {
	byKey := map[curveKey]*Curve{}
	last := map[curveKey]int{}
	for i, row := range rows {
		variant, hours, ok := rundir.ParseSnapshotName(filepath.Base(row.Model))
		if !ok || variant != row.Variant {
			return nil, fmt.Errorf("row %d: model %s is not a snapshot of %s (%s), so not a curve's", i+1, row.Model, row.Variant, rundir.SnapshotName(row.Variant, 1))
		}
		k := curveKey{variant: row.Variant, folder: filepath.Dir(row.Model), ms: row.MS,
			player: strings.ReplaceAll(row.Player, row.Model, "SNAPSHOT")}
		c := byKey[k]
		if c == nil {
			c = &Curve{Variant: k.variant, MS: k.ms, Folder: k.folder, Player: k.player}
			byKey[k] = c
		}
		last[k] = i
		if err := c.add(row, hours); err != nil {
			return nil, fmt.Errorf("row %d: %w", i+1, err)
		}
	}
	var curves []*Curve
	for _, c := range byKey {
		slices.SortFunc(c.Points, func(a, b CurvePoint) int { return cmp.Compare(a.Hours, b.Hours) })
		c.chain()
		curves = append(curves, c)
	}
	slices.SortFunc(curves, func(a, b *Curve) int { return cmp.Compare(last[a.key()], last[b.key()]) })
	return curves, nil
}

// key is the curve's curveKey.
func (c *Curve) key() curveKey {
	return curveKey{variant: c.Variant, folder: c.Folder, player: c.Player, ms: c.MS}
}

// add counts row, a match of the snapshot at hours, by its opponent:
// alphabeta, classical (a search without a model, with a material
// count) or an earlier snapshot of the same folder.
func (c *Curve) add(row ladder.Row, hours float64) error {
	i := slices.IndexFunc(c.Points, func(p CurvePoint) bool { return p.Hours == hours })
	if i < 0 {
		c.Points = append(c.Points, CurvePoint{Hours: hours, Model: row.Model})
		i = len(c.Points) - 1
	}
	pt := &c.Points[i]
	sp, err := mcts.ParseSpec(row.Opponent)
	if err != nil {
		return err
	}
	prev := sp.Params["model"]
	switch {
	case sp.Kind == "alphabeta":
		pt.AlphaBeta, c.AlphaBeta = row.WDL, row.Opponent
	case prev == "" && sp.Params["eval"] == "material":
		pt.Classical, c.Classical = row.WDL, row.Opponent
	case prev != "":
		variant, h, ok := rundir.ParseSnapshotName(filepath.Base(prev))
		if !ok || variant != c.Variant || filepath.Dir(prev) != c.Folder || !(h < hours) {
			return fmt.Errorf("opponent %s: not an earlier snapshot of %s", prev, c.Folder)
		}
		pt.Previous, pt.PreviousHours = row.WDL, h
	default:
		return fmt.Errorf("opponent %s: not a curve's (alphabeta, classical or an earlier snapshot)", row.Opponent)
	}
	return nil
}

// chain sets each point's Chain from the first point's 0 along the
// matches against the previous snapshot.
func (c *Curve) chain() {
	for i := range c.Points {
		pt := &c.Points[i]
		if i == 0 {
			pt.Chain, pt.ChainLow, pt.ChainHigh = 0, 0, 0
			continue
		}
		pt.Chain, pt.ChainLow, pt.ChainHigh = math.NaN(), math.NaN(), math.NaN()
		j := slices.IndexFunc(c.Points[:i], func(p CurvePoint) bool { return p.Hours == pt.PreviousHours })
		if j < 0 || pt.Previous.Games() == 0 || math.IsNaN(c.Points[j].Chain) {
			continue
		}
		d, lo, hi := pt.Previous.Elo(0.95)
		from := c.Points[j]
		pt.Chain = from.Chain + d
		pt.ChainLow, pt.ChainHigh = math.Hypot(from.ChainLow, d-lo), math.Hypot(from.ChainHigh, hi-d)
	}
}

// Name describes the curve: its variant, time and folder.
func (c *Curve) Name() string {
	return fmt.Sprintf("%s at %d ms, the snapshots of %s", c.Variant, c.MS, c.Folder)
}

// SelectCurve returns the last of curves (Curves' order) of variant, at
// ms milliseconds and of the snapshots in folder (a run directory or its
// snapshots/), each "" or 0 for any, and the others of curves.
func SelectCurve(curves []*Curve, variant string, ms int, folder string) (*Curve, []*Curve, error) {
	var picked *Curve
	for _, c := range slices.Backward(curves) {
		if (variant == "" || c.Variant == variant) && (ms == 0 || c.MS == ms) &&
			(folder == "" || c.Folder == filepath.Clean(folder) || c.Folder == filepath.Join(folder, rundir.SnapshotDir)) {
			picked = c
			break
		}
	}
	if picked == nil {
		names := make([]string, len(curves))
		for i, c := range curves {
			names[i] = c.Name()
		}
		if len(curves) == 0 {
			return nil, nil, fmt.Errorf("no curve")
		}
		return nil, nil, fmt.Errorf("no curve of these; there are: %s", strings.Join(names, "; "))
	}
	others := slices.DeleteFunc(slices.Clone(curves), func(c *Curve) bool { return c == picked })
	return picked, others, nil
}

// Table writes the curve's numbers: for each snapshot its W/D/L and Elo
// with its 95 % interval against each opponent, and its Elo over the
// first snapshot.
func (c *Curve) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "curve: %s, as %s\n", c.Name(), c.Player)
	fmt.Fprintf(&b, "alphabeta: %s\nclassical: %s\n", cmp.Or(c.AlphaBeta, "-"), cmp.Or(c.Classical, "-"))
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	first := "the first"
	if len(c.Points) > 0 {
		first = fmt.Sprintf("%gh", c.Points[0].Hours)
	}
	fmt.Fprintf(w, "hours\tvs alphabeta W/D/L, Elo\tvs classical\tvs the one before\tElo over %s\n", first)
	for _, pt := range c.Points {
		prev := "-"
		if pt.Previous.Games() > 0 {
			prev = fmt.Sprintf("%gh: %s", pt.PreviousHours, eloCell(pt.Previous))
		}
		chain := "-"
		if !math.IsNaN(pt.Chain) {
			chain = fmt.Sprintf("%s [%s, %s]", match.FormatElo(pt.Chain), match.FormatElo(pt.Chain-pt.ChainLow), match.FormatElo(pt.Chain+pt.ChainHigh))
		}
		fmt.Fprintf(w, "%gh\t%s\t%s\t%s\t%s\n", pt.Hours, eloCell(pt.AlphaBeta), eloCell(pt.Classical), prev, chain)
	}
	w.Flush()
	for _, j := range c.Joins {
		fmt.Fprintf(&b, "join at %gh: the run went on from %s by --init (an empty replay window, a new optimizer) before the %gh snapshot\n", j.Hours, j.From, j.After)
	}
	return b.String()
}

// eloCell writes a match's W/D/L and Elo with its 95 % interval, "-" for
// none.
func eloCell(w match.WDL) string {
	if w.Games() == 0 {
		return "-"
	}
	elo, lo, hi := w.Elo(0.95)
	return fmt.Sprintf("%d/%d/%d %s [%s, %s]", w.W, w.D, w.L, match.FormatElo(elo), match.FormatElo(lo), match.FormatElo(hi))
}

// curveSeries is one line of the curve's plot: Elo against CPU hours,
// with the 95 % interval below and above each point (±Inf where the
// interval is unbounded).
type curveSeries struct {
	name string
	xys  plotter.XYs
	errs plotter.YErrors
}

// series returns the plot's lines: Elo against alpha-beta, against the
// classical control, and over the first snapshot; and the points left out
// because their Elo is infinite (every game won or lost).
func (c *Curve) series() ([]curveSeries, []string) {
	var skipped []string
	line := func(name, short string, dodge float64, elo func(CurvePoint) (e, lo, hi float64, ok bool)) curveSeries {
		s := curveSeries{name: name}
		for _, pt := range c.Points {
			e, lo, hi, ok := elo(pt)
			switch {
			case !ok:
			case math.IsInf(e, 0):
				skipped = append(skipped, fmt.Sprintf("%gh %s", pt.Hours, short))
			default:
				s.xys = append(s.xys, plotter.XY{X: pt.Hours * dodge, Y: e})
				s.errs = append(s.errs, struct{ Low, High float64 }{e - lo, hi - e})
			}
		}
		return s
	}
	vs := func(get func(CurvePoint) match.WDL) func(CurvePoint) (float64, float64, float64, bool) {
		return func(pt CurvePoint) (float64, float64, float64, bool) {
			w := get(pt)
			e, lo, hi := w.Elo(0.95)
			return e, lo, hi, w.Games() > 0
		}
	}
	return []curveSeries{
		line(fmt.Sprintf("against alphabeta:ms=%d", c.MS), "against alphabeta", 0.97, vs(func(p CurvePoint) match.WDL { return p.AlphaBeta })),
		line(fmt.Sprintf("against classical:ms=%d", c.MS), "against classical", 1.03, vs(func(p CurvePoint) match.WDL { return p.Classical })),
		line("over the first snapshot (each against the one before, summed)", "over the first", 1, func(p CurvePoint) (float64, float64, float64, bool) {
			return p.Chain, p.Chain - p.ChainLow, p.Chain + p.ChainHigh, !math.IsNaN(p.Chain)
		}),
	}, skipped
}

// CurvePlot plots the curve: the Elo of each snapshot against alpha-beta
// and against the classical control, and over the first snapshot, against
// CPU hours (a log scale, a tick at each snapshot), each with its 95 %
// band. The points against the fixed opponents are drawn a little left and
// right of their hours, so that their bars do not hide each other. An
// interval unbounded on one side is cut where the range of the finite
// values (padded) ends.
func CurvePlot(c *Curve) (*plot.Plot, error) {
	p := NewPlot(fmt.Sprintf("Strength of the %s snapshots at %d ms a decision", c.Variant, c.MS), "CPU hours of training", "Elo, with 95 % intervals")
	ss, skipped := c.series()
	lo, hi := 0.0, 0.0
	for _, s := range ss {
		for i, pt := range s.xys {
			lo, hi = min(lo, pt.Y, finiteOr(pt.Y-s.errs[i].Low, 0)), max(hi, pt.Y, finiteOr(pt.Y+s.errs[i].High, 0))
		}
	}
	p.Y.Min, p.Y.Max = lo, hi
	pad(&p.Y, 0.08)
	var covered plotter.XYs
	var ticks []plot.Tick
	for _, pt := range c.Points {
		ticks = append(ticks, plot.Tick{Value: pt.Hours, Label: fmt.Sprintf("%g", pt.Hours)})
	}
	for i, s := range ss {
		if len(s.xys) == 0 {
			continue
		}
		for k, pt := range s.xys { // unbounded: to the edge
			s.errs[k].Low = min(s.errs[k].Low, pt.Y-p.Y.Min)
			s.errs[k].High = min(s.errs[k].High, p.Y.Max-pt.Y)
		}
		col := plotutil.Color(i)
		if len(s.xys) > 1 {
			band, err := plotter.NewPolygon(errorBand(s.xys, s.errs))
			if err != nil {
				return nil, err
			}
			light := color.NRGBAModel.Convert(col).(color.NRGBA)
			light.A = 0x40
			band.Color, band.LineStyle.Width = light, 0
			p.Add(band)
		}
		line, points, err := plotter.NewLinePoints(s.xys)
		if err != nil {
			return nil, err
		}
		bars, err := ErrorBars(s.xys, s.errs)
		if err != nil {
			return nil, err
		}
		line.Color, points.Color, bars.Color = col, col, col
		line.Dashes, points.Shape = plotutil.Dashes(i), plotutil.Shape(i)
		p.Add(line, bars, points)
		p.Legend.Add(s.name, line, points)
		covered = append(covered, along(errorBand(s.xys, s.errs))...)
		covered = append(covered, along(s.xys)...)
	}
	if len(covered) == 0 {
		EmptyPlot(p, "no finite Elo yet")
		return p, nil
	}
	zero := plotter.NewFunction(func(float64) float64 { return 0 })
	zero.Color, zero.Dashes = color.Gray{Y: 128}, []vg.Length{vg.Points(1), vg.Points(3)}
	p.Add(zero)
	first, last := c.Points[0].Hours, c.Points[len(c.Points)-1].Hours
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = first/1.25, last*1.25
	p.Y.Min, p.Y.Max = min(p.Y.Min, lo), max(p.Y.Max, hi)
	if err := addJoins(p, c.Joins); err != nil {
		return nil, err
	}
	if len(skipped) > 0 {
		p.Title.Text += "\n(not drawn, every game won or lost: " + strings.Join(skipped, ", ") + ")"
	}
	placeLegend(p, covered)
	return p, nil
}

// addJoins draws each join as a vertical dotted line across the plot's
// range, with one legend entry for them all.
func addJoins(p *plot.Plot, joins []CurveJoin) error {
	for i, j := range joins {
		line, err := plotter.NewLine(plotter.XYs{{X: j.Hours, Y: p.Y.Min}, {X: j.Hours, Y: p.Y.Max}})
		if err != nil {
			return err
		}
		line.Color, line.Dashes = color.Gray{Y: 96}, []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(line)
		if i == 0 {
			p.Legend.Add("a join: --init from an earlier model", line)
		}
	}
	return nil
}

// finiteOr returns x, or else if x is infinite or NaN.
func finiteOr(x, otherwise float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return otherwise
	}
	return x
}

// WriteCurvePlot writes CurvePlot of c to path as a PNG image.
func WriteCurvePlot(c *Curve, path string) error {
	p, err := CurvePlot(c)
	if err != nil {
		return err
	}
	return savePlot(p, path)
}
