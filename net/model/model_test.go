package model_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/mcts/match"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/encode"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/net/model/modeltest"
	"github.com/dablot-zero/dablot/net/safetensors"
)

func TestModelSaveLoad(t *testing.T) {
	dir := t.TempDir()
	for _, spec := range []string{"keyland", "daablot,no_return=true,promotion=prince"} {
		m := modeltest.NewModel(t, spec, 3)
		m.Training = model.TrainingSummary{Run: "r1", Generation: 7, Games: 100, Samples: 5000, Hours: 1.5}
		path := filepath.Join(dir, "m.dbm")
		if err := m.Save(path, map[string]string{model.MetaRatings: `[]`}); err != nil {
			t.Fatal(err)
		}
		back, err := model.LoadModel(path)
		if err != nil {
			t.Fatal(err)
		}
		if back.Rules.Canonical() != m.Rules.Canonical() {
			t.Errorf("%s: rules changed: %s", spec, back.Rules.Canonical())
		}
		if back.Training != m.Training {
			t.Errorf("%s: training summary %+v, want %+v", spec, back.Training, m.Training)
		}
		if back.Metadata[model.MetaRatings] != `[]` || back.Metadata[model.MetaCode] == "" {
			t.Errorf("%s: metadata lost: %v", spec, back.Metadata)
		}
		if err := back.CheckRules(m.Rules); err != nil {
			t.Error(err)
		}
		// The same outputs from the loaded model.
		ps := modeltest.RandomPositions(m.Rules, 5, 1)
		a, b := modeltest.EvalAll(t, m, ps), modeltest.EvalAll(t, back, ps)
		for i := range a {
			if a[i].Value != b[i].Value || !slices.Equal(a[i].Priors, b[i].Priors) {
				t.Fatalf("%s: position %d evaluates differently after loading", spec, i)
			}
		}
	}
}

func TestModelRefused(t *testing.T) {
	dir := t.TempDir()
	m := modeltest.NewModel(t, "keyland", 1)
	path := filepath.Join(dir, "m.dbm")
	if err := m.Save(path, nil); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	otherEnc, err := net.Encode(m.Topology, m.Weights, map[string]string{model.MetaEncoding: "0", model.MetaRules: string(m.Rules.YAML())})
	if err != nil {
		t.Fatal(err)
	}
	noRules, _ := net.Encode(m.Topology, m.Weights, map[string]string{model.MetaEncoding: "1"})
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)-3] ^= 0x40
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a dablot model file: the file is empty"},
		{"text", []byte("hello, this is not a model file at all"), `not a dablot model file: it begins with "hello, t"`},
		{"truncated", good[:len(good)/2], "out of range"},
		{"truncated header", good[:100], "truncated file: header length"},
		{"flipped bit", flipped, "checksum"},
		{"other encoding", otherEnc, "encoding version"},
		{"no rules", noRules, "no rules"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := model.DecodeModel(tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error about %q", err, tc.want)
			}
			// A damaged model file is not called something else.
			if !strings.Contains(tc.want, "not a dablot model file") && strings.Contains(err.Error(), "not a dablot model file") {
				t.Errorf("a damaged model file: %v", err)
			}
		})
	}
	other := modeltest.NewModel(t, "winther", 1)
	if err := other.CheckRules(m.Rules); err == nil || !strings.Contains(err.Error(), "plays winther") {
		t.Errorf("CheckRules across variants: %v", err)
	}
	opts := model.SpecOptions(configs.MustVariant("dablot"), 1)
	if _, err := opts.LoadModel(path); err == nil || !strings.Contains(err.Error(), "plays keyland, not dablot") {
		t.Errorf("loading a keyland model for dablot: %v", err)
	}
}

