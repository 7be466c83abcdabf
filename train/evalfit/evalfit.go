// Package evalfit fits the guard's learned evaluation (mcts.LearnedEval)
// to the results of games, as the draughts engine Scan fits its pattern
// weights: a logistic regression of each quiet position's result (1 won,
// ½ drawn, 0 lost, for the side to move) on the position's features
// (mcts.AlphaBetaPlayer.LearnedFeatures). The weights are a value for each
// rank, an offset for each rank on each point (a point and its left-right
// mirror share one) held towards 0 by an L2 penalty, and a weight for
// mobility; the fit scales them to evaluation units, the soldier at 100
// on average.
package evalfit

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
	"gonum.org/v1/gonum/optimize"
)

// Options are a fit's settings; the zero value takes the defaults.
type Options struct {
	// Every keeps every Every-th quiet position of a game (default 2).
	Every int
	// HoldOut holds every HoldOut-th game out of the fit, to measure it
	// (default 10; below 2: none held out).
	HoldOut int
	// L2 is the penalty on the squares' offsets, per position. At 0 the
	// fit tries each of L2Grid and keeps the one with the lowest held-out
	// loss (DefaultL2 with no games held out).
	L2 float64
}

// L2Grid are the penalties a fit chooses among by its held-out loss.
var L2Grid = []float64{1e-4, 1e-3, 1e-2, 1e-1}

// Defaults of Options.
const (
	DefaultEvery   = 2
	DefaultHoldOut = 10
	DefaultL2      = 1e-2 // the lowest held-out loss on 200 games of the shipped player (docs/decisions.md)
)

func (o Options) withDefaults() Options {
	if o.Every <= 0 {
		o.Every = DefaultEvery
	}
	if o.HoldOut == 0 {
		o.HoldOut = DefaultHoldOut
	}
	return o
}

// sample is one quiet position: its pieces as signed 1-based indices
// (rank·classes + class + 1, negative for the opponent's), its mobility
// balance, the hand-written evaluation and the result.
type sample struct {
	pieces   []int16
	mobility float32
	hand     float32
	result   float32
}

// layout maps a board's points to their mirror classes.
type layout struct {
	points  int
	class   []int // point → class
	classes int
}

func newLayout(b *game.Board) layout {
	l := layout{points: b.Points(), class: make([]int, b.Points())}
	ids := map[int]int{}
	for q := range l.points {
		c := min(q, b.Mirror(q))
		id, ok := ids[c]
		if !ok {
			id = len(ids)
			ids[c] = id
		}
		l.class[q] = id
	}
	l.classes = len(ids)
	return l
}

// dims is the weights: a value a rank, an offset a rank and class, mobility.
func (l layout) dims() int { return game.NumRanks + game.NumRanks*l.classes + 1 }

// Data are the samples of a set of games, split into fitted and held out.
type Data struct {
	Games, Held int // games used, of them held out
	fit, held   []sample
	layout      layout
	rules       *game.Rules
}

// Positions returns the positions fitted and held out.
func (d *Data) Positions() (fit, held int) { return len(d.fit), len(d.held) }

// Collect replays the finished games of recs (of rules' variant) and
// keeps their quiet positions: at the start of a turn, game not over, no
// capture to make.
func Collect(recs []*game.Record, rules *game.Rules, opts Options) (*Data, error) {
	opts = opts.withDefaults()
	ab, err := mcts.NewAlphaBetaPlayer(guardConfig())
	if err != nil {
		return nil, err
	}
	d := &Data{layout: newLayout(rules.Board), rules: rules}
	var feats []mcts.Feature
	for i, rec := range recs {
		result, ok := southScore(rec.Result)
		if !ok {
			continue
		}
		p, err := rec.StartPosition(rules)
		if err != nil {
			return nil, fmt.Errorf("game %d: %w", i+1, err)
		}
		held := opts.HoldOut >= 2 && d.Games%opts.HoldOut == opts.HoldOut-1
		d.Games++
		if held {
			d.Held++
		}
		for t, turn := range rec.Turns {
			if t%opts.Every == 0 && quiet(&p) {
				feats = ab.LearnedFeatures(&p, feats[:0])
				s := d.layout.sample(feats, result, p.SideToMove())
				s.hand = float32(ab.Evaluate(&p))
				if held {
					d.held = append(d.held, s)
				} else {
					d.fit = append(d.fit, s)
				}
			}
			if err := p.ApplyTurn(turn); err != nil {
				return nil, fmt.Errorf("game %d, turn %d: %w", i+1, t+1, err)
			}
		}
	}
	if len(d.fit) == 0 {
		return nil, errors.New("evalfit: no quiet positions of finished games to fit")
	}
	return d, nil
}

