package report

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"github.com/dablot-zero/dablot/mcts/match/rating"
	"github.com/dablot-zero/dablot/train/runlog"
)

// TestSpreadLabels: labels end at least a text height apart, in the order
// of the places they want, each cluster centred on what its labels want
// and inside the bounds.
func TestSpreadLabels(t *testing.T) {
	const h, lo, hi = 10, 0, 200
	for _, tc := range []struct {
		name       string
		want, said []vg.Length // said: the result, where the case fixes it
	}{
		{"none", nil, []vg.Length{}},
		{"apart", []vg.Length{20, 100, 150}, []vg.Length{20, 100, 150}},
		{"just apart", []vg.Length{50, 60}, []vg.Length{50, 60}},
		{"two close", []vg.Length{100, 104}, []vg.Length{97, 107}},
		{"three equal", []vg.Length{80, 80, 80}, []vg.Length{70, 80, 90}},
		{"unsorted", []vg.Length{104, 30, 100}, []vg.Length{107, 30, 97}},
		{"a chain", []vg.Length{100, 108, 116}, []vg.Length{98, 108, 118}},
		{"cluster meets the next", []vg.Length{100, 100, 112}, []vg.Length{94, 104, 114}},
		{"at the top", []vg.Length{199, 200}, []vg.Length{185, 195}},
		{"at the bottom", []vg.Length{0, 1, 2}, []vg.Length{5, 15, 25}},
		{"apart at the bottom edge", []vg.Length{0, 100}, []vg.Length{5, 100}},
		{"no room", slices.Repeat([]vg.Length{100}, 25), nil},
	} {
		got := spreadLabels(tc.want, h, lo, hi)
		if tc.said != nil && !slices.Equal(got, tc.said) {
			t.Errorf("%s: spreadLabels(%v) = %v, want %v", tc.name, tc.want, got, tc.said)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %d places for %d labels", tc.name, len(got), len(tc.want))
		}
		room := vg.Length(len(tc.want))*h <= hi-lo
		for i := range got {
			for j := range got {
				if i == j {
					continue
				}
				if tc.want[i] < tc.want[j] && got[i] >= got[j] {
					t.Errorf("%s: label %d (wants %v) ends at %v, not below label %d (wants %v) at %v", tc.name, i, tc.want[i], got[i], j, tc.want[j], got[j])
				}
				if d := got[i] - got[j]; room && d > -h+1e-9 && d < h-1e-9 {
					t.Errorf("%s: labels %d and %d end %v apart, less than the text height %v: %v", tc.name, i, j, d, vg.Length(h), got)
				}
			}
			if got[i] < lo || got[i] > hi {
				t.Errorf("%s: label %d at %v, outside %v to %v", tc.name, i, got[i], vg.Length(lo), vg.Length(hi))
			}
		}
	}
}

// TestWholeTicks: the ticks of an axis of counts are whole numbers, their
// labels have no decimal point, and a range with two whole numbers gets
// two labels (or more).
func TestWholeTicks(t *testing.T) {
	for _, r := range [][2]float64{
		{-0.03, 1.03}, {-0.05, 2.1}, {36.2, 37.8}, {35.9, 38.1}, {0, 400}, {-0.5, 0.5},
		{0.97, 1.03}, {-40.3, -2.2}, {1e6, 1e6 + 3}, {0, 1e9}, {1 << 60, 1<<60 + 1e6},
	} {
		ticks := WholeTicks{}.Ticks(r[0], r[1])
		var labels []string
		for _, tk := range ticks {
			if tk.Value != math.Trunc(tk.Value) || tk.Value < r[0] || tk.Value > r[1] {
				t.Errorf("%v: tick at %v", r, tk.Value)
			}
			if tk.Label == "" {
				continue
			}
			labels = append(labels, tk.Label)
			if strings.ContainsAny(tk.Label, ".e") || tk.Label != strconv.FormatFloat(tk.Value, 'f', 0, 64) && tk.Label != "0" {
				t.Errorf("%v: tick %v labelled %q", r, tk.Value, tk.Label)
			}
		}
		wholes := math.Floor(r[1]) - math.Ceil(r[0]) + 1
		if len(labels) < int(min(wholes, 2)) || len(labels) > 12 {
			t.Errorf("%v: labels %q", r, labels)
		}
	}
}

