package train

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/internal/durable"
	"github.com/dablot-zero/dablot/internal/numeric"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/net/trainer"
)

// Config is a training preset: everything a run does, and the seed every
// random choice of the run flows from. It is read from YAML by ParseConfig
// (the built-in presets are configs/train/*.yaml, see LoadPreset), its
// bases merged in, and stored in the run directory as used, complete.
type Config struct {
	Name string `yaml:"name"`
	// Variant is a variant spec (configs.Variant): the one a run plays
	// unless --variant names another. The built-in presets name none (the
	// command line, or an --init model, decides); a run records its own.
	Variant string `yaml:"variant"`
	Seed    uint64 `yaml:"seed"`

	Network NetworkConfig `yaml:"network"`

	SelfPlay   SelfPlayConfig   `yaml:"selfplay"`
	Train      TrainerConfig    `yaml:"train"`
	Evaluation EvaluationConfig `yaml:"evaluation"`
	Rating     RatingConfig     `yaml:"rating"`
	Stop       StopConfig       `yaml:"stop"`
	// Notes say what reading the config changed: the retired settings it
	// held at their off values, dropped (dropRetired). Not written.
	Notes []string `yaml:"-"`
	// Snapshots are CPU hours of the run (stop.cpu_hours counts the same
	// time): at the end of the first generation at or past each, the run
	// keeps its best network as snapshots/VARIANT-Hh.dbm (Run.keepSnapshots),
	// the points of its learning curve. Increasing, each above 0.
	Snapshots []float64 `yaml:"snapshots,omitempty"`
}

// maxSnapshots bounds snapshots: a curve needs a handful of points.
const maxSnapshots = 32

// NetworkConfig is the architecture of a new network (a warm start keeps the
// architecture of its model).
type NetworkConfig struct {
	Blocks      int `yaml:"blocks"`
	Channels    int `yaml:"channels"`
	ValueHidden int `yaml:"value_hidden"`
	// ScoreHead adds a score head to the network (net.Config.ScoreHead):
	// it learns the side to move's material lead selfplay.material_horizon
	// decisions on, as tanh(lead/selfplay.adjudication_scale), with the
	// weight train.score_weight, beside a value head that keeps the game's
	// result; the search adds selfplay.score_utility times its output to
	// the value.
	ScoreHead bool `yaml:"score_head,omitempty"`
	// OwnershipHead adds an ownership head to the network
	// (net.Config.OwnershipHead): at every point, who holds it at the end
	// of the game, from the side to move's point of view, trained with the
	// weight train.ownership_weight beside a value head that keeps the
	// game's result. A training aid: the search does not use it.
	OwnershipHead bool `yaml:"ownership_head,omitempty"`
}

