// Package endgame solves the endings of a few pieces exactly, by
// retrograde analysis, and plays them perfectly.
//
// An ending is a material class: how many pieces of each rank each side
// has (Material). Its table holds, for every placement of those pieces and
// either side to move, the exact result with the distance to the move that
// settles it: the capture into a smaller ending that is won (or lost), or
// the turn that ends the game. The distance is what the variant's
// no-capture limit asks for: a win counts only if that move comes before
// the limit, and the limit restarts at every capture. So the tables say,
// for the no-capture counter a position has, whether the side to move
// wins, draws or loses, and BestTurn plays accordingly: the fastest win,
// a turn that keeps a draw, the longest resistance.
//
// The solver needs nothing of a variant but its rules engine (the legal
// turns and the end of the game), so it works for any variant whose
// position is its placement and side to move: variants in which a side
// with no move passes (the passes are state) or soldiers are promoted (a
// promotion changes the material without restarting the limit) are
// refused. Nor is the game's length limit (max_plies) in them: where it
// could draw a result they give, Probe and BestTurn do not answer.
package endgame

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/dablot-zero/dablot/game"
)

// MaxPieces bounds the endings Solve takes: four pieces in all. An
// ending of three pieces on the 72-point dablot board has up to 2·72·71·70
// placements and solves in seconds; one of four has up to 72 times as
// many, and takes minutes and gigabytes.
const MaxPieces = 4

// Material counts the pieces of each side ([game.South], [game.North]) by
// rank.
type Material [2][game.NumRanks]int8

// MaterialOf returns the material of p.
func MaterialOf(p *game.Position) Material {
	var m Material
	for s := range game.Side(2) {
		for k := range game.Rank(game.NumRanks) {
			m[s][k] = int8(p.Pieces(s, k).Count())
		}
	}
	return m
}

// Pieces returns the pieces of both sides.
func (m Material) Pieces() int {
	n := 0
	for s := range 2 {
		n += m.side(game.Side(s))
	}
	return n
}

func (m Material) side(s game.Side) int {
	n := 0
	for _, c := range m[s] {
		n += int(c)
	}
	return n
}

// String names the material as South's pieces, a dash and North's: K for
// a king, P a prince, S a soldier ("KP-SS").
func (m Material) String() string {
	var b strings.Builder
	for s := range game.Side(2) {
		if s == game.North {
			b.WriteByte('-')
		}
		for k := game.King; ; k-- {
			b.WriteString(strings.Repeat("SPK"[k:k+1], int(m[s][k])))
			if k == game.Soldier {
				break
			}
		}
	}
	return b.String()
}

// ParseMaterial reads a material as String writes it: South's pieces, a
// dash, North's, each a K, P or S a piece ("KP-SS").
func ParseMaterial(s string) (Material, error) {
	var m Material
	south, north, ok := strings.Cut(s, "-")
	if !ok {
		return m, fmt.Errorf("material %q: want South's pieces, a dash and North's, such as KP-SS", s)
	}
	for side, text := range []string{south, north} {
		if len(text) > MaxPieces {
			return m, fmt.Errorf("material %q: more than %d pieces a side", s, MaxPieces)
		}
		for _, c := range text {
			k := strings.IndexRune("SPK", c)
			if k < 0 {
				return m, fmt.Errorf("material %q: %q is not K, P or S", s, c)
			}
			m[side][k]++
		}
	}
	return m, nil
}

// Value is the result of a position for the side to move, as the tables
// store it: n > 0 wins, the settling move being the n-th turn from here;
// n < 0 loses, the settling move the -n-th; 0 draws. A settling move that
// is not a capture counts one turn more (so that a position with
// no-capture counter c is won exactly when n ≤ limit − c: the limit draws
// the game after a quiet turn before it can end it).
type Value int16

// Result is the outcome of a position for the side to move, given its
// no-capture counter: Win, Draw or Loss, and Turns, the turns to the
// settling move (0 for a draw).
type Result struct {
	Outcome Outcome
	Turns   int
}

