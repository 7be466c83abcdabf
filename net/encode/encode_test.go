package encode_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/encode"
	"github.com/dablot-zero/dablot/net/model/modeltest"
)

// forPositions calls f on the positions of seeded random games of variant
// v, the last (finished) one included, with the encoder of options o.
func forPositions(t *testing.T, v string, o encode.Options, f func(e *encode.Encoder, p *game.Position, ds []game.Decision)) {
	r := configs.MustVariant(v + ",no_capture_limit=0")
	e := encode.New(r, o)
	rng := rand.New(rand.NewPCG(5, 6))
	for range 3 {
		p := r.Start()
		for {
			ds := p.Decisions(nil)
			f(e, &p, ds)
			if len(ds) == 0 {
				break
			}
			p.Apply(ds[rng.IntN(len(ds))])
		}
	}
}

// bothEncodings lists the encoder options to test: without and with the
// tactical planes.
var bothEncodings = []encode.Options{{}, {Tactical: true}}

func TestSideToMoveFrame(t *testing.T) {
	for _, v := range []string{"keyland", "winther-promotion", "daablot,no_return=true", "dablot"} {
		for _, o := range bothEncodings {
			testSideToMoveFrame(t, v, o)
		}
	}
}

func testSideToMoveFrame(t *testing.T, v string, o encode.Options) {
	forPositions(t, v, o, func(e *encode.Encoder, p *game.Position, ds []game.Decision) {
		img := game.HalfTurnSwap.Position(p)
		a, b := make([]float32, e.InputSize()), make([]float32, e.InputSize())
		e.Encode(p, a)
		e.Encode(&img, b)
		if !slices.Equal(a, b) {
			t.Fatalf("%s (%+v): %s and its half-turn image encode differently", v, o, p.FEN())
		}
		idx := e.LegalIndices(p, ds, nil)
		seen := map[int32]bool{}
		for i, d := range ds {
			j := e.PolicyIndex(&img, game.HalfTurnSwap.Decision(p.Board(), d))
			if int32(j) != idx[i] || idx[i] < 0 || int(idx[i]) >= e.PolicySize() || seen[idx[i]] {
				t.Fatalf("%s: decision %s has index %d, image %d", p.FEN(), p.DecisionString(d), idx[i], j)
			}
			seen[idx[i]] = true
		}
	})
}

func TestMirror(t *testing.T) {
	for _, o := range bothEncodings {
		for _, v := range []string{"winther", "dablot"} {
			testMirror(t, v, o)
		}
	}
}

func testMirror(t *testing.T, v string, o encode.Options) {
	forPositions(t, v, o, func(e *encode.Encoder, p *game.Position, ds []game.Decision) {
		b := p.Board()
		img := game.Mirror.Position(p)
		a, m := make([]float32, e.InputSize()), make([]float32, e.InputSize())
		e.Encode(p, a)
		e.Encode(&img, m)
		P := e.Planes()
		for q := range e.Points() {
			if mq := e.MirrorPoint(q); !slices.Equal(a[q*P:(q+1)*P], m[mq*P:(mq+1)*P]) {
				t.Fatalf("%s: planes of %s differ from its mirror's", p.FEN(), b.Name(q))
			}
		}
		for _, d := range ds {
			if got, want := e.PolicyIndex(&img, game.Mirror.Decision(b, d)), e.MirrorIndex(e.PolicyIndex(p, d)); got != want {
				t.Fatalf("%s: mirror of %s has index %d, MirrorIndex says %d", p.FEN(), p.DecisionString(d), got, want)
			}
		}
	})
}

