package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/durable"
	"github.com/dablot-zero/dablot/internal/recordio"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/mcts/match"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
)

// recordSink writes game records to a file (PGN-like, or JSON lines when
// its name ends in .jsonl), keeping the first error. A nil sink or one
// without a file writes nothing. Each record goes to the file in one
// write, so that a kill leaves whole records behind for a --resume.
type recordSink struct {
	f      *os.File
	path   string
	jsonl  bool
	err    error
	closed bool
}

// openSink opens the records file path ("" for none). A file already
// there is not overwritten: without resume it is moved aside (its name
// gets the time it was last written) and a new one begun; with resume the
// records in it are read and returned, for the match to check and count
// (match.Resume), and new ones are appended after them. A last JSON line
// that a kill cut short is dropped first, with a note on out.
func openSink(out io.Writer, path string, resume bool) (*recordSink, []*game.Record, error) {
	s := &recordSink{path: path, jsonl: strings.HasSuffix(path, ".jsonl")}
	if path == "" {
		if resume {
			return nil, nil, usagef("--resume continues the match whose records are in --out FILE: give --out")
		}
		return s, nil, nil
	}
	if c, ok := recordio.NamedCompressed(path); ok {
		return nil, nil, usagef("--out %s: records are written plain and appended to, as JSON lines (.jsonl) or PGN, not %s; a compressed records file is only read (decompress it to resume its match)", path, c)
	}
	st, err := os.Stat(path)
	exists := err == nil && st.Size() > 0
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	var recs []*game.Record
	switch {
	case exists && resume:
		if recs, err = readSinkRecords(out, path, s.jsonl); err != nil {
			return nil, nil, err
		}
	case exists:
		if err := durable.CheckTarget(path); err != nil {
			return nil, nil, err
		}
		to, err := durable.MoveAside(path, st.ModTime(), filepath.Ext(path))
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(out, "records: moved the earlier records in %s to %s (--resume continues their match instead)\n", path, to)
	case resume:
		fmt.Fprintf(out, "records: %s holds no games yet; the match starts from its first\n", path)
	}
	f, err := durable.Append(path)
	if err != nil {
		return nil, nil, err
	}
	s.f = f
	return s, recs, nil
}

// readSinkRecords reads the records of an earlier run from path. A last
// JSON line without its newline (a kill while it was written) is dropped,
// the file rewritten without it (atomically) and a note printed. A
// compressed file is refused: new records could not be appended to it.
func readSinkRecords(out io.Writer, path string, jsonl bool) ([]*game.Record, error) {
	data, err := durable.ReadFile(path, "game records file", game.MaxRecordsBytes)
	if err != nil {
		return nil, err
	}
	if c := recordio.Compression(data); c != "" {
		return nil, fmt.Errorf("--resume: %s is compressed (%s), and new records are appended plain: decompress it first", path, c)
	}
	if jsonl && len(data) > 0 && data[len(data)-1] != '\n' {
		cut := bytes.LastIndexByte(data, '\n') + 1
		fmt.Fprintf(out, "records: dropping the last line of %s, cut short (%d bytes without a newline)\n", path, len(data)-cut)
		data = data[:cut]
		if err := durable.WriteFile(path, data); err != nil {
			return nil, err
		}
	}
	recs, err := game.ReadRecords(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}

func (s *recordSink) write(rec *game.Record) {
	if s == nil || s.f == nil || s.err != nil {
		return
	}
	var buf bytes.Buffer
	if s.err = writeRecord(&buf, rec, s.jsonl); s.err == nil {
		_, s.err = s.f.Write(buf.Bytes())
	}
}

// Close closes the file and returns the first error of writing it.
func (s *recordSink) Close() error {
	if s == nil || s.f == nil || s.closed {
		return nil
	}
	s.closed = true
	err := s.f.Close()
	if s.err != nil {
		err = s.err
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", s.path, err)
	}
	return nil
}

func writeRecord(w io.Writer, rec *game.Record, jsonl bool) error {
	if jsonl {
		return writeJSONLine(w, rec)
	}
	return rec.WritePGN(w)
}

func writeJSONLine(w io.Writer, rec *game.Record) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// resumeMatch checks the records of an earlier run of the match cfg
// describes (read from file by openSink) and returns its games done, with
// a line saying how many.
func resumeMatch(ctx context.Context, out io.Writer, cfg match.ArenaConfig, recs []*game.Record, file string) ([]*match.ArenaGame, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	done, err := match.Resume(ctx, cfg, recs)
	if err != nil {
		return nil, fmt.Errorf("--resume: %s: %w (a new match needs another --out, or this file moved aside)", file, err)
	}
	fmt.Fprintf(out, "resuming: %d of %d games already played (%s), %d to play\n", len(done), cfg.Games, file, cfg.Games-len(done))
	return done, nil
}

// modelTags returns the record tags that name the models of a match's
// players by checksum, ModelA and ModelB, for the players of the specs a
// and b that play a model file (match.ArenaConfig.Tags): a resumed match
// whose model file was replaced at the same path is then refused.
func modelTags(a, b string) (map[string]string, error) {
	tags := map[string]string{}
	for tag, spec := range map[string]string{"ModelA": a, "ModelB": b} {
		sp, err := mcts.ParseSpec(spec)
		if err != nil {
			return nil, err
		}
		path := sp.Params["model"]
		if path == "" {
			continue
		}
		m, err := model.LoadModel(path)
		if err != nil {
			return nil, err
		}
		tags[tag] = m.Metadata[net.MetaChecksum]
	}
	return tags, nil
}