// Outcome is a result from the side to move's point of view.
type Outcome int8

// The outcomes, ordered from the side to move's point of view.
const (
	Loss Outcome = -1
	Draw Outcome = 0
	Win  Outcome = 1
)

// GameOutcome returns the game's outcome when r is the result for mover,
// the side to move.
func (r Result) GameOutcome(mover game.Side) game.Outcome {
	switch r.Outcome {
	case Win:
		return game.WinFor(mover)
	case Loss:
		return game.WinFor(mover.Other())
	}
	return game.Draw
}

func (o Outcome) String() string {
	switch o {
	case Win:
		return "win"
	case Loss:
		return "loss"
	}
	return "draw"
}

// notPlaced marks an entry that is not a position to look up: two pieces
// on a point, identical pieces out of order, or a game already over.
const notPlaced = math.MinInt16

// Tables holds the solved endings of a variant.
type Tables struct {
	rules   *game.Rules
	limit   int // plies a settling move must come within (the no-capture limit, or the longest distance stored)
	classes map[Material]*table
	// Classes lists the endings solved, smallest first, with their counts.
	Classes []ClassStats
}

// ClassStats sums up one ending's table.
type ClassStats struct {
	Material Material
	// Positions, Wins and Losses count, by the side to move
	// ([game.South], [game.North]), the placements that are not over and
	// those the side to move wins or loses from a no-capture counter of 0.
	Positions, Wins, Losses [2]int
	// Longest is the longest distance to a settling move of a win, and
	// LongestFEN a position with it.
	Longest    int
	LongestFEN string
}

// Draws returns the placements with side s to move that are drawn from a
// no-capture counter of 0.
func (c ClassStats) Draws(s game.Side) int { return c.Positions[s] - c.Wins[s] - c.Losses[s] }

// Check returns an error if the tables cannot solve variant r: a side with
// no move passes, or soldiers are promoted.
func Check(r *game.Rules) error {
	switch {
	case r.NoMove == game.NoMovePasses:
		return fmt.Errorf("endgame: %s: a side with no move passes there, and the passes are not in the tables", r.Name)
	case r.PromoteTo != game.Soldier:
		return fmt.Errorf("endgame: %s: soldiers are promoted there, which the tables do not follow", r.Name)
	}
	return nil
}

// Solve solves the endings ms of variant r and every smaller ending a
// capture leads into (one piece or more a side), smallest first. progress,
// if set, is called with each ending as its solution begins.
func Solve(ctx context.Context, r *game.Rules, ms []Material, progress func(m Material)) (*Tables, error) {
	if err := Check(r); err != nil {
		return nil, err
	}
	t := &Tables{rules: r, limit: r.NoCaptureLimit, classes: map[Material]*table{}}
	if t.limit <= 0 || t.limit > math.MaxInt16-2 {
		t.limit = math.MaxInt16 - 2
	}
	all := map[Material]bool{}
	var add func(m Material)
	add = func(m Material) {
		if all[m] || m.side(game.South) == 0 || m.side(game.North) == 0 {
			return
		}
		all[m] = true
		for s := range 2 {
			for k := range game.NumRanks {
				if m[s][k] > 0 {
					n := m
					n[s][k]--
					add(n)
				}
			}
		}
	}
	for _, m := range ms {
		if n := m.Pieces(); n > MaxPieces {
			return nil, fmt.Errorf("endgame: %s has %d pieces: at most %d", m, n, MaxPieces)
		}
		for s := range 2 {
			for k := range game.NumRanks {
				if m[s][k] < 0 {
					return nil, fmt.Errorf("endgame: %s: a negative count", m)
				}
			}
		}
		add(m)
	}
	order := slices.Collect(maps.Keys(all))
	slices.SortFunc(order, func(a, b Material) int {
		if d := a.Pieces() - b.Pieces(); d != 0 {
			return d
		}
		return strings.Compare(a.String(), b.String())
	})
	for _, m := range order {
		if progress != nil {
			progress(m)
		}
		tb := newTable(r, m)
		st, err := t.solve(ctx, tb)
		if err != nil {
			return nil, err
		}
		t.classes[m] = tb
		t.Classes = append(t.Classes, st)
	}
	return t, nil
}

