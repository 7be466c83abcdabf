package net

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/net/internal/imagetest"
	"github.com/dablot-zero/dablot/net/internal/nettest"
	"github.com/dablot-zero/dablot/net/safetensors"
)

func testModel(t *testing.T) (*Topology, *Weights, []byte) {
	t.Helper()
	topo := smallBoard()
	w := perturbed(Config{Blocks: 1, Channels: 4, InputPlanes: 3, ValueHidden: 5}, 3, 1)
	buf, err := Encode(topo, w, map[string]string{"variant": "keyland", "encoding_version": "2"})
	if err != nil {
		t.Fatal(err)
	}
	return topo, w, buf
}

func TestModelRoundTrip(t *testing.T) {
	topo, w, _ := testModel(t)
	path := filepath.Join(t.TempDir(), "m.safetensors")
	if err := Save(path, topo, w, map[string]string{"variant": "keyland"}); err != nil {
		t.Fatal(err)
	}
	m, err := Load(path, Expect{Topology: topo, InputPlanes: 3, Metadata: map[string]string{"variant": "keyland"}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Metadata["variant"] != "keyland" || m.Architecture.Points != 41 || m.Weights.Config != w.Config {
		t.Fatalf("metadata or architecture lost: %+v", m.Architecture)
	}
	for i, tt := range w.Tensors {
		got := m.Weights.Tensors[i]
		if got.Name != tt.Name || !slices.Equal(got.Shape, tt.Shape) {
			t.Fatalf("tensor %d: %s %v", i, got.Name, got.Shape)
		}
		for j := range tt.Data {
			if math.Float32bits(got.Data[j]) != math.Float32bits(tt.Data[j]) {
				t.Fatalf("tensor %s differs", tt.Name)
			}
		}
	}
	if err := Save(path, topo, w, map[string]string{MetaChecksum: "x"}); err == nil {
		t.Fatal("reserved metadata key accepted")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
	// A new model is readable by all (0644); a replaced one keeps its mode.
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("model file mode %v (%v), want 0644", st.Mode().Perm(), err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := Save(path, topo, w, nil); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o640 {
		t.Fatalf("replaced model file mode %v (%v), want 0640 kept", st.Mode().Perm(), err)
	}
}

func TestModelLoadRejects(t *testing.T) {
	topo, _, good := testModel(t)
	exp := Expect{Topology: topo}
	tensor := func(h map[string]any, name string) map[string]any { return h[name].(map[string]any) }
	meta := func(h map[string]any) map[string]any { return h["__metadata__"].(map[string]any) }
	cases := []struct {
		name string
		buf  func() []byte
		exp  Expect
		want string
	}{
		{"empty file", func() []byte { return nil }, exp, "not a dablot model file: the file is empty"},
		{"text", func() []byte { return []byte("a text file\n") }, exp, `not a dablot model file: it begins with "a text f"`},
		{"truncated header", func() []byte { return good[:20] }, exp, "truncated"},
		{"truncated data", func() []byte { return good[:len(good)-4] }, exp, "out of range"},
		{"trailing bytes", func() []byte { return append(append([]byte(nil), good...), 0, 0, 0, 0) }, exp, "trailing"},
		{"absurd header length", func() []byte {
			b := append([]byte(nil), good...)
			binary.LittleEndian.PutUint64(b, 1<<40)
			return b
		}, exp, "not a dablot model file: it begins with"},
		{"header not an object", func() []byte {
			b := append([]byte(nil), good...)
			b[8] = '!'
			return b
		}, exp, "not a dablot model file: its header begins with '!'"},
		{"bad JSON", func() []byte {
			b := append([]byte(nil), good...)
			b[9] = '!'
			return b
		}, exp, "damaged header: bad JSON"},
		{"wrong dtype", func() []byte {
			return imagetest.RewriteHeader(t, good, func(h map[string]any) { tensor(h, "stem.b")["dtype"] = "F16" })
		}, exp, "dtype"},
		{"offsets out of range", func() []byte {
			return imagetest.RewriteHeader(t, good, func(h map[string]any) { tensor(h, "stem.b")["data_offsets"] = []int{0, 1 << 30} })
		}, exp, "out of range"},
		{"overlapping offsets", func() []byte {
			return imagetest.RewriteHeader(t, good, func(h map[string]any) {
				tensor(h, "stem.b")["data_offsets"] = tensor(h, "value2.b")["data_offsets"]
				tensor(h, "stem.b")["shape"] = []int{3}
				tensor(h, "stop.b")["data_offsets"] = tensor(h, "value2.b")["data_offsets"]
				tensor(h, "stop.b")["shape"] = []int{3}
			})
		}, exp, "overlap"},
		{"checksum mismatch", func() []byte {
			b := append([]byte(nil), good...)
			b[len(b)-1] ^= 0x40
			return b
		}, exp, "checksum"},
		{"tensor dropped from header", func() []byte {
			return imagetest.RewriteHeader(t, good, func(h map[string]any) { delete(h, "value2.b") })
		}, exp, "trailing"},
		{"shape mismatch", func() []byte {
			return imagetest.RewriteHeader(t, good, func(h map[string]any) { tensor(h, "stem.w")["shape"] = []int{9, 12} })
		}, exp, "shape"},
		{"not our format", func() []byte {
			return imagetest.RewriteHeader(t, good, func(h map[string]any) { meta(h)["format"] = "other"; nettest.Resign(h) })
		}, exp, "format"},
		{"metadata edited", func() []byte {
			return imagetest.RewriteHeader(t, good, func(h map[string]any) { meta(h)["variant"] = "dablot" })
		}, exp, "metadata checksum mismatch"},
		{"architecture edited", func() []byte {
			return imagetest.RewriteHeader(t, good, func(h map[string]any) {
				meta(h)[MetaArchitecture] = strings.Replace(meta(h)[MetaArchitecture].(string), `"value_hidden":5`, `"value_hidden":6`, 1)
			})
		}, exp, "metadata checksum mismatch"},
		{"wrong topology", func() []byte { return good }, Expect{Topology: largeBoard()}, "41-point"},
		{"wrong encoding", func() []byte { return good }, Expect{Topology: topo, InputPlanes: 7}, "input planes"},
		{"metadata mismatch", func() []byte { return good }, Expect{Topology: topo, Metadata: map[string]string{"encoding_version": "3"}}, "encoding_version"},
		{"metadata missing", func() []byte { return good }, Expect{Topology: topo, Metadata: map[string]string{"rules": "x"}}, "missing"},
		{"no expectation", func() []byte { return good }, Expect{}, "topology"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.buf(), c.exp)
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not mention %q", err, c.want)
			}
		})
	}
	// A file whose missing tensor is consistent (data and checksum too).
	w := perturbed(Config{Blocks: 1, Channels: 4, InputPlanes: 3, ValueHidden: 5}, 3, 1)
	w.Tensors = w.Tensors[:len(w.Tensors)-1]
	w2 := &Weights{Config: w.Config, Tensors: w.Tensors}
	if _, err := Encode(topo, w2, nil); err == nil || !strings.Contains(err.Error(), "tensors") {
		t.Fatalf("encoding incomplete weights: %v", err)
	}
	if _, err := Decode(good, exp); err != nil {
		t.Fatalf("good file rejected: %v", err)
	}
}

// TestModelNotFinite: weights that are NaN or infinite are refused when a
// file is read (with its checksums right, as a diverged training would have
// written it), and when weights are saved or evaluated, not inside a
// search.
func TestModelNotFinite(t *testing.T) {
	topo, w, _ := testModel(t)
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		b := w.Clone()
		b.Tensors[2].Data[1] = bad
		buf, err := EncodeFile(modelKind, topo, b.Config, b.Tensors, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("tensor %q holds %v at index 1: the weights are not finite", b.Tensors[2].Name, bad)
		if _, err := Decode(buf, Expect{Topology: topo}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode of a model holding %v: %v, want %q", bad, err, want)
		}
		if _, err := Encode(topo, b, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Encode of weights holding %v: %v, want %q", bad, err, want)
		}
		if _, err := NewEvaluator(topo, b); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NewEvaluator of weights holding %v: %v, want %q", bad, err, want)
		}
	}
}