// guardConfig is the alpha-beta of the guard's hand-written evaluation:
// the king at the guard's value.
func guardConfig() mcts.AlphaBetaConfig {
	cfg := mcts.DefaultAlphaBetaConfig()
	cfg.TTBits = 0
	cfg.Weights[game.King] = mcts.DefaultGuardKingValue * cfg.Weights[game.Soldier]
	return cfg
}

// southScore is South's score in a game of result r: 1, ½ or 0, and
// false for an unfinished game.
func southScore(r string) (float32, bool) {
	switch r {
	case "1-0":
		return 1, true
	case "0-1":
		return 0, true
	case "1/2-1/2":
		return 0.5, true
	}
	return 0, false
}

// quiet reports whether p is at the start of a turn, not over, with no
// capture to make.
func quiet(p *game.Position) bool {
	if p.Chain() >= 0 || p.Status().Over() {
		return false
	}
	for _, d := range p.Decisions(nil) {
		if d.IsJump() {
			return false
		}
	}
	return true
}

// sample turns LearnedFeatures into a sample with the result for the
// side to move, given South's.
func (l layout) sample(feats []mcts.Feature, south float32, toMove game.Side) sample {
	s := sample{result: south}
	if toMove == game.North {
		s.result = 1 - south
	}
	for _, f := range feats {
		if f.Index == game.NumRanks*l.points {
			s.mobility = float32(f.Value)
			continue
		}
		r, q := f.Index/l.points, f.Index%l.points
		id := int16(r*l.classes + l.class[q] + 1)
		if f.Value < 0 {
			id = -id
		}
		s.pieces = append(s.pieces, id)
	}
	return s
}

// logit is the fit's logit of s under weights w.
func (l layout) logit(w []float64, s *sample) float64 {
	offsets := w[game.NumRanks:]
	v := w[len(w)-1] * float64(s.mobility)
	for _, id := range s.pieces {
		sign := 1.0
		if id < 0 {
			sign, id = -1, -id
		}
		k := int(id) - 1
		v += sign * (w[k/l.classes] + offsets[k])
	}
	return v
}

