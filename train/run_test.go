package train

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/net/model/modeltest"
	"github.com/dablot-zero/dablot/train/rundir"
	"github.com/dablot-zero/dablot/train/runlog"
	"github.com/dablot-zero/dablot/train/samples"
)

// testConfig is a run small enough for tests: frostviken (41 points, games
// end by king capture), a tiny network and few simulations.
func testConfig(t *testing.T, generations int) *Config {
	t.Helper()
	cfg, err := ParseConfig([]byte(fmt.Sprintf(`
name: test
variant: frostviken
seed: 7
network: {blocks: 1, channels: 8, value_hidden: 8}
selfplay: {games: 6, workers: 3, search: gumbel, full_sims: 8, fast_sims: 4, full_fraction: 0.5, gumbel_m: 4,
  noise: 0, temperature_turns: 0, leaf_batch: 2, net_batch: 32, random_turns: 1, adjudication: 0.5, adjudication_scale: 4}
train: {batch_size: 32, learning_rate: 0.003, weight_decay: 0.0001, value_weight: 1, reuse: 2, min_steps: 10,
  window_min: 200, window_max: 5000, window_exponent: 0.75, mirror: true, q_weight: 0.1}
evaluation: {mode: games, games: 4, threshold: 0.5, elo0: 0, elo1: 0, sims: 4, random_turns: 1}
rating: {every: 2, games: 2, sims: 4, anchors: [random], random_turns: 1}
stop: {generations: %d, hours: 0}
`, generations)))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestConfigErrors(t *testing.T) {
	good := string(testConfig(t, 1).YAML())
	for _, tc := range []struct{ from, to, want string }{
		{"games: 6", "games: 0", "selfplay.games"},
		{"search: gumbel", "search: alphazero", "selfplay.search"},
		{"fast_sims: 4", "fast_sims: 40", "selfplay.fast_sims"},
		{"mode: games", "mode: sometimes", "evaluation.mode"},
		{"learning_rate: 0.003", "learning_rate: -1", "train.learning_rate"},
		{"window_min: 200", "window_min: 2", "train.window_min"},
		{"generations: 1", "generations: 0", "stop"},
		{"- random", "- randm", "randm"},
		{"mirror: true", "mirror: true\n    mirrror: true", "mirrror"},
		{"games: 6", "games: six", "six"},
		{"material_weight: 0", "material_weight: 0.5", "selfplay.material_weight"},
		{"material_horizon: 0", "material_horizon: -3", "selfplay.material_horizon"},
		{"material_blend: 0", "material_blend: 101", "selfplay.material_blend"},
		{"endgame_fraction: 0", "endgame_fraction: 1.5", "selfplay.endgame_fraction"},
		{"endgame_soldiers: 0", "endgame_soldiers: -2", "selfplay.endgame_soldiers"},
		{"endgame_soldiers: 0", "endgame_soldiers: 0\n    endgame_tables: 3", "selfplay.endgame_tables: this setting left the program"},
		{"endgame_soldiers: 0", "endgame_soldiers: 0\n    reanalyse: 0.25", "selfplay.reanalyse: this setting left the program"},
		{"endgame_soldiers: 0", "endgame_soldiers: 0\n    guard: 2", "selfplay.guard: this setting left the program"},
		{"endgame_soldiers: 0", "endgame_soldiers: 0\n    policy_surprise: sometimes", "`sometimes` into bool"},
		{"endgame_soldiers: 0", "endgame_soldiers: 0\n    policy_surprise: 0.5", "`0.5` into bool"},
		{"endgame_soldiers: 0", "endgame_soldiers: 0\n    policy_surprise: true\n    policy_surprise: false", `mapping key "policy_surprise" already defined`},
		{"endgame_soldiers: 0", "endgame_soldiers: 0\n    policy_surprse: true", "field policy_surprse not found"},
		{"- random", "- gumbel:model=x.dbm,sims=0", "sims=0"},
		{"value_weight: 1", "value_weight: .inf", "train.value_weight"},
		{"reuse: 2", "reuse: .inf", "train.reuse"},
		{"reuse: 2", "reuse: 2\n    rate_drops: [{samples: 0, rate: 0.001}]", "train.rate_drops"},
		{"reuse: 2", "reuse: 2\n    rate_drops: [{samples: 500, rate: 1}]", "train.rate_drops"},
		{"reuse: 2", "reuse: 2\n    rate_drops: [{samples: 500, rate: 0.001}, {samples: 500, rate: 0.0005}]", "train.rate_drops"},
		{"reuse: 2", "reuse: 2\n    rate_drops: [{samples: 500, rat: 0.001}]", "field rat not found"},
		{"hours: 0", "hours: .inf", "stop.hours"},
		{"mode: games", "mode: sprt", "evaluation.elo1"},
		{"adjudication_scale: 4", "adjudication_scale: .inf", "selfplay.adjudication_scale"},
		// A key given twice is an error, not the last one winning.
		{"games: 6", "games: 6\n    games: 7", `mapping key "games" already defined`},
		{"stop:", "stop: {hours: 1}\nstop:", `mapping key "stop" already defined`},
		// Simulations are bounded by what the search trees can hold.
		{"full_sims: 8", "full_sims: 1000000000000", "selfplay.full_sims = 1000000000000: want 1 to 1000000"},
		{"elo1: 0\n    sims: 4", "elo1: 0\n    sims: 1000000000000", "evaluation.sims = 1000000000000: want 1 to 1000000"},
		{"games: 2\n    sims: 4", "games: 2\n    sims: 1073741824", "rating.sims = 1073741824: want 1 to 1000000"},
		{"elo1: 0\n    sims: 4", "elo1: 0\n    sims: 700000", "2 × selfplay.workers × evaluation.sims = 4200000: want at most 4000000"},
	} {
		if !strings.Contains(good, tc.from) {
			t.Fatalf("%q not in the config:\n%s", tc.from, good)
		}
		_, err := ParseConfig([]byte(strings.Replace(good, tc.from, tc.to, 1)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s → %s: got %v, want an error naming %q", tc.from, tc.to, err, tc.want)
		}
	}
	// The searches of the games played at once hold their trees together.
	for _, tc := range []struct {
		set  func(c *Config)
		want string
	}{
		{func(c *Config) { c.SelfPlay.Workers, c.SelfPlay.FullSims = 8, 600_000 }, "selfplay.workers × selfplay.full_sims = 4800000: want at most 4000000"},
		{func(c *Config) { c.SelfPlay.Workers, c.Rating.Sims = 5, 1_000_000 }, "selfplay.workers × rating.sims = 5000000: want at most 4000000"},
		// A network whose model file could not be read back.
		{func(c *Config) { c.Network.Blocks, c.Network.Channels = 64, 1024 }, "network: net: config: 64 blocks of 1024 channels take 4.5 GiB of weights, more than a model file may hold (1 GiB)"},
	} {
		c := testConfig(t, 1)
		tc.set(c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want an error naming %q", err, tc.want)
		}
	}
	sprt := strings.Replace(strings.Replace(good, "mode: games", "mode: sprt", 1), "elo1: 0", "elo1: 50", 1)
	if _, err := ParseConfig([]byte(sprt)); err != nil {
		t.Errorf("an SPRT from 0 to 50 Elo was refused: %v", err)
	}
	if _, err := ParseConfig([]byte(strings.Replace(sprt, "elo0: 0", "elo0: -.inf", 1))); err == nil || !strings.Contains(err.Error(), "evaluation.elo0") {
		t.Errorf("an SPRT from -inf: got %v, want an error naming evaluation.elo0", err)
	}
	if _, err := ParseConfig(nil); err == nil {
		t.Error("an empty config was accepted")
	}
}

// TestSelfPlayBlend checks that self-play with the material blend in front
// of the network plays legal games that depend on the seed alone, with
// selfplay.plain_races too, which reaches the blend.
func TestSelfPlayBlend(t *testing.T) {
	sp := testConfig(t, 1).SelfPlay
	sp.MaterialBlend = 0.3
	checkWorkersAgree(t, modeltest.NewModel(t, "frostviken", 2), sp)
	if sp.Player(8, true).PlainRaces {
		t.Fatal("races plain without selfplay.plain_races")
	}
	sp.PlainRaces = true
	if !sp.Player(8, true).PlainRaces {
		t.Fatal("selfplay.plain_races does not reach the player")
	}
	checkWorkersAgree(t, modeltest.NewModel(t, "dablot", 2), sp)
}

// checkWorkersAgree plays three self-play games of sp with 1 and with 3
// workers and checks that they are the same games, and that they replay.
func checkWorkersAgree(t *testing.T, m *model.Model, sp SelfPlayConfig) {
	t.Helper()
	var runs [][]*SelfPlayGame
	for _, workers := range []int{1, 3} {
		sp.Workers = workers
		games, err := SelfPlay(context.Background(), m, sp, 11, 0, 3, nil)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, games)
	}
	for i, g := range runs[0] {
		if !slices.Equal(g.Record.Turns, runs[1][i].Record.Turns) {
			t.Fatalf("game %d differs between 1 and 3 workers", i)
		}
		if _, err := g.Record.Replay(m.Rules); err != nil {
			t.Fatalf("game %d does not replay: %v", i, err)
		}
	}
}

// TestSelfPlaySolver: selfplay.solve and selfplay.forced reach the search
// (and a config without them searches as before), and self-play with them
// plays the same games with 1 or 3 workers, games that replay.
func TestSelfPlaySolver(t *testing.T) {
	cfg := testConfig(t, 1)
	if c := cfg.SelfPlay.Player(8, true).SearchConfig(1); c.Solver || c.SkipForced {
		t.Fatalf("a config without solve/forced: Solver %v, SkipForced %v", c.Solver, c.SkipForced)
	}
	sp := cfg.SelfPlay
	sp.Solve, sp.Forced = true, true
	if c := sp.Player(8, false).SearchConfig(1); !c.Solver || !c.SkipForced {
		t.Fatalf("solve, forced: Solver %v, SkipForced %v", c.Solver, c.SkipForced)
	}
	checkWorkersAgree(t, modeltest.NewModel(t, "frostviken", 2), sp)
}

// TestSearchConfigNoise: self-play searches explore (Gumbel noise, or
// Dirichlet noise and temperature for PUCT) and evaluation searches play
// their best, whatever mcts.DefaultConfig says.
func TestSearchConfigNoise(t *testing.T) {
	for _, tc := range []struct {
		search string
		noise  bool
		check  func(c mcts.Config) bool
	}{
		{"gumbel", true, func(c mcts.Config) bool { return c.Gumbel && c.GumbelScale == 1 }},
		{"gumbel", false, func(c mcts.Config) bool { return c.Gumbel && c.GumbelScale == 0 }},
		{"puct", true, func(c mcts.Config) bool { return !c.Gumbel && c.NoiseEpsilon > 0 && c.Temperature == 1 }},
		{"puct", false, func(c mcts.Config) bool { return !c.Gumbel && c.NoiseEpsilon == 0 && c.Temperature == 0 }},
	} {
		sp := testConfig(t, 1).SelfPlay
		sp.Search, sp.Noise, sp.TemperatureTurns = tc.search, 0.25, 10
		if c := sp.Player(8, tc.noise).SearchConfig(1); !tc.check(c) {
			t.Errorf("%s, noise %v: Gumbel %v scale %v, Dirichlet %v, temperature %v", tc.search, tc.noise, c.Gumbel, c.GumbelScale, c.NoiseEpsilon, c.Temperature)
		}
	}
}

// TestSelfPlay checks that self-play games are legal, that their samples
// hold proper targets, and that the games depend on the seed alone, not on
// how many are played at once.
func TestSelfPlay(t *testing.T) {
	cfg := testConfig(t, 1)
	m := modeltest.NewModel(t, "frostviken", 2)
	var runs [][]*SelfPlayGame
	for _, workers := range []int{1, 3} {
		sp := cfg.SelfPlay
		sp.Workers = workers
		games, err := SelfPlay(context.Background(), m, sp, 11, 0, 4, nil)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, games)
	}
	for i, g := range runs[0] {
		if g.Index != i {
			t.Fatalf("game %d has index %d", i, g.Index)
		}
		if !slices.Equal(g.Record.Turns, runs[1][i].Record.Turns) {
			t.Fatalf("game %d differs between 1 and 3 workers", i)
		}
		end, err := g.Record.Replay(m.Rules)
		if err != nil {
			t.Fatalf("game %d does not replay: %v", i, err)
		}
		if end.Status() != g.Status || g.Record.Result != g.Status.Outcome.Result() {
			t.Fatalf("game %d: status %v, replayed %v, record %s", i, g.Status, end.Status(), g.Record.Result)
		}
		if len(g.Samples) == 0 {
			t.Fatalf("game %d has no samples", i)
		}
		for _, s := range g.Samples {
			var sum float32
			legal := m.Encoder.LegalIndices(&s.Position, s.Position.Decisions(nil), nil)
			for _, e := range s.Policy {
				sum += e.Prob
				if !slices.Contains(legal, int32(e.Index)) {
					t.Fatalf("game %d: policy entry %d is not a legal decision", i, e.Index)
				}
			}
			if sum < 0.999 || sum > 1.001 {
				t.Fatalf("game %d: policy sums to %v", i, sum)
			}
			want := int8(2*g.Status.Outcome.ScoreFor(s.Position.SideToMove()) - 1)
			if s.Result != want {
				t.Fatalf("game %d: result %d for %s, want %d", i, s.Result, s.Position.SideToMove(), want)
			}
			if s.Result != 0 && s.Target != float32(s.Result) {
				t.Fatalf("game %d: a decided game has target %v for result %d", i, s.Target, s.Result)
			}
		}
	}
}

