package game

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Turn is one complete turn as people write it: a step (two points), a
// capture chain (the start and every landing point) or a pass (no points).
type Turn struct {
	Path    []int // points: start, then each landing point
	Capture bool
}

// IsPass reports whether the turn is a pass.
func (t Turn) IsPass() bool { return len(t.Path) == 0 }

// Format writes the turn in the notation of board b, such as "e5-e7",
// "a7xe7xg5" or "pass".
func (t Turn) Format(b *Board) string {
	if t.IsPass() {
		return "pass"
	}
	sep := "-"
	if t.Capture {
		sep = "x"
	}
	var sb strings.Builder
	for i, q := range t.Path {
		if i > 0 {
			sb.WriteString(sep)
		}
		sb.WriteString(b.Name(q))
	}
	return sb.String()
}

// Equal reports whether two turns are the same.
func (t Turn) Equal(u Turn) bool { return t.Capture == u.Capture && slices.Equal(t.Path, u.Path) }

// ParseTurnText reads a turn's squares without a position: "e5-e7",
// "a7xe7xg5" or "pass" (case-insensitive). It checks the notation and that
// each square is a point of b, not that the turn is legal.
func ParseTurnText(b *Board, s string) (Turn, error) {
	text := strings.ToLower(strings.TrimSpace(s))
	if text == "pass" {
		return Turn{}, nil
	}
	if text == "" {
		return Turn{}, errors.New("empty move")
	}
	hasX, hasDash := strings.Contains(text, "x"), strings.Contains(text, "-")
	var parts []string
	switch {
	case hasX && hasDash:
		return Turn{}, fmt.Errorf("move %q: mixes '-' (step) and 'x' (capture)", s)
	case hasX:
		parts = strings.Split(text, "x")
	case hasDash:
		parts = strings.Split(text, "-")
		if len(parts) != 2 {
			return Turn{}, fmt.Errorf("move %q: a step has exactly two squares, such as e5-e7", s)
		}
	default:
		return Turn{}, fmt.Errorf("move %q: want a step such as e5-e7, a capture such as a7xe7xg5, or pass", s)
	}
	if len(parts) > 2*MaxPoints {
		return Turn{}, fmt.Errorf("move %q: too many squares", s)
	}
	t := Turn{Capture: hasX, Path: make([]int, len(parts))}
	for i, part := range parts {
		q, err := b.ParseSquare(part)
		if err != nil {
			return Turn{}, fmt.Errorf("move %q: %w", s, err)
		}
		t.Path[i] = q
	}
	return t, nil
}

// Turns returns every legal complete turn, in the order of Decisions (use
// SortedTurns for notation order). A capture chain that may stop early appears
// once for every point where it may stop. In the middle of a chain, the turns
// are the ways to finish it, each with the full path from the chain's point.
func (p *Position) Turns() []Turn {
	var out []Turn
	p.walkTurns(func(path []int, capture bool, _ *Position) {
		out = append(out, Turn{Path: slices.Clone(path), Capture: capture})
	})
	return out
}

// TurnEnds calls fn with the position after every legal complete turn, in
// the order of Turns. fn must not keep the pointer.
func (p *Position) TurnEnds(fn func(after *Position)) {
	p.walkTurns(func(_ []int, _ bool, after *Position) { fn(after) })
}

// SortedTurns returns every legal complete turn sorted by its notation, and
// the notation of each at the same index: the legal turns as a player is
// shown them. Both are empty once the game is over.
func (p *Position) SortedTurns() ([]Turn, []string) {
	type named struct {
		turn Turn
		text string
	}
	b := p.rules.Board
	var ns []named
	for _, t := range p.Turns() {
		ns = append(ns, named{t, t.Format(b)})
	}
	slices.SortFunc(ns, func(x, y named) int { return strings.Compare(x.text, y.text) })
	turns, texts := make([]Turn, len(ns)), make([]string, len(ns))
	for i, n := range ns {
		turns[i], texts[i] = n.turn, n.text
	}
	return turns, texts
}

