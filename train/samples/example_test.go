package samples_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/train/samples"
)

// A shard of one sample: the keyland setup, with a search policy over its
// first two decisions, written and read back. Reading it as another variant
// fails; so does reading a damaged shard, with ErrCorrupt.
func Example() {
	dir, err := os.MkdirTemp("", "samples-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	keyland := configs.MustVariant("keyland")
	start := keyland.Start()
	ds := start.Decisions(nil)
	s := samples.Sample{
		Position: start,
		Policy: []samples.PolicyEntry{
			{Index: uint16(ds[0].PolicyIndex(keyland.Board)), Prob: 0.75},
			{Index: uint16(ds[1].PolicyIndex(keyland.Board)), Prob: 0.25},
		},
		Result: 0, Value: 0.1, Target: 0, Full: true,
	}
	path := filepath.Join(dir, "gen-000001-main.samples.zst")
	if err := samples.Write(path, keyland, samples.Header{Generation: 1, Worker: "main", Games: 1}, []samples.Sample{s}); err != nil {
		panic(err)
	}

	h, ss, err := samples.Read(path, keyland)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s shard of generation %d by %s: %d sample(s)\n", h.Variant, h.Generation, h.Worker, h.Count)
	fmt.Println(ss[0].Position.FEN() == start.FEN(), ss[0].Policy[0].Prob, ss[0].Full)

	_, _, err = samples.Read(path, configs.MustVariant("dablot"))
	fmt.Println("as dablot:", err != nil)

	data, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile(path, data[:len(data)/2], 0o644); err != nil {
		panic(err)
	}
	_, _, err = samples.Read(path, keyland)
	fmt.Println("cut in half:", errors.Is(err, samples.ErrCorrupt))
	// Output:
	// keyland shard of generation 1 by main: 1 sample(s)
	// true 0.75 true
	// as dablot: true
	// cut in half: true
}
