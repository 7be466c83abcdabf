package trainer

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/net"

	"github.com/dablot-zero/dablot/net/internal/imagetest"
	"github.com/dablot-zero/dablot/net/internal/nettest"
)

func checkpointSetup(t *testing.T) (*net.Topology, *net.Weights, TrainConfig, []Batch) {
	t.Helper()
	topo := smallBoard()
	cfg := net.Config{Blocks: 2, Channels: 8, InputPlanes: 3, ValueHidden: 8}
	w, err := net.NewWeights(cfg, 4)
	if err != nil {
		t.Fatal(err)
	}
	tc := DefaultTrainConfig()
	tc.BatchSize, tc.WarmupSteps, tc.TotalSteps, tc.LearningRate = 4, 3, 20, 3e-3
	r := rand.New(rand.NewPCG(21, 22))
	var batches []Batch
	for i := 0; i < 8; i++ {
		batches = append(batches, memorisationSet(r, topo, cfg.InputPlanes, tc.BatchSize))
	}
	return topo, w, tc, batches
}

func sameWeights(t *testing.T, a, b *net.Weights) {
	t.Helper()
	for i := range a.Tensors {
		for j, v := range a.Tensors[i].Data {
			if math.Float32bits(v) != math.Float32bits(b.Tensors[i].Data[j]) {
				t.Fatalf("tensor %s[%d]: %v vs %v", a.Tensors[i].Name, j, v, b.Tensors[i].Data[j])
			}
		}
	}
}