// walkTurns calls fn for every legal complete turn with its path and the
// position after it. fn must not keep path or the position pointer.
func (p *Position) walkTurns(fn func(path []int, capture bool, after *Position)) {
	var buf [2 * MaxPoints]Decision
	var path [2*MaxPoints + 1]int
	if p.chain >= 0 {
		path[0] = int(p.chain)
		p.walkChain(path[:1], fn)
		return
	}
	b := p.rules.Board
	for _, d := range p.Decisions(buf[:0]) {
		q := *p
		q.Apply(d)
		switch {
		case d == Pass:
			fn(path[:0], false, &q)
		case !d.IsJump():
			path[0], path[1] = d.From(), int(b.Neighbor[d.From()][d.Dir()])
			fn(path[:2], false, &q)
		default:
			path[0], path[1] = d.From(), int(b.JumpTo[d.From()][d.Dir()])
			if q.chain < 0 {
				fn(path[:2], true, &q)
			} else {
				q.walkChain(path[:2], fn)
			}
		}
	}
}

func (p *Position) walkChain(path []int, fn func(path []int, capture bool, after *Position)) {
	var buf [NumDirections + 1]Decision
	b := p.rules.Board
	for _, d := range p.chainDecisions(buf[:0]) {
		q := *p
		q.Apply(d)
		if d == Stop {
			fn(path, true, &q)
			continue
		}
		next := append(path, int(b.JumpTo[d.From()][d.Dir()]))
		if q.chain < 0 {
			fn(next, true, &q)
		} else {
			q.walkChain(next, fn)
		}
	}
}

// Captures returns what the legal capture turns of the side to move take:
// taken, the enemy pieces that some legal turn captures, and ends, the
// points where such a turn ends (where its piece stands after its last jump
// or where it stops). In the middle of a chain they are those of the ways
// to finish it. Both are empty when no legal turn captures. Every rule of
// the variant applies: ranks, compulsory capture, chains that must go on,
// single combat, the end of the game.
//
// It walks the jumps of the chains, not the turns: every jump of a chain
// begins some legal turn's path, since a chain goes on until it can no
// longer jump or may stop. Chain positions reached twice (the same pieces
// taken, by different orders) are walked once, so positions with
// thousands of turns (optional chains that may stop anywhere) stay cheap.
func (p *Position) Captures() (taken, ends Bits) {
	var buf [2 * MaxPoints]Decision
	var w captureWalk
	w.walk(p, p.Decisions(buf[:0]))
	return w.taken, w.ends
}

// captureWalk gathers what the capture turns of a position take
// (Position.Captures) and remembers the chain positions walked, by hash:
// the first few in place, the rest in a map.
type captureWalk struct {
	taken, ends Bits
	n           int
	few         [32]uint64
	many        map[uint64]bool
}

// walk adds what the decisions ds of p take, and where the turns they
// begin end.
func (w *captureWalk) walk(p *Position, ds []Decision) {
	b := p.rules.Board
	for _, d := range ds {
		if d == Stop {
			w.ends = w.ends.Or(Bit(int(p.chain)))
			continue
		}
		if !d.IsJump() {
			continue
		}
		from, dir := d.From(), d.Dir()
		w.taken = w.taken.Or(Bit(int(b.Neighbor[from][dir])))
		q := *p
		q.Apply(d)
		if q.chain < 0 {
			w.ends = w.ends.Or(Bit(int(b.JumpTo[from][dir])))
		} else if w.first(q.hash) {
			var next [NumDirections + 1]Decision
			w.walk(&q, q.chainDecisions(next[:0]))
		}
	}
}

// first reports whether the chain position of hash h is walked for the
// first time, and remembers it.
func (w *captureWalk) first(h uint64) bool {
	if slices.Contains(w.few[:min(w.n, len(w.few))], h) || w.many[h] {
		return false
	}
	if w.n < len(w.few) {
		w.few[w.n] = h
	} else {
		if w.many == nil {
			w.many = map[uint64]bool{}
		}
		w.many[h] = true
	}
	w.n++
	return true
}

