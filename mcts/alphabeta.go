package mcts

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dablot-zero/dablot/game"
)

// AlphaBetaConfig sets up an AlphaBetaPlayer.
type AlphaBetaConfig struct {
	// Depth is the depth in complete turns (a capture chain counts as one
	// turn however many jumps it has); Time bounds the iterative deepening
	// of one decision. At least one must be set; with only Time the depth
	// grows until time runs out.
	Depth int
	Time  time.Duration
	// TTBits is log2 of the number of transposition-table entries (16 bytes
	// each), at most MaxTTBits; 0 means no table.
	TTBits int
	// Quiescence extends the leaves with capture sequences (all decisions
	// inside a chain; captures only at the start of a turn, where the side to
	// move may also stand pat unless capture is compulsory).
	Quiescence bool
	// Weights are the values of soldier, prince and king in evaluation
	// units; Mobility is added for each step the side to move could make
	// and subtracted for each step the opponent could make.
	Weights  [game.NumRanks]int
	Mobility int
	// Hunt is the bonus per step of distance that the side ahead in
	// material gains by closing in on the other side's last pieces (when
	// they are few), so that a won game is pressed instead of drawn by the
	// no-capture rule.
	Hunt int
	// Extend searches a turn deeper wherever the side to move has a
	// single legal decision at the start of its turn (a single-reply
	// extension): a forced reply, such as a compulsory capture of an
	// offered soldier, then costs no depth, so the sacrifices that force
	// it are seen through. A search of d turns extends no deeper than
	// 3·d + 6 decisions below the root (extLimit).
	Extend bool
	// Order sorts the quiet decisions (neither the table's move nor a
	// jump) by two killer decisions a ply (the last quiet decisions there
	// that cut the search off) and then by the history heuristic (how
	// much each decision has cut off, weighted by depth squared), and
	// searches every decision after the first with a null window
	// (principal variation search), again in full only if it beats the
	// first. The score of a search without a table is the same either
	// way; fewer nodes reach it.
	Order bool
}

// MaxTTBits bounds AlphaBetaConfig.TTBits: a table of 2^24 entries takes
// 256 MB, and every alpha-beta player (two a game in an arena) has its own.
const MaxTTBits = 24

// DefaultAlphaBetaConfig returns depth 4 with a 2^20-entry table, quiescence,
// material 100/300/500, mobility 2 and hunt 3.
func DefaultAlphaBetaConfig() AlphaBetaConfig {
	return AlphaBetaConfig{Depth: 4, TTBits: 20, Quiescence: true, Weights: [game.NumRanks]int{100, 300, 500}, Mobility: 2, Hunt: 3}
}

// Validate reports the first setting out of range.
func (c *AlphaBetaConfig) Validate() error {
	switch {
	case c.Depth <= 0 && c.Time <= 0:
		return errors.New("mcts: alpha-beta needs a depth or a time")
	case c.Depth < 0 || c.Depth > maxDepth:
		return fmt.Errorf("mcts: alpha-beta depth %d: want 1 to %d", c.Depth, maxDepth)
	case c.TTBits < 0 || c.TTBits > MaxTTBits:
		return fmt.Errorf("mcts: alpha-beta table bits %d: want 0 to %d (mcts.MaxTTBits)", c.TTBits, MaxTTBits)
	}
	return nil
}

const (
	maxDepth  = 64
	maxPly    = 512 // decisions below the root, chains and quiescence included
	winScore  = 1 << 24
	winBound  = winScore - 2*maxPly
	infScore  = winScore + 1
	ttExact   = 1
	ttLower   = 2
	ttUpper   = 3
	nullMove  = game.Decision(0xfffd)
	nodeCheck = 1023
)

type ttEntry struct {
	key   uint64
	value int32
	move  game.Decision
	depth int8
	flag  uint8
}

