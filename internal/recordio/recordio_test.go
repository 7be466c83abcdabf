package recordio

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// The records kept in the repository, compressed.
const recordsDir = "../../docs/experiments/records"

// plainRecords is a JSON-lines text of a few games: the first lines of a
// match record kept in the repository, and a PGN-like text of the same.
func plainRecords(t *testing.T) (jsonl, pgn []byte, recs []*game.Record) {
	t.Helper()
	text, err := ReadText(filepath.Join(recordsDir, "dablot-chain240-1s.jsonl.zst"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(text, []byte("\n"))
	if len(lines) < 4 {
		t.Fatalf("the record holds %d lines", len(lines))
	}
	jsonl = bytes.Join(lines[:3], nil)
	if recs, err = game.ReadRecords(bytes.NewReader(jsonl)); err != nil || len(recs) != 3 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	var b bytes.Buffer
	for _, rec := range recs {
		if err := rec.WritePGN(&b); err != nil {
			t.Fatal(err)
		}
	}
	return jsonl, b.Bytes(), recs
}

func compressZstd(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, err := zstd.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func compressGzip(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func write(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCompressedReadsAsPlain: a record compressed with zstd or gzip reads
// as the same records as its plain text, JSON lines and PGN alike, whatever
// its name; and a list of files reads as their records in order.
func TestCompressedReadsAsPlain(t *testing.T) {
	jsonl, pgn, want := plainRecords(t)
	dir := t.TempDir()
	files := map[string][]byte{
		"a.jsonl":      jsonl,
		"a.jsonl.zst":  compressZstd(t, jsonl),
		"a.jsonl.gz":   compressGzip(t, jsonl),
		"a.pgn.zst":    compressZstd(t, pgn),
		"a.pgn":        pgn,
		"a-zstd.jsonl": compressZstd(t, jsonl), // told by its bytes, not its name
	}
	var paths []string
	for name, data := range files {
		p := write(t, dir, name, data)
		paths = append(paths, p)
		got, err := ReadFile(p)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s reads as %d records unlike the plain file's %d", name, len(got), len(want))
		}
		text, err := ReadText(p)
		if err != nil || !bytes.Equal(text, jsonl) && !bytes.Equal(text, pgn) {
			t.Errorf("%s: its text is not the plain text (%v)", name, err)
		}
	}
	all, err := ReadFiles(paths)
	if err != nil || len(all) != len(paths)*len(want) {
		t.Fatalf("ReadFiles: %d records, want %d: %v", len(all), len(paths)*len(want), err)
	}
	for i, rec := range all {
		if !reflect.DeepEqual(rec, want[i%len(want)]) {
			t.Errorf("ReadFiles: record %d differs", i)
		}
	}
}

// TestDamaged: a compressed file that is cut short, has a byte changed, or
// is named compressed but is not, is an error that names the file; so is
// a text over the bound once decompressed, alone or with other files.
func TestDamaged(t *testing.T) {
	jsonl, _, _ := plainRecords(t)
	z, g := compressZstd(t, jsonl), compressGzip(t, jsonl)
	flip := func(data []byte, i int) []byte {
		d := bytes.Clone(data)
		d[i] ^= 0x55
		return d
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"cut.jsonl.zst", z[:len(z)/2], "damaged zstd file"},
		{"flipped.jsonl.zst", flip(z, len(z)/2), "damaged zstd file"},
		{"checksum.jsonl.zst", flip(z, len(z)-1), "damaged zstd file"},
		{"header.jsonl.zst", flip(z, 4), "damaged zstd file"},
		{"cut.jsonl.gz", g[:len(g)/2], "damaged gzip file"},
		{"flipped.jsonl.gz", flip(g, len(g)-6), "damaged gzip file"},
		{"plain.jsonl.zst", jsonl, "not a zstd file"},
		{"magic.jsonl.zst", flip(z, 0), "not a zstd file"},
		{"empty.jsonl.gz", nil, "not a gzip file"},
	} {
		p := write(t, dir, c.name, c.data)
		recs, err := ReadFile(p)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %d records, error %v; want one naming the file and saying %q", c.name, len(recs), err, c.want)
		}
	}
	p := write(t, dir, "big.jsonl.zst", z)
	if _, err := readText(p, int64(len(jsonl)-1)); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "once decompressed") {
		t.Errorf("a text over the bound: %v", err)
	}
	if _, err := readText(p, int64(len(jsonl))); err != nil {
		t.Errorf("a text at the bound: %v", err)
	}
	if _, err := readFiles([]string{p, p}, int64(len(jsonl)*2-1)); err == nil || !strings.Contains(err.Error(), "with the files before it") {
		t.Errorf("files over the bound together: %v", err)
	}
}

// TestKeptRecords: every game record kept in docs/experiments/records is
// compressed, reads, and holds games that replay by their variant's rules.
func TestKeptRecords(t *testing.T) {
	names, err := filepath.Glob(filepath.Join(recordsDir, "*.jsonl*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 60 {
		t.Fatalf("%d record files in %s; want the 60 and more kept there", len(names), recordsDir)
	}
	for _, p := range names {
		if !strings.HasSuffix(p, ".jsonl.zst") {
			t.Errorf("%s: a record kept in the repository is NAME.jsonl.zst", p)
			continue
		}
		recs, err := ReadFile(p)
		if err != nil {
			t.Error(err)
			continue
		}
		if len(recs) == 0 {
			t.Errorf("%s holds no games", p)
		}
		for i, rec := range recs {
			if err := replay(rec); err != nil {
				t.Errorf("%s: record %d: %v", p, i+1, err)
				break
			}
		}
	}
}

// replay plays rec's turns from its start by its variant's rules.
func replay(rec *game.Record) error {
	r, err := configs.Variant(rec.Variant)
	if err != nil {
		return err
	}
	pos, err := rec.StartPosition(r)
	if err != nil {
		return err
	}
	for k, turn := range rec.Turns {
		if err := pos.ApplyTurn(turn); err != nil {
			return fmt.Errorf("turn %d %q: %w", k+1, turn, err)
		}
	}
	return nil
}
