package model_test

import (
	"fmt"

	"github.com/dablot-zero/dablot/net/model"
)

// The model that ships for keyland: its variant, network and training.
func ExampleLoadModel() {
	m, err := model.LoadModel("../../models/keyland.dbm")
	if err != nil {
		panic(err)
	}
	c := m.Weights.Config
	fmt.Printf("%s: %d blocks of %d channels, trained %v\n", m.Rules.Name, c.Blocks, c.Channels, m.Training.Hours > 0)
	// Output:
	// keyland: 2 blocks of 32 channels, trained true
}
