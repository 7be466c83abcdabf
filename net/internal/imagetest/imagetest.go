// Package imagetest builds damaged safetensors images for the tests of
// net and net/safetensors.
package imagetest

import (
	"encoding/binary"
	"encoding/json"
	"testing"
)

// RewriteHeader returns buf with its JSON header changed by edit (tensor
// entries and "__metadata__" as decoded JSON) and its data section kept, so
// the checksum still matches unless edit changes it.
func RewriteHeader(t testing.TB, buf []byte, edit func(h map[string]any)) []byte {
	t.Helper()
	n := binary.LittleEndian.Uint64(buf)
	var h map[string]any
	if err := json.Unmarshal(buf[8:8+n], &h); err != nil {
		t.Fatal(err)
	}
	edit(h)
	hj, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(hj)))
	return append(append(out, hj...), buf[8+n:]...)
}
