package trainer_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/trainer"
)

// Example builds a small network on the 41-point board, takes one training
// step, saves the weights, loads them back and evaluates a position.
func Example() {
	topo := net.GridBoard(5, 5)
	cfg := net.Config{Blocks: 1, Channels: 8, InputPlanes: 4, ValueHidden: 8}
	w, err := net.NewWeights(cfg, 1)
	if err != nil {
		fmt.Println(err)
		return
	}

	// One training step on a single position whose only legal move is
	// the one at policy entry 194.
	tc := trainer.DefaultTrainConfig()
	tc.BatchSize = 1
	tr, err := trainer.NewTrainer(topo, w, tc)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer tr.Close()
	A := game.PolicySize(topo.Points)
	move := 12*net.MovesPerPoint + 2 // one entry of the policy (its layout is game's)
	b := trainer.Batch{N: 1, Input: make([]float32, topo.Points*cfg.InputPlanes),
		Policy: make([]float32, A), Mask: make([]float32, A), Value: []float32{1, 0, 0}}
	b.Policy[move], b.Mask[move] = 1, 1
	if _, err := tr.Step(b); err != nil {
		fmt.Println(err)
		return
	}

	// Save with caller metadata, load with expectations.
	path := filepath.Join(os.TempDir(), "example-model.safetensors")
	defer os.Remove(path)
	if err := net.Save(path, topo, tr.Weights(), map[string]string{"encoding_version": "1"}); err != nil {
		fmt.Println(err)
		return
	}
	m, err := net.Load(path, net.Expect{Topology: topo, InputPlanes: 4, Metadata: map[string]string{"encoding_version": "1"}})
	if err != nil {
		fmt.Println(err)
		return
	}

	// Inference: the policy over the legal moves and WDL.
	e, err := net.NewEvaluator(topo, m.Weights)
	if err != nil {
		fmt.Println(err)
		return
	}
	ws := e.NewWorkspace(1, 1)
	defer ws.Close()
	logits, wdl, err := ws.Forward(b.Input, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	legal := []int32{int32(move)}
	priors := make([]float32, len(legal))
	net.Softmax(priors, logits, legal)
	fmt.Printf("policy size %d, p(move) = %.2f, wdl sums to %.2f\n", len(logits), priors[0], wdl[0]+wdl[1]+wdl[2])
	// Output: policy size 657, p(move) = 1.00, wdl sums to 1.00
}