// TestNetEvaluator checks priors and values against the network's own
// masked forward pass, and that a position's result does not depend on the
// rest of its batch or on which side is to move in the same picture.
func TestNetEvaluator(t *testing.T) {
	for _, spec := range []string{"keyland", "dablot", "frostviken"} {
		m := modeltest.NewModel(t, spec, 5)
		ps := modeltest.RandomPositions(m.Rules, 40, 2)
		batch := modeltest.EvalAll(t, m, ps)
		ws := m.Net.NewWorkspace(1, 1)
		in := make([]float32, m.Encoder.InputSize())
		for i, r := range batch {
			var sum float64
			for _, p := range r.Priors {
				if p < 0 || p > 1 {
					t.Fatalf("%s: prior %v", spec, p)
				}
				sum += float64(p)
			}
			if math.Abs(sum-1) > 1e-5 {
				t.Fatalf("%s: priors sum to %v", spec, sum)
			}
			if d := r.Value - (r.WDL[0] - r.WDL[2]); math.Abs(float64(d)) > 1e-6 {
				t.Fatalf("%s: value %v is not W-L of %v", spec, r.Value, r.WDL)
			}
			// Alone, through the network's softmax over the legal entries.
			m.Encoder.Encode(&ps[i], in)
			idx := m.Encoder.LegalIndices(&ps[i], r.Legal, nil)
			logits, wdl, err := ws.Forward(in, 1)
			if err != nil {
				t.Fatal(err)
			}
			alone := make([]float32, len(idx))
			net.Softmax(alone, logits, idx)
			for k := range idx {
				if math.Abs(float64(alone[k]-r.Priors[k])) > 1e-5 {
					t.Fatalf("%s: position %d decision %d: prior %v, alone %v", spec, i, k, r.Priors[k], alone[k])
				}
			}
			if math.Abs(float64(wdl[0]-r.WDL[0])) > 1e-5 {
				t.Fatalf("%s: position %d: win %v, alone %v", spec, i, r.WDL[0], wdl[0])
			}
		}
		ws.Close()
	}
}

// TestModelTrainedBy checks that saving a loaded model (as export does)
// keeps the code version that trained it, and that older files without
// the entry count their writer as their trainer.
func TestModelTrainedBy(t *testing.T) {
	dir := t.TempDir()
	m := modeltest.NewModel(t, "keyland", 1)
	if got := m.TrainedBy(); got != model.CodeVersion() {
		t.Errorf("a new model is trained by %q, want this program, %q", got, model.CodeVersion())
	}
	for _, tc := range []struct {
		name string
		meta map[string]string
		want string
	}{
		{"trained elsewhere", map[string]string{model.MetaTrainedBy: "v0.0.0-trainer", model.MetaCode: "v0.0.0-exporter"}, "v0.0.0-trainer"},
		{"file before trained_by", map[string]string{model.MetaCode: "v0.0.0-old"}, "v0.0.0-old"},
	} {
		m.Metadata = tc.meta
		path := filepath.Join(dir, "m.dbm")
		if err := m.Save(path, nil); err != nil {
			t.Fatal(err)
		}
		back, err := model.LoadModel(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := back.Metadata[model.MetaTrainedBy]; got != tc.want {
			t.Errorf("%s: trained_by %q, want %q", tc.name, got, tc.want)
		}
		if got := back.Metadata[model.MetaCode]; got != model.CodeVersion() {
			t.Errorf("%s: code_version %q, want the writer's, %q", tc.name, got, model.CodeVersion())
		}
	}
}

// TestNetEvaluatorClone: a clone evaluates exactly as the evaluator it
// was made from, on one thread.
func TestNetEvaluatorClone(t *testing.T) {
	m := modeltest.NewModel(t, "frostviken", 4)
	ps := modeltest.RandomPositions(m.Rules, 12, 3)
	want := modeltest.EvalAll(t, m, ps)
	ev := m.NewEvaluator(4, 2)
	defer ev.Close()
	c, ok := ev.Clone().(*model.NetEvaluator)
	if !ok {
		t.Fatal("the clone is not a *model.NetEvaluator")
	}
	threads, batch, ws := model.EvaluatorShape(c)
	_, _, evWS := model.EvaluatorShape(ev)
	if threads != 1 || batch != 4 || ws == evWS {
		t.Fatalf("clone: threads %d, batch %d, shared workspace %v", threads, batch, ws == evWS)
	}
	got := make([]mcts.Request, len(ps))
	for i, p := range ps {
		got[i] = mcts.Request{Pos: p, Legal: p.Decisions(nil)}
		got[i].Priors = make([]float32, len(got[i].Legal))
	}
	if err := c.Evaluate(got); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if math.Abs(float64(got[i].Value-want[i].Value)) > 1e-5 || !slices.EqualFunc(got[i].Priors, want[i].Priors,
			func(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-5 }) {
			t.Errorf("position %d: clone %v %v, original %v %v", i, got[i].Value, got[i].Priors, want[i].Value, want[i].Priors)
		}
	}
}

