package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
)

// BookConfig says how MakeBook draws an opening book: fair, varied start
// positions for matches that measure strength (dablot ladder).
type BookConfig struct {
	// Openings is the number of openings wanted.
	Openings int
	// Turns is the number of random complete turns played from the
	// variant's start position to reach an opening: Turns for the first
	// opening, Turns+1 for the second, and so on alternately, so that half
	// the openings have each side to move (and a match's results as South
	// and as North are not the results of moving first and second).
	Turns int
	// Depth is the depth, in turns, of the alpha-beta search (with
	// quiescence) that checks an opening's balance.
	Depth int
	// Margin is the largest score of that search, for either side, that
	// counts as level, in its units (a soldier is 100).
	Margin int
	// Seed makes the book reproducible: attempt k plays the random turns
	// of a generator seeded from Seed and k only.
	Seed uint64
}

// DefaultBookConfig returns the settings of the shipped books: openings
// after 8 random turns, level within half a soldier at depth 6.
func DefaultBookConfig(openings int, seed uint64) BookConfig {
	return BookConfig{Openings: openings, Turns: 8, Depth: 6, Margin: 50, Seed: seed}
}

// Validate reports the first setting out of range, naming it as the book
// command's flag.
func (c *BookConfig) Validate() error {
	switch {
	case c.Openings < 1 || c.Openings > 10_000:
		return fmt.Errorf("openings %d: want 1 to 10000", c.Openings)
	case c.Turns < 0 || c.Turns > 200:
		return fmt.Errorf("turns %d: want 0 to 200", c.Turns)
	case c.Depth < 1 || c.Depth > 8:
		return fmt.Errorf("depth %d: want 1 to 8 (a shallow search)", c.Depth)
	case c.Margin < 0 || c.Margin > 10_000:
		return fmt.Errorf("margin %d: want 0 to 10000 (a soldier is 100)", c.Margin)
	}
	return nil
}

// maxBookTries bounds the random openings MakeBook draws per opening wanted.
const maxBookTries = 500

// BookOpening is one opening of a book.
type BookOpening struct {
	Position game.Position
	// Turns are the random turns from the start that reach it.
	Turns []string
	// Score is the balance search's score for the side to move.
	Score int
}

// Book is an opening book made by MakeBook.
type Book struct {
	Rules    *game.Rules
	Config   BookConfig
	Openings []BookOpening
	// Tries counts the random openings drawn to find them.
	Tries int
}

// Positions returns the openings' positions, in order.
func (b *Book) Positions() []game.Position {
	ps := make([]game.Position, len(b.Openings))
	for i := range b.Openings {
		ps[i] = b.Openings[i].Position
	}
	return ps
}