// CountTurns returns the number of legal complete turns.
func (p *Position) CountTurns() int {
	n := 0
	p.walkTurns(func([]int, bool, *Position) { n++ })
	return n
}

// TurnDecisions returns the decisions that make up turn t in this position,
// or an error that says why t is not legal here.
func (p *Position) TurnDecisions(t Turn) ([]Decision, error) {
	b := p.rules.Board
	if st := p.Status(); st.Over() {
		return nil, fmt.Errorf("the game is over (%s)", st)
	}
	var buf [2 * MaxPoints]Decision
	legal := p.Decisions(buf[:0])
	if t.IsPass() {
		if len(legal) == 1 && legal[0] == Pass {
			return []Decision{Pass}, nil
		}
		if p.rules.NoMove != NoMovePasses {
			return nil, errors.New("passing is not allowed in this variant")
		}
		return nil, errors.New("passing is allowed only with no legal move")
	}
	if len(t.Path) < 2 {
		return nil, errors.New("a move needs at least two squares")
	}
	start := t.Path[0]
	if p.chain >= 0 && start != int(p.chain) {
		return nil, fmt.Errorf("the capture chain of the piece on %s must be finished first", b.Name(int(p.chain)))
	}
	s, r, ok := p.PieceAt(start)
	if !ok {
		return nil, fmt.Errorf("no piece on %s", b.Name(start))
	}
	if s != p.side {
		return nil, fmt.Errorf("the piece on %s is %s's; %s is to move", b.Name(start), s, p.side)
	}
	if !t.Capture {
		to := t.Path[1]
		dir, ok := b.DirectionTo(start, to)
		switch {
		case !ok:
			return nil, fmt.Errorf("%s is not one step from %s along a line", b.Name(to), b.Name(start))
		case p.occ[0].Or(p.occ[1]).Has(to):
			return nil, fmt.Errorf("%s is occupied", b.Name(to))
		case slices.Contains(legal, StepDecision(start, dir)):
			return []Decision{StepDecision(start, dir)}, nil
		case p.rules.stepDirs[s][r]>>dir&1 == 0:
			return nil, fmt.Errorf("a %s may not step %s in this variant", r, dirWord(s, dir))
		case len(legal) > 0 && legal[0].IsJump():
			return nil, errors.New("a capture is compulsory here")
		}
		return nil, errors.New("not a legal step here")
	}
	q := *p
	var out []Decision
	for i := 1; i < len(t.Path); i++ {
		from, to := t.Path[i-1], t.Path[i]
		dir, ok := b.JumpDirection(from, to)
		if !ok {
			return nil, fmt.Errorf("%s is not a jump from %s (two steps along one line)", b.Name(to), b.Name(from))
		}
		d := JumpDecision(from, dir)
		legal = q.Decisions(buf[:0])
		if !slices.Contains(legal, d) {
			return nil, q.whyNotJump(from, dir, i == 1, legal)
		}
		q.Apply(d)
		out = append(out, d)
		if q.chain < 0 && i < len(t.Path)-1 {
			if q.status.Over() {
				return nil, fmt.Errorf("the game ends after the capture on %s (%s)", b.Name(to), q.status)
			}
			return nil, fmt.Errorf("the chain cannot go on from %s", b.Name(to))
		}
	}
	if q.chain >= 0 {
		legal = q.chainDecisions(buf[:0])
		if !slices.Contains(legal, Stop) {
			return nil, fmt.Errorf("the chain must go on: the piece on %s can capture again (%s)", b.Name(int(q.chain)), b.Name(int(b.JumpTo[legal[0].From()][legal[0].Dir()])))
		}
		out = append(out, Stop)
	}
	return out, nil
}