// Endings lists the endings of variant r with one piece or more a side and
// up to max pieces in all, where no side has more pieces of a rank than at
// the start.
func Endings(r *game.Rules, max int) []Material {
	start := r.Start()
	most := MaterialOf(&start)
	var side [][game.NumRanks]int8
	var rec func(k game.Rank, cur [game.NumRanks]int8, n int)
	rec = func(k game.Rank, cur [game.NumRanks]int8, n int) {
		if k == game.NumRanks {
			if n > 0 {
				side = append(side, cur)
			}
			return
		}
		for c := int8(0); int(c)+n <= max-1; c++ {
			if c > most[0][k] && c > most[1][k] {
				break
			}
			cur[k] = c
			rec(k+1, cur, n+int(c))
		}
	}
	rec(0, [game.NumRanks]int8{}, 0)
	var out []Material
	for _, s := range side {
		for _, n := range side {
			if m := (Material{s, n}); m.Pieces() <= max && fits(m, most) {
				out = append(out, m)
			}
		}
	}
	return out
}

func fits(m, most Material) bool {
	for s := range 2 {
		for k := range game.NumRanks {
			if m[s][k] > most[s][k] {
				return false
			}
		}
	}
	return true
}

// Probe returns the result of p for the side to move, ok false if p is not
// at the start of a turn of a solved ending, is over, or is so near the
// game's length limit that the limit could draw the win or loss the
// tables give (beforeMaxPlies).
func (t *Tables) Probe(p *game.Position) (Result, bool) {
	v, ok := t.value(p)
	if !ok {
		return Result{}, false
	}
	res := t.result(v, p.Quiet())
	if !t.beforeMaxPlies(p, res) {
		return Result{}, false
	}
	return res, true
}

// Holds reports whether p, at the start of a turn and not over, is in the
// tables, whatever Probe answers for its place in the game.
func (t *Tables) Holds(p *game.Position) bool {
	_, ok := t.value(p)
	return ok
}

// beforeMaxPlies reports whether the game that res settles from p ends
// before the variant's length limit (game.Rules.MaxPlies), which the
// tables do not hold, however it is played: res.Turns to the settling
// move, then up to the no-capture limit for each capture the rest can
// need, one a piece of the losing side's after the first (the pieces but
// two, the winner keeping one). A draw is one whatever the length.
func (t *Tables) beforeMaxPlies(p *game.Position, res Result) bool {
	most := t.rules.MaxPlies
	if res.Outcome == Draw || most <= 0 {
		return true
	}
	return p.Ply()+res.Turns+max(0, p.PieceCount()-2)*t.limit <= most
}

// result reads a stored value at no-capture counter quiet.
func (t *Tables) result(v Value, quiet int) Result {
	left := t.limit - quiet
	switch {
	case v > 0 && int(v) <= left:
		return Result{Win, int(v)}
	case v < 0 && int(-v) <= left:
		return Result{Loss, int(-v)}
	}
	return Result{Draw, 0}
}

// value returns p's stored value, ok false if p is not in the tables.
func (t *Tables) value(p *game.Position) (Value, bool) {
	if p.Chain() >= 0 || p.Status().Over() {
		return 0, false
	}
	tb := t.classes[MaterialOf(p)]
	if tb == nil {
		return 0, false
	}
	v := tb.val[tb.index(p)]
	if v == notPlaced {
		return 0, false
	}
	return Value(v), true
}

