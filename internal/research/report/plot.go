package report

// The style of the project's charts: their size and resolution, whole-number
// ticks for counts, labels of horizontal lines that never overlap, and
// legends placed where they hide no data.

import (
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/dablot-zero/dablot/internal/durable"
)

// The size of every plot of a report, and the resolution of every chart
// the project writes: 7 × 4.5 inches at 150 dots per inch is 1050 × 675
// pixels, large enough that 10-point tick labels read without zooming.
const (
	plotWidth  = 7 * vg.Inch
	plotHeight = 4.5 * vg.Inch
	DPI        = 150
)

// NewPlot makes a plot with a title, axis labels and a grid, in the style
// of every chart the project writes.
func NewPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	return p
}

// NewCanvas returns an image canvas of w × h at the charts' resolution.
func NewCanvas(w, h vg.Length) *vgimg.Canvas {
	return vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(DPI))
}

// WritePNG writes the image of img to path.
func WritePNG(img *vgimg.Canvas, path string) error {
	return durable.Write(path, func(w io.Writer) error {
		_, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w)
		return err
	})
}

// savePlot writes p as a PNG image of the report's size to path.
func savePlot(p *plot.Plot, path string) error {
	img := NewCanvas(plotWidth, plotHeight)
	p.Draw(draw.New(img))
	return WritePNG(img, path)
}

// ErrorBars draws vertical error bars of errs (below, above) at the
// points xys; the two must be equally long.
func ErrorBars(xys plotter.XYs, errs plotter.YErrors) (*plotter.YErrorBars, error) {
	return plotter.NewYErrorBars(struct {
		plotter.XYs
		plotter.YErrors
	}{xys, errs})
}

// EmptyPlot marks a plot that has no data, with a note in the title and
// in the middle.
func EmptyPlot(p *plot.Plot, note string) {
	p.Title.Text += " (" + note + ")"
	p.X.Min, p.X.Max = 0, 1
	p.Y.Min, p.Y.Max = 0, 1
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: 0.5, Y: 0.5}}, Labels: []string{note}})
	if err != nil {
		return // only for mismatched lengths, which cannot happen here
	}
	l.TextStyle[0].XAlign = text.XCenter
	l.TextStyle[0].YAlign = text.YCenter
	l.TextStyle[0].Font.Size = vg.Points(16)
	p.Add(l)
}

// pad widens an axis's range by frac of its span on each side, and makes
// an empty range (one value) a unit wide.
func pad(a *plot.Axis, frac float64) {
	if a.Min > a.Max || math.IsInf(a.Min, 0) || math.IsInf(a.Max, 0) {
		a.Min, a.Max = 0, 1
	}
	if span := a.Max - a.Min; span > 0 {
		a.Min -= frac * span
		a.Max += frac * span
		return
	}
	h := max(0.5, 0.1*math.Abs(a.Min))
	a.Min, a.Max = a.Min-h, a.Max+h
}

// WholeTicks marks an axis of counts (generations, turns) at whole numbers
// only, labelled without decimals: the default ticks that are whole, or,
// where fewer than two of them are, every whole number in the range.
type WholeTicks struct{}

// Ticks returns the ticks of [min, max].
func (WholeTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	labelled := 0
	for _, t := range (plot.DefaultTicks{}).Ticks(min, max) {
		if t.Value != math.Trunc(t.Value) {
			continue
		}
		if t.Label != "" {
			t.Label = wholeLabel(t.Value)
			labelled++
		}
		ticks = append(ticks, t)
	}
	if labelled >= 2 {
		return ticks
	}
	ticks = ticks[:0]
	for v := math.Ceil(min); v <= max && len(ticks) < 10; v++ {
		ticks = append(ticks, plot.Tick{Value: v, Label: wholeLabel(v)})
	}
	return ticks
}

// wholeLabel writes a whole number without decimals (and 0, not -0).
func wholeLabel(v float64) string {
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// wholeAxis makes a an axis of counts: whole-number ticks over a range
// that holds at least two whole numbers, so that it has two labels.
func wholeAxis(a *plot.Axis) {
	a.Tick.Marker = WholeTicks{}
	if math.Floor(a.Max)-math.Ceil(a.Min) < 1 {
		mid := math.Round((a.Min + a.Max) / 2)
		a.Min, a.Max = min(a.Min, mid-1), max(a.Max, mid+1)
	}
}

// lineLabels names horizontal lines (such as the anchors of a rating
// plot) just right of the data area, each in its line's colour. Labels of
// lines closer than a text height are spread apart (spreadLabels), so that
// none overlaps another, and the plot keeps room for them on its right.
type lineLabels struct {
	names  []string
	ys     []float64 // the lines, in data units
	colors []color.Color
	style  text.Style
	gap    vg.Length // between the data area and the labels
}

// newLineLabels labels the lines at ys of p with names, in colors, in
// the style of p's tick labels.
func newLineLabels(p *plot.Plot, names []string, ys []float64, colors []color.Color) *lineLabels {
	sty := p.Y.Tick.Label
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
	return &lineLabels{names: names, ys: ys, colors: colors, style: sty, gap: vg.Points(4)}
}

// Plot draws the labels; it implements plot.Plotter.
func (l *lineLabels) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	want := make([]vg.Length, len(l.ys))
	for i, y := range l.ys {
		want[i] = trY(y)
	}
	at := spreadLabels(want, l.height(), c.Min.Y, c.Max.Y)
	for i, name := range l.names {
		sty := l.style
		sty.Color = l.colors[i]
		c.FillText(sty, vg.Point{X: c.Max.X + l.gap, Y: at[i]}, name)
	}
}

// height is the room one label takes up and down: its text height.
func (l *lineLabels) height() vg.Length { return l.style.Height("Mg") }