// TestBatchMaker checks mirror augmentation: a position and its mirror
// image, with the policy mapped by MirrorIndex, are both consistent with
// the legal decisions.
func TestBatchMaker(t *testing.T) {
	m := modeltest.NewModel(t, "keyland", 4)
	dir := t.TempDir()
	var ss []samples.Sample
	for _, p := range modeltest.RandomPositions(m.Rules, 64, 3) {
		legal := p.Decisions(nil)
		idx := m.Encoder.LegalIndices(&p, legal, nil)
		s := samples.Sample{Position: p, Result: 1, Target: 1, Full: true}
		for _, j := range idx {
			s.Policy = append(s.Policy, samples.PolicyEntry{Index: uint16(j), Prob: 1 / float32(len(idx))})
		}
		ss = append(ss, s)
	}
	if err := samples.Write(filepath.Join(dir, "a"+rundir.ShardExt), m.Rules, samples.Header{}, ss); err != nil {
		t.Fatal(err)
	}
	rp := NewReplay(m, dir, 1000)
	if n, err := rp.Scan(); err != nil || n != 64 {
		t.Fatalf("scan: %d samples, %v", n, err)
	}
	bm := NewBatchMaker(m, 16, true, 0, 0)
	b, err := bm.Make(rp, 64, modeltest.NewRand(1))
	if err != nil {
		t.Fatal(err)
	}
	ps := m.Encoder.PolicySize()
	for i := range b.N {
		var sum float32
		for j := range ps {
			if b.Policy[i*ps+j] > 0 && b.Mask[i*ps+j] == 0 {
				t.Fatalf("position %d: target on illegal entry %d", i, j)
			}
			sum += b.Policy[i*ps+j]
		}
		if sum < 0.999 || sum > 1.001 || b.Value[3*i] != 1 {
			t.Fatalf("position %d: policy sum %v, value %v", i, sum, b.Value[3*i:3*i+3])
		}
	}
	// A target on an illegal decision (a broken index mapping) is refused.
	bad := ss[0]
	bad.Policy = []samples.PolicyEntry{{Index: uint16(m.Encoder.PolicySize() - 2), Prob: 1}}
	if err := samples.Write(filepath.Join(dir, "b"+rundir.ShardExt), m.Rules, samples.Header{}, []samples.Sample{bad}); err != nil {
		t.Fatal(err)
	}
	rp = NewReplay(m, dir, 1000)
	if _, err := rp.Scan(); err != nil {
		t.Fatal(err)
	}
	if _, err := bm.Make(rp, 1, modeltest.NewRand(1)); err == nil || !strings.Contains(err.Error(), "not a legal decision") {
		t.Errorf("a target on an illegal decision: %v", err)
	}
}