// AlphaBetaPlayer is a negamax alpha-beta search at the decision level with
// iterative deepening, captures first, a transposition table (Zobrist
// hash) and a material + mobility evaluation. The negation of a child's
// score depends on whether the child's side to move differs from the
// parent's, never on depth, so a capture chain (the same side deciding
// again) is searched correctly; depth is counted in turns.
type AlphaBetaPlayer struct {
	cfg    AlphaBetaConfig
	rules  *game.Rules
	tt     []ttEntry
	ttMask uint64
	bufs   [maxPly + 1][2 * game.MaxPoints]game.Decision
	// stepTo[s][r][q]: the points a piece of side s and rank r on point q
	// steps to on an empty board (mobility counts those left empty).
	stepTo   [2][game.NumRanks][game.MaxPoints]game.Bits
	nodes    int64
	stop     bool
	deadline time.Time
	maxNodes int64 // a veto search's node budget (0: none)
	ctx      context.Context
	rootBest game.Decision
	extLimit int // Extend: no extension at this ply or below
	// Order: the killers of each ply and the history of each side's
	// quiet decisions (index: the decision, below game.Stop), cleared
	// at the start of each root's search (clearOrder).
	killers [maxPly + 1][2]game.Decision
	history [2][numMoves]int32
	keys    [2 * game.MaxPoints]int64
	// Nodes counts the nodes searched so far; Elapsed the time spent.
	Nodes   int64
	Elapsed time.Duration
}

// NewAlphaBetaPlayer returns an alpha-beta player. It has no randomness:
// the same position always gets the same decision.
func NewAlphaBetaPlayer(cfg AlphaBetaConfig) (*AlphaBetaPlayer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ab := &AlphaBetaPlayer{cfg: cfg}
	if cfg.TTBits > 0 {
		ab.tt = make([]ttEntry, 1<<cfg.TTBits)
		ab.ttMask = 1<<cfg.TTBits - 1
	}
	return ab, nil
}

// ABResult is the outcome of one alpha-beta search.
type ABResult struct {
	Best  game.Decision
	Score int // for the side to move, in evaluation units (≥ WinScore-ply: a forced win)
	Depth int // the deepest depth completed
	Nodes int64
}

// WinScore is the score of a won position; a win found n decisions below the
// root scores WinScore-n, a loss -(WinScore-n).
const WinScore = winScore

// Search finds the best decision in p by iterative deepening.
func (ab *AlphaBetaPlayer) Search(ctx context.Context, p *game.Position) (ABResult, error) {
	if err := ab.cfg.Validate(); err != nil {
		return ABResult{}, err
	}
	start := time.Now()
	defer func() { ab.Elapsed += time.Since(start) }()
	legal := p.Decisions(nil)
	if len(legal) == 0 {
		return ABResult{}, errOver
	}
	ab.begin(ctx, p)
	ab.clearOrder()
	if ab.cfg.Time > 0 {
		ab.deadline = start.Add(ab.cfg.Time)
	}
	depth := ab.cfg.Depth
	if depth <= 0 {
		depth = maxDepth
	}
	res := ABResult{Best: legal[0]}
	for d := 1; d <= depth; d++ {
		ab.rootBest = nullMove
		if d > 1 {
			ab.rootBest = res.Best
		}
		ab.extLimit = extLimit(d)
		score := ab.search(p, d, -infScore, infScore, 0)
		if ab.stop {
			break
		}
		res = ABResult{Best: ab.rootBest, Score: score, Depth: d}
		if score >= winBound || score <= -winBound {
			break // a forced result: deeper search cannot change it
		}
	}
	ab.Nodes += ab.nodes
	res.Nodes = ab.nodes
	if res.Depth == 0 {
		if err := ctx.Err(); err != nil {
			return res, err
		}
	}
	return res, nil
}

// begin readies the player for a search of p under ctx, with no deadline.
func (ab *AlphaBetaPlayer) begin(ctx context.Context, p *game.Position) {
	ab.setSteps(p.Rules())
	ab.ctx, ab.stop, ab.nodes = ctx, false, 0
	ab.deadline, ab.maxNodes = time.Time{}, 0
}