// SelfPlayConfig sets up the games the current best network plays against
// itself.
type SelfPlayConfig struct {
	// Games per generation, and how many are played at once (their leaves
	// share the network in batches).
	Games   int `yaml:"games"`
	Workers int `yaml:"workers"`
	// Search is "gumbel" or "puct".
	Search string `yaml:"search"`
	// Playout-cap randomisation (KataGo): a decision is searched with
	// FullSims simulations with probability FullFraction and becomes a
	// training sample; the others are searched with FastSims and only
	// played.
	FullSims     int     `yaml:"full_sims"`
	FastSims     int     `yaml:"fast_sims"`
	FullFraction float64 `yaml:"full_fraction"`
	// GumbelM is the number of root decisions Gumbel search samples.
	GumbelM int `yaml:"gumbel_m"`
	// Solve and Forced turn on mcts.Config.Solver (proven wins and losses
	// decide the search, and a proven win is the policy target) and
	// mcts.Config.SkipForced (a forced decision costs no evaluation) in
	// self-play, evaluation and rating games. A config without them (one
	// written before they existed) searches as it did then.
	Solve  bool `yaml:"solve"`
	Forced bool `yaml:"forced"`
	// PUCT only: Dirichlet noise weight and the turns played with
	// temperature 1.
	Noise            float64 `yaml:"noise"`
	TemperatureTurns int     `yaml:"temperature_turns"`
	// LeafBatch is the number of leaves one search gathers (with virtual
	// loss) before it asks the network; NetBatch bounds one forward pass.
	LeafBatch int `yaml:"leaf_batch"`
	NetBatch  int `yaml:"net_batch"`
	// RandomTurns random turns open every game, for variety.
	RandomTurns int `yaml:"random_turns"`
	// Adjudication shapes the value target of games drawn by the
	// no-capture or length limit (docs/rules.md §6, the pipeline's own
	// limits): instead of 0 it is Adjudication·tanh(b/AdjudicationScale),
	// where b is the material balance at the end (soldier 1, prince 3,
	// king 5) for the side to move of the sample. Early networks draw
	// almost every game by these limits; the shaped target teaches them
	// that material wins games. 0 turns it off. Records keep the real
	// result, and the game is unchanged.
	Adjudication      float64 `yaml:"adjudication"`
	AdjudicationScale float64 `yaml:"adjudication_scale"`
	// MaterialHorizon and MaterialWeight add a short-horizon material
	// signal to every value target: the target becomes
	// (1-w)·T + w·Adjudication·tanh(b'/AdjudicationScale), where T is the
	// target above and b' the material balance MaterialHorizon decisions
	// after the sample (or at the end of the game, if sooner). Results of
	// long self-play games say little about a position hundreds of
	// decisions before the end; what material a position keeps over the
	// next few dozen decisions is what a young network can learn first
	// (threats, safe squares). 0 turns it off.
	MaterialHorizon int     `yaml:"material_horizon"`
	MaterialWeight  float64 `yaml:"material_weight"`
	// ScoreUtility is the weight u of the score head in the value the
	// search uses, value + u·score clipped to [-1, 1] (KataGo's score
	// utility): in self-play, and as the default of the players of the
	// models the run writes (spec key su=). Only with network.score_head;
	// 0 turns it off.
	ScoreUtility float64 `yaml:"score_utility,omitempty"`
	// MaterialBlend, when above 0, puts mcts.MaterialBlend in front of the
	// network in self-play, evaluation and rating games: the value's logit
	// is shifted by MaterialBlend per soldier of material balance, so the
	// search keeps material that the network's value does not yet see.
	// 0 turns it off.
	MaterialBlend float64 `yaml:"material_blend"`
	// EndgameFraction is the share of self-play games that start from a
	// random reduced position instead of the variant's setup (an endgame
	// curriculum, match.DefaultEndgame): each side keeps its king with
	// probability 0.9, its prince (if the setup has one) with probability
	// 0.5 and 0 to EndgameSoldiers soldiers, on random points, either side
	// to move. Such games are short and often decided, so they teach the
	// network to turn a lead into a win long before full games reach those
	// positions. 0 turns it off.
	EndgameFraction float64 `yaml:"endgame_fraction"`
	EndgameSoldiers int     `yaml:"endgame_soldiers"`
	// PolicySurprise weights the samples of each game by how much their
	// policy target surprised the network (KataGo's policy surprise
	// weighting, see surpriseWeights): half of the weight of the game's
	// full searches is spread evenly over them and half in proportion to
	// each one's KL(policy target ‖ network's prior). A sample of weight w
	// is written floor(w) times and once more with probability
	// w - floor(w), so a game writes about as many samples as it has full
	// searches, and the trainer needs no weights. Fast searches still
	// write none.
	PolicySurprise bool `yaml:"policy_surprise,omitempty"`
	// PlainRaces, when set, turns the hand-written material terms off in
	// positions with one king on the board: once one side holds the only
	// king (a king falls only to a king, so that side cannot lose). The
	// material blend (MaterialBlend) leaves their values as the network
	// gives them, a game drawn by a limit with one king left is a draw in
	// the value targets (no Adjudication), and a sample of such a position
	// has its game's result as its value target (no material term). The
	// terms count the king as 5 soldiers, so they call every race the
	// holder's, drawn or not, whatever it keeps beside its king, and the
	// network believes a lone king wins a third of the races it never wins
	// (docs/diagnosis.md §6). Before a race, with a king on each side, the
	// kings cancel and nothing changes. overnight sets it: two CPU hours
	// with it beat two without from the second curve run's end, 54.0 % with
	// the shipped player (issue 70's Stage B, technique 11).
	PlainRaces bool `yaml:"plain_races,omitempty"`
	// RaceGuard, when set, runs the shipped player's guard before every
	// self-play search while both sides have a king, within its node budget
	// (mcts.DefaultGuardNodes) since self-play has no clock, and excludes what it
	// vetoes: the king race is played, and its samples' policy targets
	// learned, with the tactics of the guard, which the network's fast
	// search does not see. At play time the shipped player loses the race
	// from both sides of some openings to the classical control, walking
	// into a king hunt its network did not see coming (issue 70's Stage B,
	// technique 13). The race is a few dozen decisions of a dablot game, so
	// the guard costs little there; where taking a king ends the game
	// (winther, frostviken) both kings stand until the end and it guards
	// every decision, as the guard in self-play that lost (ablations §4).
	// On trial; it leaves if its arm does not win.
	RaceGuard bool `yaml:"race_guard,omitempty"`
}