// weightsOf reads the weights of a model file.
func weightsOf(t *testing.T, path string) *net.Weights {
	t.Helper()
	m, err := model.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	return m.Weights
}

func sameWeights(a, b *net.Weights) bool {
	for i := range a.Tensors {
		if !slices.Equal(a.Tensors[i].Data, b.Tensors[i].Data) {
			return false
		}
	}
	return len(a.Tensors) == len(b.Tensors)
}

// straightRun trains testConfig's three generations without a stop and
// returns the run directory and the rules.
func straightRun(t *testing.T) (string, *game.Rules) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "straight")
	return dir, trainRun(t, testConfig(t, 3), dir)
}

// trainRun creates a run of cfg in dir, trains it to its stop and returns
// its rules.
func trainRun(t *testing.T, cfg *Config, dir string) *game.Rules {
	t.Helper()
	rules := configs.MustVariant(cfg.Variant)
	r, err := CreateRun(dir, cfg, rules, "", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Train(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return rules
}

// TestRunResume runs three generations straight, and the same run stopped
// after one generation and resumed: the results must be identical.
func TestRunResume(t *testing.T) {
	straight, rules := straightRun(t)
	split := filepath.Join(t.TempDir(), "split")
	resumedRun(t, testConfig(t, 3), rules, split)
	checkSameRun(t, straight, split)
	gens, err := runlog.ReadGenerations(filepath.Join(split, runlog.MetricsFile))
	if err != nil || len(gens) != 3 {
		t.Fatalf("metrics: %d generations, %v", len(gens), err)
	}
}

// resumedRun trains a run of cfg in split for one generation, stops it, and
// resumes it to its stop.
func resumedRun(t *testing.T, cfg *Config, rules *game.Rules, split string) {
	t.Helper()
	r, err := CreateRun(split, cfg, rules, "", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	close(stop)
	if err := r.generation(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.Train(context.Background(), stop); err != nil { // stops at once
		t.Fatal(err)
	}
	r.Close()
	r, err = ResumeRun(split, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Generation() != 1 {
		t.Fatalf("resumed at generation %d, want 1", r.Generation())
	}
	if err := r.Train(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	r.Close()
}

// TestRunExtend trains a run to a stop after one generation, then extends
// the finished run to three with SetStop: it must go on exactly as a run of
// three generations straight, and its config file must say so.
func TestRunExtend(t *testing.T) {
	straight, _ := straightRun(t)
	short := filepath.Join(t.TempDir(), "short")
	trainRun(t, testConfig(t, 1), short)
	r, err := ResumeRun(short, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.done() {
		t.Fatal("a run at its stop is not done")
	}
	if err := r.SetStop(StopConfig{Hours: math.Inf(1)}); err == nil || !strings.Contains(err.Error(), "stop.hours") {
		t.Fatalf("an infinite stop: %v", err)
	}
	if err := r.SetStop(StopConfig{Generations: 3}); err != nil {
		t.Fatal(err)
	}
	if st, err := readState(short); err != nil || st.Finished {
		t.Fatalf("the extended run's state still says finished (%v)", err)
	}
	if cfg, err := LoadConfig(filepath.Join(short, rundir.ConfigFile)); err != nil || cfg.Stop != (StopConfig{Generations: 3}) {
		t.Fatalf("config file: %+v, %v", cfg, err)
	}
	if err := r.Train(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	checkSameRun(t, straight, short)
}

// checkSameRun checks that two runs made the same networks and games.
func checkSameRun(t *testing.T, a, b string) {
	t.Helper()
	for g := 0; g <= 3; g++ {
		if !sameWeights(weightsOf(t, filepath.Join(a, rundir.ModelDir, modelName(g))), weightsOf(t, filepath.Join(b, rundir.ModelDir, modelName(g)))) {
			t.Fatalf("generation %d: the networks differ", g)
		}
	}
	for g := 1; g <= 3; g++ {
		name := fmt.Sprintf("gen-%06d.pgn", g)
		x, _ := os.ReadFile(filepath.Join(a, rundir.GamesDir, name))
		y, _ := os.ReadFile(filepath.Join(b, rundir.GamesDir, name))
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Fatalf("generation %d: the games differ", g)
		}
	}
	if !sameWeights(weightsOf(t, filepath.Join(a, rundir.BestFile)), weightsOf(t, filepath.Join(b, rundir.BestFile))) {
		t.Fatal("best models differ")
	}
}

// TestHelperProcess is not a test: it is the child process of the tests
// that kill or run processes (see runChild).
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv("DABLOT_TEST_CHILD")
	if mode == "" {
		t.Skip("helper process only")
	}
	dir := os.Getenv("DABLOT_TEST_DIR")
	var err error
	switch mode {
	case "train":
		var r *Run
		if r, err = ResumeRun(dir, RunOptions{}); err == nil {
			err = r.Train(context.Background(), nil)
		}
	case "worker":
		err = SelfPlayWorker(context.Background(), dir, WorkerOptions{Name: os.Getenv("DABLOT_TEST_WORKER"), Games: 2, Shards: 1})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

func childCommand(mode, dir string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), append([]string{"DABLOT_TEST_CHILD=" + mode, "DABLOT_TEST_DIR=" + dir}, env...)...)
	cmd.Stderr = os.Stderr
	return cmd
}

// TestKillAndResume kills a training process with SIGKILL in the middle
// of its second generation, checks that everything the last checkpoint
// names is intact, resumes, and checks that the result is the run that
// was never interrupted.
func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	straight, rules := straightRun(t)

	killed := filepath.Join(t.TempDir(), "killed")
	r, err := CreateRun(killed, testConfig(t, 3), rules, "", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	cmd := childCommand("train", killed)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for the first checkpoint, then for the second generation's
	// self-play to be under way, and kill.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		st, err := readState(killed)
		if err == nil && st.Generation >= 1 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no checkpoint after 2 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(150 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	st, err := readState(killed)
	if err != nil {
		t.Fatal(err)
	}
	if st.Generation >= 3 {
		t.Skip("the child finished before it was killed; the machine is too fast for this test's timing")
	}
	// Everything the checkpoint names is intact.
	for _, ref := range st.Shards {
		_, ss, err := samples.Read(filepath.Join(killed, rundir.ShardDir, ref.Name), rules)
		if err != nil || len(ss) != ref.Count {
			t.Fatalf("shard %s: %d samples, %v", ref.Name, len(ss), err)
		}
	}
	for g := 0; g <= st.Generation; g++ {
		if _, err := model.LoadModel(filepath.Join(killed, rundir.ModelDir, modelName(g))); err != nil {
			t.Fatal(err)
		}
	}
	gens, err := runlog.ReadGenerations(filepath.Join(killed, runlog.MetricsFile))
	if err != nil || len(gens) < st.Generation {
		t.Fatalf("metrics: %d generations for checkpoint %d: %v", len(gens), st.Generation, err)
	}
	t.Logf("killed with checkpoint %d, %d metrics lines", st.Generation, len(gens))

	r, err = ResumeRun(killed, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Train(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	r.Close()
	checkSameRun(t, straight, killed)
}

// TestExternalWorkers runs two self-play processes beside a run and checks
// that its next generation trains on their shards.
func TestExternalWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes")
	}
	cfg := testConfig(t, 1)
	dir := filepath.Join(t.TempDir(), "run")
	r, err := CreateRun(dir, cfg, configs.MustVariant(cfg.Variant), "", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var cmds []*exec.Cmd
	for i := range 2 {
		cmd := childCommand("worker", dir, "DABLOT_TEST_WORKER=w"+strconv.Itoa(i))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("worker: %v", err)
		}
	}
	if err := r.Train(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	st, _ := readState(dir)
	var names []string
	var external int
	for _, ref := range st.Shards {
		names = append(names, ref.Name)
		if !strings.Contains(ref.Name, "-main") {
			external += ref.Count
		}
	}
	for _, w := range []string{"gen-000000-w0-000000" + rundir.ShardExt, "gen-000000-w1-000000" + rundir.ShardExt} {
		if !slices.Contains(names, w) {
			t.Errorf("the trainer did not take in %s (it took %v)", w, names)
		}
	}
	gens, _ := runlog.ReadGenerations(filepath.Join(dir, runlog.MetricsFile))
	if len(gens) != 1 || gens[0].Samples != int64(gens[0].GenSamples+external) {
		t.Errorf("metrics: %+v; %d external samples", gens, external)
	}
}

// TestSelfPlayMaterialTarget replays self-play games decision by decision
// and checks that every value target blends the result with the material
// balance MaterialHorizon decisions after its position.
func TestSelfPlayMaterialTarget(t *testing.T) {
	cfg := testConfig(t, 1)
	m := modeltest.NewModel(t, "frostviken", 2)
	sp := cfg.SelfPlay
	sp.FullFraction, sp.MaterialHorizon, sp.MaterialWeight = 1, 3, 0.75
	games, err := SelfPlay(context.Background(), m, sp, 5, 0, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	shaped := func(lead float64, me game.Side) float64 {
		if me == game.North {
			lead = -lead
		}
		return sp.Adjudication * math.Tanh(lead/sp.AdjudicationScale)
	}
	for i, g := range games {
		// Positions before every decision, and South's material lead there.
		var positions []game.Position
		var lead []float64
		p := m.Rules.Start()
		for _, s := range g.Record.Turns {
			_, ds, err := p.ParseTurn(s)
			if err != nil {
				t.Fatalf("game %d: turn %s: %v", i, s, err)
			}
			for _, d := range ds {
				positions = append(positions, p)
				lead = append(lead, mcts.Material(&p, game.South)-mcts.Material(&p, game.North))
				p.Apply(d)
			}
		}
		lead = append(lead, mcts.Material(&p, game.South)-mcts.Material(&p, game.North))
		k, checked := 0, 0
		for _, s := range g.Samples {
			for k < len(positions) && positions[k].Hash() != s.Position.Hash() {
				k++
			}
			if k == len(positions) {
				t.Fatalf("game %d: sample %s is not a position of the game", i, s.Position.FEN())
			}
			me := s.Position.SideToMove()
			final := float64(s.Result)
			if r := g.Status.Reason; r == game.NoCaptureLimit || r == game.MaxPlies {
				final = shaped(lead[len(lead)-1], me)
			}
			want := (1-sp.MaterialWeight)*final + sp.MaterialWeight*shaped(lead[min(k+sp.MaterialHorizon, len(lead)-1)], me)
			if math.Abs(float64(s.Target)-want) > 1e-6 {
				t.Fatalf("game %d, decision %d: target %v, want %v", i, k, s.Target, want)
			}
			wantLead := lead[min(k+sp.MaterialHorizon, len(lead)-1)]
			if me == game.North {
				wantLead = -wantLead
			}
			if !s.HasLead || float64(s.Lead) != wantLead {
				t.Fatalf("game %d, decision %d (%s to move): lead %v (%v), want %v", i, k, me, s.Lead, s.HasLead, wantLead)
			}
			if lead[min(k+sp.MaterialHorizon, len(lead)-1)] != lead[k] {
				checked++
			}
			k++
		}
		t.Logf("game %d: %d samples, %d with a capture within the horizon", i, len(g.Samples), checked)
	}
}

// TestInitAcrossVariants warm-starts a keyland run (72 points) from a
// frostviken model (41 points): the graph network's weights fit any board,
// and the run records where they came from.
func TestInitAcrossVariants(t *testing.T) {
	cfg := testConfig(t, 1)
	src, err := model.NewNetwork(configs.MustVariant("frostviken"), cfg.NetConfig(), 3)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "frostviken.dbm")
	if err := src.Save(path, nil); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	keyland := configs.MustVariant("keyland")
	r, err := CreateRun(filepath.Join(t.TempDir(), "run"), cfg, keyland, path, RunOptions{Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	best := r.Best()
	if best.Rules.Name != "keyland" || best.Training.InitFrom != path || best.Training.InitVariant != "frostviken" {
		t.Errorf("warm-started model: variant %s, training %+v", best.Rules.Name, best.Training)
	}
	saved, err := model.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if sum := saved.Metadata[net.MetaChecksum]; sum == "" || best.Training.InitSHA256 != sum {
		t.Errorf("warm-started model names its init by checksum %q, want %q", best.Training.InitSHA256, sum)
	}
	if !strings.Contains(out.String(), "warm start across variants") {
		t.Errorf("no notice of the transfer in %q", out.String())
	}
	for i, w := range src.Weights.Tensors {
		if !slices.Equal(w.Data, best.Weights.Tensors[i].Data) {
			t.Errorf("tensor %s differs from the init model's", w.Name)
		}
	}
	// The same variant is no transfer.
	same, err := CreateRun(filepath.Join(t.TempDir(), "run2"), cfg, configs.MustVariant("frostviken"), path, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer same.Close()
	if v := same.Best().Training.InitVariant; v != "" {
		t.Errorf("init from the same variant recorded InitVariant %q", v)
	}
	// A transfer keeps no window of its history's; the same variant does.
	src.Training.Samples = 5000
	if err := src.Save(path, nil); err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct {
		variant string
		want    int64
	}{{"keyland", 0}, {"frostviken", 5000}} {
		r, err := CreateRun(filepath.Join(t.TempDir(), v.variant), cfg, configs.MustVariant(v.variant), path, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if n := r.inheritedSamples(); n != v.want {
			t.Errorf("%s run from a frostviken model of 5000 samples inherits %d samples of window, want %d", v.variant, n, v.want)
		}
		r.Close()
	}
}

// TestInitCarriesTotals warm-starts a run and checks that the init model's
// games, samples, training steps and hours carry over into the run's totals
// and the models it writes.
func TestInitCarriesTotals(t *testing.T) {
	cfg := testConfig(t, 1)
	frostviken := configs.MustVariant("frostviken")
	src, err := model.NewNetwork(frostviken, cfg.NetConfig(), 3)
	if err != nil {
		t.Fatal(err)
	}
	src.Training.Games, src.Training.Samples, src.Training.TrainSteps, src.Training.Hours = 100, 5000, 300, 0.5
	// The rate drops at 4000 samples of history, which the init model's
	// 5000 have passed: the run trains at the dropped rate from the start.
	cfg.Train.RateDrops = []RateDrop{{Samples: 4000, Rate: cfg.Train.LearningRate / 4}}
	path := filepath.Join(t.TempDir(), "init.dbm")
	if err := src.Save(path, nil); err != nil {
		t.Fatal(err)
	}
	// Hours count the init model's: a stop it has already reached is an error.
	early := *cfg
	early.Stop = StopConfig{Hours: 0.5}
	dir := filepath.Join(t.TempDir(), "early")
	if _, err := CreateRun(dir, &early, frostviken, path, RunOptions{}); err == nil || !strings.Contains(err.Error(), "stop.hours = 0.5 is reached before the run begins") {
		t.Errorf("a run whose init model has the stop's hours: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the refused run left its directory (%v): a second try would find it taken", err)
	}
	r, err := CreateRun(filepath.Join(t.TempDir(), "run"), cfg, frostviken, path, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Train(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	st, added := r.state, r.replay.Total()
	if added == 0 {
		t.Fatal("the run wrote no samples")
	}
	// Its buffer holds its own samples alone, a small share of the window
	// of its 5000 samples' history: it trains that share of the steps.
	tc := cfg.Train
	window := tc.WindowSize(5000 + added)
	full := max(tc.MinSteps, int(math.Ceil(tc.Reuse*float64(added)/float64(tc.BatchSize))))
	if want := int(math.Ceil(float64(full) * float64(added) / float64(window))); st.TrainSteps-300 != want || want >= full {
		t.Errorf("a warm start with %d of a %d-sample window trained %d steps, want %d of %d", added, window, st.TrainSteps-300, want, full)
	}
	if st.Games != 100+cfg.SelfPlay.Games || st.Samples != 5000+added || st.TrainSteps <= 300 || st.Hours <= 0.5 {
		t.Errorf("totals after a generation: games %d, samples %d (%d new), steps %d, hours %g; want 100+%d games, 5000+new samples, more than 300 steps and 0.5 h",
			st.Games, st.Samples, added, st.TrainSteps, st.Hours, cfg.SelfPlay.Games)
	}
	if got := r.trainer.TrainConfig().LearningRate; got != cfg.Train.LearningRate/4 {
		t.Errorf("a warm start past its rate's drop trained at %g, want %g", got, cfg.Train.LearningRate/4)
	}
	tr := r.Best().Training
	if tr.Games != st.Games || tr.Samples != st.Samples || tr.TrainSteps != st.TrainSteps {
		t.Errorf("best model's training %+v, run state games %d samples %d steps %d", tr, st.Games, st.Samples, st.TrainSteps)
	}
	if tr.InitFrom != path || tr.InitSHA256 == "" || tr.InitSHA256 != st.InitSHA256 {
		t.Errorf("a trained generation names its init as %q (sha256 %q), the run as %q (sha256 %q)", tr.InitFrom, tr.InitSHA256, path, st.InitSHA256)
	}
}

// TestInitGrowsBlocks: a warm start into a config with more residual
// blocks appends them, each starting as the identity, so the run's first
// network is the model's with the same tensors; a config with fewer blocks
// trains the model's own.
func TestInitGrowsBlocks(t *testing.T) {
	frostviken := configs.MustVariant("frostviken")
	src := modeltest.NewModel(t, "frostviken", 5) // one block
	path := filepath.Join(t.TempDir(), "init.dbm")
	if err := src.Save(path, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ blocks, want int }{{3, 3}, {1, 1}} {
		cfg := testConfig(t, 1)
		cfg.Network.Blocks = tc.blocks
		var out strings.Builder
		dir := filepath.Join(t.TempDir(), "run")
		r, err := CreateRun(dir, cfg, frostviken, path, RunOptions{Out: &out})
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		first, err := model.LoadModel(filepath.Join(dir, rundir.ModelDir, modelName(0)))
		if err != nil {
			t.Fatal(err)
		}
		if got := first.Weights.Config.Blocks; got != tc.want {
			t.Errorf("config of %d blocks: the run's network has %d, want %d", tc.blocks, got, tc.want)
		}
		if grew := strings.Contains(out.String(), "warm start with more blocks: "+path+" has 1 residual blocks, the test preset 3; the run appends 2"); grew != (tc.want > 1) {
			t.Errorf("config of %d blocks: output %q", tc.blocks, out.String())
		}
		for _, tn := range src.Weights.Tensors {
			if got := first.Weights.Tensor(tn.Name); got == nil || !slices.Equal(got.Data, tn.Data) {
				t.Errorf("config of %d blocks: tensor %s is not the model's", tc.blocks, tn.Name)
			}
		}
		// The grown network plays as the model did.
		a, b := evalStart(t, src), evalStart(t, first)
		if !slices.Equal(a, b) {
			t.Errorf("config of %d blocks: the run's first network evaluates the start as %v, the model as %v", tc.blocks, b, a)
		}
	}
}

// TestInitRetiredParts: a warm start from a model with parts that training
// no longer trains (short-term value heads, tactical input planes: their
// settings left the program) is refused, naming the part and its record,
// and leaves no run.
func TestInitRetiredParts(t *testing.T) {
	for _, tc := range []struct {
		edit func(*net.Config)
		want string
	}{
		{func(c *net.Config) { c.ShortTermHeads = 2 }, "the model has 2 short-term value heads, which training no longer trains (network.short_term_heads left the program: " + shortTermRecord},
		{func(c *net.Config) { c.TacticalPlanes = true }, "the model has the tactical input planes, which training no longer gives (network.tactical_planes left the program: " + tacticalRecord},
	} {
		arch := modeltest.TinyNet
		tc.edit(&arch)
		path := filepath.Join(t.TempDir(), "init.dbm")
		if err := modeltest.NewModelOf(t, "frostviken", arch, 5).Save(path, nil); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "run")
		r, err := CreateRun(dir, testConfig(t, 1), configs.MustVariant("frostviken"), path, RunOptions{})
		if err == nil {
			r.Close()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--init with %+v: %v, want %q", arch, err, tc.want)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("--init with %+v left its run directory (%v)", arch, err)
		}
	}
}

// evalStart returns m's priors and value of its variant's start position.
func evalStart(t *testing.T, m *model.Model) []float32 {
	t.Helper()
	e := m.NewEvaluator(1, 1)
	defer e.Close()
	batch := []mcts.Request{{Pos: m.Rules.Start()}}
	batch[0].Legal = batch[0].Pos.Decisions(nil)
	batch[0].Priors = make([]float32, len(batch[0].Legal))
	if err := e.Evaluate(batch); err != nil {
		t.Fatal(err)
	}
	return append(batch[0].Priors, batch[0].Value)
}

// TestRunStopsAtCPUHours: a run bounded by CPU hours stops once its own
// processes have used them, records them in its state and metrics, and a
// resumed run counts on from them.
func TestRunStopsAtCPUHours(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cpu")
	cfg := testConfig(t, 5)
	r, err := CreateRun(dir, cfg, configs.MustVariant(cfg.Variant), "", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.generation(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.SetStop(StopConfig{CPUHours: 1e-9}); err != nil { // reached by now
		t.Fatal(err)
	}
	if err := r.Train(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	r.Close()
	st, err := readState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Generation != 1 || !st.Finished || st.CPUHours <= 0 {
		t.Fatalf("state: generation %d, finished %v, cpu hours %g; want 1, true, > 0", st.Generation, st.Finished, st.CPUHours)
	}
	gens, err := runlog.ReadGenerations(filepath.Join(dir, runlog.MetricsFile))
	if err != nil || len(gens) != 1 || gens[0].CPUHours <= 0 || gens[0].CPUHours > st.CPUHours {
		t.Fatalf("metrics: %+v, %v", gens, err)
	}
	r, err = ResumeRun(dir, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.done() || r.cpuHours() < st.CPUHours {
		t.Fatalf("resumed: done %v, cpu hours %g (state %g)", r.done(), r.cpuHours(), st.CPUHours)
	}
	if err := r.SetStop(StopConfig{CPUHours: math.NaN()}); err == nil || !strings.Contains(err.Error(), "stop.cpu_hours") {
		t.Fatalf("a NaN stop: %v", err)
	}
}

// TestRatingPrevious: with rating.previous each rated generation plays the
// previous rated one before the anchors (here with rating.book, whose
// openings TestRatingOpenings checks), and the ratings file records those
// games under the generations' names.
func TestRatingPrevious(t *testing.T) {
	cfg := testConfig(t, 3)
	cfg.Rating.Every, cfg.Rating.Previous, cfg.Rating.Book = 1, 4, true
	dir := filepath.Join(t.TempDir(), "prev")
	trainRun(t, cfg, dir)
	ms, err := runlog.ReadMatches(filepath.Join(dir, runlog.RatingsFile))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, fmt.Sprintf("%s-%s:%d", m.Player, m.Opponent, m.Wins+m.Draws+m.Losses))
	}
	want := []string{"gen1-random:2", "gen2-gen1:4", "gen2-random:2", "gen3-gen2:4", "gen3-random:2"}
	if !slices.Equal(got, want) {
		t.Fatalf("rating matches %v, want %v", got, want)
	}
	bad := *cfg
	bad.Rating.Previous = maxRatingGames + 1
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "rating.previous") {
		t.Fatalf("too many games: %v", err)
	}
}

// TestSetTargets: each sample's result, value target and material lead are
// its side to move's: a lead of South's is a lead for a South sample and a
// deficit for a North one, taken material_horizon decisions after the
// sample or at the end of the game.
func TestSetTargets(t *testing.T) {
	pos := sidePositions(t)
	// North holds the only king (selfplay.plain_races).
	race := map[game.Side]game.Position{}
	r := configs.MustVariant("dablot")
	for side, fen := range map[game.Side]string{game.South: "6/5/6/5/2k3/5/6/5/6/5/S5/5/S5 s", game.North: "6/5/6/5/2k3/5/6/5/6/5/S5/5/S5 n"} {
		p, err := game.ParseFEN(r, fen)
		if err != nil {
			t.Fatal(err)
		}
		race[side] = p
	}
	// South's lead before each of 5 decisions, then at the end.
	balance := []float64{0, 1, 3, 3, -2, -4}
	southWin := game.Status{Outcome: game.SouthWins, Reason: game.KingCaptured}
	limitDraw := game.Status{Outcome: game.Draw, Reason: game.NoCaptureLimit}
	base := SelfPlayConfig{Adjudication: 0.5, AdjudicationScale: 6, MaterialHorizon: 2}
	mixed := base
	mixed.MaterialWeight = 0.5
	noHorizon := base
	noHorizon.MaterialHorizon = 0
	plain := mixed
	plain.PlainRaces = true
	shaped := func(lead float64) float32 { return float32(0.5 * math.Tanh(lead/6)) }
	for _, tc := range []struct {
		name    string
		cfg     SelfPlayConfig
		side    game.Side
		race    bool // the sample holds one king
		oneKing bool // the game ended with one king
		at      int
		st      game.Status
		result  int8
		target  float32
		lead    float32
		hasLead bool
	}{
		{"South, lead 2 on", base, game.South, false, false, 0, southWin, 1, 1, 3, true},
		{"North, South's lead 2 on", base, game.North, false, false, 1, southWin, -1, -1, -3, true},
		{"South, past the end", base, game.South, false, false, 4, southWin, 1, 1, -4, true},
		{"North, past the end", base, game.North, false, false, 5, southWin, -1, -1, 4, true},
		{"North, drawn by the limit", base, game.North, false, false, 2, limitDraw, 0, shaped(4), 2, true},
		{"South, drawn by the limit", base, game.South, false, false, 2, limitDraw, 0, shaped(-4), -2, true},
		{"South, material mixed in", mixed, game.South, false, false, 0, southWin, 1, 0.5 + 0.5*shaped(3), 3, true},
		{"North, material mixed in", mixed, game.North, false, false, 0, southWin, -1, -0.5 + 0.5*shaped(-3), -3, true},
		{"no horizon: no lead", noHorizon, game.North, false, false, 1, southWin, -1, -1, 0, false},
		// Without plain_races a race is shaped like any game.
		{"a race drawn, shaped", mixed, game.North, true, true, 2, limitDraw, 0, 0.5*shaped(4) + 0.5*shaped(2), 2, true},
		// With it a race's sample has the game's result, and a game that
		// ended in a race is not adjudicated, also before the race.
		{"a race drawn, plain", plain, game.North, true, true, 2, limitDraw, 0, 0, 2, true},
		{"a race won, plain", plain, game.South, true, false, 0, southWin, 1, 1, 3, true},
		{"before a drawn race, plain", plain, game.South, false, true, 0, limitDraw, 0, 0.5 * shaped(3), 3, true},
		{"a drawn game without a race, plain", plain, game.South, false, false, 2, limitDraw, 0, 0.5*shaped(-4) + 0.5*shaped(-2), -2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pos[tc.side]
			if tc.race {
				p = race[tc.side]
			}
			ss := []samples.Sample{{Position: p}}
			tc.cfg.setTargets(ss, []int{tc.at}, balance, tc.st, tc.oneKing)
			s := ss[0]
			if s.Result != tc.result || math.Abs(float64(s.Target-tc.target)) > 1e-6 || s.Lead != tc.lead || s.HasLead != tc.hasLead {
				t.Errorf("result %d, target %v, lead %v (%v); want %d, %v, %v (%v)", s.Result, s.Target, s.Lead, s.HasLead, tc.result, tc.target, tc.lead, tc.hasLead)
			}
		})
	}
}

// sidePositions returns two positions of dablot, South to move and North
// to move.
func sidePositions(t *testing.T) map[game.Side]game.Position {
	t.Helper()
	south := configs.MustVariant("dablot").Start()
	if south.SideToMove() != game.South {
		south.Apply(south.Decisions(nil)[0])
	}
	north := south
	north.Apply(north.Decisions(nil)[0])
	if south.SideToMove() != game.South || north.SideToMove() != game.North {
		t.Fatal("no positions with South and North to move")
	}
	return map[game.Side]game.Position{game.South: south, game.North: north}
}

// auxHeadRun trains a tiny run of cfg, with auxiliary heads, for three
// generations in dir: loss gives each generation's loss of the heads,
// which must be above 0 and below maxLoss. The run then resumes (its
// checkpoint records the heads' loss weights) and trains a fourth
// generation. A warm start of cfg from a model without the heads adds
// them, keeping the model's other weights; a warm start of a config
// without them from the run's model is refused with an error that says
// initErr. It returns the run's best model.
func auxHeadRun(t *testing.T, cfg *Config, dir string, loss func(runlog.Generation) float64, maxLoss float64, initErr string) *model.Model {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	trainRun(t, cfg, dir)
	gens, err := runlog.ReadGenerations(filepath.Join(dir, runlog.MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	var losses []float64
	for _, g := range gens {
		if l := loss(g); !(l > 0) || math.IsInf(l, 0) {
			t.Fatalf("generation %d: loss %v", g.Generation, l)
		}
		losses = append(losses, loss(g))
	}
	// Each generation's targets are new games, so the loss need not fall
	// in so short a run (TestTrainerAuxHeads shows the heads learn).
	t.Logf("loss by generation: %v", losses)
	if len(losses) != 3 || slices.Max(losses) >= maxLoss {
		t.Errorf("losses %v", losses)
	}
	best, err := model.LoadModel(filepath.Join(dir, rundir.BestFile))
	if err != nil {
		t.Fatal(err)
	}
	resumeTo(t, dir, 4)
	if gens, err := runlog.ReadGenerations(filepath.Join(dir, runlog.MetricsFile)); err != nil || len(gens) != 4 || !(loss(gens[3]) > 0) {
		t.Errorf("the resumed run: %d generations (%v)", len(gens), err)
	}
	// A warm start from a model without the heads adds them.
	plainModel := modeltest.NewModel(t, "frostviken", 1)
	plain := filepath.Join(t.TempDir(), "plain.dbm")
	if err := plainModel.Save(plain, nil); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	initDir := filepath.Join(t.TempDir(), "init")
	r, err := CreateRun(initDir, cfg, best.Rules, plain, RunOptions{Out: &out})
	if err != nil {
		t.Fatalf("--init without the heads: %v", err)
	}
	r.Close()
	first, err := model.LoadModel(filepath.Join(initDir, rundir.ModelDir, modelName(0)))
	if err != nil {
		t.Fatal(err)
	}
	got, want := first.Weights.Config, best.Weights.Config
	if got.ScoreHead != want.ScoreHead || got.OwnershipHead != want.OwnershipHead ||
		!strings.Contains(out.String(), "warm start with new heads") {
		t.Errorf("--init without the heads: network %+v, want the heads of %+v; output %q", got, want, out.String())
	}
	for _, tn := range plainModel.Weights.Tensors {
		if got := first.Weights.Tensor(tn.Name); got == nil || !slices.Equal(got.Data, tn.Data) {
			t.Errorf("--init without the heads: tensor %s is not the model's", tn.Name)
		}
	}
	// A warm start cannot drop a head.
	_, err = CreateRun(filepath.Join(t.TempDir(), "drop"), testConfig(t, 1), best.Rules, filepath.Join(dir, rundir.BestFile), RunOptions{})
	if err == nil || !strings.Contains(err.Error(), initErr) {
		t.Errorf("--init with the heads into a config without them: %v, want %q", err, initErr)
	}
	return best
}

// resumeTo resumes the run in dir and trains it until it has done
// generations generations.
func resumeTo(t *testing.T, dir string, generations int) {
	t.Helper()
	r, err := ResumeRun(dir, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.SetStop(StopConfig{Generations: generations}); err != nil {
		t.Fatal(err)
	}
	if err := r.Train(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
}

// firstShard returns the samples of the first shard of the run in dir,
// whose model is m.
func firstShard(t *testing.T, dir string, m *model.Model) []samples.Sample {
	t.Helper()
	_, ss, err := samples.Read(filepath.Join(dir, rundir.ShardDir, shardName(1, mainWorker, 0)), m.Rules)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// TestRunScoreHead trains a tiny run with hour-score's settings (a score
// head, material_weight 0, score_weight, score_utility): the score loss is
// measured, the shards carry the material lead, and the models record the
// score utility; the run resumes. A warm start from a model without the
// head is refused.
func TestRunScoreHead(t *testing.T) {
	hs := preset(t, "hour-score")
	cfg := testConfig(t, 3)
	cfg.Network.ScoreHead = hs.Network.ScoreHead
	cfg.SelfPlay.MaterialHorizon = hs.SelfPlay.MaterialHorizon
	cfg.SelfPlay.MaterialWeight = hs.SelfPlay.MaterialWeight
	cfg.SelfPlay.ScoreUtility = hs.SelfPlay.ScoreUtility
	cfg.Train.ScoreWeight = hs.Train.ScoreWeight
	dir := filepath.Join(t.TempDir(), "score")
	// A squared error of tanh outputs and targets in [-1, 1] is at most 4.
	best := auxHeadRun(t, cfg, dir, func(g runlog.Generation) float64 { return g.ScoreLoss }, 4,
		"the model has a score head, the training config test network.score_head: false")
	if !best.Weights.Config.ScoreHead || best.ScoreUtility != hs.SelfPlay.ScoreUtility {
		t.Errorf("best model: score head %v, utility %v", best.Weights.Config.ScoreHead, best.ScoreUtility)
	}
	ss := firstShard(t, dir, best)
	for _, s := range ss {
		if !s.HasLead {
			t.Fatalf("a sample without a lead (%v)", s.Lead)
		}
	}
}

// TestBatchMakerScore: for a network with a score head, a sample's score
// target is tanh(lead/scale) with weight 1, and a sample without a lead
// (from a shard of the previous format) has weight 0; a network without
// the head gets no score targets.
func TestBatchMakerScore(t *testing.T) {
	cfg := modeltest.TinyNet
	cfg.ScoreHead = true
	m := modeltest.NewModelOf(t, "keyland", cfg, 4)
	var ss []samples.Sample
	for i, p := range modeltest.RandomPositions(m.Rules, 32, 5) {
		s := samples.Sample{Position: p, Result: 1, Target: 1}
		if i%2 == 0 {
			s.Lead, s.HasLead = float32(i/2-8), true
		}
		ss = append(ss, s)
	}
	rp := replayOf(t, m, ss)
	b, err := NewBatchMaker(m, 64, true, 0, 4).Make(rp, 32, modeltest.NewRand(2))
	if err != nil {
		t.Fatal(err)
	}
	targets := map[float32]bool{}
	for _, s := range ss {
		if s.HasLead {
			targets[float32(math.Tanh(float64(s.Lead)/4))] = true
		}
	}
	with, without := 0, 0
	for i := range b.N {
		switch b.ScoreMask[i] {
		case 1:
			with++
			if !targets[b.Score[i]] {
				t.Fatalf("position %d: score target %v is no tanh(lead/4) of the samples", i, b.Score[i])
			}
		case 0:
			without++
			if b.Score[i] != 0 {
				t.Fatalf("position %d: a target %v without weight", i, b.Score[i])
			}
		default:
			t.Fatalf("position %d: score weight %v", i, b.ScoreMask[i])
		}
	}
	if with == 0 || without == 0 {
		t.Fatalf("%d positions with a score target, %d without: want both", with, without)
	}
	if _, err := NewBatchMaker(m, 8, false, 0, 0).Make(rp, 32, modeltest.NewRand(2)); err == nil || !strings.Contains(err.Error(), "adjudication_scale") {
		t.Errorf("score targets without a scale: %v", err)
	}
	plain, err := NewBatchMaker(modeltest.NewModel(t, "keyland", 4), 8, false, 0, 4).Make(rp, 32, modeltest.NewRand(2))
	if err != nil || plain.Score != nil || plain.ScoreMask != nil {
		t.Errorf("a network without a score head gets score targets (%v)", err)
	}
}

// TestBatchMakerShortTermShards: samples with short-term value targets
// (from shards of runs with the short-term heads, whose settings left the
// program) still read and train a network; its batches carry no
// short-term targets.
func TestBatchMakerShortTermShards(t *testing.T) {
	m := modeltest.NewModel(t, "keyland", 4)
	var ss []samples.Sample
	for i, p := range modeltest.RandomPositions(m.Rules, 8, 5) {
		ss = append(ss, samples.Sample{Position: p, Result: 1, Target: 1, ShortTerm: []float32{float32(i) / 10, -0.5}})
	}
	rp := replayOf(t, m, ss)
	if rp.Len() != len(ss) || len(rp.buf[0].ShortTerm) != 2 {
		t.Fatalf("the replay holds %d samples, the first with short-term targets %v", rp.Len(), rp.buf[0].ShortTerm)
	}
	b, err := NewBatchMaker(m, 16, true, 0, 4).Make(rp, len(ss), modeltest.NewRand(2))
	if err != nil || b.ShortTerm != nil || b.ShortTermMask != nil || b.N != 16 {
		t.Errorf("a batch of samples with short-term targets: %v, %d positions, short-term %v", err, b.N, b.ShortTerm)
	}
}

// replayOf returns a replay buffer of m that holds samples ss, from a
// shard of their own.
func replayOf(t *testing.T, m *model.Model, ss []samples.Sample) *Replay {
	t.Helper()
	dir := t.TempDir()
	if err := samples.Write(filepath.Join(dir, "a"+rundir.ShardExt), m.Rules, samples.Header{}, ss); err != nil {
		t.Fatal(err)
	}
	rp := NewReplay(m, dir, 1000)
	if _, err := rp.Scan(); err != nil {
		t.Fatal(err)
	}
	return rp
}

// TestRatingOpenings: rating games start from the variant's opening book
// with rating.book, and from the start without it or without a book.
func TestRatingOpenings(t *testing.T) {
	for _, tc := range []struct {
		variant string
		book    bool
		want    bool // the built-in book's openings
	}{
		{"frostviken", true, true},
		{"frostviken", false, false},
		{"daablot,no_return=true", true, false}, // changed rules: no book
	} {
		cfg := testConfig(t, 1)
		cfg.Variant, cfg.Rating.Book = tc.variant, tc.book
		rules := configs.MustVariant(tc.variant)
		r := &Run{Config: cfg, Rules: rules}
		got, err := r.ratingOpenings()
		if err != nil {
			t.Fatalf("%s, book %v: %v", tc.variant, tc.book, err)
		}
		want, _, _ := configs.Book(rules)
		if !tc.want {
			want = nil
		}
		if len(got) != len(want) || (tc.want && (len(got) == 0 || got[0] != want[0])) {
			t.Errorf("%s, book %v: %d openings, want %d", tc.variant, tc.book, len(got), len(want))
		}
	}
}

// TestTagGame: the run's tags join any the record already has.
func TestTagGame(t *testing.T) {
	for _, tc := range []struct {
		name string
		tags map[string]string
		want map[string]string
	}{
		{"no tags", nil, map[string]string{"Generation": "12", "Game": "3"}},
		{"a tag of its own", map[string]string{"Opening": "d4"},
			map[string]string{"Generation": "12", "Game": "3", "Opening": "d4"}},
	} {
		rec := &game.Record{Tags: tc.tags}
		tagGame(rec, 12, 3)
		if !maps.Equal(rec.Tags, tc.want) {
			t.Errorf("%s: tags %v, want %v", tc.name, rec.Tags, tc.want)
		}
	}
}
