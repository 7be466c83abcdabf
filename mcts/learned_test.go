package mcts

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// handLearned is the learned evaluation that the guard's hand-written
// one is: each rank at its weight on every point, mobility at its weight.
func handLearned(r *game.Rules, ab *AlphaBetaPlayer) *LearnedEval {
	e := &LearnedEval{Variant: r.Name, Points: r.Board.Points(), Mobility: ab.cfg.Mobility}
	for k := range e.Square {
		e.Square[k] = make([]int, e.Points)
		for q := range e.Square[k] {
			e.Square[k][q] = ab.cfg.Weights[k]
		}
	}
	return e
}

// randomLearned is a learned evaluation with random values.
func randomLearned(r *game.Rules, rng *rand.Rand) *LearnedEval {
	e := &LearnedEval{Variant: r.Name, Points: r.Board.Points(), Mobility: rng.IntN(21) - 10}
	for k := range e.Square {
		e.Square[k] = make([]int, e.Points)
		for q := range e.Square[k] {
			e.Square[k][q] = rng.IntN(2001) - 1000
		}
	}
	return e
}

// playedPositions returns the positions of a random game of r, up to n.
func playedPositions(r *game.Rules, rng *rand.Rand, n int) []game.Position {
	var out []game.Position
	var scratch game.MoveScratch
	p := r.Start()
	for len(out) < n && !p.Status().Over() {
		out = append(out, p)
		d, ok := p.RandomDecision(rng, &scratch)
		if !ok {
			break
		}
		p.Apply(d)
	}
	return out
}

// TestLearnedFeatures: in every variant, a learned evaluation (without
// the hunt term) is the sum of its weights by LearnedFeatures, and the
// features turn North's points by the half-turn: a side's piece counts
// as the opponent's on the rotated point would.
func TestLearnedFeatures(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, v := range configs.VariantNames() {
		r := configs.MustVariant(v)
		cfg := DefaultAlphaBetaConfig()
		cfg.Hunt = 0
		ab, err := NewAlphaBetaPlayer(cfg)
		if err != nil {
			t.Fatal(err)
		}
		e := randomLearned(r, rng)
		if err := e.Check(r.Name, r.Board); err != nil {
			t.Fatal(err)
		}
		ab.SetLearned(e)
		n := r.Board.Points()
		var feats []Feature
		for _, p := range playedPositions(r, rng, 120) {
			if p.Status().Over() {
				continue
			}
			feats = ab.LearnedFeatures(&p, feats[:0])
			sum := 0.0
			for _, f := range feats {
				w := e.Mobility
				if f.Index < game.NumRanks*n {
					w = e.Square[f.Index/n][f.Index%n]
				}
				sum += float64(w) * f.Value
			}
			if got := ab.Evaluate(&p); float64(got) != sum {
				t.Fatalf("%s %s: Evaluate %d, weights by features %g", v, p.FEN(), got, sum)
			}
			me := p.SideToMove()
			for pcs := p.Pieces(me.Other(), game.Soldier); !pcs.Empty(); {
				q := pcs.PopFirst()
				want := int(game.Soldier)*n + ownPoint(r.Board, me.Other(), q)
				if !slices.Contains(feats, Feature{want, -1}) {
					t.Fatalf("%s %s: the opponent's soldier on %s has no feature %d", v, p.FEN(), r.Board.Name(q), want)
				}
			}
		}
	}
}

// TestLearnedAsHand: a learned evaluation equal to the hand-written
// weights searches as the hand-written one does: the same scores and the
// same vetoes, from the book's openings.
func TestLearnedAsHand(t *testing.T) {
	for _, v := range []string{"dablot", "winther"} {
		r := configs.MustVariant(v)
		for _, p := range bookOf(t, v)[:6] {
			var vetoes [2][]game.Decision
			var scores [2]int
			for i := range 2 {
				g, err := NewGuard(3, DefaultGuardMargin, 1)
				if err != nil {
					t.Fatal(err)
				}
				if i == 1 {
					g.SetLearned(handLearned(r, g.ab), "hand.json")
				}
				if vetoes[i], err = g.Excluded(context.Background(), &p, time.Time{}); err != nil {
					t.Fatal(err)
				}
				scores[i] = g.ab.Evaluate(&p)
			}
			if !slices.Equal(vetoes[0], vetoes[1]) || scores[0] != scores[1] {
				t.Errorf("%s %s: hand-written vetoes %v, score %d; learned as hand %v, %d", v, p.FEN(), vetoes[0], scores[0], vetoes[1], scores[1])
			}
		}
	}
}

// TestLearnedChanges: a learned evaluation that values soldiers at
// nothing and mobility highly scores other than the hand-written one.
func TestLearnedChanges(t *testing.T) {
	r := configs.MustVariant("dablot")
	p := mustFEN(t, "dablot", "6/5/6/2s2/2s3/5/1S2s1/5/2S3/5/6/5/6 n") // North a soldier ahead
	ab, err := NewAlphaBetaPlayer(DefaultAlphaBetaConfig())
	if err != nil {
		t.Fatal(err)
	}
	hand := ab.Evaluate(&p)
	e := handLearned(r, ab)
	e.Square[game.Soldier] = make([]int, e.Points)
	e.Mobility = 50
	ab.SetLearned(e)
	if got := ab.Evaluate(&p); got == hand {
		t.Errorf("soldiers at 0, mobility 50: score %d, the hand-written one's", got)
	}
	ab.SetLearned(nil)
	if got := ab.Evaluate(&p); got != hand {
		t.Errorf("SetLearned(nil): score %d, want the hand-written %d", got, hand)
	}
}

