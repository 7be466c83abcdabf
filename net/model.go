package net

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"

	"github.com/dablot-zero/dablot/net/durable"
)

// Model file format: the safetensors layout. An 8-byte little-endian header
// length N, N bytes of JSON header, then the raw little-endian tensor data.
// The header maps each tensor name to {"dtype": "F32", "shape": [...],
// "data_offsets": [begin, end]} (byte offsets into the data section) and
// holds a "__metadata__" map of strings.
const (
	ModelFormat        = "dablot-zero-net" // value of metadata "format"
	ModelFormatVersion = 1                 // value of metadata "format_version"
	maxHeaderBytes     = 64 << 20
)

// Metadata keys written by Save; callers cannot set them.
const (
	MetaFormat       = "format"
	MetaVersion      = "format_version"
	MetaArchitecture = "architecture"
	MetaChecksum     = "data_sha256"
)

// Architecture is the JSON stored under MetaArchitecture.
type Architecture struct {
	Config
	Points         int    `json:"points"`
	PolicySize     int    `json:"policy_size"`
	TopologySHA256 string `json:"topology_sha256"`
}

// Model is a loaded model file.
type Model struct {
	Weights      *Weights
	Architecture Architecture
	Metadata     map[string]string // every metadata entry, including the reserved ones
}

// Expect is what the caller requires of a model file. Load refuses a file
// that does not match.
type Expect struct {
	Topology    *Topology         // required: the board the model must have been trained on
	InputPlanes int               // if > 0, the input encoding width
	Metadata    map[string]string // entries that must be present with exactly these values (e.g. encoding version)
}

type tensorHeader struct {
	Dtype       string `json:"dtype"`
	Shape       []int  `json:"shape"`
	DataOffsets [2]int `json:"data_offsets"`
}

// Encode serialises w (trained on topo) with the caller's metadata entries.
func Encode(topo *Topology, w *Weights, meta map[string]string) ([]byte, error) {
	if err := topo.Validate(); err != nil {
		return nil, err
	}
	if err := w.Check(); err != nil {
		return nil, err
	}
	return encodeFile(modelKind, topo, w.Config, w.Tensors, meta, nil)
}

// fileKind is one of the two file types sharing the safetensors layout:
// model files and trainer checkpoints.
type fileKind struct {
	what     string // "model" or "checkpoint", for messages
	format   string // metadata MetaFormat
	version  int    // metadata MetaVersion
	reserved []string
}

var modelKind = fileKind{what: "model", format: ModelFormat, version: ModelFormatVersion,
	reserved: []string{MetaFormat, MetaVersion, MetaArchitecture, MetaChecksum}}

// encodeFile writes tensors (in order) with the caller's metadata meta and
// the writer's own entries extra (which must be among kind.reserved), plus
// format, version, architecture and checksum.
func encodeFile(kind fileKind, topo *Topology, cfg Config, tensors []Tensor, meta, extra map[string]string) ([]byte, error) {
	md := map[string]string{}
	for k, v := range meta {
		for _, r := range kind.reserved {
			if k == r {
				return nil, fmt.Errorf("net: save: metadata key %q is reserved", k)
			}
		}
		md[k] = v
	}
	for k, v := range extra {
		md[k] = v
	}
	arch, err := json.Marshal(Architecture{Config: cfg, Points: topo.Points, PolicySize: PolicySize(topo.Points), TopologySHA256: topo.Hash()})
	if err != nil {
		return nil, err
	}
	size := 0
	for _, t := range tensors {
		size += 4 * len(t.Data)
	}
	data := make([]byte, 0, size)
	header := map[string]any{}
	for _, t := range tensors {
		begin := len(data)
		for _, v := range t.Data {
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(v))
		}
		header[t.Name] = tensorHeader{Dtype: "F32", Shape: t.Shape, DataOffsets: [2]int{begin, len(data)}}
	}
	sum := sha256.Sum256(data)
	md[MetaFormat] = kind.format
	md[MetaVersion] = strconv.Itoa(kind.version)
	md[MetaArchitecture] = string(arch)
	md[MetaChecksum] = hex.EncodeToString(sum[:])
	header["__metadata__"] = md
	hj, err := json.Marshal(header)
	if err != nil {
		return nil, err
	}
	for len(hj)%8 != 0 { // align the data section, as safetensors writers do
		hj = append(hj, ' ')
	}
	out := make([]byte, 8, 8+len(hj)+len(data))
	binary.LittleEndian.PutUint64(out, uint64(len(hj)))
	out = append(out, hj...)
	return append(out, data...), nil
}