// Vetoes returns the legal decisions of p that a search of depth turns
// (the turn a decision starts or continues counts as the first) scores more
// than margin below the best, for p's side to move. An alpha-beta search of
// p finds the best score; every other decision is then tested against
// best − margin with a null window, which costs far less than scoring it
// exactly. It ignores the config's Depth and Time: ctx and deadline (zero:
// none) bound it, and a search they stop returns ctx's error or
// errGuardTime.
func (ab *AlphaBetaPlayer) Vetoes(ctx context.Context, p *game.Position, depth, margin int, deadline time.Time) ([]game.Decision, error) {
	ab.clearOrder()
	r, err := ab.vetoes(ctx, p, vetoLimits{depth: depth, margin: margin, deadline: deadline})
	if err != nil {
		return nil, err
	}
	return r.excluded, nil
}

// vetoLimits are the settings of one vetoes search.
type vetoLimits struct {
	depth, margin int
	deadline      time.Time
	// maxNodes bounds the search's nodes (0: no bound).
	maxNodes int64
}

// vetoResult is what a vetoes search found.
type vetoResult struct {
	// excluded are the decisions vetoed among the first tested of tests.
	excluded []game.Decision
	// best is the search's best decision, when tested is 0 or more.
	best game.Decision
	// tests are the legal decisions in the order tested, and tested how
	// many of them had been judged when the search ended: all of them when
	// it completed, some when it stopped among the tests, and -1 when it
	// stopped before it had the best score.
	tests  []game.Decision
	tested int
}

// vetoes is Vetoes that also returns the best decision, and stops, with
// errGuardTime, once the search has visited lim.maxNodes nodes (checked
// every 1024 nodes, as the deadline is, so the same position and budget
// give the same result). A search that stops returns what it had judged
// with its error.
func (ab *AlphaBetaPlayer) vetoes(ctx context.Context, p *game.Position, lim vetoLimits) (vetoResult, error) {
	depth, margin := lim.depth, lim.margin
	if depth < 1 || depth > maxDepth {
		return vetoResult{tested: -1}, fmt.Errorf("mcts: alpha-beta depth %d: want 1 to %d", depth, maxDepth)
	}
	if err := ctx.Err(); err != nil {
		return vetoResult{tested: -1}, err
	}
	start := time.Now()
	defer func() { ab.Elapsed += time.Since(start) }()
	legal := p.Decisions(nil)
	if len(legal) == 0 {
		return vetoResult{tested: -1}, errOver
	}
	ab.begin(ctx, p)
	ab.deadline, ab.maxNodes = lim.deadline, lim.maxNodes
	ab.rootBest = nullMove
	ab.extLimit = extLimit(depth)
	r := vetoResult{tests: legal, tested: -1}
	best := ab.search(p, depth, -infScore, infScore, 0)
	if !ab.stop {
		r.best, r.tested = ab.rootBest, 0
	}
	threshold := best - margin
	for i, d := range r.tests {
		if ab.stop {
			break
		}
		vetoed := d != r.best && ab.searchChild(p, d, depth, threshold-1, threshold, 0) < threshold
		if ab.stop {
			break // the test did not finish: no verdict
		}
		if vetoed {
			r.excluded = append(r.excluded, d)
		}
		r.tested = i + 1
	}
	ab.Nodes += ab.nodes
	if ab.stop {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		return r, errGuardTime
	}
	return r, nil
}

// extLimit is the ply below which a search of depth turns extends single
// replies (AlphaBetaConfig.Extend): three decisions a turn and six more, so
// a line of forced replies cannot run away with the search.
func extLimit(depth int) int { return 3*depth + 6 }

// errGuardTime says that a search ran out of the time its deadline gave it,
// or of its nodes.
var errGuardTime = errors.New("mcts: alpha-beta ran out of time")

