package endgame

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

func mustMaterial(t testing.TB, s string) Material {
	t.Helper()
	m, err := ParseMaterial(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// solved keeps the tables the tests solve, by variant and endings.
var solved sync.Map

func solve(t testing.TB, variant string, ms ...string) *Tables {
	t.Helper()
	key := variant + " " + strings.Join(ms, " ")
	if tb, ok := solved.Load(key); ok {
		return tb.(*Tables)
	}
	var mats []Material
	for _, s := range ms {
		mats = append(mats, mustMaterial(t, s))
	}
	tb, err := Solve(context.Background(), configs.MustVariant(variant), mats, nil)
	if err != nil {
		t.Fatal(err)
	}
	solved.Store(key, tb)
	return tb
}

func TestParseMaterial(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"KP-SS", "KP-SS", true},
		{"SPK-S", "KPS-S", true},
		{"K-", "K-", true},
		{"KPSSS-K", "", false},
		{"KP", "", false},
		{"KX-S", "", false},
	} {
		m, err := ParseMaterial(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParseMaterial(%q): error %v, want ok %v", tc.in, err, tc.ok)
			continue
		}
		if tc.ok && m.String() != tc.want {
			t.Errorf("ParseMaterial(%q) = %s, want %s", tc.in, m, tc.want)
		}
	}
}

// TestSolveRefuses: variants whose positions carry state the tables do
// not hold, and endings too large, are refused.
func TestSolveRefuses(t *testing.T) {
	for _, tc := range []struct{ variant, material string }{
		{"keyland", "K-S"},           // a side with no move passes
		{"winther-promotion", "K-S"}, // soldiers are promoted
		{"dablot", "KPS-SS"},         // five pieces
	} {
		if _, err := Solve(context.Background(), configs.MustVariant(tc.variant), []Material{mustMaterial(t, tc.material)}, nil); err == nil {
			t.Errorf("%s %s: solved, want an error", tc.variant, tc.material)
		}
	}
}

// TestIndexRoundTrip: every entry that places its pieces decodes to a
// position whose index is the entry.
func TestIndexRoundTrip(t *testing.T) {
	r := configs.MustVariant("dablot")
	for _, s := range []string{"K-S", "KP-S", "S-SS", "KS-PS"} {
		tb := newTable(r, mustMaterial(t, s))
		rng := rand.New(rand.NewPCG(1, 2))
		placed := 0
		for range 20000 {
			idx := rng.IntN(len(tb.val))
			p, ok := tb.decode(idx)
			if !ok {
				continue
			}
			placed++
			if MaterialOf(&p) != tb.m {
				t.Fatalf("%s: entry %d decodes to %s", s, idx, MaterialOf(&p))
			}
			if got := tb.index(&p); got != idx {
				t.Fatalf("%s: entry %d decodes to %s, indexed %d", s, idx, p.FEN(), got)
			}
		}
		if placed < 10000 {
			t.Errorf("%s: %d of 20000 entries placed", s, placed)
		}
	}
}

// TestBellman: every solved position's value is what its turns give, one
// turn deep: a win in d has a turn to a loss in d−1 (or a settling win in
// d) and none faster; a loss in d has only turns to wins, the slowest
// d−1; a draw has a drawing turn and no winning one.
func TestBellman(t *testing.T) {
	tb := solve(t, "dablot", "KP-S")
	rng := rand.New(rand.NewPCG(3, 4))
	checked := map[Outcome]int{}
	for _, c := range tb.classes {
		for range 3000 {
			idx := rng.IntN(len(c.val))
			if c.val[idx] == notPlaced {
				continue
			}
			p, _ := c.decode(idx)
			v := Value(c.val[idx])
			want := expected(t, tb, &p)
			if v != want {
				t.Fatalf("%s: stored %d, its turns give %d", p.FEN(), v, want)
			}
			checked[tb.result(v, 0).Outcome]++
		}
	}
	for _, o := range []Outcome{Win, Draw, Loss} {
		if checked[o] == 0 {
			t.Errorf("no %s checked: %v", o, checked)
		}
	}
}