// BestTurn returns the turn the tables play in p and p's result: the
// fastest win (a winning capture first), else a turn that keeps the draw,
// else the turn that loses last. ok is false if p is not in the tables.
func (t *Tables) BestTurn(p *game.Position) (game.Turn, Result, bool) {
	res, ok := t.Probe(p)
	if !ok {
		return game.Turn{}, Result{}, false
	}
	var best game.Turn
	bestKey, found := math.MinInt, false
	for _, turn := range p.Turns() {
		q := *p
		ds, err := q.TurnDecisions(turn)
		if err != nil {
			continue
		}
		for _, d := range ds {
			q.Apply(d)
		}
		key, ok := t.turnKey(&q)
		if ok && (!found || key > bestKey) {
			best, bestKey, found = turn, key, true
		}
	}
	return best, res, found
}

// turnKey orders the turns of the side that just moved into q, best
// highest: wins by a capture (the counter starts again), wins by fewer
// turns, draws, then losses by more turns.
func (t *Tables) turnKey(q *game.Position) (int, bool) {
	mover := q.SideToMove().Other()
	if st := q.Status(); st.Over() {
		switch w, ok := st.Outcome.Winner(); {
		case !ok:
			return 0, true
		case w == mover:
			return 3 << 20, true
		default:
			return -(3 << 20), true
		}
	}
	v, ok := t.value(q)
	if !ok {
		return 0, false
	}
	r := t.result(v, q.Quiet())
	switch {
	case r.Outcome == Loss && q.Quiet() == 0: // the mover captured into a win
		return 2<<20 - r.Turns, true
	case r.Outcome == Loss:
		return 1<<20 - r.Turns, true
	case r.Outcome == Win:
		return -(1 << 20) + r.Turns, true
	}
	return 0, true
}

// solve fills tb and returns its counts.
func (t *Tables) solve(ctx context.Context, tb *table) (ClassStats, error) {
	st := ClassStats{Material: tb.m}
	g, err := t.turns(ctx, tb, &st)
	if err != nil {
		return st, err
	}
	g.predecessors()
	return st, t.retrograde(ctx, tb, g, &st)
}

// noTurn marks turnGraph.termWin where no turn settles a win.
const noTurn = math.MaxInt16

// turnGraph is one ending's turns, sorted into those that settle a
// position and those that stay in the ending, with their reverse.
type turnGraph struct {
	termWin  []int16  // the nearest settling win, noTurn if no such turn
	termLoss []int16  // the farthest settling loss, 0 if none
	drawn    []bool   // a turn settles a draw
	start    []uint32 // position i's successors are succ[start[i]:start[i+1]]
	succ     []uint32
	pstart   []uint32 // position i's predecessors are pred[pstart[i]:pstart[i+1]]
	pred     []uint32
}

// turns is solve's forward pass: each position's turns, sorted into those
// that settle it (the game ends, or a capture into an ending solved
// before) and those that stay in this ending. It counts the positions in
// st.
func (t *Tables) turns(ctx context.Context, tb *table, st *ClassStats) (*turnGraph, error) {
	n := len(tb.val)
	none := int16(noTurn)
	g := &turnGraph{termWin: make([]int16, n), termLoss: make([]int16, n), drawn: make([]bool, n), start: make([]uint32, n+1)}
	termWin, termLoss, drawn, start := g.termWin, g.termLoss, g.drawn, g.start
	var succ []uint32
	var inner []uint32
	for idx := range n {
		start[idx] = uint32(len(succ))
		if idx&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return g, err
			}
		}
		termWin[idx] = none
		p, ok := tb.decode(idx)
		if !ok || p.Status().Over() {
			tb.val[idx] = notPlaced
			continue
		}
		mover := p.SideToMove()
		st.Positions[mover]++
		inner = inner[:0]
		p.TurnEnds(func(q *game.Position) {
			dist := int16(1)
			if q.Quiet() != 0 {
				dist = 2
			}
			if s := q.Status(); s.Over() {
				if s.Reason == game.Immobilised {
					dist = 1
				}
				switch w, ok := s.Outcome.Winner(); {
				case !ok:
					drawn[idx] = true
				case w == mover:
					termWin[idx] = min(termWin[idx], dist)
				default:
					termLoss[idx] = max(termLoss[idx], dist)
				}
				return
			}
			if MaterialOf(q) == tb.m {
				inner = append(inner, uint32(tb.index(q)))
				return
			}
			v, ok := t.value(q)
			if !ok {
				drawn[idx] = true // cannot happen: a smaller ending is solved
				return
			}
			switch r := t.result(v, q.Quiet()); r.Outcome {
			case Loss:
				termWin[idx] = min(termWin[idx], dist)
			case Win:
				termLoss[idx] = max(termLoss[idx], dist)
			default:
				drawn[idx] = true
			}
		})
		slices.Sort(inner)
		succ = append(succ, slices.Compact(inner)...)
		if len(succ) > math.MaxUint32-1024 {
			return g, fmt.Errorf("endgame: %s: too many turns to index", tb.m)
		}
	}
	start[n] = uint32(len(succ))
	g.succ = succ

	return g, nil
}