// crossEntropy is the mean cross-entropy of the results of ss under
// logits f, and adds its gradient by f's weights through add (nil: none).
func crossEntropy(ss []sample, logit func(*sample) float64, add func(s *sample, dl float64)) float64 {
	var loss float64
	for i := range ss {
		s := &ss[i]
		z := logit(s)
		y := float64(s.result)
		// -[y log σ(z) + (1-y) log(1-σ(z))] = softplus(z) - y·z
		loss += softplus(z) - y*z
		if add != nil {
			add(s, (sigmoid(z)-y)/float64(len(ss)))
		}
	}
	return loss / float64(len(ss))
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

func softplus(z float64) float64 {
	if z > 30 {
		return z
	}
	return math.Log1p(math.Exp(z))
}

// Fit fits the weights to d and returns the evaluation, with its held-out
// loss beside the hand-written evaluation's. With opts.L2 at 0 it fits
// once for each of L2Grid and returns the fit with the lowest held-out
// loss (so that loss is a little optimistic).
func Fit(d *Data, opts Options) (*mcts.LearnedEval, error) {
	if opts.L2 > 0 {
		return fitL2(d, opts.L2)
	}
	if len(d.held) == 0 {
		return fitL2(d, DefaultL2)
	}
	var best *mcts.LearnedEval
	var err error
	for _, l2 := range L2Grid {
		e, ferr := fitL2(d, l2)
		switch {
		case ferr != nil:
			err = ferr
		case best == nil || e.Fit.Loss < best.Fit.Loss:
			best = e
		}
	}
	if best == nil {
		return nil, err
	}
	return best, nil
}

// fitL2 fits the weights to d with penalty l2 on the offsets.
func fitL2(d *Data, l2 float64) (*mcts.LearnedEval, error) {
	l := d.layout
	n := l.dims()
	offsets := func(w []float64) []float64 { return w[game.NumRanks : n-1] }
	grad := func(g, w []float64) {
		clear(g)
		crossEntropy(d.fit, func(s *sample) float64 { return l.logit(w, s) }, func(s *sample, dl float64) {
			g[n-1] += dl * float64(s.mobility)
			for _, id := range s.pieces {
				sign := dl
				if id < 0 {
					sign, id = -dl, -id
				}
				k := int(id) - 1
				g[k/l.classes] += sign
				g[game.NumRanks+k] += sign
			}
		})
		for i, o := range offsets(w) {
			g[game.NumRanks+i] += l2 * o
		}
	}
	loss := func(w []float64) float64 {
		v := crossEntropy(d.fit, func(s *sample) float64 { return l.logit(w, s) }, nil)
		for _, o := range offsets(w) {
			v += l2 / 2 * o * o
		}
		return v
	}
	w0 := make([]float64, n)
	w0[game.Soldier] = 0.3 // about what a soldier is worth in the logit
	res, err := optimize.Minimize(optimize.Problem{Func: loss, Grad: grad}, w0, &optimize.Settings{GradientThreshold: 1e-7, MajorIterations: 500}, &optimize.LBFGS{})
	if err != nil && res == nil {
		return nil, fmt.Errorf("evalfit: %w", err)
	}
	return d.scaled(res.X, l2)
}

// scaled turns logit weights w, fitted with penalty l2, into evaluation
// units and measures them.
func (d *Data) scaled(w []float64, l2 float64) (*mcts.LearnedEval, error) {
	l, b := d.layout, d.rules.Board
	e := &mcts.LearnedEval{Variant: d.rules.Name, Points: l.points}
	var soldier float64
	for q := range l.points {
		soldier += w[game.Soldier] + w[game.NumRanks+int(game.Soldier)*l.classes+l.class[q]]
	}
	soldier /= float64(l.points)
	if !(soldier > 0) {
		return nil, fmt.Errorf("evalfit: the fitted soldier is worth %.3g: the games do not teach material", soldier)
	}
	scale := 100 / soldier
	for r := range game.NumRanks {
		e.Square[r] = make([]int, l.points)
		for q := range l.points {
			e.Square[r][q] = int(math.Round(scale * (w[r] + w[game.NumRanks+r*l.classes+l.class[q]])))
		}
	}
	e.Mobility = int(math.Round(scale * w[len(w)-1]))
	if err := e.Check(d.rules.Name, b); err != nil {
		return nil, fmt.Errorf("evalfit: %w", err)
	}
	e.Fit = mcts.LearnedFit{Games: d.Games, Positions: len(d.fit) + len(d.held), Held: len(d.held), L2: l2}
	if len(d.held) > 0 {
		e.Fit.Loss = crossEntropy(d.held, func(s *sample) float64 { return l.logit(w, s) }, nil)
		e.Fit.HandLoss = handLoss(d.fit, d.held)
	}
	return e, nil
}

// handLoss is the held-out cross-entropy of the hand-written evaluation
// with its one scale fitted to the fitted samples.
func handLoss(fit, held []sample) float64 {
	logit := func(k float64) func(*sample) float64 {
		return func(s *sample) float64 { return k * float64(s.hand) / 100 }
	}
	f := func(x []float64) float64 { return crossEntropy(fit, logit(x[0]), nil) }
	g := func(grad, x []float64) {
		grad[0] = 0
		crossEntropy(fit, logit(x[0]), func(s *sample, dl float64) { grad[0] += dl * float64(s.hand) / 100 })
	}
	res, err := optimize.Minimize(optimize.Problem{Func: f, Grad: g}, []float64{0.3}, nil, &optimize.LBFGS{})
	if err != nil && res == nil {
		return math.NaN()
	}
	return crossEntropy(held, logit(res.X[0]), nil)
}

// Summary describes e in a few lines: its held-out loss beside the
// hand-written evaluation's, each rank's mean value with its lowest and
// highest point, and the mobility weight.
func Summary(e *mcts.LearnedEval, b *game.Board) string {
	var sb strings.Builder
	if e.Fit.Held > 0 {
		fmt.Fprintf(&sb, "held-out cross-entropy: learned %.4f (l2 %g), hand-written %.4f (%d positions)\n", e.Fit.Loss, e.Fit.L2, e.Fit.HandLoss, e.Fit.Held)
	}
	for r, sq := range e.Square {
		lo, hi, sum := 0, 0, 0
		for q, v := range sq {
			sum += v
			if v < sq[lo] {
				lo = q
			}
			if v > sq[hi] {
				hi = q
			}
		}
		fmt.Fprintf(&sb, "%-8v mean %5d, lowest %5d on %s, highest %5d on %s\n", game.Rank(r), sum/len(sq), sq[lo], b.Name(lo), sq[hi], b.Name(hi))
	}
	fmt.Fprintf(&sb, "mobility %d a step\n", e.Mobility)
	return sb.String()
}
