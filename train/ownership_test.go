package train

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/net/encode"
	"github.com/dablot-zero/dablot/net/model/modeltest"
	"github.com/dablot-zero/dablot/train/runlog"
	"github.com/dablot-zero/dablot/train/samples"
)

// gameEnds plays seeded random games of r until it has the end of a game
// won and of one drawn by a limit, and returns them with a position of
// each of those games for each side to move.
func gameEnds(t *testing.T, r *game.Rules) (won, drawn game.Position, at map[string]map[game.Side]game.Position) {
	t.Helper()
	rng := rand.New(rand.NewPCG(4, 4))
	at = map[string]map[game.Side]game.Position{}
	var scratch game.MoveScratch
	for range 200 {
		p := r.Start()
		mid := map[game.Side]game.Position{}
		for !p.Status().Over() {
			if _, ok := mid[p.SideToMove()]; !ok && p.Ply() >= 6 {
				mid[p.SideToMove()] = p
			}
			d, _ := p.RandomDecision(rng, &scratch)
			p.Apply(d)
		}
		st, kind := p.Status(), ""
		switch {
		case st.Outcome != game.Draw && at["won"] == nil:
			won, kind = p, "won"
		case (st.Reason == game.MaxPlies || st.Reason == game.NoCaptureLimit) && at["drawn"] == nil:
			drawn, kind = p, "drawn"
		}
		if kind != "" && len(mid) == 2 {
			at[kind] = mid
		}
		if at["won"] != nil && at["drawn"] != nil {
			return won, drawn, at
		}
	}
	t.Fatalf("%s: no game won and drawn by a limit in 200 random games", r.Name)
	return
}

// TestOwnershipTargets: a sample's ownership target is who holds each
// point at the end of its game, from its side to move's view and in the
// frame of its input: the occupancy of the encoder's input of the end with
// the sample's side to move, for a game won and for one drawn by a limit
// (whose board is used as it stands), South or North to move.
func TestOwnershipTargets(t *testing.T) {
	r := configs.MustVariant("frostviken,max_plies=80")
	enc := encode.New(r, encode.Options{})
	won, drawn, at := gameEnds(t, r)
	for _, tc := range []struct {
		name  string
		kind  string
		final game.Position
		side  game.Side
	}{
		{"South, a game won", "won", won, game.South},
		{"North, a game won", "won", won, game.North},
		{"South, a game drawn by the limit", "drawn", drawn, game.South},
		{"North, a game drawn by the limit", "drawn", drawn, game.North},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ss := []samples.Sample{{Position: at[tc.kind][tc.side]}}
			setOwnership(enc, ss, &tc.final)
			end := tc.final.TurnOf(tc.side)
			x := make([]float32, enc.InputSize())
			enc.Encode(&end, x)
			want := modeltest.Occupancy(enc, x)
			if got := ss[0].Ownership; !slices.Equal(got, want) {
				t.Fatalf("target %v, want %v (the occupancy of %s for %v)", got, want, tc.final.FEN(), tc.side)
			}
			if !slices.Contains(want, 1) || !slices.Contains(want, -1) || !slices.Contains(want, 0) {
				t.Fatalf("the end %s has not both sides' pieces and empty points: the test checks too little", tc.final.FEN())
			}
		})
	}
}

