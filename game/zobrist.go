package game

import "math/rand/v2"

// zobristKeys are the random keys of the position hash, fixed per board size
// so that hashes are the same in every run.
type zobristKeys struct {
	piece [2][NumRanks][]uint64
	side  uint64
	chain []uint64 // piece in the middle of a chain
	start []uint64 // where the chain started (matters for no_return)
}

func newZobrist(points int) *zobristKeys {
	rng := rand.New(rand.NewPCG(0x64616c62, uint64(points)))
	z := &zobristKeys{side: rng.Uint64()}
	for s := range 2 {
		for r := range NumRanks {
			z.piece[s][r] = make([]uint64, points)
			for p := range points {
				z.piece[s][r][p] = rng.Uint64()
			}
		}
	}
	z.chain = make([]uint64, points)
	z.start = make([]uint64, points)
	for p := range points {
		z.chain[p] = rng.Uint64()
		z.start[p] = rng.Uint64()
	}
	return z
}
