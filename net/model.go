package net

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/durable"
	"github.com/dablot-zero/dablot/net/safetensors"
)

// Model file format: the safetensors layout (package safetensors), whose
// metadata say which format and version the file is, the network's
// architecture and the checksum of the data.
const (
	ModelFormat        = "dablot-zero-net" // value of metadata "format"
	ModelFormatVersion = 1                 // value of metadata "format_version"
)

// Metadata keys written by Save; callers cannot set them.
const (
	MetaFormat       = "format"
	MetaVersion      = "format_version"
	MetaArchitecture = "architecture"
	MetaChecksum     = safetensors.ChecksumKey
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

// Encode serialises w (trained on topo) with the caller's metadata entries.
func Encode(topo *Topology, w *Weights, meta map[string]string) ([]byte, error) {
	if err := topo.Validate(); err != nil {
		return nil, err
	}
	if err := w.Check(); err != nil {
		return nil, err
	}
	return EncodeFile(modelKind, topo, w.Config, w.Tensors, meta, nil)
}

// FileKind is one of the two file types sharing the safetensors layout:
// model files and trainer checkpoints (package net/trainer).
type FileKind struct {
	What     string // "model" or "checkpoint", for messages
	Format   string // metadata MetaFormat
	Version  int    // metadata MetaVersion
	MaxBytes int64  // the largest file of the kind
	Reserved []string
}

// CheckpointFormat is the format of trainer checkpoints (package
// net/trainer), which Decode names when it is given one.
const CheckpointFormat = "dablot-zero-checkpoint"

// The largest files Load and LoadTrainer read: the weights of the largest
// network (MaxWeightBytes), three times over in a checkpoint (the weights
// and Adam's two moments), and room for the largest header.
const (
	maxHeaderRoom      = 128 << 20 // at least 8 + safetensors.MaxHeaderBytes
	MaxModelBytes      = MaxWeightBytes + maxHeaderRoom
	MaxCheckpointBytes = 3*MaxWeightBytes + maxHeaderRoom
)

var modelKind = FileKind{What: "model", Format: ModelFormat, Version: ModelFormatVersion, MaxBytes: MaxModelBytes,
	Reserved: []string{MetaFormat, MetaVersion, MetaArchitecture, MetaChecksum}}

// Read reads a file of the kind: a regular file of at most its size.
func (k *FileKind) Read(path string) ([]byte, error) {
	return durable.ReadFile(path, k.What+" file", k.MaxBytes)
}

// ReadModelFile reads a model file's bytes for Decode: a regular file of
// at most MaxModelBytes.
func ReadModelFile(path string) ([]byte, error) { return modelKind.Read(path) }

// EncodeFile writes tensors (in order) with the caller's metadata meta and
// the writer's own entries extra (which must be among kind.Reserved), plus
// format, version, architecture and checksum.
func EncodeFile(kind FileKind, topo *Topology, cfg Config, tensors []Tensor, meta, extra map[string]string) ([]byte, error) {
	md := map[string]string{}
	for k, v := range meta {
		for _, r := range kind.Reserved {
			if k == r {
				return nil, fmt.Errorf("net: save: metadata key %q is reserved", k)
			}
		}
		md[k] = v
	}
	for k, v := range extra {
		md[k] = v
	}
	arch, err := json.Marshal(Architecture{Config: cfg, Points: topo.Points, PolicySize: game.PolicySize(topo.Points), TopologySHA256: topo.Hash()})
	if err != nil {
		return nil, err
	}
	md[MetaFormat] = kind.Format
	md[MetaVersion] = strconv.Itoa(kind.Version)
	md[MetaArchitecture] = string(arch)
	buf, err := safetensors.Encode(tensors, md)
	if err != nil {
		return nil, fmt.Errorf("net: save: %w", err)
	}
	return buf, nil
}

// Save writes the model atomically: a temporary file in the same directory,
// fsync, rename, then fsync of the directory.
func Save(path string, topo *Topology, w *Weights, meta map[string]string) error {
	buf, err := Encode(topo, w, meta)
	if err != nil {
		return err
	}
	return WriteAtomic(path, buf)
}

// WriteAtomic writes buf to path with durable.WriteFile.
func WriteAtomic(path string, buf []byte) error {
	if err := durable.WriteFile(path, buf); err != nil {
		return fmt.Errorf("net: save: %w", err)
	}
	return nil
}

// Load reads and validates a model file against exp.
func Load(path string, exp Expect) (*Model, error) {
	buf, err := ReadModelFile(path)
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
	return DecodeFunc(buf, func(map[string]string) (Expect, error) { return exp, nil })
}

// DecodeFunc is Decode with what the file must be made from its metadata,
// by expect, once the layout and both checksums (of the data and of the
// metadata) are verified: the metadata it sees are the ones written.
func DecodeFunc(buf []byte, expect func(meta map[string]string) (Expect, error)) (*Model, error) {
	f, err := DecodeFile(buf, modelKind, expect)
	if err != nil {
		return nil, err
	}
	w, err := f.Weights("")
	if err != nil {
		return nil, err
	}
	if err := f.Done(); err != nil {
		return nil, err
	}
	return &Model{Weights: w, Architecture: f.Architecture, Metadata: f.Meta}, nil
}

// FileImage is a parsed and validated file whose tensors have not all been
// taken yet.
type FileImage struct {
	Architecture Architecture
	*safetensors.File
}

// Weights takes the parameter tensors of the architecture, named as in
// TensorSpecs with prefix prepended.
func (f *FileImage) Weights(prefix string) (*Weights, error) {
	w := &Weights{Config: f.Architecture.Config}
	for _, s := range f.Architecture.Config.TensorSpecs() {
		vals, err := f.Take(prefix+s.Name, s.Shape)
		if err != nil {
			return nil, fmt.Errorf("net: load: %w", err)
		}
		if err := checkFinite(prefix+s.Name, vals); err != nil {
			return nil, fmt.Errorf("net: load: %w", err)
		}
		w.Tensors = append(w.Tensors, Tensor{Name: s.Name, Shape: append([]int(nil), s.Shape...), Data: vals})
	}
	return w, nil
}

// checkFinite reports the first value of the tensor name that is NaN or
// infinite: such weights make every evaluation NaN, which would fail only
// inside a search.
func checkFinite(name string, vals []float32) error {
	for i, v := range vals {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("tensor %q holds %v at index %d: the weights are not finite (a diverged training?)", name, v, i)
		}
	}
	return nil
}

