package report

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dablot-zero/dablot/internal/research/ladder"
	"github.com/dablot-zero/dablot/mcts/match"
)

// The opponents' specs as the ladder names them (the classical one cut
// short: a search without a model, with a material count).
const (
	curveAB        = "alphabeta:ms=100"
	curveClassical = "gumbel:eval=material,ms=100,batch=8,guard=16,eg=3"
)

// curveRow is a row of a curve of dablot at 100 ms in folder: the
// snapshot of hours against opp with w/d/l.
func curveRow(folder string, hours, opp string, w, d, l int) ladder.Row {
	model := folder + "/dablot-" + hours + "h.dbm"
	return ladder.Row{Time: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Model: model, Variant: "dablot",
		Player: "gumbel:model=" + model + ",ms=100,batch=8", Opponent: opp, MS: 100, WDL: match.WDL{W: w, D: d, L: l}}
}

// snapshotSpec is the spec of the snapshot of hours in folder as an
// opponent.
func snapshotSpec(folder, hours string) string {
	return "gumbel:model=" + folder + "/dablot-" + hours + "h.dbm,ms=100,batch=8"
}

// TestCurveChain: the Elo of each snapshot over the first is the sum of
// the differences of the matches against the previous snapshot, with
// their 95 % half-widths (from each match's W/D/L) added in quadrature;
// a snapshot without that match breaks the chain from there on. The
// numbers were worked out by hand: a score of 75 % is 400·log10(3) =
// 190.85 Elo, 30/0/10 has an interval of [-108.89, +162.27] around it and
// 20/20/0 one of [-65.84, +81.51].
func TestCurveChain(t *testing.T) {
	const f = "runs/d/snapshots"
	rows := []ladder.Row{
		curveRow(f, "1", curveAB, 10, 0, 30),
		curveRow(f, "1", curveClassical, 20, 0, 20),
		curveRow(f, "2", snapshotSpec(f, "1"), 30, 0, 10),
		curveRow(f, "2", curveAB, 0, 0, 40), // measured again below: the last row counts
		curveRow(f, "2", curveClassical, 30, 0, 10),
		curveRow(f, "4", snapshotSpec(f, "2"), 20, 20, 0),
		curveRow(f, "4", curveAB, 20, 20, 0),
		curveRow(f, "2", curveAB, 20, 0, 20),
		curveRow(f, "16", snapshotSpec(f, "8"), 30, 0, 10), // 8h has no link to 4h
		curveRow(f, "8", curveAB, 40, 0, 0),
	}
	curves, err := Curves(rows)
	if err != nil || len(curves) != 1 {
		t.Fatalf("%d curves, %v", len(curves), err)
	}
	c := curves[0]
	if c.Variant != "dablot" || c.MS != 100 || c.Folder != f || c.Player != "gumbel:model=SNAPSHOT,ms=100,batch=8" ||
		c.AlphaBeta != curveAB || c.Classical != curveClassical {
		t.Errorf("curve %+v", c)
	}
	nan := math.NaN()
	for i, want := range []struct {
		hours               float64
		ab, cl, prev        match.WDL
		prevHours           float64
		chain, below, above float64
	}{
		{1, match.WDL{W: 10, L: 30}, match.WDL{W: 20, L: 20}, match.WDL{}, 0, 0, 0, 0},
		{2, match.WDL{W: 20, L: 20}, match.WDL{W: 30, L: 10}, match.WDL{W: 30, L: 10}, 1, 190.85, 108.89, 162.27},
		{4, match.WDL{W: 20, D: 20}, match.WDL{}, match.WDL{W: 20, D: 20}, 2, 381.70, 127.24, 181.59},
		{8, match.WDL{W: 40}, match.WDL{}, match.WDL{}, 0, nan, nan, nan},
		{16, match.WDL{}, match.WDL{}, match.WDL{W: 30, L: 10}, 8, nan, nan, nan},
	} {
		if i >= len(c.Points) {
			t.Fatalf("%d points, want 5", len(c.Points))
		}
		pt := c.Points[i]
		near := func(got, want float64) bool {
			return math.IsNaN(want) && math.IsNaN(got) || math.Abs(got-want) < 0.01
		}
		if pt.Hours != want.hours || pt.AlphaBeta != want.ab || pt.Classical != want.cl || pt.Previous != want.prev ||
			pt.PreviousHours != want.prevHours || !near(pt.Chain, want.chain) || !near(pt.ChainLow, want.below) || !near(pt.ChainHigh, want.above) {
			t.Errorf("point %d: %+v, want %+v", i, pt, want)
		}
	}
	table := c.Table()
	for _, want := range []string{"Elo over 1h", "1h: 30/0/10 +191 [+82, +353]", "+382 [+254, +563]", "10/0/30 -191 [", "40/0/0 +inf ["} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}