// predecessors fills in g's reverse: the positions that lead to each.
func (g *turnGraph) predecessors() {
	n, start, succ := len(g.termWin), g.start, g.succ
	pstart := make([]uint32, n+1)
	for _, s := range succ {
		pstart[s+1]++
	}
	for i := range n {
		pstart[i+1] += pstart[i]
	}
	pred := make([]uint32, len(succ))
	fill := slices.Clone(pstart[:n])
	for idx := range n {
		for _, s := range succ[start[idx]:start[idx+1]] {
			pred[fill[s]] = uint32(idx)
			fill[s]++
		}
	}

	g.pstart, g.pred = pstart, pred
}

// retrograde is solve's backward pass over g, by distance: a position
// wins in d if a turn settles a win in d or leads to a loss in d−1; it
// loses in d if every turn settles a loss or leads to a win, the farthest
// in d. It counts the wins and losses in st.
func (t *Tables) retrograde(ctx context.Context, tb *table, g *turnGraph, st *ClassStats) error {
	n, none := len(tb.val), int16(noTurn)
	termWin, termLoss, drawn, start, pstart, pred := g.termWin, g.termLoss, g.drawn, g.start, g.pstart, g.pred
	left := make([]int32, n)
	farthest := make([]int16, n)
	type entry struct {
		idx uint32
		win bool
	}
	buckets := make([][]entry, t.limit+2)
	push := func(d int, idx uint32, win bool) {
		if d <= t.limit {
			buckets[d] = append(buckets[d], entry{idx, win})
		}
	}
	for idx := range n {
		if tb.val[idx] == notPlaced {
			continue
		}
		left[idx] = int32(start[idx+1] - start[idx])
		farthest[idx] = termLoss[idx]
		switch {
		case termWin[idx] != none:
			push(int(termWin[idx]), uint32(idx), true)
		case left[idx] == 0 && !drawn[idx] && termLoss[idx] > 0:
			push(int(termLoss[idx]), uint32(idx), false)
		}
	}
	for d := 1; d <= t.limit; d++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		for i := 0; i < len(buckets[d]); i++ {
			e := buckets[d][i]
			if tb.val[e.idx] != 0 {
				continue
			}
			side := int(e.idx) / tb.half
			if e.win {
				tb.val[e.idx] = int16(d)
				st.Wins[side]++
				if d > st.Longest {
					p, _ := tb.decode(int(e.idx))
					st.Longest, st.LongestFEN = d, p.FEN()
				}
			} else {
				tb.val[e.idx] = int16(-d)
				st.Losses[side]++
			}
			for _, y := range pred[pstart[e.idx]:pstart[e.idx+1]] {
				if tb.val[y] != 0 {
					continue
				}
				if !e.win {
					push(d+1, y, true)
					continue
				}
				left[y]--
				farthest[y] = max(farthest[y], int16(d+1))
				if left[y] == 0 && !drawn[y] && termWin[y] == none {
					push(int(farthest[y]), y, false)
				}
			}
		}
		buckets[d] = nil
	}
	return nil
}
