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
	files, err := folderModels(c.Folder)
	if err != nil {
		return err
	}
	byChecksum := map[string]folderFile{}
	for _, f := range files {
		byChecksum[f.checksum] = f
	}
	prev := ""
	for i, pt := range c.Points {
		f, ok := files[filepath.Base(pt.Model)]
		if !ok {
			return fmt.Errorf("the curve's joins: snapshot %s is not in %s", pt.Model, c.Folder)
		}
		if i > 0 && f.init != "" && f.init != prev {
			j := CurveJoin{From: f.init, After: pt.Hours, Hours: (c.Points[i-1].Hours + pt.Hours) / 2}
			if start, ok := byChecksum[f.init]; ok {
				j.From = start.name
				if start.hours > 0 {
					j.Hours = start.hours
				}
			}
			c.Joins = append(c.Joins, j)
		}
		prev = f.init
	}
	return nil
}

// folderFile is a model file of a curve's folder.
type folderFile struct {
	name     string
	hours    float64 // from its name, NAME-Hh.dbm; 0 if it gives none
	checksum string  // its own
	init     string  // the checksum of the model its run started from (--init), if any
}

// folderModels reads every model file in dir, by name.
func folderModels(dir string) (map[string]folderFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("the curve's joins: %w", err)
	}
	out := map[string]folderFile{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".dbm") {
			continue
		}
		m, err := model.LoadModel(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("the curve's joins: %w", err)
		}
		_, h, _ := rundir.ParseSnapshotName(e.Name())
		out[e.Name()] = folderFile{name: e.Name(), hours: h, checksum: m.Metadata[net.MetaChecksum], init: m.Training.InitSHA256}
	}
	return out, nil
}
