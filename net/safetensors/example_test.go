package safetensors_test

import (
	"fmt"

	"github.com/dablot-zero/dablot/net/safetensors"
)

func Example() {
	buf, err := safetensors.Encode([]safetensors.Tensor{
		{Name: "bias", Shape: []int{3}, Data: []float32{0.5, -1, 2}},
	}, map[string]string{"format": "example"})
	if err != nil {
		panic(err)
	}
	f, err := safetensors.Decode(buf)
	if err != nil {
		panic(err)
	}
	bias, err := f.Take("bias", []int{3})
	fmt.Println(bias, err, f.Meta["format"], f.Done())

	buf[len(buf)-1] ^= 0x80 // one flipped bit in the data
	_, err = safetensors.Decode(buf)
	fmt.Println(err != nil)
	// Output:
	// [0.5 -1 2] <nil> example <nil>
	// true
}
