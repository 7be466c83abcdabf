package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/internal/research/ladder"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
)

// TestFindJoins: a curve's snapshots from three segments of a run, the
// second started by --init from the 1-hour snapshot and the third from a
// restart point kept beside them (restart-3.2h.dbm), give two joins, at 1
// and 3.2 hours; the snapshots within a segment give none, nor does the
// first snapshot's own start. A start the folder does not hold is placed
// halfway and named by its checksum.
func TestFindJoins(t *testing.T) {
	dir := t.TempDir()
	seed := uint64(0)
	save := func(name string, init string) string {
		t.Helper()
		seed++ // each its own weights, so its own checksum
		m, err := model.NewNetwork(configs.MustVariant("dablot"), net.Config{Blocks: 1, Channels: 8, ValueHidden: 8}, seed)
		if err != nil {
			t.Fatal(err)
		}
		m.Training.InitSHA256 = init
		path := filepath.Join(dir, name)
		if err := m.Save(path, nil); err != nil {
			t.Fatal(err)
		}
		if m, err = model.LoadModel(path); err != nil {
			t.Fatal(err)
		}
		return m.Metadata[net.MetaChecksum]
	}
	one := save("dablot-1h.dbm", "elsewhere")
	save("dablot-2h.dbm", one)
	restart := save("restart-3.2h.dbm", one)
	save("dablot-4h.dbm", restart)
	save("dablot-8h.dbm", restart)
	save("dablot-16h.dbm", "0123abcd")
	var rows []ladder.Row
	for _, h := range []string{"1", "2", "4", "8", "16"} {
		rows = append(rows, curveRow(dir, h, curveAB, 1, 1, 1))
	}
	curves, err := Curves(rows)
	if err != nil {
		t.Fatal(err)
	}
	c := curves[0]
	if err := FindJoins(c); err != nil {
		t.Fatal(err)
	}
	want := []CurveJoin{{Hours: 1, From: "dablot-1h.dbm", After: 2}, {Hours: 3.2, From: "restart-3.2h.dbm", After: 4}, {Hours: 12, From: "0123abcd", After: 16}}
	if len(c.Joins) != len(want) {
		t.Fatalf("joins %+v, want %+v", c.Joins, want)
	}
	for i := range want {
		if c.Joins[i] != want[i] {
			t.Errorf("join %d: %+v, want %+v", i, c.Joins[i], want[i])
		}
	}
	if tab := c.Table(); !strings.Contains(tab, "join at 3.2h: the run went on from restart-3.2h.dbm by --init") {
		t.Errorf("table:\n%s", tab)
	}
	if _, err := CurvePlot(c); err != nil {
		t.Fatal(err)
	}
	c.Points[1].Model = filepath.Join(dir, "nosuch-2h.dbm")
	if err := FindJoins(c); err == nil || !strings.Contains(err.Error(), "nosuch-2h.dbm") {
		t.Errorf("a snapshot gone: %v", err)
	}
}
