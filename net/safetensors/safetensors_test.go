package safetensors

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/net/internal/imagetest"
)

func sample() []Tensor {
	return []Tensor{
		{Name: "w", Shape: []int{2, 3}, Data: []float32{1, -2, 3.5, 0, float32(math.Inf(1)), 1e-40}},
		{Name: "b", Shape: []int{3}, Data: []float32{0.25, 0.5, 0.75}},
		{Name: "scalar", Shape: []int{}, Data: []float32{7}},
		{Name: "empty", Shape: []int{0, 4}, Data: nil},
	}
}

func TestRoundTrip(t *testing.T) {
	meta := map[string]string{"format": "test", "note": "ä"}
	buf, err := Encode(sample(), meta)
	if err != nil {
		t.Fatal(err)
	}
	if n := binary.LittleEndian.Uint64(buf); n%8 != 0 {
		t.Fatalf("header length %d is not a multiple of 8", n)
	}
	if _, ok := meta[ChecksumKey]; ok {
		t.Fatal("Encode changed the caller's metadata")
	}
	f, err := Decode(buf)
	if err != nil {
		t.Fatal(err)
	}
	if f.Meta["note"] != "ä" || f.Meta["format"] != "test" || len(f.Meta[ChecksumKey]) != 64 {
		t.Fatalf("metadata %v", f.Meta)
	}
	for _, want := range sample() {
		got, err := f.Take(want.Name, want.Shape)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want.Data) {
			t.Fatalf("%s: %d values, want %d", want.Name, len(got), len(want.Data))
		}
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want.Data[i]) {
				t.Fatalf("%s[%d] = %v, want %v", want.Name, i, got[i], want.Data[i])
			}
		}
	}
	if err := f.Done(); err != nil {
		t.Fatal(err)
	}
	// An empty tensor shares its offset with the next one: Decode must
	// accept that whatever order it meets them in (it reads the header
	// into a map, whose order changes from run to run).
	shared, err := Encode([]Tensor{{Name: "e", Shape: []int{0}}, {Name: "x", Shape: []int{1}, Data: []float32{1}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 32 {
		if _, err := Decode(shared); err != nil {
			t.Fatalf("empty tensor at another's offset: %v", err)
		}
	}
	// The same tensors and metadata give the same bytes.
	again, _ := Encode(sample(), meta)
	if !slices.Equal(buf, again) {
		t.Fatal("encoding is not deterministic")
	}
}

func TestEncodeRejects(t *testing.T) {
	cases := []struct {
		name    string
		tensors []Tensor
		meta    map[string]string
		want    string
	}{
		{"checksum given", sample(), map[string]string{ChecksumKey: "x"}, "reserved"},
		{"metadata as a tensor name", []Tensor{{Name: "__metadata__", Shape: []int{1}, Data: []float32{1}}}, nil, "reserved"},
		{"duplicate name", []Tensor{{Name: "a", Shape: []int{1}, Data: []float32{1}}, {Name: "a", Shape: []int{1}, Data: []float32{2}}}, nil, "twice"},
		{"shape and data disagree", []Tensor{{Name: "a", Shape: []int{2, 2}, Data: []float32{1, 2, 3}}}, nil, "3 values"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Encode(c.tensors, c.meta)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one mentioning %q", err, c.want)
			}
		})
	}
}

