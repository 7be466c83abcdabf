package samples

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
)

// FuzzDecode feeds shard contents to decode. It must never panic; contents
// it accepts must encode to contents that decode to the same samples. With
// repair, the fuzzed bytes get a valid checksum, so that the fuzzer reaches
// the checks behind it.
func FuzzDecode(f *testing.F) {
	r := configs.MustVariant("keyland")
	p := r.Start()
	ds := p.Decisions(nil)
	ss := []Sample{{Position: p, Result: 1, Value: 0.5, Target: -0.25, Full: true, Lead: -3, HasLead: true, ShortTerm: []float32{0.25, -1},
		Policy: []PolicyEntry{{uint16(ds[0].PolicyIndex(r.Board)), 0.75}, {uint16(ds[1].PolicyIndex(r.Board)), 0.25}}}}
	own := make([]int8, r.Board.Points())
	for q := range own {
		own[q] = int8(q%3 - 1)
	}
	p.Apply(ds[0])
	ss = append(ss, Sample{Position: p, Result: -1, Ownership: own})
	good, err := encode(r, Header{Generation: 3, Games: 1, Worker: "fuzz"}, ss)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good, false)
	f.Add(good, true)
	f.Add(good[:len(good)-sha256.Size], true)
	f.Fuzz(func(t *testing.T, raw []byte, repair bool) {
		if repair && len(raw) > 0 {
			sum := sha256.Sum256(raw)
			raw = append(raw[:len(raw):len(raw)], sum[:]...)
		}
		h, got, err := decode(raw, "fuzz", r)
		if err != nil {
			return
		}
		again, err := encode(r, h, got)
		if err != nil {
			t.Fatalf("accepted shard does not encode: %v", err)
		}
		h2, got2, err := decode(again, "again", r)
		if err != nil {
			t.Fatalf("re-encoded shard rejected: %v", err)
		}
		if h2 != h || !reflect.DeepEqual(got, got2) {
			t.Fatalf("round trip changed the shard: %+v, then %+v", h, h2)
		}
		for _, s := range got { // a decoded position is one the engine can play
			s.Position.Decisions(nil)
			s.Position.Status()
		}
	})
}

// TestDecodeOwnershipRange: a shard whose sample has an ownership target
// out of range (a value other than -1, 0 and 1, or another number of
// points than the board's) is refused, naming the sample and the problem.
func TestDecodeOwnershipRange(t *testing.T) {
	r := configs.MustVariant("keyland")
	p := r.Start()
	points := r.Board.Points()
	own := make([]int8, points)
	for q := range own {
		own[q] = int8(q%3 - 1)
	}
	ss := []Sample{{Position: p}, {Position: p, Ownership: own}}
	good, err := encode(r, Header{}, ss)
	if err != nil {
		t.Fatal(err)
	}
	rec := append([]byte{byte(points)}, make([]byte, points)...)
	for q, v := range own {
		rec[1+q] = byte(v)
	}
	at := bytes.Index(good, rec)
	if at < 0 {
		t.Fatal("the ownership target is not in the shard")
	}
	for _, tc := range []struct {
		name string
		mod  func(raw []byte)
		want string
	}{
		{"value 2", func(raw []byte) { raw[at+1+5] = 2 }, "sample 1: ownership target 2 on point 5"},
		{"value -128", func(raw []byte) { raw[at+1+7] = 0x80 }, "sample 1: ownership target -128 on point 7"},
		{"too few points", func(raw []byte) { raw[at] = byte(points - 1) }, fmt.Sprintf("sample 1: ownership target of %d points, the board has %d", points-1, points)},
	} {
		raw := append([]byte(nil), good[:len(good)-sha256.Size]...)
		tc.mod(raw)
		sum := sha256.Sum256(raw)
		_, _, err := decode(append(raw, sum[:]...), "x.shard", r)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