// TrainerConfig sets up the network training of each generation.
type TrainerConfig struct {
	BatchSize    int     `yaml:"batch_size"`
	LearningRate float64 `yaml:"learning_rate"`
	// RateDrops lowers the learning rate as the run's history grows: from
	// a drop's Samples on, the rate is its Rate (see RateAt). Empty keeps
	// LearningRate throughout.
	RateDrops   []RateDrop `yaml:"rate_drops,omitempty"`
	WeightDecay float64    `yaml:"weight_decay"`
	ValueWeight float64    `yaml:"value_weight"`
	// Reuse is how many times, on average, each new sample is drawn for
	// training: a generation trains ceil(Reuse·new samples / BatchSize)
	// steps (at least MinSteps).
	Reuse    float64 `yaml:"reuse"`
	MinSteps int     `yaml:"min_steps"`
	// The replay window holds the newest samples: WindowMin, growing as
	// WindowMin·(total/WindowMin)^WindowExponent once more samples exist,
	// never more than WindowMax (KataGo's sublinear window).
	WindowMin      int     `yaml:"window_min"`
	WindowMax      int     `yaml:"window_max"`
	WindowExponent float64 `yaml:"window_exponent"`
	// Mirror trains on the left-right mirror image of half the samples.
	Mirror bool `yaml:"mirror"`
	// QWeight blends the search's value into the value target:
	// (1-QWeight)·result + QWeight·search value.
	QWeight float64 `yaml:"q_weight"`
	// ScoreWeight is the weight of the score head's loss (squared error)
	// beside the policy's and the value's; only with network.score_head,
	// which it defaults to 1 for (see ScoreLossWeight).
	ScoreWeight *float64 `yaml:"score_weight,omitempty"`
	// OwnershipWeight is the weight of the ownership head's loss (squared
	// errors, averaged over the points); only with network.ownership_head,
	// which it defaults to 1 for (see OwnershipLossWeight).
	OwnershipWeight *float64 `yaml:"ownership_weight,omitempty"`
}

// RateDrop is one step down of the learning rate: Rate from Samples of
// history on (TrainerConfig.RateDrops).
type RateDrop struct {
	Samples int64   `yaml:"samples"`
	Rate    float64 `yaml:"rate"`
}

// maxRateDrops bounds train.rate_drops: a schedule needs a few steps.
const maxRateDrops = 16

// RateAt returns the learning rate after history samples: that of the
// last drop whose Samples history has reached, else LearningRate. The
// history is every sample the network has trained towards: the run's
// own and, after a same-variant --init, its model's (Run.inheritedSamples),
// so a warm start goes on at the rate its history had reached and a
// transfer to another variant begins again at the top.
func (t *TrainerConfig) RateAt(history int64) float64 {
	lr := t.LearningRate
	for _, d := range t.RateDrops {
		if history >= d.Samples {
			lr = d.Rate
		}
	}
	return lr
}

// validDrops reports whether ds has at most maxRateDrops drops at samples
// that increase strictly from above 0, each rate between 0 and 1.
func validDrops(ds []RateDrop) bool {
	for i, d := range ds {
		if d.Samples <= 0 || !(d.Rate > 0 && d.Rate < 1) || i > 0 && d.Samples <= ds[i-1].Samples {
			return false
		}
	}
	return len(ds) <= maxRateDrops
}

// ScoreLossWeight returns the weight of the score head's loss of a network
// with a score head (hasHead): train.score_weight, 1 if it is not given;
// 0 without the head.
func (t *TrainerConfig) ScoreLossWeight(hasHead bool) float64 {
	return headLossWeight(t.ScoreWeight, hasHead)
}

