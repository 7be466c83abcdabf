package encode_test

import (
	"fmt"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/net/encode"
)

func ExampleEncoder() {
	r := configs.MustVariant("frostviken")
	e := encode.New(r, encode.Options{})
	p := r.Start()
	input := make([]float32, e.InputSize())
	e.Encode(&p, input)
	ds := p.Decisions(nil)
	fmt.Println(e.Points(), e.Planes(), e.PolicySize(), len(e.LegalIndices(&p, ds, nil)))
	// Output: 41 42 657 13
}
