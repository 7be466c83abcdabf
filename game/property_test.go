package game_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// visitRandomGames plays seeded random games of every variant and calls
// check at every position before each decision. The no-capture limit is off
// so that games reach endgames (single combat, immobilisation, promotion).
func visitRandomGames(t *testing.T, games int, check func(t *testing.T, p *game.Position, d game.Decision, after *game.Position)) {
	for _, name := range configs.VariantNames() {
		t.Run(name, func(t *testing.T) {
			r := configs.MustVariant(name + ",no_capture_limit=0,max_plies=3000")
			rng := rand.New(rand.NewPCG(7, uint64(len(name))))
			for range games {
				p := r.Start()
				var buf []game.Decision
				for {
					buf = p.Decisions(buf)
					if len(buf) == 0 {
						break
					}
					d := buf[rng.IntN(len(buf))]
					after := p
					after.Apply(d)
					check(t, &p, d, &after)
					if t.Failed() {
						t.Fatalf("at %s, decision %s", p.FEN(), p.DecisionString(d))
					}
					p = after
				}
				if !p.Status().Over() {
					t.Fatalf("no decisions but the game is not over: %s", p.FEN())
				}
			}
		})
	}
}

func decisionSet(p *game.Position) []game.Decision {
	ds := p.Decisions(nil)
	slices.Sort(ds)
	return ds
}

// TestSymmetries: the half-turn with colours swapped and the left-right
// mirror map the legal decisions onto the legal decisions of the image, and
// commute with playing a decision.
func TestSymmetries(t *testing.T) {
	games := 6
	if testing.Short() {
		games = 2
	}
	visitRandomGames(t, games, func(t *testing.T, p *game.Position, d game.Decision, after *game.Position) {
		b := p.Board()
		for _, sym := range []game.Symmetry{game.Mirror, game.HalfTurnSwap} {
			img := sym.Position(p)
			var want []game.Decision
			for _, x := range decisionSet(p) {
				want = append(want, sym.Decision(b, x))
			}
			slices.Sort(want)
			if got := decisionSet(&img); !slices.Equal(got, want) {
				t.Errorf("symmetry %d: %d decisions in the image, want %d", sym, len(got), len(want))
			}
			img.Apply(sym.Decision(b, d))
			if want := sym.Position(after); img.FEN() != want.FEN() || img.Hash() != want.Hash() || img.Status() != want.Status() {
				t.Errorf("symmetry %d does not commute with %s: %s vs %s", sym, p.DecisionString(d), img.FEN(), want.FEN())
			}
		}
	})
}

// TestMaterial: pieces are never created; a step moves one piece; a jump
// moves one piece and removes exactly the jumped one; promotion only changes
// a soldier's rank on the farthest row.
func TestMaterial(t *testing.T) {
	visitRandomGames(t, 4, func(t *testing.T, p *game.Position, d game.Decision, after *game.Position) {
		b := p.Board()
		mover := p.SideToMove()
		all := func(q *game.Position, s game.Side) game.Bits { return q.Occupied(s) }
		if !d.IsMove() {
			if all(p, game.South) != all(after, game.South) || all(p, game.North) != all(after, game.North) {
				t.Errorf("%s moved pieces", d)
			}
			return
		}
		from := d.From()
		to := int(b.Neighbor[from][d.Dir()])
		var over = -1
		if d.IsJump() {
			over, to = to, int(b.JumpTo[from][d.Dir()])
		}
		wantMine := all(p, mover).Xor(game.Bit(from)).Xor(game.Bit(to))
		if got := all(after, mover); got != wantMine {
			t.Errorf("mover's pieces: got %v want %v", got, wantMine)
		}
		wantTheirs := all(p, mover.Other())
		if over >= 0 {
			if !wantTheirs.Has(over) {
				t.Errorf("jumped over %s, which held no enemy piece", b.Name(over))
			}
			wantTheirs = wantTheirs.Xor(game.Bit(over))
		}
		if got := all(after, mover.Other()); got != wantTheirs {
			t.Errorf("opponent's pieces: got %v want %v", got, wantTheirs)
		}
		_, r0, _ := p.PieceAt(from)
		_, r1, _ := after.PieceAt(to)
		if r1 != r0 && !(r0 == game.Soldier && r1 == p.Rules().PromoteTo) {
			t.Errorf("the piece changed from %s to %s", r0, r1)
		}
	})
}