// OwnershipLossWeight returns the weight of the ownership head's loss of a
// network with the head (hasHead): train.ownership_weight, 1 if it is not
// given; 0 without the head.
func (t *TrainerConfig) OwnershipLossWeight(hasHead bool) float64 {
	return headLossWeight(t.OwnershipWeight, hasHead)
}

// headLossWeight is the loss weight w of an auxiliary head, 1 if it is not
// given, for a network that has the head (hasHead); 0 for one without.
func headLossWeight(w *float64, hasHead bool) float64 {
	switch {
	case !hasHead:
		return 0
	case w != nil:
		return *w
	}
	return 1
}

// EvaluationConfig decides whether a trained candidate replaces the best
// network.
type EvaluationConfig struct {
	// Mode is "always" (promote every candidate), "games" (promote if the
	// candidate scores at least Threshold in Games games) or "sprt" (a
	// GSPRT of Elo0 against Elo1 over at most Games games; promote when H1
	// is accepted, or when the match ends undecided with a score ≥
	// Threshold).
	Mode        string  `yaml:"mode"`
	Games       int     `yaml:"games"`
	Threshold   float64 `yaml:"threshold"`
	Elo0        float64 `yaml:"elo0"`
	Elo1        float64 `yaml:"elo1"`
	Sims        int     `yaml:"sims"`
	RandomTurns int     `yaml:"random_turns"`
}

// RatingConfig sets up the matches against fixed anchor players that rate
// the promoted networks.
type RatingConfig struct {
	// Every Nth generation that promotes a new best network plays the
	// anchors (0: no rating); the last generation of a run always does.
	Every   int      `yaml:"every"`
	Games   int      `yaml:"games"` // per anchor
	Sims    int      `yaml:"sims"`  // the network's simulations per decision
	Anchors []string `yaml:"anchors"`
	// RandomTurns random turns open each pair of games.
	RandomTurns int `yaml:"random_turns"`
	// Previous games against the previous rated generation (0: none): with
	// them the ratings of successive generations are tied by a match of
	// their own, which tells them apart far better than small matches
	// against fixed anchors do.
	Previous int `yaml:"previous"`
	// Book starts the games from the variant's opening book (configs/books;
	// each opening twice, colours swapped, as dablot ladder does) when it
	// has one, after RandomTurns random turns.
	Book bool `yaml:"book"`
}

// StopConfig ends a run: after Generations generations, Hours of wall-clock
// time (counted over the whole run, resumes and a warm start's history
// included) or CPUHours of the run's own CPU time (resumes included),
// whichever comes first; zero is no bound (at least one must be set).
// CPUHours makes two runs comparable on a shared machine: an ablation and its
// control get the same compute whatever else runs beside them.
type StopConfig struct {
	Generations int     `yaml:"generations"`
	Hours       float64 `yaml:"hours"`
	CPUHours    float64 `yaml:"cpu_hours"`
}

// maxRatingGames bounds each rating match (rating.games, rating.previous):
// ten thousand games take hours even at a few simulations.
const maxRatingGames = 10000

// maxConfigBytes bounds a training config (a preset) and each of its
// bases; the presets take a few kilobytes.
const maxConfigBytes = 64 << 10

// ParseConfig reads a training config. It may name a built-in preset as its
// base ("base: hour"), a chain of bases too, and state only what differs:
// its mappings are merged into the base's key by key, at every depth, and
// each value it gives, a list too, replaces the base's. The name and the
// description are a file's own, never inherited. Unknown or repeated keys,
// an unknown base, a cycle of bases, values out of range (of the config as
// merged) and a file of more than maxConfigBytes are errors naming the
// problem. The config returned is complete: its YAML names no base.
func ParseConfig(data []byte) (*Config, error) {
	return parseConfig(data, configs.PresetYAML)
}