// TestLoadBounded: a model file larger than the largest network's is
// refused by its size, before it is read; so is a directory (the same for
// checkpoints is tested in net/trainer).
func TestLoadBounded(t *testing.T) {
	topo, _, _ := testModel(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		size int64
		load func(path string) error
		want string
	}{
		{"m.dbm", MaxModelBytes + 1, func(p string) error { _, err := Load(p, Expect{Topology: topo}); return err },
			"more than a model file may have (1.125 GiB)"},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, tc.size); err != nil { // sparse: no disk used
			t.Fatal(err)
		}
		if err := tc.load(path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s of %d bytes: %v, want %q", tc.name, tc.size, err, tc.want)
		}
		if err := tc.load(dir); err == nil || !strings.Contains(err.Error(), "is a directory, not a regular file") {
			t.Errorf("%s from a directory: %v", tc.name, err)
		}
	}
	if maxHeaderRoom < 8+safetensors.MaxHeaderBytes {
		t.Errorf("no room for the largest header in the largest file")
	}
	// A large network fits in a model file; a preset's largest does not.
	if n := (Config{Blocks: 20, Channels: 256, InputPlanes: 8, ValueHidden: 256}).WeightBytes(); n > MaxWeightBytes {
		t.Errorf("a 20×256 network takes %d bytes, more than MaxWeightBytes", n)
	}
	if err := (Config{Blocks: 64, Channels: 1024, InputPlanes: 8, ValueHidden: 64}).Validate(); err == nil || !strings.Contains(err.Error(), "more than a model file may hold (1 GiB)") {
		t.Errorf("a 64×1024 network: %v, want an error saying it does not fit in a model file", err)
	}
}