// Save writes the model atomically: a temporary file in the same directory,
// fsync, rename, then fsync of the directory.
func Save(path string, topo *Topology, w *Weights, meta map[string]string) error {
	buf, err := Encode(topo, w, meta)
	if err != nil {
		return err
	}
	return writeAtomic(path, buf)
}

// writeAtomic writes buf to path with durable.WriteFile.
func writeAtomic(path string, buf []byte) error {
	if err := durable.WriteFile(path, buf); err != nil {
		return fmt.Errorf("net: save: %w", err)
	}
	return nil
}

// Load reads and validates a model file against exp.
func Load(path string, exp Expect) (*Model, error) {
	buf, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("net: load: %w", err)
	}
	m, err := Decode(buf, exp)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return m, nil
}

// Decode parses and validates a model file image against exp.
func Decode(buf []byte, exp Expect) (*Model, error) {
	f, err := decodeFile(buf, modelKind, exp)
	if err != nil {
		return nil, err
	}
	w, err := f.weights()
	if err != nil {
		return nil, err
	}
	if err := f.done(); err != nil {
		return nil, err
	}
	return &Model{Weights: w, Architecture: f.arch, Metadata: f.meta}, nil
}

// fileImage is a parsed and validated file whose tensors have not all been
// taken yet.
type fileImage struct {
	arch    Architecture
	meta    map[string]string
	headers map[string]tensorHeader // tensors not taken yet
	data    []byte
}