// parseConfig is ParseConfig with the bases looked up by lookup.
func parseConfig(data []byte, lookup func(name string) ([]byte, error)) (*Config, error) {
	c := &Config{}
	if _, err := decodePreset(data, c, lookup, nil); err != nil {
		return nil, fmt.Errorf("training config: %w", err)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// presetFile is a preset as a file gives it: the config, and beside it the
// base it starts from and a one-line description (neither is part of the
// config a run records).
type presetFile struct {
	Base        string `yaml:"base"`
	Description string `yaml:"description"`
	Config      `yaml:",inline"`
}

// decodePreset decodes the preset data onto c, after the chain of its
// bases (looked up by lookup; chain holds the bases already being
// decoded, to refuse a cycle), and returns its description.
func decodePreset(data []byte, c *Config, lookup func(string) ([]byte, error), chain []string) (string, error) {
	if len(data) > maxConfigBytes {
		return "", fmt.Errorf("%d bytes, more than the %d a config may have", len(data), maxConfigBytes)
	}
	var head struct {
		Base string `yaml:"base"`
	}
	if err := yaml.Unmarshal(data, &head); err != nil {
		return "", yamlError(err)
	}
	if b := head.Base; b != "" {
		if slices.Contains(chain, b) {
			return "", fmt.Errorf("base %q: a cycle of bases (%s -> %s)", b, strings.Join(chain, " -> "), b)
		}
		base, err := lookup(b)
		if err != nil {
			return "", fmt.Errorf("base %q: %w", b, err)
		}
		if _, err := decodePreset(base, c, lookup, append(chain, b)); err != nil {
			return "", fmt.Errorf("base %q: %w", b, err)
		}
		c.Name = ""
	}
	data, notes, err := dropRetired(data)
	if err != nil {
		return "", err
	}
	c.Notes = append(c.Notes, notes...)
	f := presetFile{Config: *c}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return "", errors.New("empty")
		}
		return "", yamlError(err)
	}
	if f.Base != "" && f.Name == "" {
		return "", fmt.Errorf("name: a config with a base needs a name of its own (its base's, %s, is not inherited)", f.Base)
	}
	*c = f.Config
	return f.Description, nil
}

// yamlError is a YAML error without yaml.v3's prefix.
func yamlError(err error) error {
	return errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
}

// LoadConfig reads a training config file: a regular file of at most
// maxConfigBytes, parsed by ParseConfig.
func LoadConfig(path string) (*Config, error) {
	_, c, err := readConfigFile(path)
	return c, err
}

// readConfigFile is LoadConfig that also returns the file's bytes.
func readConfigFile(path string) ([]byte, *Config, error) {
	data, err := durable.ReadFile(path, "training config", maxConfigBytes)
	if err != nil {
		return nil, nil, err
	}
	c, err := ParseConfig(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, c, nil
}

// LoadPreset reads the training config spec names: a built-in preset
// ("hour", see Presets) or, if spec is a path (configs.IsPath: it has a
// slash or ends in .yaml), a file (LoadConfig).
func LoadPreset(spec string) (*Config, error) {
	if configs.IsPath(spec) {
		return LoadConfig(spec)
	}
	data, err := configs.PresetYAML(spec)
	if err != nil {
		return nil, fmt.Errorf("%w; a file is given by its path, such as ./%s.yaml", err, spec)
	}
	c, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("preset %s: %w", spec, err)
	}
	return c, nil
}

// Preset is a built-in training preset: its name and its description.
type Preset struct {
	Name        string
	Description string
}

// Presets returns the built-in training presets (configs/train), sorted by
// name.
func Presets() []Preset {
	var out []Preset
	for _, name := range configs.PresetNames() {
		data, err := configs.PresetYAML(name)
		desc := ""
		if err == nil {
			desc, err = decodePreset(data, &Config{}, configs.PresetYAML, nil)
		}
		if err != nil { // TestPresets reads them all
			desc = "(does not read: " + err.Error() + ")"
		}
		out = append(out, Preset{Name: name, Description: desc})
	}
	return out
}

// YAML returns the config as a file that ParseConfig reads back.
func (c *Config) YAML() []byte {
	out, err := yaml.Marshal(c)
	if err != nil {
		panic("train: marshalling config: " + err.Error())
	}
	return out
}