// expected computes p's value from its turns and the tables' values of
// the positions they lead to.
func expected(t *testing.T, tb *Tables, p *game.Position) Value {
	t.Helper()
	const inf = 1 << 20
	bestWin, worstLoss, draw, turns := inf, 0, false, 0
	mover := p.SideToMove()
	p.TurnEnds(func(q *game.Position) {
		turns++
		dist := 1
		if q.Quiet() != 0 {
			dist = 2
		}
		if st := q.Status(); st.Over() {
			if st.Reason == game.Immobilised {
				dist = 1
			}
			switch w, ok := st.Outcome.Winner(); {
			case !ok:
				draw = true
			case w == mover:
				bestWin = min(bestWin, dist)
			default:
				worstLoss = max(worstLoss, dist)
			}
			return
		}
		v, ok := tb.value(q)
		if !ok {
			t.Fatalf("%s: a turn leads out of the tables: %s", p.FEN(), q.FEN())
		}
		same := MaterialOf(q) == MaterialOf(p)
		r := tb.result(v, 0)
		switch {
		case r.Outcome == Draw:
			draw = true
		case r.Outcome == Loss && same:
			bestWin = min(bestWin, r.Turns+1)
		case r.Outcome == Loss:
			bestWin = min(bestWin, dist)
		case same:
			worstLoss = max(worstLoss, r.Turns+1)
		default:
			worstLoss = max(worstLoss, dist)
		}
	})
	switch {
	case turns == 0:
		t.Fatalf("%s: no turns", p.FEN())
	case bestWin < inf && bestWin <= tb.limit:
		return Value(bestWin)
	case !draw && worstLoss > 0 && worstLoss <= tb.limit:
		return Value(-worstLoss)
	}
	return 0
}

// TestKingAndPrinceCatchASoldier: in dablot a king and a prince win
// against a lone soldier from every placement, and a lone king does not:
// the soldier outruns it.
func TestKingAndPrinceCatchASoldier(t *testing.T) {
	tb := solve(t, "dablot", "KP-S")
	for _, c := range tb.Classes {
		switch c.Material.String() {
		case "KP-S":
			if c.Wins[game.South] != c.Positions[game.South] || c.Losses[game.North] != c.Positions[game.North] {
				t.Errorf("KP-S: South to move wins %d of %d, North to move loses %d of %d; want all",
					c.Wins[game.South], c.Positions[game.South], c.Losses[game.North], c.Positions[game.North])
			}
		case "K-S":
			if w, n := c.Wins[game.South], c.Positions[game.South]; w*10 > n || c.Longest > 2 {
				t.Errorf("K-S: South to move wins %d of %d, the longest in %d turns; want few, at once (where the soldier is taken)", w, n, c.Longest)
			}
		}
	}
}

// TestNoCaptureLimit: a win counts only while the counter leaves room for
// the settling move.
func TestNoCaptureLimit(t *testing.T) {
	tb := solve(t, "dablot", "KP-S")
	far, pos := longestWin(t, tb, "KP-S")
	if far < 3 {
		t.Fatalf("longest win %d turns", far)
	}
	limit := tb.limit
	for _, tc := range []struct {
		quiet int
		want  Outcome
	}{{0, Win}, {limit - int(far), Win}, {limit - int(far) + 1, Draw}} {
		if got := tb.result(far, tc.quiet); got.Outcome != tc.want {
			t.Errorf("win in %d at counter %d: %v, want %v", far, tc.quiet, got, tc.want)
		}
	}
	if r, ok := tb.Probe(&pos); !ok || r.Outcome != Win || r.Turns != int(far) {
		t.Errorf("Probe(%s) = %+v, %v; want a win in %d", pos.FEN(), r, ok, far)
	}
}

// longestWin returns the longest win stored in ending m of tb and a
// placement that needs it.
func longestWin(t *testing.T, tb *Tables, m string) (Value, game.Position) {
	t.Helper()
	c := tb.classes[mustMaterial(t, m)]
	var far Value
	var pos game.Position
	for idx, v := range c.val {
		if v != notPlaced && Value(v) > far {
			far = Value(v)
			pos, _ = c.decode(idx)
		}
	}
	return far, pos
}

// TestMaxPlies: near the game's length limit the tables give no win
// that the limit could draw, and past it they still give their draws.
func TestMaxPlies(t *testing.T) {
	tb := solve(t, "dablot", "KP-S")
	far, pos := longestWin(t, tb, "KP-S")
	most := tb.rules.MaxPlies
	if most <= 0 {
		t.Fatal("dablot has no length limit")
	}
	// at returns pos at ply ply (of pos's side to move's parity).
	at := func(ply int) game.Position {
		fields := strings.Fields(pos.FEN())
		q, err := game.ParseFEN(tb.rules, fmt.Sprintf("%s %s - 0 %d", fields[0], fields[1], ply/2+1))
		if err != nil || q.Ply() != ply {
			t.Fatalf("ply %d: %v, got ply %d", ply, err, q.Ply())
		}
		return q
	}
	// The win settles in far turns; then one capture of North's last piece,
	// within the no-capture limit.
	last := most - int(far) - tb.limit
	if (last%2 == 1) != (pos.SideToMove() == game.North) {
		last--
	}
	for _, tc := range []struct {
		ply int
		ok  bool
	}{{last % 2, true}, {last, true}, {last + 2, false}} {
		q := at(tc.ply)
		r, ok := tb.Probe(&q)
		if ok != tc.ok || (ok && (r.Outcome != Win || r.Turns != int(far))) {
			t.Errorf("ply %d of %d: Probe = %+v, %v; want ok %v (a win in %d)", tc.ply, most, r, ok, tc.ok, far)
		}
		if _, _, ok := tb.BestTurn(&q); ok != tc.ok {
			t.Errorf("ply %d of %d: BestTurn ok %v, want %v", tc.ply, most, ok, tc.ok)
		}
	}
	// A drawn placement stays a draw however late.
	c := tb.classes[mustMaterial(t, "KP-S")]
	for idx, v := range c.val {
		if v == 0 {
			d, _ := c.decode(idx)
			fields := strings.Fields(d.FEN())
			q, err := game.ParseFEN(tb.rules, fmt.Sprintf("%s %s - 0 %d", fields[0], fields[1], most/2))
			if err != nil {
				t.Fatal(err)
			}
			if r, ok := tb.Probe(&q); !ok || r.Outcome != Draw {
				t.Errorf("a draw at ply %d: %+v, %v", q.Ply(), r, ok)
			}
			break
		}
	}
}