// Turn implements Player.
func (ab *AlphaBetaPlayer) Turn(ctx context.Context, p *game.Position) ([]game.Decision, error) {
	q := *p
	var ds []game.Decision
	for {
		var d game.Decision
		if legal := q.Decisions(nil); len(legal) == 1 {
			d = legal[0] // forced: no need to search
		} else {
			r, err := ab.Search(ctx, &q)
			if err != nil {
				return nil, err
			}
			d = r.Best
		}
		ds = append(ds, d)
		q.Apply(d)
		if q.Chain() < 0 {
			return ds, nil
		}
	}
}

// setSteps readies the step tables (stepTo) for the rules r.
func (ab *AlphaBetaPlayer) setSteps(r *game.Rules) {
	if ab.rules == r {
		return
	}
	ab.rules = r
	b := r.Board
	for rank := range game.Rank(game.NumRanks) {
		rel := r.Ranks[rank].Step                                      // the directions a South piece steps in
		dirs := [2]uint8{game.South: rel, game.North: rel<<4 | rel>>4} // forward is south for North
		for s, sd := range dirs {
			for q := range ab.stepTo[s][rank] {
				var to game.Bits
				for d := range game.Direction(game.NumDirections) {
					if q < b.Points() && sd>>d&1 != 0 && b.Neighbor[q][d] >= 0 {
						to = to.Or(game.Bit(int(b.Neighbor[q][d])))
					}
				}
				ab.stepTo[s][rank][q] = to
			}
		}
	}
}

// terminalScore is the score of a finished game for its side to move.
func terminalScore(p *game.Position, ply int) int {
	switch p.Status().Outcome.ScoreFor(p.SideToMove()) {
	case 1:
		return winScore - ply
	case 0:
		return -winScore + ply
	}
	return 0
}

func (ab *AlphaBetaPlayer) checkStop() {
	if ab.nodes&nodeCheck != 0 {
		return
	}
	if ab.ctx.Err() != nil || ab.maxNodes > 0 && ab.nodes >= ab.maxNodes ||
		!ab.deadline.IsZero() && time.Now().After(ab.deadline) {
		ab.stop = true
	}
}

// enter counts a node and returns its legal decisions, or, when the node
// ends the search (stopped, game over, too deep), its score and done.
func (ab *AlphaBetaPlayer) enter(p *game.Position, ply int) (legal []game.Decision, score int, done bool) {
	ab.nodes++
	ab.checkStop()
	if ab.stop {
		return nil, 0, true
	}
	legal = p.Decisions(ab.bufs[ply][:0])
	if len(legal) == 0 {
		return nil, terminalScore(p, ply), true
	}
	if ply >= maxPly-1 {
		return nil, ab.Evaluate(p), true
	}
	return legal, 0, false
}

// search returns the negamax score of p for its side to move, searched depth
// more turns.
func (ab *AlphaBetaPlayer) search(p *game.Position, depth, alpha, beta, ply int) int {
	legal, score, done := ab.enter(p, ply)
	if done {
		return score
	}
	if ab.cfg.Extend && len(legal) == 1 && p.Chain() < 0 && ply > 0 && ply < ab.extLimit {
		depth++
	}
	if depth <= 0 && p.Chain() < 0 {
		if ab.cfg.Quiescence {
			return ab.quiesce(p, legal, alpha, beta, ply)
		}
		return ab.Evaluate(p)
	}
	alphaOrig := alpha
	ttMove := nullMove
	var e *ttEntry
	if ab.tt != nil {
		e = &ab.tt[p.Hash()&ab.ttMask]
		if e.key == p.Hash() {
			ttMove = e.move
			if int(e.depth) >= depth && ply > 0 {
				v := fromTT(int(e.value), ply)
				switch {
				case e.flag == ttExact:
					return v
				case e.flag == ttLower && v >= beta:
					return v
				case e.flag == ttUpper && v <= alpha:
					return v
				}
			}
		}
	}
	if ply == 0 && ab.rootBest != nullMove {
		ttMove = ab.rootBest
	}
	ab.order(p, legal, ttMove, ply, ab.cfg.Order)
	best, bestMove := -infScore, legal[0]
	for i, d := range legal {
		var v int
		switch {
		case ab.cfg.Order && i > 0 && beta-alpha > 1:
			// Principal variation search: a null window first, the
			// whole window only for a decision that beats the best.
			v = ab.searchChild(p, d, depth, alpha, alpha+1, ply)
			if v > alpha && v < beta && !ab.stop {
				v = ab.searchChild(p, d, depth, alpha, beta, ply)
			}
		default:
			v = ab.searchChild(p, d, depth, alpha, beta, ply)
		}
		if ab.stop {
			return 0
		}
		if v > best {
			best, bestMove = v, d
		}
		alpha = max(alpha, v)
		if alpha >= beta {
			if ab.cfg.Order {
				ab.cutOff(p, d, depth, ply)
			}
			break
		}
	}
	if ply == 0 {
		ab.rootBest = bestMove
	}
	if e != nil {
		flag := uint8(ttExact)
		switch {
		case best <= alphaOrig:
			flag = ttUpper
		case best >= beta:
			flag = ttLower
		}
		*e = ttEntry{key: p.Hash(), value: int32(toTT(best, ply)), move: bestMove, depth: int8(depth), flag: flag}
	}
	return best
}

