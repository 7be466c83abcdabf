package train

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/durable"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/net/trainer"
	"github.com/dablot-zero/dablot/train/rundir"
	"github.com/dablot-zero/dablot/train/samples"
)

// ShardRef names a shard the replay buffer has taken in, with its number of
// samples and the SHA-256 of its file.
type ShardRef struct {
	Name   string `json:"name"`
	Count  int    `json:"count"`
	SHA256 string `json:"sha256,omitempty"` // hex; empty in checkpoints from before it was recorded
}

// Replay is the replay buffer: the newest samples of the shards in a
// directory, taken in the order they are found (by generation, then name).
type Replay struct {
	rules  *game.Rules
	dir    string
	limit  int              // samples kept in memory
	taken  []ShardRef       // every shard taken in, in order
	seen   map[string]bool  // names of taken shards
	buf    []samples.Sample // the newest samples, oldest first
	total  int64            // samples ever taken in
	encode *model.Model
	// Check, if set, vets the file name and header of every shard before
	// it is taken in (a run checks that the shard is its own); its error
	// is reported as the shard's.
	Check func(name string, h samples.Header) error
}

// NewReplay returns an empty replay buffer over the shards in dir, keeping
// at most limit samples.
func NewReplay(m *model.Model, dir string, limit int) *Replay {
	return &Replay{rules: m.Rules, dir: dir, limit: limit, seen: map[string]bool{}, encode: m}
}

// Restore takes in the shards of refs again, in order, as after a resume.
// Every shard must be there as it was taken in: a file name in the
// directory, with the header Check accepts, the number of samples and, when
// the ref records one, the checksum of refs. The newest shards, those that
// can still be in the buffer, are read whole; of the others only the header
// is read. Restore changes no file.
func (rp *Replay) Restore(refs []ShardRef) error {
	// Only the newest shards can still be in the buffer: skip the rest.
	keep, start := 0, len(refs)
	for start > 0 && keep < rp.limit {
		start--
		keep += refs[start].Count
	}
	for i, ref := range refs {
		if !localName(ref.Name) {
			return fmt.Errorf("shard name %q is not the name of a file in %s", ref.Name, rp.dir)
		}
		var (
			h   samples.Header
			ss  []samples.Sample
			err error
		)
		path := filepath.Join(rp.dir, ref.Name)
		if i < start {
			h, err = samples.ReadHeader(path, rp.rules)
		} else {
			h, ss, err = samples.Read(path, rp.rules)
		}
		if err != nil {
			return err
		}
		if h.Count != ref.Count {
			return fmt.Errorf("shard %s holds %d samples, the checkpoint took in %d (a shard of another generation or run in its place?)", path, h.Count, ref.Count)
		}
		sum, err := rp.vet(ref.Name, h)
		if err != nil {
			return err
		}
		if ref.SHA256 != "" && sum != ref.SHA256 {
			return fmt.Errorf("shard %s is not the file the checkpoint took in: its SHA-256 is %s, the checkpoint records %s (the file was replaced or changed)", path, sum, ref.SHA256)
		}
		ref.SHA256 = sum
		rp.add(ref, ss) // none from a shard too old to be in the buffer
	}
	return nil
}

// localName reports whether name is a plain file name: no directory, no
// parent, not hidden.
func localName(name string) bool {
	return name != "" && filepath.Base(name) == name && filepath.IsLocal(name) && !strings.HasPrefix(name, ".")
}

// Scan takes in the shards of the directory that are new, and returns how
// many samples they held.
func (rp *Replay) Scan() (int, error) {
	entries, err := os.ReadDir(rp.dir)
	if err != nil && !os.IsNotExist(err) {
		return 0, err
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasSuffix(n, rundir.ShardExt) && !strings.HasPrefix(n, ".") && !rp.seen[n] {
			names = append(names, n)
		}
	}
	sort.Strings(names) // gen-000012-… sorts by generation
	before := rp.total
	for _, n := range names {
		h, ss, err := samples.Read(filepath.Join(rp.dir, n), rp.rules)
		if err != nil {
			return int(rp.total - before), err
		}
		sum, err := rp.vet(n, h)
		if err != nil {
			return int(rp.total - before), err
		}
		rp.add(ShardRef{Name: n, Count: len(ss), SHA256: sum}, ss)
	}
	return int(rp.total - before), nil
}

// vet applies Check to the shard name with header h and returns the
// SHA-256 of its file.
func (rp *Replay) vet(name string, h samples.Header) (string, error) {
	path := filepath.Join(rp.dir, name)
	if rp.Check != nil {
		if err := rp.Check(name, h); err != nil {
			return "", fmt.Errorf("shard %s: %w", path, err)
		}
	}
	return fileSHA256(path)
}

// add takes in the shard ref, whose samples ss go into the buffer.
func (rp *Replay) add(ref ShardRef, ss []samples.Sample) {
	rp.taken = append(rp.taken, ref)
	rp.seen[ref.Name] = true
	rp.total += int64(ref.Count)
	rp.buf = append(rp.buf, ss...)
	if over := len(rp.buf) - rp.limit; over > 0 {
		rp.buf = append(rp.buf[:0], rp.buf[over:]...)
	}
}

// fileSHA256 returns the SHA-256 of the file at path, in hex.
func fileSHA256(path string) (string, error) {
	f, err := durable.Open(path, "sample shard", samples.MaxShardBytes)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, samples.MaxShardBytes+1)); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Shards returns every shard taken in, in order.
func (rp *Replay) Shards() []ShardRef { return append([]ShardRef(nil), rp.taken...) }