// TestModelMissingTensor builds a self-consistent file without one tensor.
func TestModelMissingTensor(t *testing.T) {
	topo, w, _ := testModel(t)
	// value2.b is the last tensor; EncodeFile, unlike Encode, does not check
	// that the weights are complete.
	buf, err := EncodeFile(modelKind, topo, w.Config, w.Tensors[:len(w.Tensors)-1], nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Decode(buf, Expect{Topology: topo})
	if err == nil || !strings.Contains(err.Error(), `missing tensor "value2.b"`) {
		t.Fatalf("got %v", err)
	}
}

func TestPythonReader(t *testing.T) {
	// The first python3 with numpy: the one on PATH, else the system one.
	py := ""
	for _, cand := range []string{"python3", "/usr/bin/python3"} {
		p, err := exec.LookPath(cand)
		if err == nil && exec.Command(p, "-c", "import numpy").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		t.Skip("no python3 with numpy installed")
	}
	topo, w, _ := testModel(t)
	path := filepath.Join(t.TempDir(), "m.safetensors")
	if err := Save(path, topo, w, map[string]string{"variant": "keyland"}); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, "testdata/read_model.py", path, "--json").Output()
	if err != nil {
		t.Fatalf("read_model.py: %v", err)
	}
	var got struct {
		Metadata map[string]string
		Tensors  map[string]struct {
			Shape []int
			Sum   float64
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.Metadata["variant"] != "keyland" || len(got.Tensors) != len(w.Tensors) {
		t.Fatalf("python read %d tensors, metadata %v", len(got.Tensors), got.Metadata)
	}
	for _, tt := range w.Tensors {
		var s float64
		for _, v := range tt.Data {
			s += float64(v)
		}
		g := got.Tensors[tt.Name]
		if !slices.Equal(g.Shape, tt.Shape) || math.Abs(g.Sum-s) > 1e-9*math.Max(1, math.Abs(s)) {
			t.Fatalf("%s: python %v %v, go %v %v", tt.Name, g.Shape, g.Sum, tt.Shape, s)
		}
	}
}