// TestConsistency: FEN round-trips, the hash is the hash of the position
// set up from scratch, RandomDecision draws from exactly the decisions, and
// every listed turn converts to decisions and back.
func TestConsistency(t *testing.T) {
	visitRandomGames(t, 3, func(t *testing.T, p *game.Position, d game.Decision, after *game.Position) {
		r := p.Rules()
		q, err := game.ParseFEN(r, p.FEN())
		if err != nil {
			t.Fatalf("FEN does not parse back: %v", err)
		}
		if q.FEN() != p.FEN() {
			t.Errorf("FEN round trip: %s became %s", p.FEN(), q.FEN())
		}
		if p.Chain() < 0 && q.Hash() != p.Hash() {
			t.Errorf("hash %x differs from the hash of the same position set up: %x", p.Hash(), q.Hash())
		}
		byCount := p.DecisionsByCount()
		slices.Sort(byCount)
		if !slices.Equal(byCount, decisionSet(p)) {
			t.Errorf("RandomDecision draws from %v, Decisions lists %v", byCount, decisionSet(p))
		}
		if p.Ply()%5 != 0 || p.Chain() >= 0 {
			return
		}
		for _, turn := range p.Turns() {
			ds, err := p.TurnDecisions(turn)
			if err != nil {
				t.Fatalf("listed turn %s is refused: %v", turn.Format(r.Board), err)
			}
			back, n, complete := p.DecisionsToTurn(ds)
			if !complete || n != len(ds) || !back.Equal(turn) {
				t.Errorf("turn %s → %v → %s", turn.Format(r.Board), ds, back.Format(r.Board))
			}
		}
	})
}

// TestBinaryRoundTrip: the binary form decodes to the same position, and
// damaged data is refused or decodes to a valid position, never a panic.
func TestBinaryRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	visitRandomGames(t, 1, func(t *testing.T, p *game.Position, d game.Decision, after *game.Position) {
		data := p.AppendBinary(nil)
		if len(data) != game.PositionSize {
			t.Fatalf("%d bytes", len(data))
		}
		q, err := game.DecodePosition(p.Rules(), data)
		if err != nil {
			t.Fatal(err)
		}
		if q != *p {
			t.Fatalf("round trip changed %s into %s", p.FEN(), q.FEN())
		}
		data[rng.IntN(len(data))] ^= byte(1 << rng.IntN(8))
		if q, err := game.DecodePosition(p.Rules(), data); err == nil {
			q.Decisions(nil)
			q.Status()
		}
	})
	if _, err := game.DecodePosition(configs.MustVariant("keyland"), make([]byte, 3)); err == nil {
		t.Error("short data accepted")
	}
}

// TestTurnEnds: TurnEnds gives one position for each turn of Turns, and
// they are the positions that playing decisions until the other side is to
// move (or the game is over) reaches, in the same order, also in the middle
// of a chain.
func TestTurnEnds(t *testing.T) {
	var play func(p game.Position, out *[]string)
	play = func(p game.Position, out *[]string) {
		mover := p.SideToMove()
		for _, d := range p.Decisions(nil) {
			q := p
			q.Apply(d)
			if q.SideToMove() != mover || q.Status().Over() {
				*out = append(*out, q.FEN())
			} else {
				play(q, out)
			}
		}
	}
	visitRandomGames(t, 1, func(t *testing.T, p *game.Position, _ game.Decision, _ *game.Position) {
		var got, want []string
		p.TurnEnds(func(after *game.Position) { got = append(got, after.FEN()) })
		play(*p, &want)
		if n := len(p.Turns()); len(got) != n {
			t.Fatalf("%d turn ends, %d turns", len(got), n)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("turn ends\n%v\nwant\n%v", got, want)
		}
	})
}

// TestCaptures: Captures gives the union, over the legal turns that
// capture, of the enemy pieces each takes and the point where each ends,
// also in the middle of a chain; and TurnOf gives the other side's turn
// with a consistent hash, no chain and the same pieces.
func TestCaptures(t *testing.T) {
	visitRandomGames(t, 2, func(t *testing.T, p *game.Position, _ game.Decision, _ *game.Position) {
		opp := p.SideToMove().Other()
		var taken, ends game.Bits
		turns := p.Turns()
		i := 0
		p.TurnEnds(func(after *game.Position) {
			if turn := turns[i]; turn.Capture {
				taken = taken.Or(p.Occupied(opp).AndNot(after.Occupied(opp)))
				ends = ends.Or(game.Bit(turn.Path[len(turn.Path)-1]))
			}
			i++
		})
		if gotTaken, gotEnds := p.Captures(); gotTaken != taken || gotEnds != ends {
			t.Errorf("Captures: taken %v ends %v, the turns take %v and end on %v", gotTaken, gotEnds, taken, ends)
		}
		q := p.TurnOf(opp)
		if q.SideToMove() != opp || q.Chain() >= 0 || q.ChainStart() >= 0 {
			t.Errorf("TurnOf: side %v, chain %d (start %d)", q.SideToMove(), q.Chain(), q.ChainStart())
		}
		for s := range game.Side(2) {
			if q.Occupied(s) != p.Occupied(s) {
				t.Errorf("TurnOf moved %s's pieces", s)
			}
		}
		set, err := game.ParseFEN(p.Rules(), q.FEN())
		if err != nil {
			t.Fatal(err)
		}
		if set.Hash() != q.Hash() {
			t.Errorf("TurnOf: hash %x, the same position set up %x", q.Hash(), set.Hash())
		}
		if !set.Status().Over() && !slices.Equal(decisionSet(&set), decisionSet(&q)) {
			t.Errorf("TurnOf: decisions %v, the same position set up %v", decisionSet(&q), decisionSet(&set))
		}
	})
}
