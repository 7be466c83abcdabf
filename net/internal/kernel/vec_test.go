package kernel

import (
	"math"
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