// Done reports tensors that nobody took.
func (f *FileImage) Done() error {
	if err := f.File.Done(); err != nil {
		return fmt.Errorf("net: load: %w", err)
	}
	return nil
}

// DecodeFile parses buf as a file of the given kind and checks the layout,
// the checksums, the architecture and what expect makes of the metadata.
// A buf that does not begin as such a file does (text, an empty file)
// is "not a dablot model file" (or checkpoint file), and says how it
// begins; a file that does and is damaged further on gets an error naming
// the damage.
func DecodeFile(buf []byte, kind FileKind, expect func(meta map[string]string) (Expect, error)) (*FileImage, error) {
	file, err := safetensors.Decode(buf)
	var notFile *safetensors.FormatError
	if errors.As(err, &notFile) {
		return nil, fmt.Errorf("net: load: not a dablot %s file: %s", kind.What, notFile.Reason)
	}
	if err != nil {
		return nil, fmt.Errorf("net: load: %w", err)
	}
	meta := file.Meta
	if meta[MetaFormat] != kind.Format {
		hint := ""
		switch meta[MetaFormat] {
		case ModelFormat:
			hint = " (this is a model file, not a trainer checkpoint)"
		case CheckpointFormat:
			hint = " (this is a trainer checkpoint, not a model file)"
		}
		return nil, fmt.Errorf("net: load: metadata format is %q, want %q%s", meta[MetaFormat], kind.Format, hint)
	}
	if v, err := strconv.Atoi(meta[MetaVersion]); err != nil || v != kind.Version {
		return nil, fmt.Errorf("net: load: unsupported %s format version %q (this code reads %d)", kind.What, meta[MetaVersion], kind.Version)
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
	exp, err := expect(meta)
	if err != nil {
		return nil, err
	}
	if exp.Topology == nil {
		return nil, fmt.Errorf("net: load: no expected topology given")
	}
	if arch.Points != exp.Topology.Points {
		return nil, fmt.Errorf("net: load: %s is for a %d-point board, expected %d points", kind.What, arch.Points, exp.Topology.Points)
	}
	if arch.TopologySHA256 != exp.Topology.Hash() {
		return nil, fmt.Errorf("net: load: %s topology %s does not match the expected board %s", kind.What, arch.TopologySHA256, exp.Topology.Hash())
	}
	if arch.PolicySize != game.PolicySize(arch.Points) {
		return nil, fmt.Errorf("net: load: policy size %d, want %d", arch.PolicySize, game.PolicySize(arch.Points))
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
	return &FileImage{Architecture: arch, File: file}, nil
}