func TestDecodeRejects(t *testing.T) {
	good, err := Encode(sample(), map[string]string{"rules": "keyland"})
	if err != nil {
		t.Fatal(err)
	}
	tensor := func(h map[string]any, name string) map[string]any { return h[name].(map[string]any) }
	meta := func(h map[string]any) map[string]any { return h[metadataKey].(map[string]any) }
	cases := []struct {
		name string
		buf  []byte
		want string
	}{
		// Images that do not begin as a safetensors file (FormatError).
		{"empty", nil, "not a safetensors file: the file is empty"},
		{"text", []byte("hello, this is not a model"), `not a safetensors file: it begins with "hello, t", not with a header length`},
		{"short text", []byte("hello"), `not a safetensors file: it begins with "hello"`},
		{"absurd header length", binary.LittleEndian.AppendUint64(nil, 1<<40), "not a safetensors file: it begins with"},
		{"header length 0", make([]byte, 16), "not a safetensors file: its header length is 0"},
		{"header not an object", append(binary.LittleEndian.AppendUint64(nil, 2), '[', ']'), `not a safetensors file: its header begins with '['`},
		// Images that begin as one and are damaged or cut short further on.
		{"truncated length", good[:5], "truncated file: 5 bytes"},
		{"truncated header", good[:20], "truncated"},
		{"truncated data", good[:len(good)-4], "out of range"},
		{"trailing bytes", append(slices.Clone(good), 0, 0, 0, 0), "trailing"},
		{"bad JSON", append(binary.LittleEndian.AppendUint64(nil, 2), '{', '!'), "damaged header: bad JSON"},
		{"bad metadata", imagetest.RewriteHeader(t, good, func(h map[string]any) { h["__metadata__"] = 3 }), "__metadata__"},
		{"unknown field", imagetest.RewriteHeader(t, good, func(h map[string]any) { tensor(h, "b")["scale"] = 2 }), "bad header entry"},
		{"wrong dtype", imagetest.RewriteHeader(t, good, func(h map[string]any) { tensor(h, "b")["dtype"] = "F16" }), "dtype"},
		{"negative dimension", imagetest.RewriteHeader(t, good, func(h map[string]any) { tensor(h, "b")["shape"] = []int{-3} }), "absurd shape"},
		{"huge shape", imagetest.RewriteHeader(t, good, func(h map[string]any) { tensor(h, "b")["shape"] = []int{1 << 20, 1 << 20} }), "absurd shape"},
		{"offsets reversed", imagetest.RewriteHeader(t, good, func(h map[string]any) { tensor(h, "b")["data_offsets"] = []int{8, 4} }), "out of range"},
		{"offsets past the end", imagetest.RewriteHeader(t, good, func(h map[string]any) { tensor(h, "b")["data_offsets"] = []int{0, 1 << 30} }), "out of range"},
		{"span and shape disagree", imagetest.RewriteHeader(t, good, func(h map[string]any) { tensor(h, "b")["shape"] = []int{2} }), "spans"},
		{"overlap", imagetest.RewriteHeader(t, good, func(h map[string]any) {
			tensor(h, "scalar")["data_offsets"] = []int{0, 4}
		}), "overlap"},
		{"tensor dropped", imagetest.RewriteHeader(t, good, func(h map[string]any) { delete(h, "scalar") }), "gap before"},
		{"last tensor dropped", imagetest.RewriteHeader(t, good, func(h map[string]any) { delete(h, "scalar"); delete(h, "empty") }), "trailing"},
		{"checksum", func() []byte { b := slices.Clone(good); b[len(b)-1] ^= 1; return b }(), "checksum"},
		// An edited metadata entry, added or removed one: the data's checksum
		// still matches, the metadata's does not.
		{"metadata edited", imagetest.RewriteHeader(t, good, func(h map[string]any) { meta(h)["rules"] = "other" }), "metadata checksum mismatch"},
		{"metadata added", imagetest.RewriteHeader(t, good, func(h map[string]any) { meta(h)["extra"] = "" }), "metadata checksum mismatch"},
		{"metadata removed", imagetest.RewriteHeader(t, good, func(h map[string]any) { delete(meta(h), "rules") }), "metadata checksum mismatch"},
		{"data checksum replaced", imagetest.RewriteHeader(t, good, func(h map[string]any) {
			meta(h)[ChecksumKey] = strings.Repeat("0", 64)
		}), "checksum mismatch"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.buf)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one mentioning %q", err, c.want)
			}
			// Only an image that does not begin as one is "not a safetensors file".
			var fe *FormatError
			if notFile := strings.HasPrefix(c.want, ErrFormat.Error()); errors.As(err, &fe) != notFile || errors.Is(err, ErrFormat) != notFile {
				t.Errorf("error %v: a FormatError %v, want %v", err, fe != nil, notFile)
			}
		})
	}
	f, err := Decode(good)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Take("nope", nil); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("missing tensor: %v", err)
	}
	if _, err := f.Take("b", []int{1, 3}); err == nil || !strings.Contains(err.Error(), "shape") {
		t.Fatalf("wrong shape: %v", err)
	}
	if err := f.Done(); err == nil || !strings.Contains(err.Error(), `unexpected tensor "b"`) {
		t.Fatalf("Done with every tensor left: %v", err)
	}
}

