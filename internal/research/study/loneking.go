package study

import (
	"context"
	"fmt"
	"math"

	"github.com/dablot-zero/dablot/game"
)

// MaxLoneKingSoldiers bounds SolveLoneKing: the table of n soldiers has
// 2·P^(n+2) entries and about 10 successors per placement stored at once
// (2 soldiers on 72 points: 25 million placements, 52 s and 4.6 GB at
// most while solving, measured with dablot analyse loneking --soldiers 2).
const MaxLoneKingSoldiers = 2

// LoneKingResult is the solution of one lone-king ending: South's king and
// Soldiers soldiers against North's lone king, on every placement of the
// pieces with either side to move, the game's limits on length aside.
type LoneKingResult struct {
	Soldiers int
	// Positions counts the placements with South to move ([0]) and with
	// North to move ([1]); Won those South wins by force.
	Positions [2]int
	Won       [2]int
	// Longest is the longest forced win in turns (plies), 0 if none;
	// LongestFEN a position that needs it.
	Longest    int
	LongestFEN string
}

// LoneKingTable holds the solved endings of 0 to Max soldiers.
type LoneKingTable struct {
	r       *game.Rules
	points  int
	plies   [][]int16 // [n][index]: turns to South's forced win, 0 if none, wonAtSetup
	Results []LoneKingResult
}

// SolveLoneKing solves the endings of South's king and 0, 1, …, max
// soldiers against North's lone king in variant r by retrograde sweeps: a
// position is won in k turns when South, to move, has a turn to a win in
// fewer, or when every turn of North, to move, leads to one. A capture of a
// soldier leads into the table of one soldier fewer, solved before (its
// turns count on); a turn that ends the game counts by its result, and one
// that leaves other material (South's king taken) as not won. progress, if set, is called
// with the soldiers and a fraction done of that table's build.
func SolveLoneKing(ctx context.Context, r *game.Rules, max int, progress func(soldiers int, done float64)) (*LoneKingTable, error) {
	if max < 0 || max > MaxLoneKingSoldiers {
		return nil, fmt.Errorf("lone king: %d soldiers: want 0 to %d", max, MaxLoneKingSoldiers)
	}
	t := &LoneKingTable{r: r, points: r.Board.Points()}
	for n := 0; n <= max; n++ {
		res, err := t.solve(ctx, n, progress)
		if err != nil {
			return nil, err
		}
		t.Results = append(t.Results, res)
	}
	return t, nil
}

// Successor codes of a turn that leaves the table being solved: not won,
// or won in k more turns (wonIn(k)); codes ≥ 0 are entries of the table.
const loneNotWon = -1

func wonIn(k int16) int32 { return -2 - int32(k) }

// wonAtSetup marks a placement that South has won already (by the rules,
// before any turn); no turn leads to one.
const wonAtSetup = -1

// size is the number of entries of the table of n soldiers: side, South's
// king, North's king and each soldier in turn (ascending points).
func (t *LoneKingTable) size(n int) int {
	s := 2 * t.points * t.points
	for range n {
		s *= t.points
	}
	return s
}

// decode returns the placement of an index, ok false for one that is not a
// placement (two pieces on a point, soldiers not ascending).
func (t *LoneKingTable) decode(n, idx int) (p game.Position, ok bool) {
	P := t.points
	var pc [2][game.NumRanks]game.Bits
	last := P
	for range n {
		s := idx % P
		idx /= P
		if s >= last {
			return game.Position{}, false
		}
		last = s
		pc[game.South][game.Soldier] = pc[game.South][game.Soldier].Or(game.Bit(s))
	}
	pc[game.North][game.King] = game.Bit(idx % P)
	idx /= P
	pc[game.South][game.King] = game.Bit(idx % P)
	p, err := game.Setup(t.r, game.Side(idx/P), pc)
	return p, err == nil
}

