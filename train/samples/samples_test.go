package samples_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/train/samples"
)

// randomSamples makes n samples of random positions of r with what shards
// of format hold: from format 3 on, three in four of them have a material
// lead; from format 4 on, three in four have 0 to 3 short-term value
// targets; from format 5 on, three in four have an ownership target.
func randomSamples(r *game.Rules, n int, seed uint64, format int) []samples.Sample {
	rng := rand.New(rand.NewPCG(seed, 9))
	p := r.Start()
	var out []samples.Sample
	for len(out) < n {
		ds := p.Decisions(nil)
		if len(ds) == 0 {
			p = r.Start()
			continue
		}
		s := samples.Sample{Position: p, Result: int8(rng.IntN(3) - 1), Value: float32(rng.Float64()*2 - 1), Target: float32(rng.Float64()*2 - 1), Full: rng.IntN(2) == 0}
		if format >= 3 {
			if s.HasLead = rng.IntN(4) > 0; s.HasLead {
				s.Lead = float32(rng.IntN(21) - 10)
			}
		}
		if format >= 4 && rng.IntN(4) > 0 {
			for range 1 + rng.IntN(3) {
				s.ShortTerm = append(s.ShortTerm, float32(rng.Float64()*2-1))
			}
		}
		if format >= 5 && rng.IntN(4) > 0 {
			s.Ownership = make([]int8, r.Board.Points())
			for q := range s.Ownership {
				s.Ownership[q] = int8(rng.IntN(3) - 1)
			}
		}
		for _, d := range ds {
			s.Policy = append(s.Policy, samples.PolicyEntry{Index: uint16(d.PolicyIndex(r.Board)), Prob: 1 / float32(len(ds))})
		}
		out = append(out, s)
		p.Apply(ds[rng.IntN(len(ds))])
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	for _, v := range []string{"keyland", "frostviken"} {
		r := configs.MustVariant(v)
		ss := randomSamples(r, 500, 1, 5)
		path := filepath.Join(t.TempDir(), "a.shard")
		if err := samples.Write(path, r, samples.Header{Generation: 3, Games: 2}, ss); err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(ss, func(s samples.Sample) bool { return s.HasLead && s.Lead != 0 }) ||
			!slices.ContainsFunc(ss, func(s samples.Sample) bool { return len(s.ShortTerm) == 3 }) ||
			!slices.ContainsFunc(ss, func(s samples.Sample) bool { return slices.Contains(s.Ownership, -1) }) {
			t.Fatal("no sample with a material lead, short-term value targets or an ownership target to round-trip")
		}
		h, back, err := samples.Read(path, r)
		if err != nil {
			t.Fatal(err)
		}
		if h.Count != 500 || h.Generation != 3 || h.Variant != v || !reflect.DeepEqual(back, ss) {
			t.Errorf("%s: round trip changed the shard (header %+v)", v, h)
		}
		entries, _ := os.ReadDir(filepath.Dir(path))
		if len(entries) != 1 {
			t.Errorf("temporary files left behind: %v", entries)
		}
		// Shards are read by self-play workers that may run as other users
		// over a shared filesystem.
		if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
			t.Errorf("shard mode %v (%v), want 0644", st.Mode().Perm(), err)
		}
	}
}

func TestDamagedShards(t *testing.T) {
	r := configs.MustVariant("keyland")
	dir := t.TempDir()
	path := filepath.Join(dir, "a.shard")
	if err := samples.Write(path, r, samples.Header{}, randomSamples(r, 50, 2, 5)); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	cases := map[string][]byte{
		"truncated": good[:len(good)/2],
		"empty":     {},
		"garbage":   []byte("not a shard at all"),
	}
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 0x10
	cases["flipped bit"] = flipped
	for name, data := range cases {
		bad := filepath.Join(dir, "bad.shard")
		os.WriteFile(bad, data, 0o644)
		if _, _, err := samples.Read(bad, r); !errors.Is(err, samples.ErrCorrupt) {
			t.Errorf("%s: error %v, want ErrCorrupt", name, err)
		}
	}
	if _, _, err := samples.Read(path, configs.MustVariant("keyland,max_plies=10")); err == nil || !strings.Contains(err.Error(), "not keyland") {
		t.Errorf("other rules: %v", err)
	}
	if err := samples.Write(filepath.Join(dir, "nodir", "x.shard"), r, samples.Header{}, nil); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}

