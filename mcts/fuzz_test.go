package mcts

import (
	"maps"
	"testing"
)

// FuzzParseSpec: a player spec either fails with an error or parses to a
// spec whose text parses the same way again, and CheckSpec agrees with
// building the factory (with a stand-in for model files).
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"random", "greedy", "uct:playouts=1000", "alphabeta:depth=2", "alphabeta:ms=1000,tt=0",
		"gumbel:model=models/keyland.dbm,sims=200,mat=0.3", "mcts:eval=material,sims=50,cpuct=2,reuse=false",
		"gumbel:eval=rollout,sims=8,q=1", "alphabeta:depth=4,depth=5", "x:y"} {
		f.Add(s)
	}
	stand := SpecOptions{LoadModel: func(string) (Evaluator, error) { return &MaterialEvaluator{}, nil }}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSpec(s)
		checkErr := CheckSpec(s)
		if err != nil {
			if checkErr == nil {
				t.Fatalf("CheckSpec(%q) accepts what ParseSpec refuses: %v", s, err)
			}
			return
		}
		again, err := ParseSpec(sp.Text)
		if err != nil || again.Kind != sp.Kind || !maps.Equal(again.Params, sp.Params) {
			t.Fatalf("%q parses to %+v, its text to %+v (%v)", s, sp, again, err)
		}
		fac, err := NewSpecFactory(sp, stand)
		if (err == nil) != (checkErr == nil) {
			t.Fatalf("%q: CheckSpec says %v, NewSpecFactory %v", s, checkErr, err)
		}
		if err == nil {
			fac.Close()
		}
	})
}
