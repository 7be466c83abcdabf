package samples

import (
	"crypto/sha256"
	"reflect"
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
	p.Apply(ds[0])
	ss = append(ss, Sample{Position: p, Result: -1})
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
