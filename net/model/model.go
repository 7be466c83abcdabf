package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/encode"
)

// Metadata keys of a model file, besides the network's own (net.Meta*).
const (
	MetaVariant     = "variant"         // the variant's name
	MetaRules       = "rules_yaml"      // the full rules as a variant file (game.Rules.YAML)
	MetaCanonical   = "rules_canonical" // game.Rules.Canonical
	MetaFingerprint = "rules_fingerprint"
	MetaEncoding    = "encoding_version" // the encoder's version (encode.Options.Version)
	MetaCode        = "code_version"     // CodeVersion of the program that wrote it
	MetaTrainedBy   = "trained_by"       // CodeVersion of the program that trained the weights
	MetaCreated     = "created"          // RFC 3339 time
	MetaGeneration  = "generation"       // the training generation of the weights
	MetaTraining    = "training"         // JSON TrainingSummary
	MetaRatings     = "ratings"          // JSON rating table, when known
	// MetaScoreUtility is the score utility the network was trained with
	// (SelfPlayConfig.ScoreUtility), which its players use by default;
	// only in the files of networks with a score head.
	MetaScoreUtility = "score_utility"
)

// MaxScoreUtility bounds a score utility: the score then counts at most as
// much as the value.
const MaxScoreUtility = 1

// CheckScoreUtility returns an error unless u is a score utility a network
// can use: 0 (off), or for a network with a score head (hasHead) a number
// up to MaxScoreUtility.
func CheckScoreUtility(u float64, hasHead bool) error {
	switch {
	case !(u >= 0 && u <= MaxScoreUtility):
		return fmt.Errorf("score utility %v: want a number from 0 to %d", u, MaxScoreUtility)
	case u > 0 && !hasHead:
		return fmt.Errorf("score utility %v: the network has no score head (0 turns it off)", u)
	}
	return nil
}

// TrainingSummary is the provenance a model file carries: where its weights
// came from and how much training made them.
type TrainingSummary struct {
	Run         string  `json:"run,omitempty"`    // run directory name
	RunID       string  `json:"run_id,omitempty"` // the run's identity, which names it wherever its directory moves
	Preset      string  `json:"preset,omitempty"` // training preset
	Seed        uint64  `json:"seed"`
	Generation  int     `json:"generation"`
	Games       int     `json:"games"`
	Samples     int64   `json:"samples"`
	TrainSteps  int     `json:"train_steps"`
	Hours       float64 `json:"hours"` // wall-clock hours of training, over every resumed or warm-started run
	InitFrom    string  `json:"init_from,omitempty"`
	InitVariant string  `json:"init_variant,omitempty"` // the variant of InitFrom, when it is not this one (transfer)
	InitSHA256  string  `json:"init_sha256,omitempty"`  // the checksum of InitFrom's data, which names it wherever the file moves
	Description string  `json:"description,omitempty"`
}

// Model is a network together with the variant it plays: what a model file
// holds. It is immutable once loaded and may be shared by goroutines (each
// evaluator made by NewEvaluator has its own buffers).
type Model struct {
	Rules    *game.Rules
	Encoder  *encode.Encoder
	Topology *net.Topology
	Weights  *net.Weights
	Net      *net.Evaluator
	Training TrainingSummary
	// ScoreUtility is the weight u of the score head in the value its
	// evaluators give (value + u·score, see NetEvaluator): the one its
	// file records (MetaScoreUtility), 0 without a score head. Save
	// records it.
	ScoreUtility float64
	// Metadata holds every entry of the file, including the ones above.
	Metadata map[string]string
}

// Topology returns the network graph of a variant's board.
func Topology(r *game.Rules) *net.Topology {
	return &net.Topology{Points: r.Board.Points(), Neighbors: encode.New(r, encode.Options{}).Neighbors()}
}

// EncodeOptions returns the input encoding of a network of architecture
// cfg: the tactical planes with cfg.TacticalPlanes.
func EncodeOptions(cfg net.Config) encode.Options {
	return encode.Options{Tactical: cfg.TacticalPlanes}
}

