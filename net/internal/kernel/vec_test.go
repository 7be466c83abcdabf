package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestExpNeg(t *testing.T) {
	worst := 0.0
	for i := 0; i <= 200000; i++ {
		x := -float32(i) * 87.0 / 200000
		got, want := float64(ExpNeg(x)), math.Exp(float64(x))
		worst = math.Max(worst, math.Abs(got-want)/want)
	}
	t.Logf("max relative error %.2g", worst)
	if worst > 5e-7 {
		t.Fatalf("ExpNeg relative error %g", worst)
	}
	if ExpNeg(-100) != 0 || ExpNeg(0) != 1 || ExpNeg(float32(math.Inf(-1))) != 0 {
		t.Fatal("ExpNeg edge cases")
	}
}

func TestVecOps(t *testing.T) {
	t.Logf("implementation: %s", Implementation())
	checkVecOps(t)
}

// checkVecOps compares VecAdd, VecRelu, VecAddRelu, VecReluMask and
// GatherRow with the plain loops, over lengths that leave every tail.
func checkVecOps(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 70; n++ {
		a, b, y := randSlice(r, n), randSlice(r, n), randSlice(r, n)
		want, got := slices.Clone(a), slices.Clone(a)
		vecAddGeneric(want, b)
		VecAdd(got, b)
		if !slices.Equal(got, want) {
			t.Fatalf("VecAdd, %d floats: %v, want %v", n, got, want)
		}
		vecReluGeneric(want)
		VecRelu(got)
		if !slices.Equal(got, want) {
			t.Fatalf("VecRelu, %d floats: %v, want %v", n, got, want)
		}
		want, got = slices.Clone(a), slices.Clone(a)
		vecAddGeneric(want, b)
		vecReluGeneric(want)
		VecAddRelu(got, b)
		if !slices.Equal(got, want) {
			t.Fatalf("VecAddRelu, %d floats: %v, want %v", n, got, want)
		}
		want, got = make([]float32, n), randSlice(r, n)
		vecReluMaskGeneric(want, b, y)
		VecReluMask(got, b, y)
		if !slices.Equal(got, want) {
			t.Fatalf("VecReluMask, %d floats: %v, want %v", n, got, want)
		}
	}
	for _, c := range []int{1, 8, 16, 32, 40} {
		x := randSlice(r, 5*c)
		tab := []int32{0, -1, 4, 2, -1, 1, 3, 0, 4}
		want, got := make([]float32, 9*c), randSlice(r, 9*c)
		gatherRowGeneric(want, x, tab, c)
		GatherRow(got, x, tab, c)
		if !slices.Equal(got, want) {
			t.Fatalf("GatherRow, %d channels: %v, want %v", c, got, want)
		}
	}
}