// repairChecksum makes a fuzzed image get past the checksums, so that the
// fuzzer reaches the checks behind them: where the image has a JSON header
// with a metadata object, its checksum entry is set to the data's and its
// metadata checksum, if it has one, to the metadata's. Anything else is
// returned unchanged.
func repairChecksum(buf []byte) []byte {
	if len(buf) < 8 {
		return buf
	}
	n := binary.LittleEndian.Uint64(buf)
	if n == 0 || n > uint64(len(buf)-8) {
		return buf
	}
	var h map[string]json.RawMessage
	if json.Unmarshal(buf[8:8+n], &h) != nil {
		return buf
	}
	var meta map[string]string
	if json.Unmarshal(h[metadataKey], &meta) != nil || meta == nil {
		return buf
	}
	data := buf[8+n:]
	meta[ChecksumKey] = checksum(data)
	if _, ok := meta[MetadataChecksumKey]; ok {
		meta[MetadataChecksumKey] = MetadataChecksum(meta)
	}
	h[metadataKey], _ = json.Marshal(meta)
	hj, _ := json.Marshal(h)
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(hj)))
	return append(append(out, hj...), data...)
}

// FuzzDecode: Decode never panics, and an image it accepts has tensors that
// encode to an image that decodes to the same tensors and metadata.
func FuzzDecode(f *testing.F) {
	good, _ := Encode(sample(), map[string]string{"k": "v"})
	f.Add(good, false)
	f.Add(good, true)
	f.Add(good[:40], false)
	f.Add([]byte("\x02\x00\x00\x00\x00\x00\x00\x00{}"), true)
	f.Fuzz(func(t *testing.T, buf []byte, repair bool) {
		if repair {
			buf = repairChecksum(buf)
		}
		file, err := Decode(buf)
		if err != nil {
			return
		}
		var tensors []Tensor
		for name, h := range file.headers {
			data, err := file.Take(name, h.Shape)
			if err != nil {
				t.Fatalf("accepted tensor %q cannot be taken: %v", name, err)
			}
			tensors = append(tensors, Tensor{Name: name, Shape: h.Shape, Data: data})
		}
		if err := file.Done(); err != nil {
			t.Fatal(err)
		}
		meta := map[string]string{}
		for k, v := range file.Meta {
			if k != ChecksumKey && k != MetadataChecksumKey {
				meta[k] = v
			}
		}
		again, err := Encode(tensors, meta)
		if err != nil {
			t.Fatalf("accepted image does not encode again: %v", err)
		}
		file2, err := Decode(again)
		if err != nil {
			t.Fatalf("re-encoded image rejected: %v", err)
		}
		if file2.Meta[ChecksumKey] != file.Meta[ChecksumKey] && len(tensors) < 2 {
			// With one tensor or none the data section is the same bytes.
			t.Fatalf("checksum changed: %s, then %s", file.Meta[ChecksumKey], file2.Meta[ChecksumKey])
		}
		for _, tt := range tensors {
			got, err := file2.Take(tt.Name, tt.Shape)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(tt.Data[i]) {
					t.Fatalf("%s[%d] changed", tt.Name, i)
				}
			}
		}
		for k, v := range meta {
			if file2.Meta[k] != v {
				t.Fatalf("metadata %q: %q, then %q", k, v, file2.Meta[k])
			}
		}
	})
}

// TestMetadataChecksum: the checksum covers every entry but itself, keys
// and values apart (moving a byte from a key to its value changes it), and
// a file written before it existed is read with its data checked alone.
func TestMetadataChecksum(t *testing.T) {
	base := map[string]string{"a": "bc", ChecksumKey: "x"}
	sum := MetadataChecksum(base)
	for name, m := range map[string]map[string]string{
		"value changed":    {"a": "bd", ChecksumKey: "x"},
		"byte moved":       {"ab": "c", ChecksumKey: "x"},
		"entry added":      {"a": "bc", ChecksumKey: "x", "": ""},
		"data sum changed": {"a": "bc", ChecksumKey: "y"},
	} {
		if MetadataChecksum(m) == sum {
			t.Errorf("%s: same checksum", name)
		}
	}
	if got := MetadataChecksum(map[string]string{"a": "bc", ChecksumKey: "x", MetadataChecksumKey: "anything"}); got != sum {
		t.Errorf("the checksum covers its own entry")
	}
	good, err := Encode(sample(), map[string]string{"rules": "keyland"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Decode(good)
	if err != nil || f.Meta[MetadataChecksumKey] != MetadataChecksum(f.Meta) {
		t.Fatalf("Encode's metadata checksum %q: %v", f.Meta[MetadataChecksumKey], err)
	}
	legacy := imagetest.RewriteHeader(t, good, func(h map[string]any) {
		delete(h[metadataKey].(map[string]any), MetadataChecksumKey)
	})
	if f, err := Decode(legacy); err != nil || f.Meta["rules"] != "keyland" {
		t.Fatalf("a file without a metadata checksum: %v", err)
	}
	if _, err := Encode(sample(), map[string]string{MetadataChecksumKey: "x"}); err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("Encode with the metadata checksum given: %v", err)
	}
}