// TestLoadLearnedEval: a good file loads and fits its board; a bad one
// is refused with its fault named.
func TestLoadLearnedEval(t *testing.T) {
	r := configs.MustVariant("dablot")
	ab, err := NewAlphaBetaPlayer(DefaultAlphaBetaConfig())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	writeLearned(t, good, handLearned(r, ab))
	e, err := LoadLearnedEval(good)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Check("dablot", r.Board); err != nil {
		t.Errorf("Check: %v", err)
	}
	if err := e.Check("winther", r.Board); err == nil || !strings.Contains(err.Error(), "variant") {
		t.Errorf("Check on winther: %v", err)
	}
	small := configs.MustVariant("keyland").Board
	if small.Points() != r.Board.Points() {
		if err := e.Check("dablot", small); err == nil || !strings.Contains(err.Error(), "points") {
			t.Errorf("Check on %d points: %v", small.Points(), err)
		}
	}
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "", "not a learned evaluation"},
		{"unknown field", `{"variant":"dablot","points":1,"square":[[1],[1],[1]],"extra":1}`, "unknown field"},
		{"no points", `{"variant":"dablot","points":0,"square":[[],[],[]]}`, "0 points"},
		{"short rank", `{"variant":"dablot","points":2,"square":[[1,2],[1],[1,2]]}`, "1 values a rank"},
		{"no variant", `{"points":1,"square":[[1],[1],[1]]}`, "without a variant"},
		{"too large", `{"variant":"` + strings.Repeat("x", maxLearnedBytes) + `"}`, "at most"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadLearnedEval(path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %q", tc.name, err, tc.want)
		}
	}
	e.Square[game.King][3] = maxLearnedValue + 1
	if err := e.Check("dablot", r.Board); err == nil || !strings.Contains(err.Error(), "king") {
		t.Errorf("a value out of bounds: %v", err)
	}
}

// TestGevalSpec: geval= gives the guard its learned evaluation and names
// it in the player's spec and the guard's; a file of another variant, an
// empty name or no guard is refused.
func TestGevalSpec(t *testing.T) {
	r := configs.MustVariant("dablot")
	ab, err := NewAlphaBetaPlayer(DefaultAlphaBetaConfig())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "dablot.json")
	writeLearned(t, file, handLearned(r, ab))
	other := filepath.Join(dir, "winther.json")
	wr := configs.MustVariant("winther")
	writeLearned(t, other, handLearned(wr, ab))

	spec := "gumbel:eval=material,sims=8,guard=3,geval=" + file
	f, err := ParseFactory(spec, SpecOptions{Rules: r})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pl, err := f.New(1)
	if err != nil {
		t.Fatal(err)
	}
	sp, ok := pl.(*SearchPlayer)
	if !ok || sp.Guard == nil || sp.Guard.ab.learned == nil || sp.Guard.EvalFile != file {
		t.Fatalf("%s: player %T without the learned guard", spec, pl)
	}
	if s := sp.Guard.Spec(); !strings.HasSuffix(s, ",geval="+file) {
		t.Errorf("guard spec %s does not name its evaluation", s)
	}
	if !strings.Contains(f.Name, "geval="+file) {
		t.Errorf("player name %s does not name the evaluation", f.Name)
	}
	again, err := ParseFactory(f.Name, SpecOptions{Rules: r})
	if err != nil {
		t.Fatalf("the player's own name %s: %v", f.Name, err)
	}
	if again.Name != f.Name {
		t.Errorf("round trip: %s, then %s", f.Name, again.Name)
	}
	again.Close()
	plain, err := ParseFactory("gumbel:eval=material,sims=8,guard=3", SpecOptions{Rules: r})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.Name, "geval") {
		t.Errorf("a hand-written guard names an evaluation: %s", plain.Name)
	}
	plain.Close()
	for _, tc := range []struct{ spec, want string }{
		{"gumbel:eval=material,sims=8,guard=3,geval=" + other, "variant"},
		{"gumbel:eval=material,sims=8,guard=3,geval=", "geval"},
		{"gumbel:eval=material,sims=8,guard=3,geval=" + filepath.Join(dir, "none.json"), "none.json"},
		{"gumbel:eval=material,sims=8,guard=0,geval=" + file, "geval"},
	} {
		f, err := ParseFactory(tc.spec, SpecOptions{Rules: r})
		if err == nil {
			f.Close()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %q", tc.spec, err, tc.want)
		}
	}
}

// writeLearned writes e as a learned evaluation file.
func writeLearned(t *testing.T, path string, e *LearnedEval) {
	t.Helper()
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