// Validate reports the first field out of range, by its YAML path.
func (c *Config) Validate() error {
	type check struct {
		ok    bool
		field string
		want  string
		value any
	}
	s, t, e, r := &c.SelfPlay, &c.Train, &c.Evaluation, &c.Rating
	checks := []check{
		{c.Name != "", "name", "a name", c.Name},
		{c.Network.Blocks >= 0 && c.Network.Blocks <= 64, "network.blocks", "0 to 64", c.Network.Blocks},
		{c.Network.Channels >= 1 && c.Network.Channels <= 1024, "network.channels", "1 to 1024", c.Network.Channels},
		{c.Network.ValueHidden >= 1 && c.Network.ValueHidden <= 4096, "network.value_hidden", "1 to 4096", c.Network.ValueHidden},
		{s.Games >= 1, "selfplay.games", "at least 1", s.Games},
		{s.Workers >= 1 && s.Workers <= 4096, "selfplay.workers", "1 to 4096", s.Workers},
		{s.Search == "gumbel" || s.Search == "puct", "selfplay.search", "gumbel or puct", s.Search},
		{s.FullSims >= 1 && s.FullSims <= mcts.MaxSims, "selfplay.full_sims", simsRange, s.FullSims},
		{s.FastSims >= 1 && s.FastSims <= s.FullSims, "selfplay.fast_sims", "1 to full_sims", s.FastSims},
		{s.FullFraction > 0 && s.FullFraction <= 1, "selfplay.full_fraction", "more than 0, at most 1", s.FullFraction},
		{s.Search != "gumbel" || s.GumbelM >= 2, "selfplay.gumbel_m", "at least 2", s.GumbelM},
		{s.Noise >= 0 && s.Noise <= 1, "selfplay.noise", "0 to 1", s.Noise},
		{s.TemperatureTurns >= 0, "selfplay.temperature_turns", "0 or more", s.TemperatureTurns},
		{s.LeafBatch >= 1 && s.LeafBatch <= 256, "selfplay.leaf_batch", "1 to 256", s.LeafBatch},
		{s.NetBatch >= 1 && s.NetBatch <= 4096, "selfplay.net_batch", "1 to 4096", s.NetBatch},
		{s.RandomTurns >= 0, "selfplay.random_turns", "0 or more", s.RandomTurns},
		{s.Adjudication >= 0 && s.Adjudication < 1, "selfplay.adjudication", "0 to less than 1", s.Adjudication},
		{s.Adjudication == 0 || s.AdjudicationScale > 0 && numeric.Finite(s.AdjudicationScale), "selfplay.adjudication_scale", "a finite number more than 0", s.AdjudicationScale},
		{s.MaterialHorizon >= 0, "selfplay.material_horizon", "0 or more", s.MaterialHorizon},
		{s.MaterialWeight >= 0 && s.MaterialWeight <= 1, "selfplay.material_weight", "0 to 1", s.MaterialWeight},
		{s.MaterialBlend >= 0 && s.MaterialBlend <= 100, "selfplay.material_blend", "0 to 100", s.MaterialBlend},
		{s.EndgameFraction >= 0 && s.EndgameFraction <= 1, "selfplay.endgame_fraction", "0 to 1", s.EndgameFraction},
		{s.EndgameSoldiers >= 0 && s.EndgameSoldiers <= game.MaxPoints, "selfplay.endgame_soldiers", fmt.Sprintf("0 to %d", game.MaxPoints), s.EndgameSoldiers},
		{s.MaterialWeight == 0 || (s.MaterialHorizon > 0 && s.Adjudication > 0), "selfplay.material_weight", "0 unless material_horizon and adjudication are set", s.MaterialWeight},
		{t.BatchSize >= 1 && t.BatchSize <= 8192, "train.batch_size", "1 to 8192", t.BatchSize},
		{t.LearningRate > 0 && t.LearningRate < 1, "train.learning_rate", "between 0 and 1", t.LearningRate},
		{validDrops(t.RateDrops), "train.rate_drops", fmt.Sprintf("at most %d drops at samples increasing from above 0, each rate between 0 and 1", maxRateDrops), t.RateDrops},
		{t.WeightDecay >= 0 && t.WeightDecay < 1, "train.weight_decay", "0 to 1", t.WeightDecay},
		{t.ValueWeight >= 0 && t.ValueWeight <= 100, "train.value_weight", "0 to 100", t.ValueWeight},
		{t.Reuse > 0 && t.Reuse <= 1000, "train.reuse", "more than 0, at most 1000", t.Reuse},
		{t.MinSteps >= 0, "train.min_steps", "0 or more", t.MinSteps},
		{t.WindowMin >= t.BatchSize, "train.window_min", "at least batch_size", t.WindowMin},
		{t.WindowMax >= t.WindowMin, "train.window_max", "at least window_min", t.WindowMax},
		{t.WindowExponent >= 0 && t.WindowExponent <= 1, "train.window_exponent", "0 to 1", t.WindowExponent},
		{t.QWeight >= 0 && t.QWeight <= 1, "train.q_weight", "0 to 1", t.QWeight},
		{t.ScoreWeight == nil || *t.ScoreWeight >= 0 && *t.ScoreWeight <= 100, "train.score_weight", "0 to 100", deref(t.ScoreWeight)},
		{t.ScoreWeight == nil || c.Network.ScoreHead, "train.score_weight", "no value without network.score_head (it weighs the score head's loss)", deref(t.ScoreWeight)},
		{s.ScoreUtility >= 0 && s.ScoreUtility <= model.MaxScoreUtility, "selfplay.score_utility", fmt.Sprintf("0 to %d", model.MaxScoreUtility), s.ScoreUtility},
		{s.ScoreUtility == 0 || c.Network.ScoreHead, "selfplay.score_utility", "0 without network.score_head (it weighs the score head's output)", s.ScoreUtility},
		{!c.Network.ScoreHead || s.MaterialHorizon > 0, "selfplay.material_horizon", "more than 0 with network.score_head (the score head learns the material lead that many decisions on)", s.MaterialHorizon},
		{!c.Network.ScoreHead || s.AdjudicationScale > 0 && numeric.Finite(s.AdjudicationScale), "selfplay.adjudication_scale", "a finite number more than 0 with network.score_head (it scales the score head's target, tanh(lead/adjudication_scale))", s.AdjudicationScale},
		{t.OwnershipWeight == nil || *t.OwnershipWeight >= 0 && *t.OwnershipWeight <= 100, "train.ownership_weight", "0 to 100", deref(t.OwnershipWeight)},
		{t.OwnershipWeight == nil || c.Network.OwnershipHead, "train.ownership_weight", "no value without network.ownership_head (it weighs the ownership head's loss)", deref(t.OwnershipWeight)},
		{e.Mode == "always" || e.Mode == "games" || e.Mode == "sprt", "evaluation.mode", "always, games or sprt", e.Mode},
		{e.Mode == "always" || e.Games >= 1, "evaluation.games", "at least 1", e.Games},
		{e.Threshold >= 0 && e.Threshold <= 1, "evaluation.threshold", "0 to 1", e.Threshold},
		{e.Mode != "sprt" || numeric.Finite(e.Elo0), "evaluation.elo0", "a finite number", e.Elo0},
		{e.Mode != "sprt" || e.Elo1 > e.Elo0 && numeric.Finite(e.Elo1), "evaluation.elo1", "a finite number more than elo0", e.Elo1},
		{(e.Mode == "always" || e.Sims >= 1) && e.Sims <= mcts.MaxSims, "evaluation.sims", simsRange, e.Sims},
		{e.RandomTurns >= 0, "evaluation.random_turns", "0 or more", e.RandomTurns},
		{r.Every >= 0, "rating.every", "0 or more", r.Every},
		{(r.Every == 0 || r.Games >= 1) && r.Games <= maxRatingGames, "rating.games", fmt.Sprintf("1 to %d", maxRatingGames), r.Games},
		{(r.Every == 0 || r.Sims >= 1) && r.Sims <= mcts.MaxSims, "rating.sims", simsRange, r.Sims},
		{r.RandomTurns >= 0, "rating.random_turns", "0 or more", r.RandomTurns},
		{r.Previous >= 0 && r.Previous <= maxRatingGames, "rating.previous", fmt.Sprintf("0 to %d", maxRatingGames), r.Previous},
		{c.Stop.Generations >= 0, "stop.generations", "0 or more", c.Stop.Generations},
		{c.Stop.Hours >= 0 && numeric.Finite(c.Stop.Hours), "stop.hours", "a finite number, 0 or more", c.Stop.Hours},
		{c.Stop.CPUHours >= 0 && numeric.Finite(c.Stop.CPUHours), "stop.cpu_hours", "a finite number, 0 or more", c.Stop.CPUHours},
		{c.Stop.Generations > 0 || c.Stop.Hours > 0 || c.Stop.CPUHours > 0, "stop", "generations, hours or cpu_hours", "none"},
		{len(c.Snapshots) <= maxSnapshots && increasingHours(c.Snapshots), "snapshots", fmt.Sprintf("at most %d increasing CPU hours, each a finite number above 0", maxSnapshots), c.Snapshots},
	}
	// The searches of the games played at once (selfplay.workers of them,
	// two a game in evaluation matches) hold their trees together.
	for _, t := range []struct {
		field string
		trees int
		sims  int
	}{
		{"selfplay.workers × selfplay.full_sims", s.Workers, s.FullSims},
		{"2 × selfplay.workers × evaluation.sims", 2 * s.Workers, e.Sims},
		{"selfplay.workers × rating.sims", s.Workers, r.Sims},
	} {
		n := int64(t.trees) * int64(t.sims)
		checks = append(checks, check{n <= maxTreeSims, t.field,
			fmt.Sprintf("at most %d (the search trees held at once, about 600 bytes a simulation)", maxTreeSims), n})
	}
	for _, k := range checks {
		if !k.ok {
			return fmt.Errorf("training config %s: %s = %v: want %s", c.Name, k.field, k.value, k.want)
		}
	}
	if err := model.WithInputPlanes(c.NetConfig()).Validate(); err != nil {
		return fmt.Errorf("training config %s: network: %w", c.Name, err)
	}
	for _, a := range r.Anchors {
		if err := mcts.CheckSpec(a); err != nil {
			return fmt.Errorf("training config %s: rating.anchors: %w", c.Name, err)
		}
	}
	return nil
}