// TestLegendCorner: the legend takes the first corner (top right, top left,
// bottom right, bottom left) that holds no point, or none.
func TestLegendCorner(t *testing.T) {
	const w, h = 0.5, 0.25 // exact in binary
	for _, tc := range []struct {
		name   string
		points plotter.XYs
		want   corner
		ok     bool
	}{
		{"empty", nil, corner{top: true}, true},
		{"top right taken", plotter.XYs{{X: 0.9, Y: 0.9}}, corner{top: true, left: true}, true},
		{"edge of the box", plotter.XYs{{X: 0.5, Y: 0.75}}, corner{}, true}, // of both top boxes
		{"just outside", plotter.XYs{{X: 0.49, Y: 0.95}, {X: 0.95, Y: 0.74}}, corner{top: true}, true},
		{"tops taken", plotter.XYs{{X: 0.9, Y: 0.9}, {X: 0.1, Y: 0.85}}, corner{}, true},
		{"a bar through the top right", along(plotter.XYs{{X: 0.7, Y: 0.1}, {X: 0.7, Y: 0.95}}), corner{top: true, left: true}, true},
		{"only bottom left free", plotter.XYs{{X: 0.9, Y: 0.9}, {X: 0.1, Y: 0.9}, {X: 0.9, Y: 0.1}}, corner{left: true}, true},
		{"all taken", plotter.XYs{{X: 1, Y: 1}, {X: 0, Y: 1}, {X: 1, Y: 0}, {X: 0, Y: 0}}, corner{}, false},
	} {
		got, ok := legendCorner(tc.points, w, h)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: %+v %v, want %+v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// drawn draws p on a recording canvas of the report's size and returns
// where each text was drawn (its baseline's left end), by text.
func drawn(p *plot.Plot) map[string][]vg.Point {
	rec := new(recorder.Canvas)
	p.Draw(draw.NewCanvas(rec, plotWidth, plotHeight))
	at := map[string][]vg.Point{}
	for _, a := range rec.Actions {
		if s, ok := a.(*recorder.FillString); ok {
			at[s.String] = append(at[s.String], s.Point)
		}
	}
	return at
}

// TestRatingPlotLabels: the anchors' labels of the rating plot are at
// least a text height apart however close their ratings, right of the
// data (clear of the model's points and error bars), and the legend stays
// clear of the error bars.
func TestRatingPlotLabels(t *testing.T) {
	run := &Run{Generations: []runlog.Generation{{Generation: 0, Hours: 0.5}, {Generation: 1, Hours: 1}, {Generation: 2, Hours: 1.5}}}
	table := rating.Table{
		{Name: "gen2", Elo: 150, Err95: 60}, {Name: "gen1", Elo: 40, Err95: 60}, {Name: "gen0", Elo: -200, Err95: 80},
		{Name: "uct:playouts=1000", Elo: 104}, {Name: "alphabeta:depth=2", Elo: 100}, {Name: "mcts:eval=material", Elo: 96},
		{Name: "greedy", Elo: 96}, {Name: "random", Elo: 0, Anchor: true},
	}
	p, err := ratingPlot(run, table, "random")
	if err != nil {
		t.Fatal(err)
	}
	at := drawn(p)
	h := p.Y.Tick.Label.Height("Mg")
	var ys []vg.Length
	var xs []vg.Length
	for _, r := range table[3:] {
		pts := at[r.Name]
		if len(pts) != 1 {
			t.Fatalf("%s drawn at %v", r.Name, pts)
		}
		ys, xs = append(ys, pts[0].Y), append(xs, pts[0].X)
	}
	for i := range ys {
		for j := range i {
			if d := ys[i] - ys[j]; d > -h+1e-6 && d < h-1e-6 {
				t.Errorf("the labels of %s and %s are %.1f points apart, less than their height %.1f", table[3+i].Name, table[3+j].Name, d, h)
			}
		}
	}
	// Right of every model's point (the data ends at the last, 1.5 hours).
	da := p.DataCanvas(draw.NewCanvas(new(recorder.Canvas), plotWidth, plotHeight))
	trX, _ := p.Transforms(&da)
	for i, x := range xs {
		if x <= trX(1.5) {
			t.Errorf("label %s at x %.1f, not right of the data (%.1f)", table[3+i].Name, x, trX(1.5))
		}
	}
	if len(at["models, with 95 % intervals"]) != 1 {
		t.Errorf("legend drawn %v", at["models, with 95 % intervals"])
	}
}

// TestWholeAxes: the generation axes and the game-length axis of a short
// run are labelled by whole numbers only, the loss axis keeps its decimals.
func TestWholeAxes(t *testing.T) {
	gens := []runlog.Generation{
		{Generation: 0, MeanLength: 36.4, MedianLength: 36, PolicyLoss: 2.31, ValueLoss: 0.52},
		{Generation: 1, MeanLength: 36.9, MedianLength: 37, PolicyLoss: 2.12, ValueLoss: 0.5},
	}
	length := genPlot{title: "length", series: []series{
		{"mean", func(g runlog.Generation) float64 { return g.MeanLength }},
		{"median", func(g runlog.Generation) float64 { return g.MedianLength }},
	}, reference: math.NaN(), wholeY: true}
	loss := genPlot{title: "loss", series: []series{
		{"policy", func(g runlog.Generation) float64 { return g.PolicyLoss }},
	}, reference: math.NaN()}
	labels := func(a plot.Axis) []string {
		var out []string
		for _, tk := range a.Tick.Marker.Ticks(a.Min, a.Max) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	for _, tc := range []struct {
		gp             genPlot
		wholeX, wholeY bool
	}{{length, true, true}, {loss, true, false}} {
		p, err := generationPlot(gens, tc.gp)
		if err != nil {
			t.Fatal(err)
		}
		for _, ax := range []struct {
			name  string
			axis  plot.Axis
			whole bool
		}{{"generation", p.X, tc.wholeX}, {"value", p.Y, tc.wholeY}} {
			ls := labels(ax.axis)
			decimals := slices.ContainsFunc(ls, func(l string) bool { return strings.Contains(l, ".") })
			if len(ls) < 2 || decimals == ax.whole {
				t.Errorf("%s plot, %s axis %v to %v: labels %q (want whole numbers: %v)", tc.gp.title, ax.name, ax.axis.Min, ax.axis.Max, ls, ax.whole)
			}
		}
	}
}

// TestErrorBand: the band runs along the lower ends of the intervals and
// back along the upper ones.
func TestErrorBand(t *testing.T) {
	for _, tc := range []struct {
		name string
		xys  plotter.XYs
		errs plotter.YErrors
		want plotter.XYs
	}{
		{"one point", plotter.XYs{{X: 1, Y: 10}}, plotter.YErrors{{Low: 2, High: 3}}, plotter.XYs{{X: 1, Y: 8}, {X: 1, Y: 13}}},
		{"three points", plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 50}, {X: 2, Y: 80}}, plotter.YErrors{{Low: 10, High: 10}, {Low: 20, High: 20}, {Low: 5, High: 15}},
			plotter.XYs{{X: 0, Y: -10}, {X: 1, Y: 30}, {X: 2, Y: 75}, {X: 2, Y: 95}, {X: 1, Y: 70}, {X: 0, Y: 10}}},
	} {
		if got := errorBand(tc.xys, tc.errs); !slices.Equal(got, tc.want) {
			t.Errorf("%s: band %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRatingPlotBand: the rating plot of several models fills their 95 %
// band (in its own colour), and that of one model has only its error bar.
func TestRatingPlotBand(t *testing.T) {
	fills := func(table rating.Table, gens int) int {
		run := &Run{}
		for g := range gens {
			run.Generations = append(run.Generations, runlog.Generation{Generation: g, Hours: float64(g+1) / 2})
		}
		p, err := ratingPlot(run, table, "random")
		if err != nil {
			t.Fatal(err)
		}
		rec := new(recorder.Canvas)
		p.Draw(draw.NewCanvas(rec, plotWidth, plotHeight))
		n := 0
		for _, a := range rec.Actions {
			if c, ok := a.(*recorder.SetColor); ok && c.Color == bandColor {
				n++
			}
		}
		return n
	}
	three := rating.Table{{Name: "gen2", Elo: 150, Err95: 60}, {Name: "gen1", Elo: 40, Err95: 60}, {Name: "gen0", Elo: -200, Err95: 80}, {Name: "random", Elo: 0, Anchor: true}}
	if n := fills(three, 3); n == 0 {
		t.Error("three rated models: no band drawn")
	}
	one := rating.Table{{Name: "gen0", Elo: 100, Err95: 60}, {Name: "random", Elo: 0, Anchor: true}}
	if n := fills(one, 1); n != 0 {
		t.Errorf("one rated model: the band's colour set %d times", n)
	}
}

// TestLossSeries: the loss plot shows the auxiliary heads' losses only for
// runs whose networks have them.
func TestLossSeries(t *testing.T) {
	names := func(gens []runlog.Generation) string {
		var out []string
		for _, s := range lossSeries(gens) {
			out = append(out, s.name)
		}
		return strings.Join(out, ", ")
	}
	for _, tc := range []struct {
		name string
		gens []runlog.Generation
		want string
	}{
		{"no generations", nil, "policy loss, value loss"},
		{"no heads", []runlog.Generation{{PolicyLoss: 3, ValueLoss: 1}}, "policy loss, value loss"},
		{"score head", []runlog.Generation{{ValueLoss: 1}, {ValueLoss: 1, ScoreLoss: 0.1}}, "policy loss, value loss, score loss"},
		{"both heads", []runlog.Generation{{ScoreLoss: 0.1, ShortTermLoss: 0.2}}, "policy loss, value loss, score loss, short-term value loss"},
		{"short-term heads", []runlog.Generation{{ShortTermLoss: 0.2}}, "policy loss, value loss, short-term value loss"},
		{"ownership head", []runlog.Generation{{ValueLoss: 1}, {OwnershipLoss: 0.3}}, "policy loss, value loss, ownership loss"},
		{"all heads", []runlog.Generation{{ScoreLoss: 0.1, ShortTermLoss: 0.2, OwnershipLoss: 0.3}}, "policy loss, value loss, score loss, short-term value loss, ownership loss"},
	} {
		if got := names(tc.gens); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