// TestReadHeader reads a shard's header alone: the same header Read gives,
// the variant checked, a file that is not a shard refused.
func TestReadHeader(t *testing.T) {
	r := configs.MustVariant("keyland")
	dir := t.TempDir()
	path := filepath.Join(dir, "a.shard")
	if err := samples.Write(path, r, samples.Header{Generation: 3, Worker: "w1", Games: 2, Run: "RUN1"}, randomSamples(r, 200, 3, 5)); err != nil {
		t.Fatal(err)
	}
	want, _, err := samples.Read(path, r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := samples.ReadHeader(path, r)
	if err != nil || got != want || got.Count != 200 || got.Run != "RUN1" {
		t.Errorf("header %+v, %v; Read gives %+v", got, err, want)
	}
	if _, err := samples.ReadHeader(path, configs.MustVariant("keyland,max_plies=10")); err == nil || !strings.Contains(err.Error(), "not keyland") {
		t.Errorf("other rules: %v", err)
	}
	bad := filepath.Join(dir, "bad.shard")
	os.WriteFile(bad, []byte("not a shard at all"), 0o644)
	if _, err := samples.ReadHeader(bad, r); !errors.Is(err, samples.ErrCorrupt) {
		t.Errorf("garbage: %v, want ErrCorrupt", err)
	}
	if _, err := samples.ReadHeader(filepath.Join(dir, "none.shard"), r); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing shard: %v", err)
	}
}

// TestReadOldFormats reads shards written by the code of earlier
// formats, with Write from randomSamples(keyland, 20, seed, format):
// testdata/format2.shard (magic DBLTSHD2, at b27d78b, before samples
// carried their material lead), testdata/format3.shard (DBLTSHD3, at
// 09df31c, before they carried short-term value targets) and
// testdata/format4.shard (DBLTSHD4, at 69ef372, before they carried
// ownership targets). Their samples read as they were written, without
// what their format lacks.
func TestReadOldFormats(t *testing.T) {
	r := configs.MustVariant("keyland")
	for _, tc := range []struct {
		format     int
		seed       uint64
		generation int
	}{{2, 5, 4}, {3, 6, 5}, {4, 7, 6}} {
		path := fmt.Sprintf("testdata/format%d.shard", tc.format)
		h, ss, err := samples.Read(path, r)
		if err != nil {
			t.Fatal(err)
		}
		if hh, err := samples.ReadHeader(path, r); err != nil || hh != h {
			t.Errorf("%s: header %+v (%v), want %+v", path, hh, err, h)
		}
		want := randomSamples(r, 20, tc.seed, tc.format)
		if h.Count != 20 || h.Generation != tc.generation || h.Run != "old" || !reflect.DeepEqual(ss, want) {
			t.Errorf("%s reads as %d samples (header %+v), not as written", path, len(ss), h)
		}
		hasLead := slices.ContainsFunc(ss, func(s samples.Sample) bool { return s.HasLead })
		hasShortTerm := slices.ContainsFunc(ss, func(s samples.Sample) bool { return s.ShortTerm != nil })
		hasOwnership := slices.ContainsFunc(ss, func(s samples.Sample) bool { return s.Ownership != nil })
		if hasLead != (tc.format >= 3) || hasShortTerm != (tc.format >= 4) || hasOwnership {
			t.Errorf("%s: samples with a lead %v, with short-term targets %v, with ownership targets %v", path, hasLead, hasShortTerm, hasOwnership)
		}
	}
}

// TestShortTermRange: Write refuses short-term value targets out of
// [-1, 1] or too many of them, naming the sample.
func TestShortTermRange(t *testing.T) {
	r := configs.MustVariant("keyland")
	for _, st := range [][]float32{{0.5, 1.5}, {float32(math.NaN())}, make([]float32, net.MaxShortTermHeads+1)} {
		ss := randomSamples(r, 3, 1, 4)
		ss[2].ShortTerm = st
		err := samples.Write(filepath.Join(t.TempDir(), "a.shard"), r, samples.Header{}, ss)
		if err == nil || !strings.Contains(err.Error(), "sample 2: short-term value targets") {
			t.Errorf("targets %v: %v", st, err)
		}
	}
}

// TestOwnershipRange: Write refuses an ownership target with a value other
// than -1, 0 and 1, or of another number of points than the board's (the
// largest board's included), naming the sample and the problem.
func TestOwnershipRange(t *testing.T) {
	r := configs.MustVariant("keyland")
	points := r.Board.Points()
	bad := func(q int, v int8) []int8 {
		own := make([]int8, points)
		own[q] = v
		return own
	}
	for _, tc := range []struct {
		own  []int8
		want string
	}{
		{bad(3, 2), "sample 2: ownership target 2 on point 3, not -1, 0 or 1"},
		{bad(0, -3), "sample 2: ownership target -3 on point 0"},
		{make([]int8, points-1), fmt.Sprintf("sample 2: ownership target of %d points, the board has %d", points-1, points)},
		{make([]int8, game.MaxPoints+1), fmt.Sprintf("sample 2: ownership target of %d points", game.MaxPoints+1)},
	} {
		ss := randomSamples(r, 3, 1, 5)
		ss[2].Ownership = tc.own
		path := filepath.Join(t.TempDir(), "a.shard")
		err := samples.Write(path, r, samples.Header{}, ss)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.own, err, tc.want)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("a refused shard was written (%v)", err)
		}
	}
}
