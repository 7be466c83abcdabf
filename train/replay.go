package train

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/train/samples"
)

// ShardRef names a shard the replay buffer has taken in, with its number of
// samples.
type ShardRef struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
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
	encode *Model
}

// NewReplay returns an empty replay buffer over the shards in dir, keeping
// at most limit samples.
func NewReplay(m *Model, dir string, limit int) *Replay {
	return &Replay{rules: m.Rules, dir: dir, limit: limit, seen: map[string]bool{}, encode: m}
}

// Restore takes in the shards of refs again, in order, as after a resume.
// A shard that is missing or damaged is an error: a checkpoint names only
// shards that were complete.
func (rp *Replay) Restore(refs []ShardRef) error {
	// Only the newest shards can still be in the buffer: skip the rest.
	keep, start := 0, len(refs)
	for start > 0 && keep < rp.limit {
		start--
		keep += refs[start].Count
	}
	for i, ref := range refs {
		if i < start {
			rp.taken = append(rp.taken, ref)
			rp.seen[ref.Name] = true
			rp.total += int64(ref.Count)
			continue
		}
		if err := rp.take(ref.Name); err != nil {
			return err
		}
	}
	return nil
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
		if strings.HasSuffix(n, ShardExt) && !strings.HasPrefix(n, ".") && !rp.seen[n] {
			names = append(names, n)
		}
	}
	sort.Strings(names) // gen-000012-… sorts by generation
	before := rp.total
	for _, n := range names {
		if err := rp.take(n); err != nil {
			return int(rp.total - before), err
		}
	}
	return int(rp.total - before), nil
}

func (rp *Replay) take(name string) error {
	_, ss, err := samples.Read(filepath.Join(rp.dir, name), rp.rules)
	if err != nil {
		return err
	}
	rp.taken = append(rp.taken, ShardRef{Name: name, Count: len(ss)})
	rp.seen[name] = true
	rp.total += int64(len(ss))
	rp.buf = append(rp.buf, ss...)
	if over := len(rp.buf) - rp.limit; over > 0 {
		rp.buf = append(rp.buf[:0], rp.buf[over:]...)
	}
	return nil
}

// Shards returns every shard taken in, in order.
func (rp *Replay) Shards() []ShardRef { return append([]ShardRef(nil), rp.taken...) }

// Total returns the number of samples ever taken in.
func (rp *Replay) Total() int64 { return rp.total }

// Len returns the number of samples held.
func (rp *Replay) Len() int { return len(rp.buf) }

// BatchMaker fills training batches from a replay buffer.
type BatchMaker struct {
	m       *Model
	mirror  bool
	qWeight float32
	batch   net.Batch
	legal   []game.Decision
	idx     []int32
}

// NewBatchMaker returns a maker of batches of n positions for m's network.
// With mirror, each position is replaced by its left-right mirror image with
// probability one half; qWeight blends the search value into the value
// target.
func NewBatchMaker(m *Model, n int, mirror bool, qWeight float64) *BatchMaker {
	ps, in := m.Encoder.PolicySize(), m.Encoder.InputSize()
	return &BatchMaker{m: m, mirror: mirror, qWeight: float32(qWeight), batch: net.Batch{N: n,
		Input: make([]float32, n*in), Policy: make([]float32, n*ps), Mask: make([]float32, n*ps), Value: make([]float32, n*3)}}
}

// Make draws a batch uniformly from the newest window samples of rp. The
// batch is reused by the next call.
func (bm *BatchMaker) Make(rp *Replay, window int, rng *rand.Rand) (net.Batch, error) {
	window = min(window, rp.Len())
	if window == 0 {
		return net.Batch{}, fmt.Errorf("replay buffer is empty")
	}
	b := bm.batch
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
				return net.Batch{}, fmt.Errorf("sample %s: policy target on policy index %d, which is not a legal decision", p.FEN(), j)
			}
			pol[j] += e.Prob
		}
		v := (1-bm.qWeight)*s.Target + bm.qWeight*s.Value
		b.Value[3*i], b.Value[3*i+1], b.Value[3*i+2] = max(v, 0), 1-abs32(v), max(-v, 0)
	}
	return b, nil
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}