// searchChild returns the score of decision d of p for p's side to move,
// searched depth turns (d's own turn counted) within (alpha, beta): the
// child's score is negated when the side to move changes, never by depth,
// so a capture chain keeps its sign. p is at ply.
func (ab *AlphaBetaPlayer) searchChild(p *game.Position, d game.Decision, depth, alpha, beta, ply int) int {
	q := *p
	q.Apply(d)
	if q.Chain() < 0 {
		depth--
	}
	if q.SideToMove() == p.SideToMove() {
		return ab.search(&q, depth, alpha, beta, ply+1)
	}
	return -ab.search(&q, depth, -beta, -alpha, ply+1)
}

// quiesce searches the captures of p (legal are its decisions).
func (ab *AlphaBetaPlayer) quiesce(p *game.Position, legal []game.Decision, alpha, beta, ply int) int {
	best := -infScore
	if p.Chain() < 0 {
		hasJump, forced := false, true
		for _, d := range legal {
			if d.IsJump() {
				hasJump = true
			} else {
				forced = false
			}
		}
		if !forced || !hasJump {
			best = ab.Evaluate(p)
			if best >= beta || !hasJump {
				return best
			}
			alpha = max(alpha, best)
		}
	}
	ab.order(p, legal, nullMove, ply, false)
	me := p.SideToMove()
	for _, d := range legal {
		if p.Chain() < 0 && !d.IsJump() {
			continue
		}
		q := *p
		q.Apply(d)
		var v int
		if q.SideToMove() == me {
			v = ab.qnode(&q, alpha, beta, ply+1)
		} else {
			v = -ab.qnode(&q, -beta, -alpha, ply+1)
		}
		if ab.stop {
			return 0
		}
		best = max(best, v)
		alpha = max(alpha, v)
		if alpha >= beta {
			break
		}
	}
	return best
}

func (ab *AlphaBetaPlayer) qnode(p *game.Position, alpha, beta, ply int) int {
	legal, score, done := ab.enter(p, ply)
	if done {
		return score
	}
	return ab.quiesce(p, legal, alpha, beta, ply)
}

// toTT and fromTT make win scores relative to the node, so that a stored
// win is read back at another ply correctly.
func toTT(v, ply int) int {
	switch {
	case v >= winBound:
		return v + ply
	case v <= -winBound:
		return v - ply
	}
	return v
}

func fromTT(v, ply int) int {
	switch {
	case v >= winBound:
		return v - ply
	case v <= -winBound:
		return v + ply
	}
	return v
}

// numMoves is the number of steps and jumps (decisions below game.Stop):
// the size of a side's history table.
const numMoves = game.MaxPoints * 2 * game.NumDirections

// historyMax bounds a history entry: past it every entry is halved, so
// that recent cut-offs count more than old ones.
const historyMax = 1 << 20

