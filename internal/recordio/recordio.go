// Package recordio reads files of game records: JSON lines or PGN-like text
// (game.ReadRecords), plain or compressed with zstd or gzip. It tells a
// compressed file by its first bytes, not by its name, so a record kept as
// NAME.jsonl.zst reads as NAME.jsonl did. Every command that reads game
// records from a file a user names reads them here.
//
// The program writes records plain (arena, ladder and balance append to
// them); compression is for records kept, such as those of
// docs/experiments/records/.
package recordio

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/durable"
)

// What the files are called in errors.
const what = "game records file"

// The first bytes of a zstd frame and of a gzip member.
var (
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
	gzipMagic = []byte{0x1f, 0x8b}
)

// The names that say a file is compressed, by its compression.
var suffixes = map[string]string{".zst": "zstd", ".gz": "gzip"}

// Compression names the compression of a file by its first bytes, head:
// "zstd", "gzip", or "" for a plain file.
func Compression(head []byte) string {
	switch {
	case bytes.HasPrefix(head, zstdMagic):
		return "zstd"
	case bytes.HasPrefix(head, gzipMagic):
		return "gzip"
	}
	return ""
}

// NamedCompressed reports whether path's name says that it is compressed
// (it ends in .zst or .gz), and by what.
func NamedCompressed(path string) (string, bool) {
	for suffix, c := range suffixes {
		if strings.HasSuffix(path, suffix) {
			return c, true
		}
	}
	return "", false
}

// ReadText returns the text of the records file path, decompressed if it is
// compressed: a regular file of at most game.MaxRecordsBytes, whose text is
// at most as long. A file named as compressed (.zst, .gz) must be so, and a
// damaged compressed file is an error; errors name the file.
func ReadText(path string) ([]byte, error) { return readText(path, game.MaxRecordsBytes) }

// readText is ReadText with a file and its text of at most limit bytes.
func readText(path string, limit int64) ([]byte, error) {
	data, err := durable.ReadFile(path, what, limit)
	if err != nil {
		return nil, err
	}
	return decompress(path, data, limit)
}

// decompress returns data, the bytes of the file path, decompressed if they
// are compressed, and at most limit bytes of text.
func decompress(path string, data []byte, limit int64) ([]byte, error) {
	c := Compression(data)
	if named, ok := NamedCompressed(path); ok && c != named {
		return nil, fmt.Errorf("%s: not a %s file (its name ends as one, its first bytes do not): damaged, or misnamed", path, named)
	}
	var r io.ReadCloser
	switch c {
	case "":
		return data, nil
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(data), zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(uint64(limit)))
		if err != nil {
			return nil, fmt.Errorf("%s: damaged zstd file: %w", path, err)
		}
		r = zr.IOReadCloser()
	case "gzip":
		gr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: damaged gzip file: %w", path, err)
		}
		r = gr
	}
	defer r.Close()
	text, err := io.ReadAll(io.LimitReader(r, limit+1))
	if int64(len(text)) > limit || errors.Is(err, zstd.ErrDecoderSizeExceeded) {
		return nil, fmt.Errorf("%s: more than %s of records once decompressed, the most a %s may hold", path, durable.Size(limit), what)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: damaged %s file: %w", path, c, err)
	}
	return text, nil
}

// ReadFile reads the game records of the file path, plain or compressed
// (ReadText). Its errors name the file.
func ReadFile(path string) ([]*game.Record, error) {
	text, err := ReadText(path)
	if err != nil {
		return nil, err
	}
	recs, err := game.ReadRecords(bytes.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}

// ReadFiles reads the game records of every file of paths, in order, as
// one list: together their texts, decompressed, hold at most
// game.MaxRecordsBytes, as one file's may.
func ReadFiles(paths []string) ([]*game.Record, error) { return readFiles(paths, game.MaxRecordsBytes) }

// readFiles is ReadFiles with at most limit bytes of text together.
func readFiles(paths []string, limit int64) ([]*game.Record, error) {
	var recs []*game.Record
	var total int64
	for _, p := range paths {
		text, err := readText(p, limit)
		if err != nil {
			return nil, err
		}
		if total += int64(len(text)); total > limit {
			return nil, fmt.Errorf("%s: with the files before it, more than %s of records, the most a list of files may hold", p, durable.Size(limit))
		}
		rs, err := game.ReadRecords(bytes.NewReader(text))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		recs = append(recs, rs...)
	}
	return recs, nil
}
