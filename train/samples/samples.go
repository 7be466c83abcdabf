// Package samples stores self-play training samples in shard files.
//
// A shard is one zstd stream holding: the magic "DBLTSHD5", a JSON header
// (variant, rules fingerprint, number of samples, provenance), the samples
// in a fixed binary layout, and a SHA-256 of everything before it. Shards
// of the previous formats still read: "DBLTSHD4", whose samples have no
// ownership targets (Sample.Ownership nil), "DBLTSHD3", whose samples have
// no short-term value targets either (Sample.ShortTerm nil), and
// "DBLTSHD2", whose samples have no future material lead either
// (Sample.HasLead false). Shards
// are written to a temporary name, synced and renamed, so a reader sees a
// whole shard or none; a damaged shard is refused with an error.
package samples

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/durable"
	"github.com/dablot-zero/dablot/net"
	"github.com/klauspost/compress/zstd"
)

// The magics of the shard formats: magic is the one Write writes; shards
// of magicV4 (before samples carried ownership targets), of magicV3
// (before they carried short-term value targets) and of magicV2 (before
// they carried their material lead) still read.
const (
	magic   = "DBLTSHD5"
	magicV4 = "DBLTSHD4"
	magicV3 = "DBLTSHD3"
	magicV2 = "DBLTSHD2"
)

// Flags of a sample record.
const (
	flagFull    = 1 << 0 // Sample.Full
	flagHasLead = 1 << 1 // Sample.HasLead (format 3)
)

// PolicyEntry is the target probability of one decision, by its policy index.
type PolicyEntry struct {
	Index uint16
	Prob  float32
}

// Sample is one training position with its targets, all from the point of
// view of the side to move in Position.
type Sample struct {
	Position game.Position
	Policy   []PolicyEntry // search's improved policy over the legal decisions
	Result   int8          // the game's result: 1 win, 0 draw, -1 loss
	Value    float32       // the search's value of the position, in [-1, 1]
	// Target is the value target in [-1, 1]: Result, or for a game drawn by
	// the no-capture or length limit, possibly a material-based score (see
	// train.SelfPlayConfig.Adjudication).
	Target float32
	Full   bool // searched with the full budget: a policy target
	// Lead is the side to move's material lead (soldier 1, prince 3,
	// king 5) material_horizon decisions after the sample, or at the end
	// of the game if sooner: the score head's target. HasLead is false for
	// a sample without one (from a shard of the previous format), which
	// then trains no score head.
	Lead    float32
	HasLead bool
	// ShortTerm holds the short-term value targets that runs with
	// short-term value heads wrote (their settings, network.short_term_heads
	// and selfplay.short_term_horizons, have left the program; their shards
	// still read): for each horizon h, the exponentially weighted average
	// of the search's root values from this decision on (weight (1-1/h)^k
	// for the value k decisions on; after the end of the game, its
	// result), in [-1, 1]. Nil for a sample without them: every sample
	// self-play writes now.
	ShortTerm []float32
	// Ownership is the ownership target: for every point of the board, in
	// the order of the network's input of Position (its side to move's
	// frame, net/encode's Encoder.Ownership), who holds it at the end of
	// the game: 1 a piece of the side to move, -1 an enemy piece, 0 no
	// piece. Nil for a sample without it (a run without the ownership
	// head, or a shard of a previous format), which then trains no
	// ownership head.
	Ownership []int8
}

// MaxLead bounds a sample's material lead: every point of the largest
// board holding a king.
const MaxLead = 5 * game.MaxPoints

// Header describes a shard.
type Header struct {
	Variant     string `json:"variant"`
	Fingerprint string `json:"fingerprint"` // game.Rules.Fingerprint
	Count       int    `json:"count"`
	Generation  int    `json:"generation"`       // the model generation that played
	Model       string `json:"model,omitempty"`  // the model file's checksum
	Worker      string `json:"worker,omitempty"` // who wrote it
	Games       int    `json:"games"`
	// Run identifies the training run the shard belongs to (empty in
	// shards written before runs had an identity).
	Run string `json:"run,omitempty"`
}

// maxHeader bounds the JSON header of a shard (a real one is a few hundred
// bytes).
const maxHeader = 1 << 16

const maxPolicy = 4 * game.MaxPoints