// clearOrder forgets the killers and the history (AlphaBetaConfig.Order)
// before the search of a new root, so that its result depends on the root
// alone.
func (ab *AlphaBetaPlayer) clearOrder() {
	if ab.cfg.Order {
		ab.killers = [maxPly + 1][2]game.Decision{}
		ab.history = [2][numMoves]int32{}
	}
}

// cutOff records decision d of p, at ply with depth turns to go, as having
// cut the search off: a quiet decision becomes the ply's first killer and
// gains depth² in its side's history.
func (ab *AlphaBetaPlayer) cutOff(p *game.Position, d game.Decision, depth, ply int) {
	if !d.IsMove() || d.IsJump() {
		return
	}
	if k := &ab.killers[ply]; k[0] != d {
		k[1], k[0] = k[0], d
	}
	h := &ab.history[p.SideToMove()]
	depth = max(depth, 1)
	if h[d] += int32(depth * depth); h[d] > historyMax {
		for i := range h {
			h[i] /= 2
		}
	}
}

// order sorts legal in place: first, then jumps (higher-ranked victims
// first), then the rest. With quiet set (AlphaBetaConfig.Order), the
// ply's killers lead the rest and the others follow by their history;
// otherwise the rest keep their generation order.
func (ab *AlphaBetaPlayer) order(p *game.Position, legal []game.Decision, first game.Decision, ply int, quiet bool) {
	b := p.Board()
	k := &ab.killers[ply]
	h := &ab.history[p.SideToMove()]
	keys := ab.keys[:len(legal)]
	for i, d := range legal {
		switch {
		case d == first:
			keys[i] = 0
		case d.IsJump():
			_, r, _ := p.PieceAt(int(b.Neighbor[d.From()][d.Dir()]))
			keys[i] = 3 - int64(r)
		case !quiet:
			keys[i] = 4
		case d == k[0]:
			keys[i] = 4
		case d == k[1]:
			keys[i] = 5
		case d.IsMove():
			keys[i] = 6 + historyMax - int64(h[d])
		default:
			keys[i] = 7 + historyMax
		}
	}
	// Insertion sort: stable, and the lists are short.
	for i := 1; i < len(legal); i++ {
		d, key := legal[i], keys[i]
		j := i
		for ; j > 0 && keys[j-1] > key; j-- {
			legal[j], keys[j] = legal[j-1], keys[j-1]
		}
		legal[j], keys[j] = d, key
	}
}

// Evaluate is the static evaluation of p for its side to move: material
// balance, mobility balance and the hunt term. The game must not be over.
func (ab *AlphaBetaPlayer) Evaluate(p *game.Position) int {
	ab.setSteps(p.Rules())
	me := p.SideToMove()
	mat := ab.materialLead(p)
	v := mat
	if ab.cfg.Mobility != 0 {
		v += ab.cfg.Mobility * (ab.mobility(p, me) - ab.mobility(p, me.Other()))
	}
	if ab.cfg.Hunt != 0 {
		switch {
		case mat > 0:
			v -= ab.cfg.Hunt * huntDistance(p, me)
		case mat < 0:
			v += ab.cfg.Hunt * huntDistance(p, me.Other())
		}
	}
	return v
}

// materialLead is the side to move's material less the opponent's, by the
// config's weights.
func (ab *AlphaBetaPlayer) materialLead(p *game.Position) int {
	me, mat := p.SideToMove(), 0
	for r := range game.Rank(game.NumRanks) {
		mat += ab.cfg.Weights[r] * (p.Pieces(me, r).Count() - p.Pieces(me.Other(), r).Count())
	}
	return mat
}

// mobility counts the steps side s could make (ignoring compulsory capture).
func (ab *AlphaBetaPlayer) mobility(p *game.Position, s game.Side) int {
	occ := p.Occupied(game.South).Or(p.Occupied(game.North))
	n := 0
	for r := range game.Rank(game.NumRanks) {
		to := &ab.stepTo[s][r]
		for pcs := p.Pieces(s, r); !pcs.Empty(); {
			n += to[pcs.PopFirst()].AndNot(occ).Count()
		}
	}
	return n
}