// index returns the table and entry of p, ok false when p is not a lone-king
// ending of up to the solved number of soldiers.
func (t *LoneKingTable) index(p *game.Position) (n, idx int, ok bool) {
	ak, dk := p.Pieces(game.South, game.King), p.Pieces(game.North, game.King)
	sol := p.Pieces(game.South, game.Soldier)
	n = sol.Count()
	if ak.Count() != 1 || dk.Count() != 1 || p.Occupied(game.North) != dk ||
		p.Occupied(game.South) != ak.Or(sol) || n >= len(t.plies) {
		return 0, 0, false
	}
	idx = (int(p.SideToMove())*t.points+ak.First())*t.points + dk.First()
	for i := range n {
		idx = idx*t.points + sol.Nth(i)
	}
	return n, idx, true
}

// Plies returns the turns to South's forced win in p: -1 if South has none,
// 0 if South has already won. ok is false when p is not a solved lone-king
// ending at the start of a turn.
func (t *LoneKingTable) Plies(p *game.Position) (plies int, ok bool) {
	if p.Chain() >= 0 {
		return 0, false
	}
	n, idx, ok := t.index(p)
	if !ok {
		return 0, false
	}
	switch v := t.plies[n][idx]; v {
	case 0:
		return -1, true
	case wonAtSetup:
		return 0, true
	default:
		return int(v), true
	}
}

// solve builds and solves the table of n soldiers.
func (t *LoneKingTable) solve(ctx context.Context, n int, progress func(int, float64)) (LoneKingResult, error) {
	size := t.size(n)
	plies := make([]int16, size)
	t.plies = append(t.plies, plies)
	res := LoneKingResult{Soldiers: n}
	// The successors of every placement, as codes or indices of this table.
	start := make([]uint32, size+1)
	var succ []int32
	for idx := range size {
		start[idx] = uint32(len(succ))
		if idx%(1<<16) == 0 {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			if progress != nil {
				progress(n, float64(idx)/float64(size))
			}
		}
		p, ok := t.decode(n, idx)
		if !ok {
			continue
		}
		if len(succ) > math.MaxUint32 {
			return res, fmt.Errorf("lone king: %d soldiers on %d points: more successors than the table can index", n, t.points)
		}
		res.Positions[p.SideToMove()]++
		if st := p.Status(); st.Over() {
			if st.Outcome == game.SouthWins {
				plies[idx] = wonAtSetup
				res.Won[p.SideToMove()]++
			}
			continue
		}
		p.TurnEnds(func(q *game.Position) {
			code := int32(loneNotWon)
			if st := q.Status(); st.Over() {
				if st.Outcome == game.SouthWins {
					code = wonIn(0)
				}
			} else if m, j, ok := t.index(q); ok && m < n {
				if k := t.plies[m][j]; k > 0 {
					code = wonIn(k)
				}
			} else if ok {
				code = int32(j)
			}
			succ = append(succ, code)
		})
	}
	start[size] = uint32(len(succ))
	if progress != nil {
		progress(n, 1)
	}
	won := func(c int32, below int16) bool {
		if c >= 0 {
			return plies[c] > 0 && plies[c] < below
		}
		return c <= wonIn(0) && -2-c < int32(below)
	}
	for k := int16(1); ; k++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		changed := 0
		for idx := range size {
			if plies[idx] != 0 || start[idx] == start[idx+1] {
				continue
			}
			ss := succ[start[idx]:start[idx+1]]
			side := game.Side(idx / (size / 2))
			south := side == game.South
			win := !south
			for _, c := range ss {
				if w := won(c, k); w == south {
					win = w
					break
				}
			}
			if win {
				plies[idx] = k
				changed++
				res.Won[side]++
				if int(k) > res.Longest {
					p, _ := t.decode(n, idx)
					res.Longest, res.LongestFEN = int(k), p.FEN()
				}
			}
		}
		if changed == 0 {
			break
		}
	}
	return res, nil
}