// TestSelfPlayOwnership: self-play with a network with an ownership head
// gives every sample the ownership target of its game's end (replayed from
// the record), drawn games by the limits included; with a network without
// the head, none.
func TestSelfPlayOwnership(t *testing.T) {
	sp := testConfig(t, 1).SelfPlay
	cfg := modeltest.TinyNet
	cfg.OwnershipHead = true
	for _, head := range []bool{true, false} {
		cfg.OwnershipHead = head
		m := modeltest.NewModelOf(t, "frostviken,max_plies=40", cfg, 3)
		games, err := SelfPlay(context.Background(), m, sp, 5, 0, 6, nil)
		if err != nil {
			t.Fatal(err)
		}
		limits := 0
		for i, g := range games {
			end, err := g.Record.Replay(m.Rules)
			if err != nil {
				t.Fatal(err)
			}
			if g.Status.Reason == game.MaxPlies {
				limits++
			}
			want := make([]int8, m.Encoder.Points())
			for _, s := range g.Samples {
				m.Encoder.Ownership(&s.Position, &end, want)
				if head && !slices.Equal(s.Ownership, want) || !head && s.Ownership != nil {
					t.Fatalf("head %v, game %d (%v): a sample's ownership target %v, the end's %v", head, i, g.Status.Reason, s.Ownership, want)
				}
			}
		}
		if limits == 0 {
			t.Errorf("no game drawn by the limit among %d", len(games))
		}
	}
}

// TestBatchMakerOwnership: for a network with an ownership head, a sample
// whose game ended where it stands has as its target the occupancy of its
// batch input, mirrored or not; a sample without a target has weight 0;
// the mirror image of a sample has the mirror of its target
// (encode.Encoder.MirrorPoint); a sample with a target of another number
// of points is an error. A network without the head gets no targets.
func TestBatchMakerOwnership(t *testing.T) {
	cfg := modeltest.TinyNet
	cfg.OwnershipHead = true
	m := modeltest.NewModelOf(t, "dablot", cfg, 4)
	enc, P := m.Encoder, m.Encoder.Points()
	ps := modeltest.RandomPositions(m.Rules, 33, 5)
	var ss []samples.Sample
	for i, p := range ps[:32] {
		s := samples.Sample{Position: p, Result: 1, Target: 1}
		if i%2 == 0 {
			s.Ownership = make([]int8, P)
			enc.Ownership(&p, &p, s.Ownership)
		}
		ss = append(ss, s)
	}
	rp := replayOf(t, m, ss)
	b, err := NewBatchMaker(m, 64, true, 0, 4).Make(rp, 32, modeltest.NewRand(2))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Ownership) != 64*P || len(b.OwnershipMask) != 64*P || b.Score != nil || b.ShortTerm != nil {
		t.Fatalf("%d ownership targets, %d weights, score %v, short-term %v", len(b.Ownership), len(b.OwnershipMask), b.Score, b.ShortTerm)
	}
	with, without, asymmetric := 0, 0, 0
	for i := range b.N {
		own, mask := b.Ownership[i*P:(i+1)*P], b.OwnershipMask[i*P:(i+1)*P]
		occ := modeltest.Occupancy(enc, b.Input[i*enc.InputSize():(i+1)*enc.InputSize()])
		switch {
		case slices.Max(mask) == 1 && slices.Min(mask) == 1:
			with++
			for q := range own {
				if own[q] != float32(occ[q]) {
					t.Fatalf("position %d: ownership target %v, its input's occupancy %v", i, own, occ)
				}
				if occ[q] != occ[enc.MirrorPoint(q)] {
					asymmetric++
				}
			}
		case slices.Max(mask) == 0 && slices.Min(mask) == 0:
			without++
			if slices.Max(own) != 0 || slices.Min(own) != 0 {
				t.Fatalf("position %d: targets %v without weight", i, own)
			}
		default:
			t.Fatalf("position %d: ownership weights %v", i, mask)
		}
	}
	if with == 0 || without == 0 || asymmetric == 0 {
		t.Fatalf("%d positions with targets (%d points unlike their mirror's), %d without: want both, and asymmetric ones", with, asymmetric, without)
	}

	// One sample of North to move, its game ending elsewhere: the batch's
	// mirrored positions have the mirror of the unmirrored ones' target.
	p := ps[1]
	for p.SideToMove() != game.North {
		p.Apply(p.Decisions(nil)[0])
	}
	one := samples.Sample{Position: p, Result: 1, Target: 1, Ownership: make([]int8, P)}
	enc.Ownership(&p, &ps[32], one.Ownership)
	b, err = NewBatchMaker(m, 32, true, 0, 4).Make(replayOf(t, m, []samples.Sample{one}), 1, modeltest.NewRand(3))
	if err != nil {
		t.Fatal(err)
	}
	plainIn := make([]float32, enc.InputSize())
	enc.Encode(&p, plainIn)
	mirror := game.Mirror.Position(&p)
	mirrorIn := make([]float32, enc.InputSize())
	enc.Encode(&mirror, mirrorIn)
	if slices.Equal(plainIn, mirrorIn) {
		t.Fatal("the sample is its own mirror image: the test checks nothing")
	}
	kinds := map[string]int{}
	for i := range b.N {
		in, own := b.Input[i*enc.InputSize():(i+1)*enc.InputSize()], b.Ownership[i*P:(i+1)*P]
		for q, v := range one.Ownership {
			at := q
			if slices.Equal(in, mirrorIn) {
				at = enc.MirrorPoint(q)
			} else if !slices.Equal(in, plainIn) {
				t.Fatalf("position %d is neither the sample nor its mirror image", i)
			}
			if own[at] != float32(v) {
				t.Fatalf("position %d (mirrored %v): target %v, the sample's %v", i, at != q || slices.Equal(in, mirrorIn), own, one.Ownership)
			}
		}
		kinds[map[bool]string{true: "mirrored", false: "plain"}[slices.Equal(in, mirrorIn)]]++
	}
	if kinds["mirrored"] == 0 || kinds["plain"] == 0 {
		t.Fatalf("batch positions %v: want both", kinds)
	}

	plain, err := NewBatchMaker(modeltest.NewModel(t, "dablot", 4), 8, false, 0, 4).Make(rp, 32, modeltest.NewRand(2))
	if err != nil || plain.Ownership != nil || plain.OwnershipMask != nil {
		t.Errorf("a network without the head gets ownership targets (%v)", err)
	}
	// Shards refuse a target of another size (TestOwnershipRange); a
	// sample in memory with one is an error too.
	rp.buf[rp.Len()-1].Ownership = make([]int8, P-1)
	if _, err := NewBatchMaker(m, 4, false, 0, 4).Make(rp, 1, modeltest.NewRand(2)); err == nil ||
		!strings.Contains(err.Error(), "an ownership target of 71 points for a board of 72") {
		t.Errorf("a target of 71 points: %v", err)
	}
}

