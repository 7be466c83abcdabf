package diagnose

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/dablot-zero/dablot/game"
)

// Selected is a position picked from self-play samples for measurement.
type Selected struct {
	Sample   SamplePosition
	Position game.Position
}

// SelectPositions picks up to perPhase positions of each phase of Phases
// from the samples ss of variant r, at random (from seed), each position
// of a game once (policy surprise weighting writes some samples more than
// once). They come in phase order, and in the order of ss within a phase.
func SelectPositions(r *game.Rules, ss []SamplePosition, perPhase int, seed uint64) ([]Selected, error) {
	type key struct {
		game int
		fen  string
	}
	seen := map[key]bool{}
	byPhase := make([][]int, len(Phases))
	for i, s := range ss {
		k := key{s.Game, s.FEN}
		if seen[k] {
			continue
		}
		seen[k] = true
		ph := PhaseOf(s.Pieces)
		byPhase[ph] = append(byPhase[ph], i)
	}
	rng := rand.New(rand.NewPCG(seed, 0x706f73))
	var out []Selected
	for _, idx := range byPhase {
		rng.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
		idx = idx[:min(perPhase, len(idx))]
		slices.Sort(idx)
		for _, i := range idx {
			p, err := game.ParseFEN(r, ss[i].FEN)
			if err != nil {
				return nil, fmt.Errorf("sample %d of game %d: %w", i, ss[i].Game, err)
			}
			out = append(out, Selected{Sample: ss[i], Position: p})
		}
	}
	return out, nil
}
