package match

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/dablot-zero/dablot/game"
)

// Paired compares two players game by game: each played a match against
// the same opponent (the anchor) from the same openings with the same
// colours, so game k of one match and game k of the other differ only in
// the player. The difference of their scores per game is then free of the
// openings' and colours' share of the variance, and its interval is
// narrower than that of the two scores side by side.
type Paired struct {
	Anchor string // the common opponent's spec
	A, B   string // the compared players' specs
	// AWDL and BWDL count each player's games against the anchor, over
	// the paired games only.
	AWDL, BWDL WDL
	// Better, Same and Worse count the paired games in which A scored more
	// than B, as much, and less.
	Better, Same, Worse int
	// Unpaired counts the games of the longer match that the other lacks.
	Unpaired int
	diffs    []float64 // A's score minus B's, game by game
}

// Games returns the number of paired games.
func (p Paired) Games() int { return len(p.diffs) }

// Diff returns the mean difference of A's score per game minus B's, with
// the half width of its confidence interval at level conf (0.95 for
// 95 %) by the normal approximation with the sample variance of the
// differences; NaN for the half width with fewer than two games.
func (p Paired) Diff(conf float64) (mean, half float64) {
	n := float64(len(p.diffs))
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	for _, d := range p.diffs {
		mean += d
	}
	mean /= n
	if n < 2 {
		return mean, math.NaN()
	}
	var ss float64
	for _, d := range p.diffs {
		ss += (d - mean) * (d - mean)
	}
	return mean, zFor(conf) * math.Sqrt(ss/(n-1)/n)
}

// String formats the comparison: the difference in points per hundred
// games with its 95 % interval, and how many games went each way.
func (p Paired) String() string {
	if p.Games() == 0 {
		return "no paired games"
	}
	m, h := p.Diff(0.95)
	return fmt.Sprintf("A − B %+.1f ± %.1f points per 100 games (95 %%): A better in %d, the same in %d, worse in %d of %d games",
		100*m, 100*h, p.Better, p.Same, p.Worse, p.Games())
}

// Pair pairs the game records of two matches, a (player A against the
// anchor) and b (player B against it), game by game: by the records'
// game numbers (the Game tag the arena and the ladder write), or by their
// order in each file without one. anchor names the common opponent's
// spec; "" finds it as the one spec that plays in every game of both
// matches. Paired games must start from the same position (the opening
// book's, or the random turns of Opening) with the anchor on the same
// side, and be finished. A match with more games than the other is
// paired up to the shorter one's games (Unpaired counts the rest).
func Pair(a, b []*game.Record, anchor string) (Paired, error) {
	if len(a) == 0 || len(b) == 0 {
		return Paired{}, fmt.Errorf("pair: a match without games (%d and %d)", len(a), len(b))
	}
	if anchor == "" {
		var err error
		if anchor, err = commonSpec(a, b); err != nil {
			return Paired{}, err
		}
	}
	pa, err := playerOf(a, anchor, "A")
	if err != nil {
		return Paired{}, err
	}
	pb, err := playerOf(b, anchor, "B")
	if err != nil {
		return Paired{}, err
	}
	ga, err := byGame(a, "A")
	if err != nil {
		return Paired{}, err
	}
	gb, err := byGame(b, "B")
	if err != nil {
		return Paired{}, err
	}
	p := Paired{Anchor: anchor, A: pa, B: pb}
	for k, ra := range ga {
		rb, ok := gb[k]
		if !ok {
			p.Unpaired++
			continue
		}
		if err := samePairing(ra, rb, anchor); err != nil {
			return Paired{}, fmt.Errorf("pair: game %d: %w", k, err)
		}
		sa, sb := scoreOf(ra, anchor), scoreOf(rb, anchor)
		p.AWDL.Add(sa)
		p.BWDL.Add(sb)
		switch {
		case sa > sb:
			p.Better++
		case sa < sb:
			p.Worse++
		default:
			p.Same++
		}
		p.diffs = append(p.diffs, sa-sb)
	}
	for k := range gb {
		if _, ok := ga[k]; !ok {
			p.Unpaired++
		}
	}
	if p.Games() == 0 {
		return Paired{}, fmt.Errorf("pair: no game number is in both matches")
	}
	return p, nil
}

// commonSpec returns the one spec that plays in every game of a and of b.
func commonSpec(a, b []*game.Record) (string, error) {
	var common []string
	for _, s := range []string{a[0].South, a[0].North} {
		if s != "" && !slices.Contains(common, s) && playsAll(a, s) && playsAll(b, s) {
			common = append(common, s)
		}
	}
	switch len(common) {
	case 0:
		return "", fmt.Errorf("pair: no player is in every game of both matches; are they matches against the same opponent?")
	case 1:
		return common[0], nil
	}
	return "", fmt.Errorf("pair: both players (%s and %s) are in every game of both matches; name the common opponent", common[0], common[1])
}

// playsAll reports whether spec is South or North in every record.
func playsAll(recs []*game.Record, spec string) bool {
	for _, r := range recs {
		if r.South != spec && r.North != spec {
			return false
		}
	}
	return true
}

// playerOf returns the one spec that plays the anchor in every game of
// recs; which names the match in errors.
func playerOf(recs []*game.Record, anchor, which string) (string, error) {
	player := ""
	for i, r := range recs {
		var other string
		switch anchor {
		case r.South:
			other = r.North
		case r.North:
			other = r.South
		default:
			return "", fmt.Errorf("pair: match %s, game %d: %s does not play in it (%s against %s)", which, i+1, anchor, r.South, r.North)
		}
		if other == anchor {
			return "", fmt.Errorf("pair: match %s, game %d: %s plays itself", which, i+1, anchor)
		}
		if player == "" {
			player = other
		} else if other != player {
			return "", fmt.Errorf("pair: match %s has two players against %s: %s and %s", which, anchor, player, other)
		}
	}
	return player, nil
}

// byGame returns the records by game number: the Game tag, or the place
// in recs (from 1) for records without one. A game twice, or unfinished,
// is an error.
func byGame(recs []*game.Record, which string) (map[int]*game.Record, error) {
	out := make(map[int]*game.Record, len(recs))
	for i, r := range recs {
		k := i + 1
		if s, ok := r.Tags[tagGame]; ok {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("pair: match %s, record %d: game number %q", which, i+1, s)
			}
			k = n
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("pair: match %s has game %d twice", which, k)
		}
		if _, ok := game.ResultScore(r.Result, game.South); !ok {
			return nil, fmt.Errorf("pair: match %s, game %d is unfinished (result %q)", which, k, r.Result)
		}
		out[k] = r
	}
	return out, nil
}

// samePairing checks that two records start from the same position with
// the anchor on the same side.
func samePairing(a, b *game.Record, anchor string) error {
	switch {
	case a.Variant != b.Variant:
		return fmt.Errorf("variant %s against %s", a.Variant, b.Variant)
	case a.Setup != b.Setup:
		return fmt.Errorf("the matches start from different positions (%q and %q)", a.Setup, b.Setup)
	case a.Tags[tagOpening] != b.Tags[tagOpening]:
		return fmt.Errorf("the matches open differently (%q and %q)", a.Tags[tagOpening], b.Tags[tagOpening])
	case (a.South == anchor) != (b.South == anchor):
		return fmt.Errorf("%s plays South in one match and North in the other", anchor)
	}
	return nil
}

// scoreOf returns the score of the anchor's opponent in a finished game.
func scoreOf(r *game.Record, anchor string) float64 {
	side := game.South
	if r.South == anchor {
		side = game.North
	}
	s, _ := game.ResultScore(r.Result, side)
	return s
}