// savedImage returns the model file image that Save writes of m.
func savedImage(t testing.TB, m *model.Model) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.dbm")
	if err := m.Save(path, nil); err != nil {
		t.Fatal(err)
	}
	buf, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return buf
}

// rewriteMetadata returns the model file image buf with its metadata
// changed by edit and nothing else: a hand edit, which leaves the file's
// checksums as they were unless edit changes them.
func rewriteMetadata(t *testing.T, buf []byte, edit func(meta map[string]string)) []byte {
	t.Helper()
	out, ok := editMetadata(buf, func(meta map[string]string, _ []byte) { edit(meta) })
	if !ok {
		t.Fatal("not a model image with metadata")
	}
	return out
}

// editMetadata returns buf with its metadata changed by edit, which also
// sees the data section, or false if buf has no JSON header with metadata.
func editMetadata(buf []byte, edit func(meta map[string]string, data []byte)) ([]byte, bool) {
	if len(buf) < 8 {
		return nil, false
	}
	n := binary.LittleEndian.Uint64(buf)
	if n == 0 || n > uint64(len(buf)-8) {
		return nil, false
	}
	var h map[string]json.RawMessage
	var meta map[string]string
	if json.Unmarshal(buf[8:8+n], &h) != nil || json.Unmarshal(h["__metadata__"], &meta) != nil || meta == nil {
		return nil, false
	}
	edit(meta, buf[8+n:])
	h["__metadata__"], _ = json.Marshal(meta)
	hj, _ := json.Marshal(h)
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(hj)))
	return append(append(out, hj...), buf[8+n:]...), true
}