// TestCurvesErrors: a row that is not a snapshot's, or whose opponent is
// none of a curve's, is an error naming the row.
func TestCurvesErrors(t *testing.T) {
	const f = "runs/d/snapshots"
	notSnapshot := curveRow(f, "1", curveAB, 1, 0, 1)
	notSnapshot.Model = "models/dablot.dbm"
	otherVariant := curveRow(f, "1", curveAB, 1, 0, 1)
	otherVariant.Variant = "winther"
	for _, tc := range []struct {
		row  ladder.Row
		want string
	}{
		{notSnapshot, "row 2: model models/dablot.dbm is not a snapshot of dablot"},
		{otherVariant, "is not a snapshot of winther"},
		{curveRow(f, "1", "greedy", 1, 0, 1), "opponent greedy: not a curve's"},
		{curveRow(f, "2", snapshotSpec(f, "4"), 1, 0, 1), "not an earlier snapshot"},
		{curveRow(f, "2", snapshotSpec("runs/e/snapshots", "1"), 1, 0, 1), "not an earlier snapshot"},
		{curveRow(f, "2", "nosuch:x=1", 1, 0, 1), "unknown kind"},
	} {
		_, err := Curves([]ladder.Row{curveRow(f, "1", curveAB, 1, 0, 1), tc.row})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s against %s: %v, want %q", tc.row.Model, tc.row.Opponent, err, tc.want)
		}
	}
}

// TestSelectCurve: a file of several curves gives one per variant, time
// and folder, the one measured last first chosen; the flags pick the
// others, a run directory naming its snapshots/.
func TestSelectCurve(t *testing.T) {
	fast := curveRow("runs/d/snapshots", "1", "alphabeta:ms=10", 1, 0, 1)
	fast.MS = 10
	rows := []ladder.Row{
		curveRow("runs/d/snapshots", "1", curveAB, 1, 0, 1),
		curveRow("models/curve", "1", curveAB, 1, 0, 1),
		fast,
		curveRow("runs/d/snapshots", "2", curveAB, 1, 0, 1),
	}
	curves, err := Curves(rows)
	if err != nil || len(curves) != 3 {
		t.Fatalf("%d curves, %v", len(curves), err)
	}
	for _, tc := range []struct {
		variant string
		ms      int
		folder  string
		want    string // the folder and time of the curve chosen
		err     string
	}{
		{"", 0, "", "runs/d/snapshots 100", ""},
		{"dablot", 10, "", "runs/d/snapshots 10", ""},
		{"", 0, "models/curve", "models/curve 100", ""},
		{"", 0, "runs/d", "runs/d/snapshots 100", ""},
		{"", 0, "runs/d/snapshots/", "runs/d/snapshots 100", ""},
		{"winther", 0, "", "", "no curve of these; there are: dablot at 100 ms, the snapshots of models/curve; dablot at 10 ms"},
		{"", 1000, "", "", "no curve of these"},
	} {
		c, others, err := SelectCurve(curves, tc.variant, tc.ms, tc.folder)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%+v: %v, want %q", tc, err, tc.err)
			}
		case err != nil:
			t.Errorf("%+v: %v", tc, err)
		case c.Folder+" "+strconv.Itoa(c.MS) != tc.want || len(others) != 2:
			t.Errorf("%+v: chose %s, %d others", tc, c.Name(), len(others))
		}
	}
	if c, _, _ := SelectCurve(curves, "", 0, ""); len(c.Points) != 2 {
		t.Errorf("the last curve has %d points, want 2", len(c.Points))
	}
}

// TestCurvePlot: the plot has a line for each opponent and for the chain,
// each point at its hours (against the fixed opponents a little apart),
// reaches the edge of the plot where an interval is unbounded, notes the
// points whose Elo is infinite, and writes a PNG.
func TestCurvePlot(t *testing.T) {
	const f = "runs/d/snapshots"
	curves, err := Curves([]ladder.Row{
		curveRow(f, "1", curveAB, 0, 0, 10), // -inf: not drawn
		curveRow(f, "1", curveClassical, 1, 0, 9),
		curveRow(f, "2", snapshotSpec(f, "1"), 6, 2, 2),
		curveRow(f, "2", curveAB, 3, 0, 7),
		curveRow(f, "2", curveClassical, 5, 0, 5),
	})
	if err != nil {
		t.Fatal(err)
	}
	c := curves[0]
	ss, skipped := c.series()
	if len(ss) != 3 || len(ss[0].xys) != 1 || len(ss[1].xys) != 2 || len(ss[2].xys) != 2 {
		t.Fatalf("series %+v", ss)
	}
	if len(skipped) != 1 || skipped[0] != "1h against alphabeta" {
		t.Errorf("skipped %q", skipped)
	}
	if ss[0].xys[0].X >= 2 || ss[1].xys[1].X <= 2 || ss[2].xys[1].X != 2 {
		t.Errorf("hours %v %v %v", ss[0].xys, ss[1].xys, ss[2].xys)
	}
	if !math.IsInf(ss[1].errs[0].Low, 1) { // 1/0/9: the interval reaches a score of 0
		t.Errorf("1h against classical: interval %+v, want unbounded below", ss[1].errs[0])
	}
	p, err := CurvePlot(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Title.Text, "not drawn, every game won or lost: 1h against alphabeta") || p.X.Min >= 1 || p.X.Max <= 2 {
		t.Errorf("title %q, hours from %g to %g", p.Title.Text, p.X.Min, p.X.Max)
	}
	if math.IsInf(p.Y.Min, 0) || p.Y.Min > -400 {
		t.Errorf("Elo from %g: want the lowest finite value, below -400", p.Y.Min)
	}
	path := filepath.Join(t.TempDir(), "curve.png")
	if err := WriteCurvePlot(c, path); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if img, err := png.Decode(fh); err != nil || img.Bounds().Dx() != 1050 {
		t.Errorf("png: %v", err)
	}
}
