package game

import "math/rand/v2"

// RandomPlayout plays uniformly random decisions from p until the game ends,
// and returns the final status and the number of decisions played. p is
// changed to the final position.
func (p *Position) RandomPlayout(rng *rand.Rand) (Status, int) {
	var scratch MoveScratch
	n := 0
	for {
		d, ok := p.RandomDecision(rng, &scratch)
		if !ok {
			return p.Status(), n
		}
		p.Apply(d)
		n++
	}
}