// increasingHours reports whether hs increase strictly, each finite and
// above 0.
func increasingHours(hs []float64) bool {
	for i, h := range hs {
		if !(h > 0) || !numeric.Finite(h) || i > 0 && h <= hs[i-1] {
			return false
		}
	}
	return true
}

// maxTreeSims bounds the simulations of the searches a run keeps at once:
// selfplay.workers times the simulations of each (about 2.4 GB of trees).
const maxTreeSims = 4 * mcts.MaxSims

// simsRange is the range of a preset's simulations per decision.
var simsRange = fmt.Sprintf("1 to %d", mcts.MaxSims)

// deref is *p, or "none" for nil: a setting that may be absent, for
// messages.
func deref(p *float64) any {
	if p == nil {
		return "none"
	}
	return *p
}

// NetConfig returns the architecture of a new network.
func (c *Config) NetConfig() net.Config {
	return net.Config{Blocks: c.Network.Blocks, Channels: c.Network.Channels, ValueHidden: c.Network.ValueHidden,
		ScoreHead: c.Network.ScoreHead, OwnershipHead: c.Network.OwnershipHead}
}

// TrainConfig returns the optimiser settings.
func (c *Config) TrainConfig() trainer.TrainConfig {
	tc := trainer.DefaultTrainConfig()
	tc.BatchSize = c.Train.BatchSize
	tc.LearningRate = c.Train.LearningRate
	tc.WeightDecay = c.Train.WeightDecay
	tc.ValueWeight = c.Train.ValueWeight
	tc.ScoreWeight = c.Train.ScoreLossWeight(c.Network.ScoreHead)
	tc.OwnershipWeight = c.Train.OwnershipLossWeight(c.Network.OwnershipHead)
	tc.Schedule = "constant"
	return tc
}

// WindowSize returns the replay window after total samples.
func (t *TrainerConfig) WindowSize(total int64) int {
	w := float64(t.WindowMin)
	if float64(total) > w && t.WindowExponent > 0 {
		w *= math.Pow(float64(total)/w, t.WindowExponent)
	}
	return int(min(w, float64(t.WindowMax)))
}

// WarmWindow returns the replay window and the share of a generation's
// steps to train, for a run that holds held samples of the total it has
// taken in, begun from a model of its own variant trained on inherited
// samples (0 for a run from scratch or across variants). A warm start
// keeps its history's window, WindowSize(inherited + total), but its
// buffer starts empty: until the buffer fills that window it trains the
// share held/window of the steps, so that each sample is drawn as often a
// generation as in the unbroken run. With all the steps, an --init drew
// its first games some eight times each in three generations and ended
// half a CPU hour some 50 Elo behind the same network resumed, and below
// the network it began from (docs/diagnosis.md §4).
func (t *TrainerConfig) WarmWindow(inherited, total int64, held int) (window int, share float64) {
	window = t.WindowSize(inherited + total)
	if inherited == 0 || held >= window {
		return window, 1
	}
	return window, float64(held) / float64(window)
}