func (p *Position) whyNotJump(from int, dir Direction, first bool, legal []Decision) error {
	b := p.rules.Board
	over, to := int(b.Neighbor[from][dir]), int(b.JumpTo[from][dir])
	s, r, _ := p.PieceAt(from)
	os, or, ok := p.PieceAt(over)
	switch {
	case !ok:
		return fmt.Errorf("no piece on %s to capture", b.Name(over))
	case os == s:
		return fmt.Errorf("%s holds a piece of your own", b.Name(over))
	case or > r:
		return fmt.Errorf("a %s may not capture a %s (only equal or lower rank)", r, or)
	case p.occ[0].Or(p.occ[1]).Has(to):
		return fmt.Errorf("%s is occupied", b.Name(to))
	case p.rules.NoReturn && int(p.chainStart) == to:
		return fmt.Errorf("the chain may not return to %s, where it started", b.Name(to))
	case first && len(legal) > 0 && legal[0].IsJump():
		return fmt.Errorf("a capture by another piece is compulsory (for example %s)", p.DecisionString(legal[0]))
	}
	return errors.New("not a legal capture here")
}

func dirWord(s Side, d Direction) string {
	rel := d
	if s == North {
		rel = d.Opposite()
	}
	return [...]string{"straight forward", "diagonally forward", "sideways", "diagonally backward", "straight backward", "diagonally backward", "sideways", "diagonally forward"}[rel]
}

// DecisionString formats a decision with square names, such as "e5-e7",
// "c5xe5", "stop" or "pass".
func (p *Position) DecisionString(d Decision) string {
	if !d.IsMove() {
		return d.String()
	}
	b := p.rules.Board
	if d.IsJump() {
		return b.Name(d.From()) + "x" + b.Name(int(b.JumpTo[d.From()][d.Dir()]))
	}
	return b.Name(d.From()) + "-" + b.Name(int(b.Neighbor[d.From()][d.Dir()]))
}

// ParseTurn reads a turn in the notation and checks it against this
// position, returning the turn and its decisions. The error says why a turn
// is not legal.
func (p *Position) ParseTurn(s string) (Turn, []Decision, error) {
	t, err := ParseTurnText(p.rules.Board, s)
	if err != nil {
		return Turn{}, nil, err
	}
	ds, err := p.TurnDecisions(t)
	if err != nil {
		return Turn{}, nil, fmt.Errorf("move %q: %w", s, err)
	}
	return t, ds, nil
}

// ApplyTurn plays a complete turn given in the notation, after checking it.
func (p *Position) ApplyTurn(s string) error {
	_, ds, err := p.ParseTurn(s)
	if err != nil {
		return err
	}
	for _, d := range ds {
		p.Apply(d)
	}
	return nil
}

// ApplyTurns plays turns given in the notation one after another, checking
// each, and returns them as played. If one is not legal, the error names its
// number (counting from 1) and the turn and says why, such as
// `turn 2: move "i5-i9": i9 is not one step from i5 along a line`, and p is
// left as it was.
func (p *Position) ApplyTurns(turns []string) ([]Turn, error) {
	q := *p
	played := make([]Turn, 0, len(turns))
	for i, s := range turns {
		t, ds, err := q.ParseTurn(s)
		if err != nil {
			return nil, fmt.Errorf("turn %d: %w", i+1, err)
		}
		for _, d := range ds {
			q.Apply(d)
		}
		played = append(played, t)
	}
	*p = q
	return played, nil
}

// DecisionsToTurn groups decisions, played from this position, into the
// complete turn they make; it returns the turn, how many decisions it used,
// and whether the turn was completed (false if the decisions end mid-chain).
func (p *Position) DecisionsToTurn(ds []Decision) (Turn, int, bool) {
	b := p.rules.Board
	q := *p
	var t Turn
	if q.chain >= 0 {
		t = Turn{Path: []int{int(q.chain)}, Capture: true}
	}
	for i, d := range ds {
		switch {
		case d == Pass:
			return Turn{}, i + 1, true
		case d == Stop:
			return t, i + 1, true
		case !d.IsJump():
			return Turn{Path: []int{d.From(), int(b.Neighbor[d.From()][d.Dir()])}}, i + 1, true
		}
		if len(t.Path) == 0 {
			t = Turn{Path: []int{d.From()}, Capture: true}
		}
		t.Path = append(t.Path, int(b.JumpTo[d.From()][d.Dir()]))
		q.Apply(d)
		if q.chain < 0 {
			return t, i + 1, true
		}
	}
	return t, len(ds), false
}