// TestModelRulesCovered: a model's rules are covered by its checksums, so
// that an edit of its rules_yaml (with its canonical form, so that it reads
// back as recorded) cannot make it play under other rules; a file written
// before metadata checksums, whose data alone were checked, must still
// agree with its fingerprint and variant name, and loads when it does.
func TestModelRulesCovered(t *testing.T) {
	m := modeltest.NewModel(t, "keyland", 1)
	good := savedImage(t, m)
	other, err := configs.Variant("keyland,max_plies=3")
	if err != nil {
		t.Fatal(err)
	}
	otherRules := func(meta map[string]string) {
		meta[model.MetaRules], meta[model.MetaCanonical] = string(other.YAML()), other.Canonical()
	}
	legacy := func(edit func(map[string]string)) func(map[string]string) {
		return func(meta map[string]string) {
			delete(meta, safetensors.MetadataChecksumKey)
			edit(meta)
		}
	}
	for _, tc := range []struct {
		name string
		edit func(meta map[string]string)
		want string
	}{
		{"rules edited", otherRules, "metadata checksum mismatch"},
		{"fingerprint edited", func(meta map[string]string) { meta[model.MetaFingerprint] = "0123456789abcdef" }, "metadata checksum mismatch"},
		{"variant edited", func(meta map[string]string) { meta[model.MetaVariant] = "dablot" }, "metadata checksum mismatch"},
		{"checksum removed, rules edited", legacy(otherRules), "rules in the model have the fingerprint " + other.Fingerprint() + ", the model records " + m.Rules.Fingerprint()},
		{"checksum removed, variant edited", legacy(func(meta map[string]string) { meta[model.MetaVariant] = "dablot" }), `rules in the model are keyland's, the model records the variant "dablot"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			back, err := model.DecodeModel(rewriteMetadata(t, good, tc.edit))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				var rules string
				if back != nil {
					rules = back.Rules.Canonical()
				}
				t.Fatalf("got %v (rules %s), want an error saying %q", err, rules, tc.want)
			}
		})
	}
	// A file from before metadata checksums loads as it did.
	back, err := model.DecodeModel(rewriteMetadata(t, good, legacy(func(map[string]string) {})))
	if err != nil || back.Rules.Canonical() != m.Rules.Canonical() {
		t.Fatalf("a model without a metadata checksum: %v", err)
	}
}

// FuzzDecodeModel: a model file image either gives an error or a model
// whose rules agree with every record of them in its metadata; it never
// panics. With repair, the fuzzed metadata get matching checksums (as a
// consistent rewrite would), so that the fuzzer reaches the checks of the
// rules behind them.
func FuzzDecodeModel(f *testing.F) {
	good := savedImage(f, modeltest.NewModel(f, "frostviken", 1))
	f.Add(good, false)
	f.Add(good, true)
	f.Add(good[:100], true)
	f.Fuzz(func(t *testing.T, buf []byte, repair bool) {
		if repair {
			buf = resignModel(buf)
		}
		back, err := model.DecodeModel(buf)
		if err != nil {
			return
		}
		r, meta := back.Rules, back.Metadata
		if meta[model.MetaCanonical] != r.Canonical() || meta[model.MetaFingerprint] != r.Fingerprint() || meta[model.MetaVariant] != r.Name {
			t.Fatalf("accepted rules %s (%s, %s), the file records %s (%s, %s)", r.Canonical(), r.Fingerprint(), r.Name,
				meta[model.MetaCanonical], meta[model.MetaFingerprint], meta[model.MetaVariant])
		}
		if err := back.Weights.Check(); err != nil {
			t.Fatalf("accepted weights: %v", err)
		}
	})
}

// resignModel sets both checksums of a model image to match its data and
// metadata, where it has a JSON header with metadata; anything else is
// returned unchanged.
func resignModel(buf []byte) []byte {
	out, ok := editMetadata(buf, func(meta map[string]string, data []byte) {
		sum := sha256.Sum256(data)
		meta[safetensors.ChecksumKey] = hex.EncodeToString(sum[:])
		meta[safetensors.MetadataChecksumKey] = safetensors.MetadataChecksum(meta)
	})
	if !ok {
		return buf
	}
	return out
}

// TestModelSpec plays a short match between a network player and the
// random player through the spec strings the arena uses.
func TestModelSpec(t *testing.T) {
	m := modeltest.NewModel(t, "frostviken", 9)
	path := filepath.Join(t.TempDir(), "f.dbm")
	if err := m.Save(path, nil); err != nil {
		t.Fatal(err)
	}
	opts := model.SpecOptions(m.Rules, 1)
	for _, spec := range []string{"mcts:model=" + path + ",sims=8", "gumbel:model=" + path + ",sims=8,m=4"} {
		a, err := mcts.ParseFactory(spec, opts)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := mcts.ParseFactory("random", opts)
		res, err := match.RunArena(context.Background(), match.ArenaConfig{Rules: m.Rules, A: a, B: b, Games: 2, Threads: 2, Seed: 1})
		a.Close()
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if res.WDL.Games() != 2 {
			t.Fatalf("%s: %d games", spec, res.WDL.Games())
		}
	}
}

// TestOwnSpecOptionsMatch: model.OwnSpecOptions plays a match with a
// clone of the network evaluator per player.
func TestOwnSpecOptionsMatch(t *testing.T) {
	m := modeltest.NewModel(t, "frostviken", 4)
	path := filepath.Join(t.TempDir(), "f.dbm")
	if err := m.Save(path, nil); err != nil {
		t.Fatal(err)
	}
	a, err := mcts.ParseFactory("gumbel:model="+path+",sims=8,m=4", model.OwnSpecOptions(m.Rules))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := mcts.ParseFactory("random", mcts.SpecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := match.RunArena(context.Background(), match.ArenaConfig{Rules: m.Rules, A: a, B: b, Games: 2, Threads: 2, Seed: 1})
	if err != nil || res.WDL.Games() != 2 {
		t.Fatalf("match: %v, %v", res, err)
	}
}

// TestScoreHead: a model with a score head records its score utility u
// and reads it back; its evaluator gives value + u·score, clipped, with
// the WDL moved to match (SetScoreUtility and su= change u, Clone keeps
// it); u above 0 for a network without the head is refused everywhere.
func TestScoreHead(t *testing.T) {
	cfg := modeltest.TinyNet
	cfg.ScoreHead = true
	m := modeltest.NewModelOf(t, "frostviken", cfg, 6)
	m.ScoreUtility = 0.6
	path := filepath.Join(t.TempDir(), "s.dbm")
	if err := m.Save(path, nil); err != nil {
		t.Fatal(err)
	}
	back, err := model.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Weights.Config.ScoreHead || back.ScoreUtility != 0.6 || back.Metadata[model.MetaScoreUtility] != "0.6" {
		t.Fatalf("loaded: score head %v, utility %v, metadata %q", back.Weights.Config.ScoreHead, back.ScoreUtility, back.Metadata[model.MetaScoreUtility])
	}

	ps := modeltest.RandomPositions(m.Rules, 30, 4)
	ev := back.NewEvaluator(len(ps), 1)
	defer ev.Close()
	if ev.ScoreUtility() != 0.6 {
		t.Fatalf("the evaluator's utility is %v, want the model's 0.6", ev.ScoreUtility())
	}
	withU := modeltest.Evaluate(t, ev, ps)
	clone := ev.Clone().(*model.NetEvaluator)
	defer clone.Close()
	cloned := modeltest.Evaluate(t, clone, ps)
	if err := ev.SetScoreUtility(0); err != nil {
		t.Fatal(err)
	}
	plain := modeltest.Evaluate(t, ev, ps)
	// The score head alone, position by position.
	ws := back.Net.NewWorkspace(1, 1)
	defer ws.Close()
	in := make([]float32, back.Encoder.InputSize())
	moved, clipped := 0, 0
	for i := range ps {
		back.Encoder.Encode(&ps[i], in)
		if _, _, err := ws.Forward(in, 1); err != nil {
			t.Fatal(err)
		}
		score := float64(ws.Score()[0])
		want := math.Max(-1, math.Min(1, float64(plain[i].Value)+0.6*score))
		got := withU[i]
		if math.Abs(float64(got.Value)-want) > 1e-5 || cloned[i].Value != got.Value {
			t.Fatalf("position %d: value %v (clone %v), want %v + 0.6·%v = %v", i, got.Value, cloned[i].Value, plain[i].Value, score, want)
		}
		w := got.WDL
		if math.Abs(float64(w[0]+w[1]+w[2])-1) > 1e-5 || math.Abs(float64(w[0]-w[2]-got.Value)) > 1e-5 || w[0] < 0 || w[1] < 0 || w[2] < -1e-6 {
			t.Fatalf("position %d: WDL %v for value %v", i, w, got.Value)
		}
		if d := math.Min(float64(plain[i].WDL[1]), 1-math.Abs(want)); math.Abs(float64(w[1])-d) > 1e-5 {
			t.Fatalf("position %d: draw share %v, want %v", i, w[1], d)
		}
		if math.Abs(score) > 0.01 {
			moved++
		}
		if math.Abs(float64(plain[i].Value)+0.6*score) > 1 {
			clipped++
		}
		if !slices.Equal(got.Priors, plain[i].Priors) {
			t.Fatalf("position %d: the score utility changed the priors", i)
		}
	}
	if moved == 0 {
		t.Fatal("the score head gives about 0 everywhere: the test proves nothing")
	}
	t.Logf("%d of %d values moved by the score, %d clipped", moved, len(ps), clipped)

	// Without the head: no utility in the file, u > 0 refused.
	plainModel := modeltest.NewModel(t, "frostviken", 6)
	if err := plainModel.NewEvaluator(1, 1).SetScoreUtility(0.2); err == nil || !strings.Contains(err.Error(), "no score head") {
		t.Errorf("SetScoreUtility(0.2) without a head: %v", err)
	}
	if err := plainModel.NewEvaluator(1, 1).SetScoreUtility(0); err != nil {
		t.Errorf("SetScoreUtility(0) without a head: %v", err)
	}
	plainPath := filepath.Join(t.TempDir(), "p.dbm")
	if err := plainModel.Save(plainPath, nil); err != nil {
		t.Fatal(err)
	}
	if p, err := model.LoadModel(plainPath); err != nil || p.ScoreUtility != 0 || p.Metadata[model.MetaScoreUtility] != "" {
		t.Errorf("a model without a score head records a utility: %v", err)
	}
	plainModel.ScoreUtility = 0.2
	if err := plainModel.Save(plainPath, nil); err == nil || !strings.Contains(err.Error(), "no score head") {
		t.Errorf("saving u = 0.2 without a head: %v", err)
	}
	// A file whose utility is out of range is refused.
	bad := resignModel(rewriteMetadata(t, savedImage(t, m), func(meta map[string]string) { meta[model.MetaScoreUtility] = "2" }))
	if _, err := model.DecodeModel(bad); err == nil || !strings.Contains(err.Error(), "score_utility") {
		t.Errorf("a utility of 2: %v", err)
	}

	// su= sets the utility of a player; it needs a model with the head.
	opts := model.SpecOptions(m.Rules, 1)
	for _, tc := range []struct{ spec, err string }{
		{"gumbel:model=" + path + ",sims=4,m=4,su=0", ""},
		{"mcts:model=" + path + ",sims=4,su=1", ""},
		{"mcts:model=" + plainPath + ",sims=4,su=0", ""},
		{"mcts:model=" + plainPath + ",sims=4,su=0.3", "no score head"},
		{"mcts:model=" + path + ",sims=4,su=1.5", "want a number from 0 to 1"},
		{"mcts:eval=material,sims=4,su=0.3", "needs model="},
	} {
		f, err := mcts.ParseFactory(tc.spec, opts)
		if f != nil {
			f.Close()
		}
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %v, want %q", tc.spec, err, tc.err)
		}
		if err := mcts.CheckSpec(tc.spec); (err == nil) != (tc.err == "" || tc.err == "no score head") {
			t.Errorf("CheckSpec(%s): %v", tc.spec, err)
		}
	}
}

// TestTrainingAidHeads: a model with short-term value heads, or with an
// ownership head, keeps them through its file; they are training aids, so
// its evaluator gives the same priors, values and WDL, bit for bit, as the
// same network without them, whose file does not mention them (and so
// reads and plays as before they existed).
func TestTrainingAidHeads(t *testing.T) {
	for _, tc := range []struct {
		head    string
		set     func(c *net.Config, on bool)
		field   string // in the architecture JSON, with the head
		tensors int    // of the head
	}{
		{net.ShortTermHeadName, func(c *net.Config, on bool) { c.ShortTermHeads = map[bool]int{true: 2}[on] }, `"short_term_heads":2`, 4},
		{net.OwnershipHeadName, func(c *net.Config, on bool) { c.OwnershipHead = on }, `"ownership_head":true`, 2},
	} {
		t.Run(tc.head, func(t *testing.T) {
			cfg := modeltest.TinyNet
			tc.set(&cfg, true)
			m := modeltest.NewModelOf(t, "frostviken", cfg, 6)
			back, err := model.DecodeModel(savedImage(t, m))
			if err != nil {
				t.Fatal(err)
			}
			if back.Weights.Config != m.Weights.Config || !slices.EqualFunc(back.Weights.Tensors, m.Weights.Tensors, sameTensor) ||
				!strings.Contains(back.Metadata[net.MetaArchitecture], tc.field) {
				t.Fatalf("read back: architecture %+v, in the file %s", back.Weights.Config, back.Metadata[net.MetaArchitecture])
			}
			// The same network without the head.
			w := &net.Weights{Config: m.Weights.Config}
			tc.set(&w.Config, false)
			for _, tt := range m.Weights.Tensors {
				if !strings.HasPrefix(tt.Name, tc.head) {
					w.Tensors = append(w.Tensors, tt)
				}
			}
			if len(w.Tensors) != len(m.Weights.Tensors)-tc.tensors {
				t.Fatalf("%d tensors without the head, want %d", len(w.Tensors), len(m.Weights.Tensors)-tc.tensors)
			}
			plain, err := model.NewModel(m.Rules, w, m.Training)
			if err != nil {
				t.Fatal(err)
			}
			plainBack, err := model.DecodeModel(savedImage(t, plain))
			if err != nil {
				t.Fatal(err)
			}
			if a := plainBack.Metadata[net.MetaArchitecture]; strings.Contains(a, tc.head) || plainBack.Weights.Config != w.Config || len(w.Config.Heads()) != 0 {
				t.Fatalf("a network without the head has the architecture %s", a)
			}
			ps := modeltest.RandomPositions(m.Rules, 20, 3)
			with, without := modeltest.EvalAll(t, back, ps), modeltest.EvalAll(t, plainBack, ps)
			for i := range ps {
				if with[i].Value != without[i].Value || with[i].WDL != without[i].WDL || !slices.Equal(with[i].Priors, without[i].Priors) {
					t.Fatalf("position %d: the head changes the evaluation: %v %v, without it %v %v",
						i, with[i].Value, with[i].WDL, without[i].Value, without[i].WDL)
				}
			}
			// The head's outputs are there for whoever asks.
			ws := back.Net.NewWorkspace(1, 1)
			defer ws.Close()
			in := make([]float32, back.Encoder.InputSize())
			back.Encoder.Encode(&ps[0], in)
			if _, _, err := ws.Forward(in, 1); err != nil {
				t.Fatal(err)
			}
			h := m.Weights.Config.Heads()[0]
			if out := ws.HeadOutputs(tc.head); len(out) != h.Size(back.Encoder.Points()) || slices.Min(out) == slices.Max(out) {
				t.Errorf("%s outputs %v", tc.head, out)
			}
		})
	}
}

// sameTensor reports whether a and b have the same name, shape and values.
func sameTensor(a, b net.Tensor) bool {
	return a.Name == b.Name && slices.Equal(a.Shape, b.Shape) && slices.Equal(a.Data, b.Data)
}

// TestTacticalPlanes: a network with the tactical planes takes the base
// planes and the tactical ones, records encoding version 2 and
// "tactical_planes" in its file, and reads back evaluating bit for bit as
// written; a network without them records version 1 and no such field.
// A file whose encoding version disagrees with its network is refused.
func TestTacticalPlanes(t *testing.T) {
	cfg := modeltest.TinyNet
	cfg.TacticalPlanes = true
	for _, tc := range []struct {
		name     string
		cfg      net.Config
		planes   int
		version  string
		tactical bool
	}{
		{"without", modeltest.TinyNet, encode.BasePlanes, "1", false},
		{"with", cfg, encode.BasePlanes + encode.TacticalPlanes, "2", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := modeltest.NewModelOf(t, "dablot", tc.cfg, 8)
			if m.Weights.Config.InputPlanes != tc.planes || m.Encoder.Planes() != tc.planes || m.Encoder.Options().Tactical != tc.tactical {
				t.Fatalf("%d input planes, encoder %d (%+v), want %d", m.Weights.Config.InputPlanes, m.Encoder.Planes(), m.Encoder.Options(), tc.planes)
			}
			buf := savedImage(t, m)
			back, err := model.DecodeModel(buf)
			if err != nil {
				t.Fatal(err)
			}
			arch := back.Metadata[net.MetaArchitecture]
			if back.Metadata[model.MetaEncoding] != tc.version || strings.Contains(arch, `"tactical_planes":true`) != tc.tactical ||
				!tc.tactical && strings.Contains(arch, "tactical") || back.Encoder.Options() != m.Encoder.Options() {
				t.Fatalf("read back: encoding version %s, architecture %s, encoder %+v", back.Metadata[model.MetaEncoding], arch, back.Encoder.Options())
			}
			ps := modeltest.RandomPositions(m.Rules, 20, 3)
			a, b := modeltest.EvalAll(t, m, ps), modeltest.EvalAll(t, back, ps)
			for i := range a {
				if a[i].Value != b[i].Value || a[i].WDL != b[i].WDL || !slices.Equal(a[i].Priors, b[i].Priors) {
					t.Fatalf("position %d evaluates differently after loading", i)
				}
			}
			// The other version is refused, however signed.
			other := map[string]string{"1": "2", "2": "1"}[tc.version]
			bad := resignModel(rewriteMetadata(t, buf, func(meta map[string]string) { meta[model.MetaEncoding] = other }))
			if _, err := model.DecodeModel(bad); err == nil || !strings.Contains(err.Error(), "input planes") {
				t.Errorf("encoding version %s for this network: %v", other, err)
			}
		})
	}
}