// TestOwnership: the ownership target is in the frame of the network's
// input. A sample whose game ends where it is has as its target the
// occupancy of its own encoding (own pieces 1, enemy pieces -1), whichever
// side is to move; a North sample and its South image (the half-turn with
// the colours swapped, of the sample and of the end of the game) have the
// same target, as they have the same input; the mirror image of a sample
// has the mirror of its target, point by point as its planes (MirrorPoint,
// checked against the planes by TestMirror).
func TestOwnership(t *testing.T) {
	for _, v := range []string{"keyland", "dablot", "winther"} {
		sides := map[game.Side]int{}
		var final game.Position // the end of the previous game (in the first game its start): another position than p
		forPositions(t, v, encode.Options{}, func(e *encode.Encoder, p *game.Position, ds []game.Decision) {
			sides[p.SideToMove()]++
			x := make([]float32, e.InputSize())
			e.Encode(p, x)
			own := make([]int8, e.Points())
			e.Ownership(p, p, own)
			if want := modeltest.Occupancy(e, x); !slices.Equal(own, want) {
				t.Fatalf("%s: %s (%v to move) ending there has the ownership target %v, its input's occupancy %v", v, p.FEN(), p.SideToMove(), own, want)
			}
			if final.Rules() == nil || len(ds) == 0 {
				final = *p
			}
			got := make([]int8, e.Points())
			e.Ownership(p, &final, got)
			img, imgFinal := game.HalfTurnSwap.Position(p), game.HalfTurnSwap.Position(&final)
			e.Ownership(&img, &imgFinal, own)
			if !slices.Equal(got, own) {
				t.Fatalf("%s: %s ending in %s has the target %v, its half-turn image %v", v, p.FEN(), final.FEN(), got, own)
			}
			mir, mirFinal := game.Mirror.Position(p), game.Mirror.Position(&final)
			e.Ownership(&mir, &mirFinal, own)
			for q := range got {
				if own[e.MirrorPoint(q)] != got[q] {
					t.Fatalf("%s: %s ending in %s: the mirror image's target %v is not the mirror of %v", v, p.FEN(), final.FEN(), own, got)
				}
			}
		})
		if sides[game.South] == 0 || sides[game.North] == 0 {
			t.Fatalf("%s: positions of each side to move: %v", v, sides)
		}
	}
}

func TestPlanesContent(t *testing.T) {
	r := configs.MustVariant("keyland")
	e := encode.New(r, encode.Options{})
	p := r.Start()
	x := make([]float32, e.InputSize())
	e.Encode(&p, x)
	var own, theirs float32
	for q := range e.Points() {
		for k := range 3 {
			own += x[q*e.Planes()+k]
			theirs += x[q*e.Planes()+3+k]
		}
	}
	if own != 30 || theirs != 30 {
		t.Errorf("start: %v own and %v enemy pieces", own, theirs)
	}
	if len(e.Neighbors()) != 72 || e.PolicySize() != 72*16+1 {
		t.Errorf("topology %d points, policy %d", len(e.Neighbors()), e.PolicySize())
	}
}

// TestAgreesWithNet: the network's policy is in game's layout (the one
// definition, game.PolicySize), and its board graph is the game's: a
// network built on the encoder's topology returns a policy of
// game.PolicySize entries, and every legal decision's index lies in it.
func TestAgreesWithNet(t *testing.T) {
	for _, v := range []string{"keyland", "daablot", "dablot"} {
		e := encode.New(configs.MustVariant(v), encode.Options{Tactical: v == "dablot"})
		topo := net.Topology{Points: e.Points(), Neighbors: e.Neighbors()}
		if err := topo.Validate(); err != nil {
			t.Fatal(err)
		}
		w, err := net.NewWeights(net.Config{Blocks: 1, Channels: 4, InputPlanes: e.Planes(), ValueHidden: 4}, 1)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := net.NewEvaluator(&topo, w)
		if err != nil {
			t.Fatal(err)
		}
		ws := ev.NewWorkspace(1, 1)
		p := e.Rules().Start()
		x := make([]float32, e.InputSize())
		e.Encode(&p, x)
		policy, _, err := ws.Forward(x, 1)
		ws.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := game.PolicySize(e.Points())
		if len(policy) != want || ev.PolicySize() != want || e.PolicySize() != want {
			t.Fatalf("%s: the network's policy has %d entries (PolicySize %d), the encoder's %d; want game.PolicySize %d",
				v, len(policy), ev.PolicySize(), e.PolicySize(), want)
		}
		for _, i := range e.LegalIndices(&p, append(p.Decisions(nil), game.Stop, game.Pass), nil) {
			if i < 0 || int(i) >= len(policy) {
				t.Errorf("%s: policy index %d out of the network's %d", v, i, len(policy))
			}
		}
	}
}