// TestCheckpointContinuesExactly trains k steps, checkpoints, trains k more;
// a trainer loaded from the checkpoint and trained on the same k batches
// must end with bit-identical weights.
func TestCheckpointContinuesExactly(t *testing.T) {
	topo, w, tc, batches := checkpointSetup(t)
	const k = 4
	tr, err := NewTrainer(topo, w, tc)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for _, b := range batches[:k] {
		if _, err := tr.Step(b); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "ckpt.safetensors")
	if err := tr.SaveCheckpoint(path, map[string]string{"run": "test", "games": "123"}); err != nil {
		t.Fatal(err)
	}
	var want []Losses
	for _, b := range batches[k:] {
		l, err := tr.Step(b)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, l)
	}

	tr2, meta, err := LoadTrainer(path, topo, tc)
	if err != nil {
		t.Fatal(err)
	}
	defer tr2.Close()
	if meta["run"] != "test" || meta["games"] != "123" || meta[MetaStep] != "4" || meta[net.MetaFormat] != CheckpointFormat {
		t.Fatalf("metadata: %v", meta)
	}
	if tr2.Steps() != k || tr2.TrainConfig() != tc || tr2.Config() != w.Config {
		t.Fatalf("restored steps %d config %+v", tr2.Steps(), tr2.TrainConfig())
	}
	for i, b := range batches[k:] {
		l, err := tr2.Step(b)
		if err != nil {
			t.Fatal(err)
		}
		if l != want[i] {
			t.Fatalf("step %d losses %+v, uninterrupted %+v", k+i, l, want[i])
		}
	}
	sameWeights(t, tr.Weights(), tr2.Weights())

	// The schedule may change: the new one applies from the saved step.
	tc3 := tc
	tc3.Schedule, tc3.LearningRate = "constant", 1e-4
	tr3, _, err := LoadTrainer(path, topo, tc3)
	if err != nil {
		t.Fatal(err)
	}
	defer tr3.Close()
	l, err := tr3.Step(batches[k])
	if err != nil {
		t.Fatal(err)
	}
	if l.LearningRate != 1e-4 || l.Policy != want[0].Policy {
		t.Fatalf("changed schedule: %+v (uninterrupted %+v)", l, want[0])
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

// TestSetLearningRate changes the rate between steps: the next step uses
// the new rate (after the warm-up, as a constant schedule), a checkpoint
// saves it, and a rate Validate refuses leaves the trainer as it was.
func TestSetLearningRate(t *testing.T) {
	topo, w, tc, batches := checkpointSetup(t)
	tc.Schedule, tc.WarmupSteps = "constant", 0
	tr, err := NewTrainer(topo, w, tc)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for _, bad := range []float64{0, -1e-3, math.NaN(), 11} {
		if err := tr.SetLearningRate(bad); err == nil {
			t.Errorf("SetLearningRate(%v) accepted", bad)
		}
	}
	for i, lr := range []float64{3e-3, 3e-3 / 4, 1e-5} {
		if i > 0 {
			if err := tr.SetLearningRate(lr); err != nil {
				t.Fatal(err)
			}
		}
		l, err := tr.Step(batches[i])
		if err != nil {
			t.Fatal(err)
		}
		if l.LearningRate != lr || tr.TrainConfig().LearningRate != lr {
			t.Fatalf("step %d: rate %v, config %v, want %v", i, l.LearningRate, tr.TrainConfig().LearningRate, lr)
		}
	}
	path := filepath.Join(t.TempDir(), "ckpt.safetensors")
	if err := tr.SaveCheckpoint(path, nil); err != nil {
		t.Fatal(err)
	}
	tr2, meta, err := LoadTrainer(path, topo, tc)
	if err != nil {
		t.Fatal(err)
	}
	defer tr2.Close()
	var saved TrainConfig
	if err := json.Unmarshal([]byte(meta[MetaTrainConfig]), &saved); err != nil || saved.LearningRate != 1e-5 {
		t.Errorf("checkpoint's train config %s (%v), want the rate set last, 1e-5", meta[MetaTrainConfig], err)
	}
}

func TestCheckpointRejects(t *testing.T) {
	topo, w, tc, batches := checkpointSetup(t)
	tr, err := NewTrainer(topo, w, tc)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if _, err := tr.Step(batches[0]); err != nil {
		t.Fatal(err)
	}
	good, err := tr.encodeCheckpoint(map[string]string{"run": "x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.encodeCheckpoint(map[string]string{MetaStep: "9"}); err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Fatalf("reserved key: %v", err)
	}
	model, err := net.Encode(topo, tr.Weights(), nil)
	if err != nil {
		t.Fatal(err)
	}
	meta := func(h map[string]any) map[string]any { return h["__metadata__"].(map[string]any) }
	otherTC := tc
	otherTC.Beta1 = 0.8
	otherBatch := tc
	otherBatch.BatchSize = 8
	cases := []struct {
		name string
		buf  []byte
		topo *net.Topology
		tc   TrainConfig
		want string
	}{
		{"truncated", good[:len(good)-10], topo, tc, "truncated"},
		{"truncated header", good[:30], topo, tc, "truncated"},
		{"corrupted", func() []byte {
			b := append([]byte(nil), good...)
			b[len(b)-5] ^= 1
			return b
		}(), topo, tc, "checksum"},
		{"other board", good, largeBoard(), tc, "41-point"},
		{"model file", model, topo, tc, "model file, not a trainer checkpoint"},
		{"other architecture", imagetest.RewriteHeader(t, good, func(h map[string]any) {
			meta(h)[net.MetaArchitecture] = strings.Replace(meta(h)[net.MetaArchitecture].(string), `"channels":8`, `"channels":9`, 1)
			nettest.Resign(h)
		}), topo, tc, "shape"},
		{"moments missing", imagetest.RewriteHeader(t, good, func(h map[string]any) {
			for k := range h {
				if strings.HasPrefix(k, adamVPrefix) {
					delete(h, k)
				}
			}
		}), topo, tc, "trailing"},
		{"bad step", imagetest.RewriteHeader(t, good, func(h map[string]any) { meta(h)[MetaStep] = "-1"; nettest.Resign(h) }), topo, tc, "step"},
		{"bad train config", imagetest.RewriteHeader(t, good, func(h map[string]any) { meta(h)[MetaTrainConfig] = "{"; nettest.Resign(h) }), topo, tc, "train_config"},
		{"step edited", imagetest.RewriteHeader(t, good, func(h map[string]any) { meta(h)[MetaStep] = "7" }), topo, tc, "metadata checksum mismatch"},
		{"changed beta1", good, topo, otherTC, "Beta1"},
		{"changed batch size", good, topo, otherBatch, "BatchSize"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, _, err := decodeCheckpoint(c.buf, c.topo, c.tc)
			if err == nil {
				tr.Close()
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not mention %q", err, c.want)
			}
		})
	}
	// A model loader refuses a checkpoint with a clear message.
	if _, err := net.Decode(good, net.Expect{Topology: topo}); err == nil || !strings.Contains(err.Error(), "checkpoint, not a model file") {
		t.Fatalf("Decode of a checkpoint: %v", err)
	}
	// Through the file API: a missing file and the good file.
	dir := t.TempDir()
	if _, _, err := LoadTrainer(filepath.Join(dir, "none"), topo, tc); err == nil {
		t.Fatal("missing file accepted")
	}
	path := filepath.Join(dir, "c")
	if err := os.WriteFile(path, good[:len(good)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadTrainer(path, topo, tc); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("truncated file: %v", err)
	}
	tr2, _, err := decodeCheckpoint(good, topo, tc)
	if err != nil {
		t.Fatalf("good checkpoint rejected: %v", err)
	}
	tr2.Close()
}

// TestLoadTrainerBounded: a checkpoint larger than the largest network's
// is refused by its size, before it is read; so is a directory.
func TestLoadTrainerBounded(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.ckpt")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, net.MaxCheckpointBytes+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{path, "more than a checkpoint file may have (3.125 GiB)"},
		{dir, "is a directory, not a regular file"},
	} {
		if _, _, err := LoadTrainer(tc.path, smallBoard(), DefaultTrainConfig()); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadTrainer(%s): %v, want %q", tc.path, err, tc.want)
		}
	}
}
