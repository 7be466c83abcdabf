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

// TestSplitWDL: a value and a draw chance become win, draw and loss
// chances with w - l = v, the draw kept as far as it fits.
func TestSplitWDL(t *testing.T) {
	nan := float32(math.NaN())
	for _, tc := range []struct {
		v, draw float32
		want    [3]float32
	}{
		{0, 0, [3]float32{0.5, 0, 0.5}},
		{0, 1, [3]float32{0, 1, 0}},
		{0.5, 0.3, [3]float32{0.6, 0.3, 0.1}},
		{-0.5, 0.3, [3]float32{0.1, 0.3, 0.6}},
		{0.5, 0.8, [3]float32{0.5, 0.5, 0}}, // the draw lowered to 1-|v|
		{1, 0.4, [3]float32{1, 0, 0}},       // a sure win leaves no draw
		{-1, 0.4, [3]float32{0, 0, 1}},
		{1.5, 0, [3]float32{1, 0, 0}},        // v clamped
		{0.2, -0.3, [3]float32{0.6, 0, 0.4}}, // a negative draw counts as 0
		{0.2, nan, [3]float32{0.6, 0, 0.4}},  // so does NaN
		{-0.9, 0.6, [3]float32{0, 0.1, 0.9}}, // quiescence shifting a drawish value
	} {
		got := SplitWDL(tc.v, tc.draw)
		for i := range got {
			if math.Abs(float64(got[i]-tc.want[i])) > 1e-6 {
				t.Errorf("SplitWDL(%v, %v) = %v, want %v", tc.v, tc.draw, got, tc.want)
				break
			}
		}
		if sum := got[0] + got[1] + got[2]; math.Abs(float64(sum-1)) > 1e-6 || min(got[0], got[1], got[2]) < 0 {
			t.Errorf("SplitWDL(%v, %v) = %v: not probabilities", tc.v, tc.draw, got)
		}
	}
}

// TestShiftValueWDL: the quiescence shift moves a request's WDL with its
// value and keeps the draw chance where it fits.
func TestShiftValueWDL(t *testing.T) {
	for _, tc := range []struct {
		value float32
		wdl   [3]float32
		x     float64
		draw  float32 // the draw chance after the shift
	}{
		{0.2, [3]float32{0.5, 0.2, 0.3}, 0.3, 0.2},
		{-0.1, [3]float32{0.2, 0.5, 0.3}, -2, 1 - float32(math.Tanh(2+math.Atanh(0.1)))},
		{0.3, [3]float32{}, 1, 0}, // no WDL: none made up
	} {
		r := Request{Value: tc.value, WDL: tc.wdl}
		r.shiftValue(tc.x)
		v := float32(math.Tanh(math.Atanh(float64(tc.value)) + tc.x))
		if math.Abs(float64(r.Value-v)) > 1e-6 {
			t.Errorf("%+v shifted by %v: value %v, want %v", tc, tc.x, r.Value, v)
		}
		if tc.wdl == ([3]float32{}) {
			if r.WDL != tc.wdl {
				t.Errorf("%+v shifted: WDL %v, want none", tc, r.WDL)
			}
			continue
		}
		if math.Abs(float64(r.WDL[0]-r.WDL[2]-v)) > 1e-6 || math.Abs(float64(r.WDL[1]-tc.draw)) > 1e-6 {
			t.Errorf("%+v shifted by %v: WDL %v, want W-L %v and draw %v", tc, tc.x, r.WDL, v, tc.draw)
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
		// South alone has a king (5) and a soldier against two soldiers.
		{"the only king", "6/5/6/5/6/5/s5/5/6/5/s5/5/S4K s", 0.1, 4},
		{"the only king, the other side to move", "6/5/6/5/6/5/s5/5/6/5/s5/5/S4K n", -0.1, -4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mustFEN(t, "keyland", tc.fen)
			// With PlainRaces a position with one king keeps the
			// inner value; others are blended alike.
			for _, plain := range []bool{false, true} {
				batch := []Request{{Pos: p, Legal: p.Decisions(nil)}}
				batch[0].Priors = make([]float32, len(batch[0].Legal))
				e := &MaterialBlend{Inner: constEvaluator{tc.inner}, PerSoldier: 0.3, PlainRaces: plain}
				if err := e.Evaluate(batch); err != nil {
					t.Fatal(err)
				}
				b := tc.b
				if plain && OneKing(&p) {
					b = 0
				}
				want := math.Tanh(math.Atanh(float64(tc.inner)) + 0.3*b)
				if got := float64(batch[0].Value); math.Abs(got-want) > 1e-6 {
					t.Fatalf("plain races %v: value %v, want %v", plain, got, want)
				}
			}
		})
	}
}

// TestOneKing: a king on each side, one, or none.
func TestOneKing(t *testing.T) {
	for fen, want := range map[string]bool{
		"5k/5/6/5/6/5/s5/5/6/5/s5/5/S4K s": false,
		"6/5/6/5/6/5/s5/5/6/5/s5/5/S4K s":  true,
		"5k/5/6/5/6/5/s5/5/6/5/s5/5/S5 n":  true,
		"6/5/6/5/6/5/s5/5/6/5/s5/5/S5 s":   false,
	} {
		p := mustFEN(t, "keyland", fen)
		if got := OneKing(&p); got != want {
			t.Errorf("OneKing(%s) = %v, want %v", fen, got, want)
		}
	}
}