// Total returns the number of samples ever taken in.
func (rp *Replay) Total() int64 { return rp.total }

// Len returns the number of samples held.
func (rp *Replay) Len() int { return len(rp.buf) }

// BatchMaker fills training batches from a replay buffer.
type BatchMaker struct {
	m         *model.Model
	mirror    bool
	qWeight   float32
	leadScale float64
	batch     trainer.Batch
	legal     []game.Decision
	idx       []int32
}

// NewBatchMaker returns a maker of batches of n positions for m's network.
// With mirror, each position is replaced by its left-right mirror image with
// probability one half; qWeight blends the search value into the value
// target. For a network with a score head, a sample's score target is
// tanh(lead/leadScale) (selfplay.adjudication_scale), and a sample without
// a lead (from a shard of format 2) has none. For a network with an
// ownership head, a sample's ownership target is its own
// (samples.Sample.Ownership), its points moved as the input's when the
// position is mirrored (encode.Encoder.MirrorPoint), and a sample without
// one (from a shard of a previous format, or of a run without the head)
// has none.
func NewBatchMaker(m *model.Model, n int, mirror bool, qWeight, leadScale float64) *BatchMaker {
	ps, in := m.Encoder.PolicySize(), m.Encoder.InputSize()
	bm := &BatchMaker{m: m, mirror: mirror, qWeight: float32(qWeight), leadScale: leadScale, batch: trainer.Batch{N: n,
		Input: make([]float32, n*in), Policy: make([]float32, n*ps), Mask: make([]float32, n*ps), Value: make([]float32, n*3)}}
	if m.Weights.Config.ScoreHead {
		bm.batch.Score, bm.batch.ScoreMask = make([]float32, n), make([]float32, n)
	}
	if m.Weights.Config.OwnershipHead {
		P := m.Encoder.Points()
		bm.batch.Ownership, bm.batch.OwnershipMask = make([]float32, n*P), make([]float32, n*P)
	}
	return bm
}

// Make draws a batch uniformly from the newest window samples of rp. The
// batch is reused by the next call.
func (bm *BatchMaker) Make(rp *Replay, window int, rng *rand.Rand) (trainer.Batch, error) {
	window = min(window, rp.Len())
	if window == 0 {
		return trainer.Batch{}, fmt.Errorf("replay buffer is empty")
	}
	b := bm.batch
	if b.Score != nil && !(bm.leadScale > 0) {
		return trainer.Batch{}, fmt.Errorf("score targets need a lead scale above 0, not %v (selfplay.adjudication_scale)", bm.leadScale)
	}
	enc := bm.m.Encoder
	ps, in := enc.PolicySize(), enc.InputSize()
	clear(b.Policy)
	clear(b.Mask)
	base := rp.Len() - window
	for i := range b.N {
		s := &rp.buf[base+rng.IntN(window)]
		p := s.Position
		mirrored := bm.mirror && rng.IntN(2) == 1
		if mirrored {
			p = game.Mirror.Position(&p)
		}
		enc.Encode(&p, b.Input[i*in:(i+1)*in])
		pol, mask := b.Policy[i*ps:(i+1)*ps], b.Mask[i*ps:(i+1)*ps]
		bm.legal = p.Decisions(bm.legal[:0])
		bm.idx = enc.LegalIndices(&p, bm.legal, bm.idx[:0])
		for _, j := range bm.idx {
			mask[j] = 1
		}
		for _, e := range s.Policy {
			j := int(e.Index)
			if mirrored {
				j = enc.MirrorIndex(j)
			}
			if mask[j] == 0 && e.Prob > 0 {
				return trainer.Batch{}, fmt.Errorf("sample %s: policy target on policy index %d, which is not a legal decision", p.FEN(), j)
			}
			pol[j] += e.Prob
		}
		v := (1-bm.qWeight)*s.Target + bm.qWeight*s.Value
		b.Value[3*i], b.Value[3*i+1], b.Value[3*i+2] = max(v, 0), 1-abs32(v), max(-v, 0)
		if b.Score != nil {
			b.Score[i], b.ScoreMask[i] = 0, 0
			if s.HasLead {
				b.Score[i], b.ScoreMask[i] = float32(math.Tanh(float64(s.Lead)/bm.leadScale)), 1
			}
		}
		if P := len(b.Ownership) / b.N; P > 0 {
			var place func(int) int
			if mirrored {
				place = enc.MirrorPoint
			}
			if !putTargets(b.Ownership[i*P:(i+1)*P], b.OwnershipMask[i*P:(i+1)*P], s.Ownership, place) {
				return trainer.Batch{}, fmt.Errorf("sample %s: an ownership target of %d points for a board of %d", p.FEN(), len(s.Ownership), P)
			}
		}
	}
	return b, nil
}

// putTargets sets a position's targets of an auxiliary head, dst, to a
// sample's, src, each at its place (place(j) for the j-th, or j with
// place nil), with weight 1 in mask; to 0 with weight 0 if the sample has
// none. It reports false, changing nothing, if src has another number of
// targets than dst.
func putTargets(dst, mask []float32, src []int8, place func(int) int) bool {
	switch len(src) {
	case len(dst):
		for j, v := range src {
			if place != nil {
				j = place(j)
			}
			dst[j] = float32(v)
		}
		fill(mask, 1)
	case 0:
		clear(dst)
		clear(mask)
	default:
		return false
	}
	return true
}

// fill sets every element of xs to v.
func fill(xs []float32, v float32) {
	for i := range xs {
		xs[i] = v
	}
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}