// MaxShardBytes bounds a shard, compressed and not: some five million
// samples. Read refuses a larger one, and Write does not make one.
const MaxShardBytes = 1 << 30

// Write stores samples of variant r in a new shard at path, atomically: the
// file appears complete or not at all.
func Write(path string, r *game.Rules, h Header, ss []Sample) error {
	raw, err := encode(r, h, ss)
	if err != nil {
		return err
	}
	if len(raw) > MaxShardBytes {
		return fmt.Errorf("shard %s: %d samples take %d bytes, more than a shard may have (%d): play fewer games a shard", path, len(ss), len(raw), MaxShardBytes)
	}
	return durable.Write(path, func(w io.Writer) error {
		zw, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedDefault))
		if err != nil {
			return err
		}
		if _, err := zw.Write(raw); err != nil {
			zw.Close()
			return err
		}
		return zw.Close()
	})
}

// encode lays out the uncompressed content of a shard.
func encode(r *game.Rules, h Header, ss []Sample) ([]byte, error) {
	h.Variant, h.Fingerprint, h.Count = r.Name, r.Fingerprint(), len(ss)
	var raw bytes.Buffer
	raw.WriteString(magic)
	hj, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	raw.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(hj))))
	raw.Write(hj)
	rec := make([]byte, 0, 1024)
	for i := range ss {
		s := &ss[i]
		if len(s.Policy) > maxPolicy {
			return nil, fmt.Errorf("sample %d: %d policy entries", i, len(s.Policy))
		}
		rec = s.Position.AppendBinary(rec[:0])
		if s.HasLead && !(math.Abs(float64(s.Lead)) <= MaxLead) {
			return nil, fmt.Errorf("sample %d: material lead %v out of range ±%d", i, s.Lead, MaxLead)
		}
		if len(s.ShortTerm) > net.MaxShortTermHeads || !inUnitRange(s.ShortTerm...) {
			return nil, fmt.Errorf("sample %d: short-term value targets %v: want at most %d, each from -1 to 1", i, s.ShortTerm, net.MaxShortTermHeads)
		}
		if err := checkOwnership(s.Ownership, r.Board.Points()); err != nil {
			return nil, fmt.Errorf("sample %d: %w", i, err)
		}
		flags := byte(0)
		if s.Full {
			flags |= flagFull
		}
		lead := float32(0)
		if s.HasLead {
			flags |= flagHasLead
			lead = s.Lead
		}
		rec = append(rec, byte(s.Result), flags)
		rec = binary.LittleEndian.AppendUint32(rec, math.Float32bits(s.Value))
		rec = binary.LittleEndian.AppendUint32(rec, math.Float32bits(s.Target))
		rec = binary.LittleEndian.AppendUint32(rec, math.Float32bits(lead))
		rec = append(rec, byte(len(s.ShortTerm)))
		for _, v := range s.ShortTerm {
			rec = binary.LittleEndian.AppendUint32(rec, math.Float32bits(v))
		}
		rec = append(rec, byte(len(s.Ownership)))
		for _, v := range s.Ownership {
			rec = append(rec, byte(v))
		}
		rec = binary.LittleEndian.AppendUint16(rec, uint16(len(s.Policy)))
		for _, e := range s.Policy {
			rec = binary.LittleEndian.AppendUint16(rec, e.Index)
			rec = binary.LittleEndian.AppendUint32(rec, math.Float32bits(e.Prob))
		}
		raw.Write(rec)
	}
	sum := sha256.Sum256(raw.Bytes())
	raw.Write(sum[:])
	return raw.Bytes(), nil
}

// ErrCorrupt is wrapped by every error about a shard's content.
var ErrCorrupt = errors.New("corrupt shard")

// Read loads a shard of variant r, checking its checksum, its variant and
// every sample. The file must be a regular file, and it and its content at
// most MaxShardBytes.
func Read(path string, r *game.Rules) (Header, []Sample, error) { return read(path, r, MaxShardBytes) }

// read is Read with the bound limit.
func read(path string, r *game.Rules, limit int64) (Header, []Sample, error) {
	zr, done, err := openShard(path, limit)
	if err != nil {
		return Header{}, nil, err
	}
	defer done()
	raw, err := io.ReadAll(io.LimitReader(zr, limit+1))
	if err != nil {
		return corrupt(path, "decompressing: %v", err)
	}
	if int64(len(raw)) > limit {
		return corrupt(path, "more than %d bytes decompressed, the most a shard may hold", limit)
	}
	return decode(raw, path, r)
}

