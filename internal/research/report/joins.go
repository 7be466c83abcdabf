package report

// The joins of a curve: where its run went on from a model by --init.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/train/rundir"
)

// CurveJoin is a point where the run of a curve's snapshots went on from a
// model with --init, as it must when its run directory is lost: an empty
// replay window and a new optimizer, so the curve after it is not one
// run's climb.
type CurveJoin struct {
	// Hours are the CPU hours of the model it went on from, as its file
	// name gives them (NAME-Hh.dbm); where no file of the folder is that
	// model, halfway between the snapshots around the join.
	Hours float64
	// From is the model's file name, or its checksum where no file of
	// the folder is that model.
	From string
	// After is the CPU hours of the first snapshot after the join.
	After float64
}

// FindJoins sets c.Joins from the snapshots' own records: a snapshot
// started from another model (--init) than the one before it follows a
// join, placed at the model it started from, found among the .dbm files
// of the snapshots' folder by its checksum. The first snapshot's own start
// is no join: a curve may begin from a model.
func FindJoins(c *Curve) error {
	c.Joins = nil
	byChecksum, err := folderChecksums(c.Folder)
	if err != nil {
		return err
	}
	prev := ""
	for i, pt := range c.Points {
		m, err := model.LoadModel(pt.Model)
		if err != nil {
			return fmt.Errorf("the curve's joins: %w", err)
		}
		from := m.Training.InitSHA256
		if i > 0 && from != "" && from != prev {
			j := CurveJoin{From: from, After: pt.Hours, Hours: (c.Points[i-1].Hours + pt.Hours) / 2}
			if f, ok := byChecksum[from]; ok && f.hours > 0 {
				j.From, j.Hours = f.name, f.hours
			} else if ok {
				j.From = f.name
			}
			c.Joins = append(c.Joins, j)
		}
		prev = from
	}
	return nil
}

// folderFile is a model file of a curve's folder.
type folderFile struct {
	name  string
	hours float64 // from its name, NAME-Hh.dbm; 0 if it gives none
}

// folderChecksums maps the checksum of every model file in dir to it.
func folderChecksums(dir string) (map[string]folderFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("the curve's joins: %w", err)
	}
	out := map[string]folderFile{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".dbm") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		m, err := model.LoadModel(path)
		if err != nil {
			return nil, fmt.Errorf("the curve's joins: %w", err)
		}
		_, h, _ := rundir.ParseSnapshotName(e.Name())
		out[m.Metadata[net.MetaChecksum]] = folderFile{name: e.Name(), hours: h}
	}
	return out, nil
}
