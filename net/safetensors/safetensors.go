// Package safetensors reads and writes the container of model files and
// trainer checkpoints: the safetensors layout with float32 tensors and a
// checksum of the data.
//
// A file is an 8-byte little-endian header length N, N bytes of JSON
// header, then the raw little-endian tensor data. The header maps each
// tensor name to {"dtype": "F32", "shape": [...], "data_offsets": [begin,
// end]} (byte offsets into the data section) and holds a "__metadata__"
// map of strings, whose ChecksumKey entry is the sha256 of the data section
// and whose MetadataChecksumKey entry is the sha256 of every other entry
// (see MetadataChecksum), so that together they cover every bit that means
// something. What the tensors and the other metadata mean is the caller's
// business (package net).
package safetensors

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

const (
	// ChecksumKey is the metadata entry holding the hex sha256 of the data
	// section; Encode writes it and Decode checks it.
	ChecksumKey = "data_sha256"
	// MetadataChecksumKey is the metadata entry holding MetadataChecksum of
	// the others, the data's checksum included; Encode writes it and Decode
	// checks it. Files written before it existed lack it: Decode reads them
	// with their data checked alone.
	MetadataChecksumKey = "metadata_sha256"
	// MaxHeaderBytes bounds the JSON header Decode accepts.
	MaxHeaderBytes = 64 << 20
	// MaxElements bounds the elements of one tensor Decode accepts.
	MaxElements = 1 << 28
	metadataKey = "__metadata__"
)

// ErrFormat is wrapped by the errors of Decode about an image that is not
// a safetensors file at all (a *FormatError).
var ErrFormat = errors.New("not a safetensors file")

// FormatError is the error of Decode about an image that does not begin
// as a safetensors file does: one that is empty, or whose first 8 bytes
// are not a plausible header length, or whose header does not begin with
// '{' (a text file, a file of another format). An image that begins as
// one and is damaged or cut short further on gets an error naming the
// damage instead. It wraps ErrFormat.
type FormatError struct {
	Reason string // how the image begins, such as "the file is empty"
}

func (e *FormatError) Error() string { return ErrFormat.Error() + ": " + e.Reason }

// Unwrap returns ErrFormat.
func (e *FormatError) Unwrap() error { return ErrFormat }

// checkStart returns a *FormatError unless buf begins as a safetensors
// image does: a header length of 1 to MaxHeaderBytes (so its high bytes are
// zero; of a shorter buf, the bytes there must allow one: so a text of
// fewer than 4 bytes may pass as a truncated image), then '{'.
func checkStart(buf []byte) error {
	if len(buf) == 0 {
		return &FormatError{"the file is empty"}
	}
	var head [8]byte
	k := copy(head[:], buf)
	n := binary.LittleEndian.Uint64(head[:]) // the least the length can be
	switch {
	case n > MaxHeaderBytes:
		return &FormatError{fmt.Sprintf("it begins with %q, not with a header length (8 bytes, little-endian, at most %d)", buf[:k], MaxHeaderBytes)}
	case k == 8 && n == 0:
		return &FormatError{"its header length is 0"}
	case len(buf) > 8 && buf[8] != '{':
		return &FormatError{fmt.Sprintf("its header begins with %q, not with '{'", buf[8])}
	}
	return nil
}

// Tensor is one named float32 array.
type Tensor struct {
	Name  string
	Shape []int
	Data  []float32
}

type header struct {
	Dtype       string `json:"dtype"`
	Shape       []int  `json:"shape"`
	DataOffsets [2]int `json:"data_offsets"`
}

// Encode lays out tensors (in order) with the metadata meta, adding the
// checksum entry; meta itself is not changed. The header is padded with
// spaces to a multiple of 8 bytes, as safetensors writers do.
func Encode(tensors []Tensor, meta map[string]string) ([]byte, error) {
	for _, k := range []string{ChecksumKey, MetadataChecksumKey} {
		if _, ok := meta[k]; ok {
			return nil, fmt.Errorf("metadata key %q is reserved", k)
		}
	}
	size := 0
	for _, t := range tensors {
		size += 4 * len(t.Data)
	}
	data := make([]byte, 0, size)
	hdr := map[string]any{}
	for _, t := range tensors {
		if t.Name == metadataKey {
			return nil, fmt.Errorf("tensor name %q is reserved", t.Name)
		}
		if _, dup := hdr[t.Name]; dup {
			return nil, fmt.Errorf("tensor %q given twice", t.Name)
		}
		if n := elements(t.Shape); n != len(t.Data) {
			return nil, fmt.Errorf("tensor %q has shape %v (%d elements) but %d values", t.Name, t.Shape, n, len(t.Data))
		}
		begin := len(data)
		for _, v := range t.Data {
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(v))
		}
		hdr[t.Name] = header{Dtype: "F32", Shape: t.Shape, DataOffsets: [2]int{begin, len(data)}}
	}
	md := make(map[string]string, len(meta)+1)
	for k, v := range meta {
		md[k] = v
	}
	md[ChecksumKey] = checksum(data)
	md[MetadataChecksumKey] = MetadataChecksum(md)
	hdr[metadataKey] = md
	hj, err := json.Marshal(hdr)
	if err != nil {
		return nil, err
	}
	for len(hj)%8 != 0 {
		hj = append(hj, ' ')
	}
	out := make([]byte, 8, 8+len(hj)+len(data))
	binary.LittleEndian.PutUint64(out, uint64(len(hj)))
	out = append(out, hj...)
	return append(out, data...), nil
}

// File is a decoded, checked image whose tensors are taken one by one.
type File struct {
	Meta    map[string]string // every metadata entry, the checksum included
	headers map[string]header // tensors not taken yet
	data    []byte
}