// WithInputPlanes returns cfg with InputPlanes set to the number of planes
// of its encoding (EncodeOptions).
func WithInputPlanes(cfg net.Config) net.Config {
	cfg.InputPlanes = EncodeOptions(cfg).Planes()
	return cfg
}

// NewModel wraps weights for variant r; the encoder follows the network's
// architecture (EncodeOptions).
func NewModel(r *game.Rules, w *net.Weights, ts TrainingSummary) (*Model, error) {
	o := EncodeOptions(w.Config)
	if w.Config.InputPlanes != o.Planes() {
		return nil, fmt.Errorf("model: network takes %d input planes, encoding version %d has %d", w.Config.InputPlanes, o.Version(), o.Planes())
	}
	enc := encode.New(r, o)
	topo := Topology(r)
	ev, err := net.NewEvaluator(topo, w)
	if err != nil {
		return nil, err
	}
	return &Model{Rules: r, Encoder: enc, Topology: topo, Weights: w, Net: ev, Training: ts, Metadata: map[string]string{}}, nil
}

// NewNetwork returns a freshly initialised network of architecture cfg
// (InputPlanes is set to the encoding's, WithInputPlanes) for variant r.
func NewNetwork(r *game.Rules, cfg net.Config, seed uint64) (*Model, error) {
	w, err := net.NewWeights(WithInputPlanes(cfg), seed)
	if err != nil {
		return nil, err
	}
	return NewModel(r, w, TrainingSummary{Seed: seed})
}

// Save writes the model file atomically, recording the variant and its full
// rules, the encoding and code versions, the training summary and extra
// metadata entries (such as MetaRatings).
func (m *Model) Save(path string, extra map[string]string) error {
	ts, err := json.Marshal(m.Training)
	if err != nil {
		return err
	}
	meta := map[string]string{}
	for k, v := range extra {
		meta[k] = v
	}
	meta[MetaVariant] = m.Rules.Name
	meta[MetaRules] = string(m.Rules.YAML())
	meta[MetaCanonical] = m.Rules.Canonical()
	meta[MetaFingerprint] = m.Rules.Fingerprint()
	meta[MetaEncoding] = strconv.Itoa(m.Encoder.Options().Version())
	meta[MetaCode] = CodeVersion()
	meta[MetaTrainedBy] = m.TrainedBy()
	meta[MetaCreated] = time.Now().UTC().Format(time.RFC3339)
	meta[MetaGeneration] = strconv.Itoa(m.Training.Generation)
	meta[MetaTraining] = string(ts)
	delete(meta, MetaScoreUtility)
	if err := CheckScoreUtility(m.ScoreUtility, m.Weights.Config.ScoreHead); err != nil {
		return fmt.Errorf("model: save: %w", err)
	}
	if m.Weights.Config.ScoreHead {
		meta[MetaScoreUtility] = strconv.FormatFloat(m.ScoreUtility, 'g', -1, 64)
	}
	return net.Save(path, m.Topology, m.Weights, meta)
}

// TrainedBy returns the code version of the program that trained the
// weights: the one a loaded file records (MetaTrainedBy, or for a file
// from before that entry, the program that wrote it), else this program's.
// Save keeps it, so an exported model names the code that trained it, not
// the code that exported it.
func (m *Model) TrainedBy() string {
	for _, k := range []string{MetaTrainedBy, MetaCode} {
		if v := m.Metadata[k]; v != "" {
			return v
		}
	}
	return CodeVersion()
}

// LoadModel reads a model file. The variant comes from the file itself (its
// full rules), so a model of a variant written by hand loads anywhere. A
// damaged file, one whose metadata were changed after it was written, a
// file of another encoding version, rules that do not read back as
// recorded, or weights that are not finite are refused with an error naming
// the problem; so is a path that is not a regular file (a device, a named
// pipe) or one larger than net.MaxModelBytes.
func LoadModel(path string) (*Model, error) {
	buf, err := net.ReadModelFile(path)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", path, err)
	}
	m, err := DecodeModel(buf)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", path, err)
	}
	return m, nil
}

