// Package nettest holds the test networks and inputs shared by the tests of
// net and net/trainer. It works on tensors, not on net's types, so that the
// tests of net itself can use it.
package nettest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dablot-zero/dablot/net/internal/kernel"
	"github.com/dablot-zero/dablot/net/safetensors"
)

// Perturb fills every tensor (including the zero-initialised ones) with
// random values of standard deviation scale/sqrt(rows), so that tests
// exercise every path.
func Perturb(ts []safetensors.Tensor, seed uint64, scale float64) {
	r := rand.New(rand.NewPCG(seed, 7))
	for _, t := range ts {
		std := scale / math.Sqrt(float64(t.Shape[0]))
		for i := range t.Data {
			t.Data[i] = float32(r.NormFloat64() * std)
		}
	}
}

// RandomInputs returns n input values, about a third of them 1 and the
// rest 0.
func RandomInputs(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		if r.IntN(3) == 0 {
			x[i] = 1
		}
	}
	return x
}

// SeedSubnormals sets every third value of every tensor to a subnormal
// value (or zero) and fails t if none became subnormal.
func SeedSubnormals(t testing.TB, ts []safetensors.Tensor) {
	t.Helper()
	n := 0
	for _, tt := range ts {
		for i := 0; i < len(tt.Data); i += 3 {
			tt.Data[i] = float32(i%7-3) * 1e-40
			if tt.Data[i] != 0 {
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no subnormal weights seeded")
	}
}

// CountSubnormals counts the subnormal values among xs.
func CountSubnormals(xs ...[]float32) int {
	n := 0
	for _, x := range xs {
		for _, v := range x {
			if v != 0 && kernel.FlushSubnormal(v) == 0 {
				n++
			}
		}
	}
	return n
}

// Resign sets the metadata checksum of a header a test edited to match, as
// a tool that rewrites a file consistently would, so that the checks
// behind the checksum are reached.
func Resign(h map[string]any) {
	md := h["__metadata__"].(map[string]any)
	m := map[string]string{}
	for k, v := range md {
		m[k] = v.(string)
	}
	md[safetensors.MetadataChecksumKey] = safetensors.MetadataChecksum(m)
}