// Decode parses buf and checks its layout: the header, every tensor's
// dtype, shape and offsets (no overlaps, gaps or trailing bytes) and the
// checksum. Its errors say what is wrong, without a prefix; callers add
// which file it was. An image that does not begin as a safetensors file
// does gets a *FormatError.
func Decode(buf []byte) (*File, error) {
	if err := checkStart(buf); err != nil {
		return nil, err
	}
	if len(buf) < 8 {
		return nil, fmt.Errorf("truncated file: %d bytes, the header length alone needs 8", len(buf))
	}
	n := binary.LittleEndian.Uint64(buf)
	if n > uint64(len(buf)-8) {
		return nil, fmt.Errorf("truncated file: header length %d but only %d bytes follow", n, len(buf)-8)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(buf[8:8+n], &raw); err != nil {
		return nil, fmt.Errorf("damaged header: bad JSON: %v", err)
	}
	data := buf[8+n:]
	meta := map[string]string{}
	if mj, ok := raw[metadataKey]; ok {
		if err := json.Unmarshal(mj, &meta); err != nil {
			return nil, fmt.Errorf("bad %s: %v", metadataKey, err)
		}
		if meta == nil { // "__metadata__": null
			meta = map[string]string{}
		}
		delete(raw, metadataKey)
	}
	type span struct {
		name       string
		begin, end int
	}
	var spans []span
	headers := map[string]header{}
	for name, rj := range raw {
		var th header
		dec := json.NewDecoder(bytes.NewReader(rj))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&th); err != nil {
			return nil, fmt.Errorf("bad header entry for tensor %q: %v", name, err)
		}
		if th.Dtype != "F32" {
			return nil, fmt.Errorf("tensor %q has dtype %q, only F32 is supported", name, th.Dtype)
		}
		elems := 1
		for _, d := range th.Shape {
			if d < 0 || d > MaxElements || elems*max(d, 1) > MaxElements {
				return nil, fmt.Errorf("tensor %q has absurd shape %v", name, th.Shape)
			}
			elems *= d
		}
		b, e := th.DataOffsets[0], th.DataOffsets[1]
		if b < 0 || e < b {
			return nil, fmt.Errorf("tensor %q data offsets [%d, %d] out of range", name, b, e)
		}
		if e > len(data) {
			return nil, fmt.Errorf("tensor %q data offsets [%d, %d] out of range (data section is %d bytes: truncated file?)", name, b, e, len(data))
		}
		if e-b != 4*elems {
			return nil, fmt.Errorf("tensor %q spans %d bytes, shape %v needs %d", name, e-b, th.Shape, 4*elems)
		}
		spans = append(spans, span{name, b, e})
		headers[name] = th
	}
	// By begin, then end: an empty tensor at the start of another is not
	// an overlap, whatever order the header lists them in.
	slices.SortFunc(spans, func(a, b span) int { return cmp.Or(cmp.Compare(a.begin, b.begin), cmp.Compare(a.end, b.end)) })
	for i := 1; i < len(spans); i++ {
		if spans[i].begin < spans[i-1].end {
			return nil, fmt.Errorf("data offsets of tensors %q and %q overlap", spans[i-1].name, spans[i].name)
		}
	}
	pos := 0
	for _, s := range spans {
		if s.begin > pos {
			return nil, fmt.Errorf("gap before tensor %q in the data section", s.name)
		}
		pos = s.end
	}
	if pos != len(data) {
		return nil, fmt.Errorf("data section has %d bytes, tensors cover %d (truncated or trailing bytes)", len(data), pos)
	}
	if got := checksum(data); got != meta[ChecksumKey] {
		return nil, fmt.Errorf("checksum mismatch: data sha256 %s, metadata says %q", got, meta[ChecksumKey])
	}
	if want, ok := meta[MetadataChecksumKey]; ok {
		if got := MetadataChecksum(meta); got != want {
			return nil, fmt.Errorf("metadata checksum mismatch: the metadata were changed after the file was written (their sha256 is %s, the file says %q)", got, want)
		}
	}
	return &File{Meta: meta, headers: headers, data: data}, nil
}

// Take decodes the named tensor, which must have the given shape, and
// marks it taken.
func (f *File) Take(name string, shape []int) ([]float32, error) {
	th, ok := f.headers[name]
	if !ok {
		return nil, fmt.Errorf("missing tensor %q", name)
	}
	if !slices.Equal(th.Shape, shape) {
		return nil, fmt.Errorf("tensor %q has shape %v, architecture needs %v", name, th.Shape, shape)
	}
	vals := make([]float32, elements(shape))
	raw := f.data[th.DataOffsets[0]:th.DataOffsets[1]]
	for i := range vals {
		vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	delete(f.headers, name)
	return vals, nil
}

// Done reports a tensor that nobody took, if any.
func (f *File) Done() error {
	names := make([]string, 0, len(f.headers))
	for name := range f.headers {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) > 0 {
		return fmt.Errorf("unexpected tensor %q", names[0])
	}
	return nil
}

func elements(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// MetadataChecksum is the hex sha256 of the metadata entries other than
// MetadataChecksumKey, in byte order of their keys, each written as the
// 8-byte little-endian length of the key, the key, the length of the value
// and the value.
func MetadataChecksum(meta map[string]string) string {
	keys := make([]string, 0, len(meta))
	for k := range meta {
		if k != MetadataChecksumKey {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	h := sha256.New()
	var n [8]byte
	for _, k := range keys {
		for _, s := range []string{k, meta[k]} {
			binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
			h.Write(n[:])
			h.Write([]byte(s))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func checksum(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