// openShard opens the shard at path, a regular file of at most limit
// bytes, for decompression of at most limit bytes; done releases it.
func openShard(path string, limit int64) (zr *zstd.Decoder, done func(), err error) {
	f, err := durable.Open(path, "sample shard", limit)
	if err != nil {
		return nil, nil, err
	}
	if zr, err = zstd.NewReader(f, zstd.WithDecoderMaxMemory(uint64(limit))); err != nil {
		f.Close()
		return nil, nil, corruptError(path, "%v", err)
	}
	return zr, func() { zr.Close(); f.Close() }, nil
}

// ReadHeader reads the header of the shard at path, which must hold
// samples of variant r, without its samples: it decompresses no more than
// the header, so it does not verify the shard's checksum (Read does).
func ReadHeader(path string, r *game.Rules) (Header, error) {
	zr, done, err := openShard(path, MaxShardBytes)
	if err != nil {
		return Header{}, err
	}
	defer done()
	pre := make([]byte, len(magic)+4)
	if _, err := io.ReadFull(zr, pre); err != nil || formatOf(pre) == 0 {
		return Header{}, corruptError(path, "not a sample shard (bad magic or too short)")
	}
	hl := binary.LittleEndian.Uint32(pre[len(magic):])
	if hl > maxHeader {
		return Header{}, corruptError(path, "header length %d, more than %d", hl, maxHeader)
	}
	hj := make([]byte, hl)
	if _, err := io.ReadFull(zr, hj); err != nil {
		return Header{}, corruptError(path, "header truncated: %v", err)
	}
	return decodeHeader(hj, path, r)
}

// decodeHeader parses the JSON header hj of the shard at path and checks
// that it holds samples of variant r.
func decodeHeader(hj []byte, path string, r *game.Rules) (Header, error) {
	var h Header
	if err := json.Unmarshal(hj, &h); err != nil {
		return Header{}, corruptError(path, "header: %v", err)
	}
	if h.Variant != r.Name || h.Fingerprint != r.Fingerprint() {
		return Header{}, fmt.Errorf("shard %s: samples of variant %s (rules %s), not %s (rules %s)",
			path, h.Variant, h.Fingerprint, r.Name, r.Fingerprint())
	}
	return h, nil
}

// corrupt is the error result for a shard at path whose content is wrong.
func corrupt(path, format string, args ...any) (Header, []Sample, error) {
	return Header{}, nil, corruptError(path, format, args...)
}

// corruptError is the error about a shard at path whose content is wrong.
func corruptError(path, format string, args ...any) error {
	return fmt.Errorf("shard %s: %w: %s", path, ErrCorrupt, fmt.Sprintf(format, args...))
}

// formatOf returns the format (2 to 5) of a shard that begins with raw,
// or 0 if raw does not begin with a shard's magic.
func formatOf(raw []byte) int {
	if len(raw) < len(magic) {
		return 0
	}
	switch string(raw[:len(magic)]) {
	case magic:
		return 5
	case magicV4:
		return 4
	case magicV3:
		return 3
	case magicV2:
		return 2
	}
	return 0
}

// inUnitRange reports whether every x is in [-1, 1].
func inUnitRange(xs ...float32) bool {
	for _, x := range xs {
		if !(x >= -1 && x <= 1) {
			return false
		}
	}
	return true
}

// checkOwnership returns an error unless own is an ownership target of a
// board of points points (Sample.Ownership): none, or one value from -1
// to 1 for every point.
func checkOwnership(own []int8, points int) error {
	if len(own) != 0 && len(own) != points {
		return fmt.Errorf("ownership target of %d points, the board has %d", len(own), points)
	}
	for q, v := range own {
		if v < -1 || v > 1 {
			return fmt.Errorf("ownership target %d on point %d, not -1, 0 or 1", v, q)
		}
	}
	return nil
}

