package mcts

import (
	"math"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// constEvaluator gives uniform priors and the same value everywhere.
type constEvaluator struct{ value float32 }

func (e constEvaluator) Evaluate(batch []Request) error {
	for i := range batch {
		uniform(&batch[i])
		batch[i].Value = e.value
	}
	return nil
}

func TestQuiescenceEvaluator(t *testing.T) {
	for _, tc := range []struct {
		name    string
		variant string
		fen     string
		inner   float32
		swing   float64
	}{
		// South's soldier a1 can jump North's a3 (nothing recaptures).
		{"capture pending", "keyland", "5k/5/6/5/6/5/6/5/6/5/s5/5/S4K s", 0, 1},
		{"capture pending, inner value kept in logit space", "keyland", "5k/5/6/5/6/5/6/5/6/5/s5/5/S4K s", 0.5, 1},
		// North to move: its soldier cannot jump (the point beyond is off
		// the board), and South's threat is not North's to resolve.
		{"opponent's threat", "keyland", "5k/5/6/5/6/5/6/5/6/5/s5/5/S4K n", 0, 0},
		// The soldiers are apart: a quiet position.
		{"quiet", "keyland", "5k/5/6/5/6/5/s5/5/6/5/6/5/S4K s", -0.3, 0},
		// South's prince a5 can take the soldier a7, landing on a9, where
		// North's king a11 takes it back. Captures are optional in keyland,
		// so South stands pat; in dablot they are compulsory, and the
		// exchange costs South a prince (3) for a soldier (1).
		{"bad exchange, optional", "keyland", "6/5/k5/5/6/5/s5/5/P4K/5/6/5/6 s", 0, 0},
		{"bad exchange, compulsory", "dablot", "6/5/k5/5/6/5/s5/5/P4K/5/6/5/6 s", 0, -2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := game.ParseFEN(configs.MustVariant(tc.variant), tc.fen)
			if err != nil {
				t.Fatal(err)
			}
			q := NewQuiescenceEvaluator(constEvaluator{tc.inner}, 0.5)
			if got := q.Swing(&p); math.Abs(got-tc.swing) > 1e-9 {
				t.Fatalf("swing %v, want %v", got, tc.swing)
			}
			batch := []Request{{Pos: p, Legal: p.Decisions(nil)}}
			batch[0].Priors = make([]float32, len(batch[0].Legal))
			if err := q.Evaluate(batch); err != nil {
				t.Fatal(err)
			}
			want := math.Tanh(math.Atanh(float64(tc.inner)) + 0.5*tc.swing)
			if got := float64(batch[0].Value); math.Abs(got-want) > 1e-6 {
				t.Fatalf("value %v, want %v", got, want)
			}
		})
	}
}

func TestShiftWDL(t *testing.T) {
	for _, tc := range []struct {
		wdl [3]float32
		v   float32
	}{
		{[3]float32{0.2, 0.6, 0.2}, 0.5}, {[3]float32{0.2, 0.6, 0.2}, -0.9}, {[3]float32{0.7, 0.1, 0.2}, 0.2},
	} {
		got := shiftWDL(tc.wdl, tc.v)
		sum := got[0] + got[1] + got[2]
		if math.Abs(float64(sum-1)) > 1e-6 || math.Abs(float64(got[0]-got[2]-tc.v)) > 1e-6 || min(got[0], got[1], got[2]) < 0 {
			t.Errorf("shiftWDL(%v, %v) = %v: want probabilities with W-L = %v", tc.wdl, tc.v, got, tc.v)
		}
	}
}

func TestMaterialBlend(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fen   string
		inner float32
		b     float64 // the balance for the side to move, in soldiers
	}{
		// South: king (5) and a soldier; North: king and two soldiers.
		{"a soldier down", "5k/5/6/5/6/5/s5/5/6/5/s5/5/S4K s", 0, -1},
		{"a soldier up, the other side to move", "5k/5/6/5/6/5/s5/5/6/5/s5/5/S4K n", 0.2, 1},
		// South's prince (3) against North's soldier (1), kings on both sides.
		{"a prince against a soldier", "5k/5/6/5/6/5/s5/5/P4K/5/6/5/6 s", -0.4, 2},
		{"level: the inner value stands", "5k/5/6/5/6/5/s5/5/6/5/6/5/S4K s", 0.3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mustFEN(t, "keyland", tc.fen)
			batch := []Request{{Pos: p, Legal: p.Decisions(nil)}}
			batch[0].Priors = make([]float32, len(batch[0].Legal))
			e := &MaterialBlend{Inner: constEvaluator{tc.inner}, PerSoldier: 0.3}
			if err := e.Evaluate(batch); err != nil {
				t.Fatal(err)
			}
			want := math.Tanh(math.Atanh(float64(tc.inner)) + 0.3*tc.b)
			if got := float64(batch[0].Value); math.Abs(got-want) > 1e-6 {
				t.Fatalf("value %v, want %v", got, want)
			}
		})
	}
}