// GlyphBoxes reserves the labels' room right of the data area; it
// implements plot.GlyphBoxer.
func (l *lineLabels) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	h := l.height()
	boxes := make([]plot.GlyphBox, len(l.names))
	for i, name := range l.names {
		boxes[i] = plot.GlyphBox{X: 1, Y: p.Y.Norm(l.ys[i]), Rectangle: vg.Rectangle{
			Min: vg.Point{X: l.gap, Y: -h / 2},
			Max: vg.Point{X: l.gap + l.style.Width(name), Y: h / 2},
		}}
	}
	return boxes
}

// spreadLabels returns where to centre labels of height h that want to be
// centred at want, so that no two are closer than h: labels that would
// overlap are gathered in a cluster centred on the mean of what they want,
// as close to it as the bounds lo and hi allow, and in the order of want.
// Labels that do not fit between lo and hi share the space evenly.
func spreadLabels(want []vg.Length, h, lo, hi vg.Length) []vg.Length {
	n := len(want)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case want[a] < want[b]:
			return -1
		case want[a] > want[b]:
			return 1
		}
		return 0
	})
	// Clusters of consecutive labels (in order), each with the sum of
	// what its labels want; a cluster of k labels spans (k-1)·h.
	type cluster struct {
		first, k int
		sum      vg.Length
	}
	bottom := func(c cluster) vg.Length { // of the first label's centre
		b := c.sum/vg.Length(c.k) - vg.Length(c.k-1)*h/2
		if top := hi - h/2 - vg.Length(c.k-1)*h; b > top {
			b = top
		}
		return max(b, lo+h/2)
	}
	var cs []cluster
	for i, o := range order {
		cs = append(cs, cluster{first: i, k: 1, sum: want[o]})
		for len(cs) > 1 {
			a, b := cs[len(cs)-2], cs[len(cs)-1]
			if bottom(b) >= bottom(a)+vg.Length(a.k)*h {
				break
			}
			cs = append(cs[:len(cs)-2], cluster{first: a.first, k: a.k + b.k, sum: a.sum + b.sum})
		}
	}
	at := make([]vg.Length, n)
	if vg.Length(n)*h > hi-lo { // no room: share it
		for i, o := range order {
			at[o] = lo + (vg.Length(i)+0.5)*(hi-lo)/vg.Length(n)
		}
		return at
	}
	for _, c := range cs {
		b := bottom(c)
		for j := range c.k {
			at[order[c.first+j]] = b + vg.Length(j)*h
		}
	}
	return at
}

// along returns points spread along the polyline xys, for placeLegend.
func along(xys plotter.XYs) plotter.XYs {
	const steps = 16
	out := slices.Clone(xys)
	for i := 1; i < len(xys); i++ {
		a, b := xys[i-1], xys[i]
		for k := 1; k < steps; k++ {
			t := float64(k) / steps
			out = append(out, plotter.XY{X: a.X + t*(b.X-a.X), Y: a.Y + t*(b.Y-a.Y)})
		}
	}
	return out
}

// corner is a corner of the data area.
type corner struct{ top, left bool }

// legendCorners are the corners a legend may take, in order of preference.
var legendCorners = []corner{{true, false}, {true, true}, {false, false}, {false, true}}

// legendCorner returns the first corner of legendCorners where a box of
// w × h (shares of the data area's width and height) holds none of the
// points (in shares of the data area, from its bottom left), and false if
// every corner holds some.
func legendCorner(points plotter.XYs, w, h float64) (corner, bool) {
	for _, c := range legendCorners {
		clear := true
		for _, pt := range points {
			x, y := pt.X, pt.Y
			if c.left {
				x = 1 - x
			}
			if !c.top {
				y = 1 - y
			}
			if x >= 1-w && y >= 1-h {
				clear = false
				break
			}
		}
		if clear {
			return c, true
		}
	}
	return corner{}, false
}

// placeLegend puts p's legend in a corner of the data area where it covers
// none of the points drawn (covered, in data units), measuring the legend
// as it is drawn in a plot of the report's size. When every corner holds
// some, the Y axis grows at the top to make room for it there. The legend
// is drawn inside the data area (not beside the axes, as plot.Plot draws
// it), so that it stays clear of what lies outside, such as lineLabels.
func placeLegend(p *plot.Plot, covered plotter.XYs) {
	const margin = 0.03 // share of the data area kept clear around the legend
	da := p.DataCanvas(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: plotWidth, Y: plotHeight}}})
	r := p.Legend.Rectangle(da)
	w := float64((r.Max.X-r.Min.X)/(da.Max.X-da.Min.X)) + margin
	h := float64((r.Max.Y-r.Min.Y)/(da.Max.Y-da.Min.Y)) + margin
	pts := make(plotter.XYs, len(covered))
	for i, pt := range covered {
		pts[i] = plotter.XY{X: p.X.Norm(pt.X), Y: p.Y.Norm(pt.Y)}
	}
	c, ok := legendCorner(pts, w, h)
	if !ok {
		// Every point below the top h of the axis (the old top is there).
		c = legendCorners[0]
		p.Y.Max += (p.Y.Max - p.Y.Min) * h / (1 - h)
	}
	l := p.Legend
	l.Top, l.Left = c.top, c.left
	l.XOffs, l.YOffs = -vg.Points(4), -vg.Points(4)
	if c.left {
		l.XOffs = vg.Points(4)
	}
	if !c.top {
		l.YOffs = vg.Points(4)
	}
	p.Legend = plot.NewLegend()
	p.Add(legendInside{l})
}

// legendInside draws a legend in the data area.
type legendInside struct{ plot.Legend }

// Plot draws the legend; it implements plot.Plotter.
func (l legendInside) Plot(c draw.Canvas, _ *plot.Plot) { l.Draw(c) }