// take decodes the named tensor, which must have the given shape.
func (f *fileImage) take(name string, shape []int) ([]float32, error) {
	th, ok := f.headers[name]
	if !ok {
		return nil, fmt.Errorf("net: load: missing tensor %q", name)
	}
	if !slices.Equal(th.Shape, shape) {
		return nil, fmt.Errorf("net: load: tensor %q has shape %v, architecture needs %v", name, th.Shape, shape)
	}
	vals := make([]float32, numel(shape))
	raw := f.data[th.DataOffsets[0]:th.DataOffsets[1]]
	for i := range vals {
		vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	delete(f.headers, name)
	return vals, nil
}

// weightsPrefixed takes the parameter tensors of the architecture, named as
// in TensorSpecs with prefix prepended.
func (f *fileImage) weightsPrefixed(prefix string) (*Weights, error) {
	w := &Weights{Config: f.arch.Config}
	for _, s := range f.arch.Config.TensorSpecs() {
		vals, err := f.take(prefix+s.Name, s.Shape)
		if err != nil {
			return nil, err
		}
		w.Tensors = append(w.Tensors, Tensor{Name: s.Name, Shape: append([]int(nil), s.Shape...), Data: vals})
	}
	return w, nil
}

// weights takes the parameter tensors of the architecture.
func (f *fileImage) weights() (*Weights, error) { return f.weightsPrefixed("") }

// done reports tensors that nobody took.
func (f *fileImage) done() error {
	names := make([]string, 0, len(f.headers))
	for name := range f.headers {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) > 0 {
		return fmt.Errorf("net: load: unexpected tensor %q", names[0])
	}
	return nil
}

// decodeFile parses buf as a file of the given kind and checks the layout,
// the checksum, the architecture and exp.
func decodeFile(buf []byte, kind fileKind, exp Expect) (*fileImage, error) {
	if len(buf) < 8 {
		return nil, fmt.Errorf("net: load: truncated file: %d bytes, the header length alone needs 8", len(buf))
	}
	n := binary.LittleEndian.Uint64(buf)
	switch {
	case n == 0 || n > maxHeaderBytes:
		return nil, fmt.Errorf("net: load: header length %d is absurd (limit %d)", n, maxHeaderBytes)
	case n > uint64(len(buf)-8):
		return nil, fmt.Errorf("net: load: truncated file: header length %d but only %d bytes follow", n, len(buf)-8)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(buf[8:8+n], &raw); err != nil {
		return nil, fmt.Errorf("net: load: bad JSON header: %v", err)
	}
	data := buf[8+n:]
	meta := map[string]string{}
	if mj, ok := raw["__metadata__"]; ok {
		if err := json.Unmarshal(mj, &meta); err != nil {
			return nil, fmt.Errorf("net: load: bad __metadata__: %v", err)
		}
		delete(raw, "__metadata__")
	}
	if meta[MetaFormat] != kind.format {
		hint := ""
		switch meta[MetaFormat] {
		case ModelFormat:
			hint = " (this is a model file, not a trainer checkpoint)"
		case CheckpointFormat:
			hint = " (this is a trainer checkpoint, not a model file)"
		}
		return nil, fmt.Errorf("net: load: metadata format is %q, want %q%s", meta[MetaFormat], kind.format, hint)
	}
	if v, err := strconv.Atoi(meta[MetaVersion]); err != nil || v != kind.version {
		return nil, fmt.Errorf("net: load: unsupported %s format version %q (this code reads %d)", kind.what, meta[MetaVersion], kind.version)
	}
	// Tensor headers: dtype, shape, offsets inside the data section, no
	// overlaps or gaps.
	type span struct {
		name       string
		begin, end int
	}
	var spans []span
	headers := map[string]tensorHeader{}
	for name, rj := range raw {
		var th tensorHeader
		dec := json.NewDecoder(bytes.NewReader(rj))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&th); err != nil {
			return nil, fmt.Errorf("net: load: bad header entry for tensor %q: %v", name, err)
		}
		if th.Dtype != "F32" {
			return nil, fmt.Errorf("net: load: tensor %q has dtype %q, only F32 is supported", name, th.Dtype)
		}
		elems := 1
		for _, d := range th.Shape {
			if d < 0 || d > 1<<28 || elems*max(d, 1) > 1<<28 {
				return nil, fmt.Errorf("net: load: tensor %q has absurd shape %v", name, th.Shape)
			}
			elems *= d
		}
		b, e := th.DataOffsets[0], th.DataOffsets[1]
		if b < 0 || e < b {
			return nil, fmt.Errorf("net: load: tensor %q data offsets [%d, %d] out of range", name, b, e)
		}
		if e > len(data) {
			return nil, fmt.Errorf("net: load: tensor %q data offsets [%d, %d] out of range (data section is %d bytes: truncated file?)", name, b, e, len(data))
		}
		if e-b != 4*elems {
			return nil, fmt.Errorf("net: load: tensor %q spans %d bytes, shape %v needs %d", name, e-b, th.Shape, 4*elems)
		}
		spans = append(spans, span{name, b, e})
		headers[name] = th
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].begin < spans[j].begin })
	for i := 1; i < len(spans); i++ {
		if spans[i].begin < spans[i-1].end {
			return nil, fmt.Errorf("net: load: data offsets of tensors %q and %q overlap", spans[i-1].name, spans[i].name)
		}
	}
	pos := 0
	for _, s := range spans {
		if s.begin > pos {
			return nil, fmt.Errorf("net: load: gap before tensor %q in the data section", s.name)
		}
		pos = s.end
	}
	if pos != len(data) {
		return nil, fmt.Errorf("net: load: data section has %d bytes, tensors cover %d (truncated or trailing bytes)", len(data), pos)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != meta[MetaChecksum] {
		return nil, fmt.Errorf("net: load: checksum mismatch: data sha256 %s, metadata says %q", got, meta[MetaChecksum])
	}
	var arch Architecture
	dec := json.NewDecoder(bytes.NewReader([]byte(meta[MetaArchitecture])))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&arch); err != nil {
		return nil, fmt.Errorf("net: load: bad architecture metadata: %v", err)
	}
	if err := arch.Config.Validate(); err != nil {
		return nil, fmt.Errorf("net: load: %w", err)
	}
	// Expectations.
	if exp.Topology == nil {
		return nil, fmt.Errorf("net: load: no expected topology given")
	}
	if arch.Points != exp.Topology.Points {
		return nil, fmt.Errorf("net: load: %s is for a %d-point board, expected %d points", kind.what, arch.Points, exp.Topology.Points)
	}
	if arch.TopologySHA256 != exp.Topology.Hash() {
		return nil, fmt.Errorf("net: load: %s topology %s does not match the expected board %s", kind.what, arch.TopologySHA256, exp.Topology.Hash())
	}
	if arch.PolicySize != PolicySize(arch.Points) {
		return nil, fmt.Errorf("net: load: policy size %d, want %d", arch.PolicySize, PolicySize(arch.Points))
	}
	if exp.InputPlanes > 0 && arch.InputPlanes != exp.InputPlanes {
		return nil, fmt.Errorf("net: load: model encodes %d input planes, expected %d", arch.InputPlanes, exp.InputPlanes)
	}
	for k, v := range exp.Metadata {
		got, ok := meta[k]
		if !ok {
			return nil, fmt.Errorf("net: load: metadata %q missing, expected %q", k, v)
		}
		if got != v {
			return nil, fmt.Errorf("net: load: metadata %q is %q, expected %q", k, got, v)
		}
	}
	return &fileImage{arch: arch, meta: meta, headers: headers, data: data}, nil
}