// DecodeModel is LoadModel on a file's contents. Its metadata are read
// once the file's checksums, which cover them (in files written since
// metadata checksums exist), are verified; the rules, whatever the file's
// age, must agree with the variant name, the canonical form and the
// fingerprint the file records.
func DecodeModel(buf []byte) (*Model, error) {
	var r *game.Rules
	var opts encode.Options
	nm, err := net.DecodeFunc(buf, func(meta map[string]string) (net.Expect, error) {
		var err error
		r, opts, err = modelRules(meta)
		if err != nil {
			return net.Expect{}, err
		}
		return net.Expect{Topology: Topology(r), InputPlanes: opts.Planes()}, nil
	})
	if err != nil {
		return nil, err
	}
	meta := nm.Metadata
	var ts TrainingSummary
	if s := meta[MetaTraining]; s != "" {
		if err := json.Unmarshal([]byte(s), &ts); err != nil {
			return nil, fmt.Errorf("bad training summary in the model: %v", err)
		}
	}
	m, err := NewModel(r, nm.Weights, ts)
	if err != nil {
		return nil, err
	}
	if s, ok := meta[MetaScoreUtility]; ok {
		u, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("bad %s %q in the model: %v", MetaScoreUtility, s, err)
		}
		if err := CheckScoreUtility(u, nm.Weights.Config.ScoreHead); err != nil {
			return nil, fmt.Errorf("the model's %s: %w", MetaScoreUtility, err)
		}
		m.ScoreUtility = u
	}
	m.Metadata = nm.Metadata
	return m, nil
}

// modelRules reads the rules a model file's metadata record and checks
// them against the file's other records of the game: its encoding version,
// the canonical form, the fingerprint and the variant's name. It returns
// them with the options of the file's encoding.
func modelRules(meta map[string]string) (*game.Rules, encode.Options, error) {
	var o encode.Options
	v, err := strconv.Atoi(meta[MetaEncoding])
	if err == nil {
		o, err = encode.OptionsOf(v)
	} else {
		err = fmt.Errorf("encoding version %q is not a number", meta[MetaEncoding])
	}
	if err != nil {
		return nil, o, fmt.Errorf("%w: re-train or use the program that wrote it", err)
	}
	r, err := recordedRules(meta)
	return r, o, err
}

// recordedRules reads the rules a model file's metadata record and checks
// them against the canonical form, the fingerprint and the variant's name
// the file records.
func recordedRules(meta map[string]string) (*game.Rules, error) {
	yml, ok := meta[MetaRules]
	if !ok {
		return nil, errors.New("no rules in the model's metadata (not a dablot-zero model file?)")
	}
	r, err := game.ParseVariant([]byte(yml), nil)
	if err != nil {
		return nil, fmt.Errorf("rules in the model: %w", err)
	}
	if c := meta[MetaCanonical]; c != r.Canonical() {
		return nil, fmt.Errorf("rules in the model read back as %s, the model records %s", r.Canonical(), c)
	}
	if fp, ok := meta[MetaFingerprint]; ok && fp != r.Fingerprint() {
		return nil, fmt.Errorf("rules in the model have the fingerprint %s, the model records %s", r.Fingerprint(), fp)
	}
	if v, ok := meta[MetaVariant]; ok && v != r.Name {
		return nil, fmt.Errorf("rules in the model are %s's, the model records the variant %q", r.Name, v)
	}
	return r, nil
}

// CodeVersion identifies the program: the module version and, in binaries
// built from a git checkout, the commit (with "+dirty" for local changes).
func CodeVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" && !strings.Contains(v, rev) {
		// Go 1.24 and later put the commit into the version itself (a
		// pseudo-version such as v0.0.0-20261121202949-a551155e27b2+dirty);
		// older toolchains and GOFLAGS=-buildvcs=false builds say "(devel)".
		v += " " + rev + dirty
	}
	return v
}