// MakeBook draws the openings of a book: attempt k = 0, 1, … plays
// cfg.Turns random complete turns (cfg.Turns+1 while an odd number of
// openings is kept) (each decision uniformly random, as the
// arena's --open does) from the variant's start, seeded from cfg.Seed and
// k, and keeps the position when it is level (BookConfig.Check) and no
// opening kept before is the same position up to symmetry (OpeningKey).
// The same rules and config always give the same book.
func MakeBook(ctx context.Context, r *game.Rules, cfg BookConfig) (*Book, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	chk, err := newBookChecker(cfg)
	if err != nil {
		return nil, err
	}
	b := &Book{Rules: r, Config: cfg}
	seen := map[string]bool{} // the keys of the positions checked
	limit := maxBookTries * cfg.Openings
	for k := 0; len(b.Openings) < cfg.Openings; k++ {
		if k == limit {
			return nil, fmt.Errorf("book of %s: only %d of %d openings are level and distinct after %d random ones of %d turns; try fewer turns or a larger margin",
				r.Name, len(b.Openings), cfg.Openings, limit, cfg.Turns)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b.Tries++
		p, turns, ok, err := randomOpening(ctx, r, cfg.Turns+len(b.Openings)%2, mcts.Mix(cfg.Seed, uint64(k)))
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		key := OpeningKey(&p)
		if seen[key] {
			continue // kept already, or not level
		}
		seen[key] = true
		score, err := chk.check(ctx, &p)
		if errors.Is(err, errNotLevel) {
			continue
		}
		if err != nil {
			return nil, err
		}
		b.Openings = append(b.Openings, BookOpening{Position: p, Turns: turns, Score: score})
	}
	return b, nil
}

// randomOpening plays turns random complete turns from r's start with a
// random player seeded with seed; ok is false when the game ends first.
func randomOpening(ctx context.Context, r *game.Rules, turns int, seed uint64) (p game.Position, played []string, ok bool, err error) {
	p = r.Start()
	pl := mcts.NewRandomPlayer(seed)
	for range turns {
		if p.Status().Over() {
			return p, nil, false, nil
		}
		before := p
		ds, err := mcts.PlayTurn(ctx, pl, &p)
		if err != nil {
			return p, nil, false, err
		}
		t, _, _ := before.DecisionsToTurn(ds)
		played = append(played, t.Format(before.Board()))
	}
	return p, played, !p.Status().Over(), nil
}

// errNotLevel is the reason of an opening that is not level.
var errNotLevel = errors.New("not level")

// bookChecker checks the balance of openings by alpha-beta searches.
type bookChecker struct {
	cfg    mcts.AlphaBetaConfig
	margin int
}

func newBookChecker(cfg BookConfig) (*bookChecker, error) {
	abc := mcts.DefaultAlphaBetaConfig()
	abc.Depth, abc.TTBits = cfg.Depth, 16
	if err := abc.Validate(); err != nil {
		return nil, err
	}
	return &bookChecker{cfg: abc, margin: cfg.Margin}, nil
}

// check returns the balance search's score of p for the side to move, and
// an error wrapping errNotLevel that says why when p is not level.
func (c *bookChecker) check(ctx context.Context, p *game.Position) (int, error) {
	if p.Status().Over() {
		return 0, fmt.Errorf("%w: the game is over (%s)", errNotLevel, p.Status())
	}
	if p.Chain() >= 0 {
		return 0, fmt.Errorf("%w: a capture chain is under way", errNotLevel)
	}
	for rank := range game.Rank(game.NumRanks) {
		s, n := p.Pieces(game.South, rank).Count(), p.Pieces(game.North, rank).Count()
		if s != n {
			return 0, fmt.Errorf("%w: South has %d %ss, North %d", errNotLevel, s, strings.ToLower(rank.String()), n)
		}
	}
	// A fresh player (and transposition table) for each position: its
	// score does not depend on the positions checked before it, so a book
	// can be checked again one opening at a time.
	ab, err := mcts.NewAlphaBetaPlayer(c.cfg)
	if err != nil {
		return 0, err
	}
	res, err := ab.Search(ctx, p)
	if err != nil {
		return 0, err
	}
	if math.Abs(float64(res.Score)) > float64(c.margin) {
		return res.Score, fmt.Errorf("%w: a depth-%d search scores %+d for the side to move, beyond ±%d", errNotLevel, res.Depth, res.Score, c.margin)
	}
	return res.Score, nil
}

// Check returns the balance search's score of p for the side to move, or
// an error saying why p is not a level opening: the game is over, a
// capture chain is under way, the sides' pieces of some rank differ in
// number, or an alpha-beta search of depth c.Depth scores it beyond
// ±c.Margin.
func (c BookConfig) Check(ctx context.Context, p *game.Position) (int, error) {
	chk, err := newBookChecker(c)
	if err != nil {
		return 0, err
	}
	return chk.check(ctx, p)
}

// OpeningKey names a position up to the symmetries that leave a pair of
// games with swapped colours the same: the left-right mirror and the
// half-turn with the colours swapped (whose pair is the same two games).
// Two openings with the same key would play the same match.
func OpeningKey(p *game.Position) string {
	key := ""
	for _, s := range []game.Symmetry{game.Identity, game.HalfTurnSwap} {
		q := s.Position(p)
		for _, img := range []game.Position{q, game.Mirror.Position(&q)} {
			k := img.BoardFEN() + " " + img.SideToMove().String()
			if key == "" || k < key {
				key = k
			}
		}
	}
	return key
}

// Write writes the book in the format configs.ParseBook reads: a comment
// header that says how it was made (command is the command line that makes
// it again), then one opening a line, its FEN followed by a comment with
// its balance score and the random turns that reached it.
func (b *Book) Write(w io.Writer, command string) error {
	c := b.Config
	var sb strings.Builder
	fmt.Fprintf(&sb, "# Opening book of %s for the equal-time ladder (dablot ladder): %d openings.\n", b.Rules.Name, len(b.Openings))
	fmt.Fprintf(&sb, "# Made by: %s\n", command)
	fmt.Fprintf(&sb, "# Each opening is the position after %d or, alternately, %d random turns from the\n", c.Turns, c.Turns+1)
	fmt.Fprintf(&sb, "# start (so half have each side to move; the turns follow it), kept when both\n")
	fmt.Fprintf(&sb, "# sides have the same pieces of every rank, an alpha-beta search of depth %d\n", c.Depth)
	fmt.Fprintf(&sb, "# scores it within ±%d for the side to move (a soldier is 100), and no opening\n", c.Margin)
	fmt.Fprintf(&sb, "# before it is the same position, its mirror image or its colours swapped;\n")
	fmt.Fprintf(&sb, "# %d of %d random openings were kept. The ladder plays each opening twice,\n", len(b.Openings), b.Tries)
	fmt.Fprintf(&sb, "# colours swapped. One FEN a line; # starts a comment.\n")
	for i := range b.Openings {
		o := &b.Openings[i]
		fmt.Fprintf(&sb, "%s # %+d: %s\n", o.Position.FEN(), o.Score, strings.Join(o.Turns, " "))
	}
	_, err := io.WriteString(w, sb.String())
	return err
}
