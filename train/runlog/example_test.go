package runlog_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/dablot-zero/dablot/train/runlog"
)

// A run logs three generations, is killed in the middle of a fourth line,
// and resumes from the checkpoint of generation 2: TrimAfter forgets what
// came after it, the torn line included, before the run appends again.
func Example() {
	dir, err := os.MkdirTemp("", "runlog-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, runlog.MetricsFile)

	for g := 1; g <= 3; g++ {
		if err := runlog.Append(path, runlog.Generation{Generation: g, Games: 64 * g, PolicyLoss: 3.0 / float64(g)}); err != nil {
			panic(err)
		}
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		panic(err)
	}
	f.WriteString(`{"generation":4,"games":2`) // the kill
	f.Close()

	if err := runlog.TrimAfter(path, 2); err != nil {
		panic(err)
	}
	if err := runlog.Append(path, runlog.Generation{Generation: 3, Games: 190, PolicyLoss: 1.1}); err != nil {
		panic(err)
	}
	gens, err := runlog.ReadGenerations(path)
	if err != nil {
		panic(err)
	}
	for _, g := range gens {
		fmt.Printf("generation %d: %d games, policy loss %.2f\n", g.Generation, g.Games, g.PolicyLoss)
	}
	// Output:
	// generation 1: 64 games, policy loss 3.00
	// generation 2: 128 games, policy loss 1.50
	// generation 3: 190 games, policy loss 1.10
}