// TestRunOwnership trains a tiny run with the setting of the ownership
// ablation (docs/experiments/configs/hour-own-abl.yaml): the head's loss
// is measured, every sample of the shards carries its ownership target,
// and the models have the head; the run resumes. A warm start from a
// model without the head is refused.
func TestRunOwnership(t *testing.T) {
	abl := preset(t, "../docs/experiments/configs/hour-own-abl.yaml")
	cfg := testConfig(t, 3)
	cfg.Network.OwnershipHead = abl.Network.OwnershipHead
	cfg.Train.OwnershipWeight = abl.Train.OwnershipWeight
	dir := filepath.Join(t.TempDir(), "own")
	// A squared error of tanh outputs and targets in [-1, 1] is at most 4.
	best := auxHeadRun(t, cfg, dir, func(g runlog.Generation) float64 { return g.OwnershipLoss }, 4,
		"the model has an ownership head, the training config test network.ownership_head: false")
	if !best.Weights.Config.OwnershipHead {
		t.Error("the best model has no ownership head")
	}
	values := map[int8]int{}
	for _, s := range firstShard(t, dir, best) {
		if len(s.Ownership) != best.Encoder.Points() {
			t.Fatalf("a sample with the ownership target %v", s.Ownership)
		}
		for _, v := range s.Ownership {
			values[v]++
		}
	}
	if len(values) != 3 {
		t.Errorf("the targets' values %v: want -1, 0 and 1", values)
	}
}
