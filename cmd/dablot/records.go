package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/recordio"
)

// maxRecordTurn bounds the turn flags of a recordRange, far beyond the
// length of any game.
const maxRecordTurn = 1_000_000

// recordRange is the flags of the commands that study positions taken from
// game records: the file, its variant, and which turns to take.
type recordRange struct {
	records, variant *string
	from, to, every  *int
}

// addRecordRange defines --records, --variant, --from, --to and --every on fs
// with the given defaults; everyHelp describes --every.
func addRecordRange(fs *flagSet, from, to, every int, everyHelp string) *recordRange {
	return &recordRange{
		records: fs.String("records", "", "game records to take positions from (plain or compressed: .zst, .gz)"),
		variant: fs.String("variant", "", "variant of the records (default: the first record's)"),
		from:    rangeFlag(fs, "from", from, 0, maxRecordTurn, "first turn of each game to take a position before, counting from 0"),
		to:      rangeFlag(fs, "to", to, 1, maxRecordTurn, "take positions before turns below this"),
		every:   rangeFlag(fs, "every", every, 1, maxRecordTurn, everyHelp),
	}
}

// check returns a usage error for a missing file or an empty range.
func (rr *recordRange) check() error {
	switch {
	case *rr.records == "":
		return usagef("--records is required")
	case *rr.to <= *rr.from:
		return usagef("--from %d --to %d: want from < to", *rr.from, *rr.to)
	}
	return nil
}

// read reads the records, and the rules of --variant or, if it is empty, of
// the first record's variant.
func (rr *recordRange) read() ([]*game.Record, *game.Rules, error) {
	return readRecords(*rr.records, *rr.variant)
}

// maxRecordFiles bounds the files one records pattern may name.
const maxRecordFiles = 10_000

// readRecords reads the game records of path, and the rules of variant
// or, if it is empty, of the first record's variant. A path with a glob
// pattern (such as runs/r/games/gen-0002*.pgn, quoted against the shell)
// reads every file it matches, in name order, as one list. Each file may be
// compressed (recordio).
func readRecords(path, variant string) ([]*game.Record, *game.Rules, error) {
	paths := []string{path}
	if strings.ContainsAny(path, "*?[") {
		var err error
		if paths, err = filepath.Glob(path); err != nil {
			return nil, nil, fmt.Errorf("records pattern %q: %w", path, err)
		}
		switch {
		case len(paths) == 0:
			return nil, nil, fmt.Errorf("records pattern %q matches no file", path)
		case len(paths) > maxRecordFiles:
			return nil, nil, fmt.Errorf("records pattern %q matches %d files; at most %d", path, len(paths), maxRecordFiles)
		}
		// Together they are bounded as one file is.
		var total int64
		for _, p := range paths {
			fi, err := os.Stat(p)
			if err != nil {
				return nil, nil, err
			}
			if total += fi.Size(); total > game.MaxRecordsBytes {
				return nil, nil, fmt.Errorf("records pattern %q: its files hold more than %d MiB; at most %d", path, total>>20, game.MaxRecordsBytes>>20)
			}
		}
	}
	recs, err := recordio.ReadFiles(paths)
	if err != nil {
		return nil, nil, err
	}
	if len(recs) == 0 {
		return nil, nil, fmt.Errorf("%s: no game records", path)
	}
	name := variant
	if name == "" {
		name = recs[0].Variant
	}
	r, err := configs.Variant(name)
	if err != nil {
		return nil, nil, err
	}
	return recs, r, nil
}

// takePositions takes the positions of rr's turn range from recs with take
// (such as study.RecordPositions), naming the records file in its errors:
// an empty range is an error too, since there is nothing to study.
func takePositions[P any](rr *recordRange, recs []*game.Record, r *game.Rules,
	take func(recs []*game.Record, r *game.Rules, from, to, every int) ([]P, error)) ([]P, error) {
	ps, err := take(recs, r, *rr.from, *rr.to, *rr.every)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", *rr.records, err)
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("%s: no positions between turns %d and %d", *rr.records, *rr.from, *rr.to)
	}
	return ps, nil
}
