package train

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/train/runlog"
)

// TestMovesLeftConfig: network.moves_left_head gives the network the head
// and its loss the weight train.moves_left_weight, 1 by default; without
// the head the weight is 0. The self-play settings name the utility.
func TestMovesLeftConfig(t *testing.T) {
	cfg := testConfig(t, 1)
	if cfg.NetConfig().MovesLeftHead || cfg.TrainConfig().MovesLeftWeight != 0 {
		t.Errorf("without the head: %+v, weight %v", cfg.NetConfig(), cfg.TrainConfig().MovesLeftWeight)
	}
	cfg.Network.MovesLeftHead = true
	cfg.SelfPlay.MovesLeftUtility = 0.25
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if !cfg.NetConfig().MovesLeftHead || cfg.TrainConfig().MovesLeftWeight != 1 {
		t.Errorf("with the head: %+v, weight %v; want the head and weight 1", cfg.NetConfig(), cfg.TrainConfig().MovesLeftWeight)
	}
	half := 0.5
	cfg.Train.MovesLeftWeight = &half
	if w := cfg.TrainConfig().MovesLeftWeight; w != 0.5 {
		t.Errorf("the weight 0.5 gives %v", w)
	}
	r := &Run{Config: cfg}
	if s := r.searchSettings(8); !strings.HasSuffix(s, " mlu=0.25") {
		t.Errorf("search settings %q: want mlu=0.25", s)
	}
}

// TestRunMovesLeft trains a tiny run with the moves-left head and a
// moves-left utility: the head's loss is measured, every sample of the
// shards carries its decisions left (at least 1: a sample is taken before
// a decision), and the models have the head and record the utility; the
// run resumes. A warm start from a model without the head adds it; one
// with it into a config without it is refused.
func TestRunMovesLeft(t *testing.T) {
	cfg := testConfig(t, 3)
	cfg.Network.MovesLeftHead = true
	cfg.SelfPlay.MovesLeftUtility = 0.5
	dir := filepath.Join(t.TempDir(), "ml")
	// A squared error of tanh outputs and targets in [-1, 1] is at most 4.
	best := auxHeadRun(t, cfg, dir, func(g runlog.Generation) float64 { return g.MovesLeftLoss }, 4,
		"the model has a moves-left head, the training config test network.moves_left_head: false")
	if !best.Weights.Config.MovesLeftHead || best.MovesLeftUtility != 0.5 {
		t.Errorf("best model: moves-left head %v, utility %v", best.Weights.Config.MovesLeftHead, best.MovesLeftUtility)
	}
	decided := 0
	for _, s := range firstShard(t, dir, best) {
		if !s.HasLeft || s.Left < 1 {
			t.Fatalf("a sample with %d decisions left (%v)", s.Left, s.HasLeft)
		}
		if s.Result != 0 {
			decided++
		}
	}
	t.Logf("%d samples of decided games in the first shard", decided)
}