// TestBestTurnWins: playing the tables' turns for the winner, against any
// defence, settles the game within the turns the tables promised.
func TestBestTurnWins(t *testing.T) {
	tb := solve(t, "dablot", "KP-S")
	c := tb.classes[mustMaterial(t, "KP-S")]
	rng := rand.New(rand.NewPCG(5, 6))
	games := 0
	for games < 30 {
		p, ok := c.decode(rng.IntN(len(c.val)))
		if !ok || p.Status().Over() {
			continue
		}
		games++
		res, ok := tb.Probe(&p)
		if !ok || res.Outcome == Draw {
			t.Fatalf("%s: %+v, %v; want decided", p.FEN(), res, ok)
		}
		winner := p.SideToMove()
		if res.Outcome == Loss {
			winner = winner.Other()
		}
		start := p.FEN()
		for turn := 1; !p.Status().Over(); turn++ {
			if turn > res.Turns+1 {
				t.Fatalf("%s: not settled after %d turns, promised %d", start, turn-1, res.Turns)
			}
			var next game.Turn
			if p.SideToMove() == winner {
				if next, _, ok = tb.BestTurn(&p); !ok {
					t.Fatalf("%s: no best turn in %s", start, p.FEN())
				}
			} else {
				turns := p.Turns()
				next = turns[rng.IntN(len(turns))]
			}
			ds, err := p.TurnDecisions(next)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ds {
				p.Apply(d)
			}
		}
		if w, ok := p.Status().Outcome.Winner(); !ok || w != winner {
			t.Fatalf("%s: ended %v, want a win for %s", start, p.Status(), winner)
		}
	}
}

// wins is a plain AND-OR search, independent of the tables: whether side
// w wins p by force within d turns (the game's end, not a capture: for
// endings whose every capture ends the game).
func wins(p game.Position, w game.Side, d int) bool {
	if st := p.Status(); st.Over() {
		winner, ok := st.Outcome.Winner()
		return ok && winner == w
	}
	if d == 0 {
		return false
	}
	mine := p.SideToMove() == w
	result := !mine
	p.TurnEnds(func(q *game.Position) {
		if result != mine && wins(*q, w, d-1) == mine {
			result = mine
		}
	})
	return result
}

// TestAgreesWithSearch: in king and prince against a soldier (where the
// capture of the soldier ends the game), a plain search finds each short
// win the tables claim, at the depth they give (one less when the
// settling turn is a quiet one), and no win the tables call a draw.
func TestAgreesWithSearch(t *testing.T) {
	tb := solve(t, "dablot", "KP-S")
	c := tb.classes[mustMaterial(t, "KP-S")]
	rng := rand.New(rand.NewPCG(7, 8))
	const deepest = 5
	found := map[int]int{}
	for tries := 0; tries < 200000 && len(found) < deepest; tries++ {
		idx := rng.IntN(len(c.val))
		v := Value(c.val[idx])
		if v == notPlaced || v == 0 || v > deepest || v < -deepest {
			continue
		}
		p, _ := c.decode(idx)
		w, d := p.SideToMove(), int(v)
		if v < 0 {
			w, d = w.Other(), -d
		}
		// The least depth of a forced win is d, or d−1 if it ends quietly.
		if !wins(p, w, d) || d >= 3 && wins(p, w, d-2) {
			t.Fatalf("%s: tables say %s wins in %d; search within %d: %v, within %d: %v",
				p.FEN(), w, d, d, wins(p, w, d), d-2, wins(p, w, d-2))
		}
		found[d]++
	}
	if len(found) < 3 {
		t.Errorf("distances checked: %v, want several", found)
	}
	kS := tb.classes[mustMaterial(t, "K-S")]
	draws := 0
	for draws < 50 {
		idx := rng.IntN(len(kS.val))
		if kS.val[idx] != 0 {
			continue
		}
		p, _ := kS.decode(idx)
		if wins(p, game.South, 4) || wins(p, game.North, 4) {
			t.Fatalf("%s: tables say draw, search finds a win within 4 turns", p.FEN())
		}
		draws++
	}
}