// decode parses the decompressed content raw of the shard at path.
func decode(raw []byte, path string, r *game.Rules) (Header, []Sample, error) {
	format := formatOf(raw)
	if len(raw) < len(magic)+4+sha256.Size || format == 0 {
		return corrupt(path, "not a sample shard (bad magic or too short)")
	}
	fixed := 12 // result, flags, value, target, policy length
	maxFlags := byte(flagFull)
	if format >= 3 {
		fixed += 4 // lead
		maxFlags |= flagHasLead
	}
	if format >= 4 {
		fixed++ // number of short-term value targets
	}
	if format >= 5 {
		fixed++ // number of ownership targets
	}
	body, sum := raw[:len(raw)-sha256.Size], raw[len(raw)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return corrupt(path, "checksum mismatch")
	}
	rest := body[len(magic):]
	hl := int(binary.LittleEndian.Uint32(rest))
	rest = rest[4:]
	if hl > len(rest) {
		return corrupt(path, "header length %d past the end", hl)
	}
	h, err := decodeHeader(rest[:hl], path, r)
	if err != nil {
		return Header{}, nil, err
	}
	rest = rest[hl:]
	if h.Count < 0 || h.Count > len(rest)/game.PositionSize {
		return corrupt(path, "count %d does not fit the data", h.Count)
	}
	ss := make([]Sample, h.Count)
	for i := range ss {
		if len(rest) < game.PositionSize+fixed {
			return corrupt(path, "sample %d truncated", i)
		}
		p, err := game.DecodePosition(r, rest[:game.PositionSize])
		if err != nil {
			return corrupt(path, "sample %d: %v", i, err)
		}
		rest = rest[game.PositionSize:]
		flags := rest[1]
		s := Sample{Position: p, Result: int8(rest[0]), Full: flags&flagFull != 0, HasLead: flags&flagHasLead != 0}
		s.Value = math.Float32frombits(binary.LittleEndian.Uint32(rest[2:]))
		s.Target = math.Float32frombits(binary.LittleEndian.Uint32(rest[6:]))
		rest = rest[10:]
		if format >= 3 {
			s.Lead = math.Float32frombits(binary.LittleEndian.Uint32(rest))
			rest = rest[4:]
		}
		if format >= 4 {
			k := int(rest[0])
			rest = rest[1:]
			if k > net.MaxShortTermHeads || len(rest) < 4*k+2 {
				return corrupt(path, "sample %d: %d short-term value targets", i, k)
			}
			if k > 0 {
				s.ShortTerm = make([]float32, k)
				for j := range s.ShortTerm {
					s.ShortTerm[j] = math.Float32frombits(binary.LittleEndian.Uint32(rest[4*j:]))
				}
				rest = rest[4*k:]
			}
		}
		if format >= 5 {
			k := int(rest[0])
			rest = rest[1:]
			if len(rest) < k+2 {
				return corrupt(path, "sample %d: %d ownership targets past the end", i, k)
			}
			if k > 0 {
				s.Ownership = make([]int8, k)
				for j := range s.Ownership {
					s.Ownership[j] = int8(rest[j])
				}
				rest = rest[k:]
			}
			if err := checkOwnership(s.Ownership, r.Board.Points()); err != nil {
				return corrupt(path, "sample %d: %v", i, err)
			}
		}
		n := int(binary.LittleEndian.Uint16(rest))
		rest = rest[2:]
		if s.Result < -1 || s.Result > 1 || flags&^maxFlags != 0 || n > maxPolicy || len(rest) < 6*n ||
			!inUnitRange(s.Value, s.Target) || !inUnitRange(s.ShortTerm...) ||
			!(math.Abs(float64(s.Lead)) <= MaxLead) || (!s.HasLead && s.Lead != 0) {
			return corrupt(path, "sample %d: fields out of range", i)
		}
		size := game.PolicySize(r.Board.Points())
		s.Policy = make([]PolicyEntry, n)
		for j := range s.Policy {
			e := PolicyEntry{binary.LittleEndian.Uint16(rest), math.Float32frombits(binary.LittleEndian.Uint32(rest[2:]))}
			if int(e.Index) >= size || !(e.Prob >= 0 && e.Prob <= 1) {
				return corrupt(path, "sample %d: policy entry %d out of range", i, j)
			}
			s.Policy[j] = e
			rest = rest[6:]
		}
		ss[i] = s
	}
	if len(rest) != 0 {
		return corrupt(path, "%d bytes after the last sample", len(rest))
	}
	return h, ss, nil
}
