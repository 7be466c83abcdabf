package train_test

import (
	"fmt"

	"github.com/dablot-zero/dablot/train"
)

// The statistics the arena prints for 60 wins, 20 draws and 20 losses.
func ExampleWDL() {
	r := train.WDL{W: 60, D: 20, L: 20}
	fmt.Println(r)
	test := train.SPRT{Elo0: 0, Elo1: 50, Alpha: 0.05, Beta: 0.05}
	llr, verdict := test.Test(r)
	fmt.Printf("LLR %.2f: %s\n", llr, verdict)
	// Output:
	// +60 =20 -20  score 70.0% [62.2%, 77.8%]  Elo +147 [+86, +218]
	// LLR 5.96: H1 accepted
}
