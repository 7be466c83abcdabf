package balance

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/mcts/match"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
)

// The tags of a study's game records besides Opening: which study, which
// stage and game of it, and how long the game took.
const (
	TagStudy   = "Study"   // the study's Fingerprint
	TagStage   = "Stage"   // StageAnchor or SelfPlayStage(sims)
	TagGame    = "Game"    // the game's number within its stage, from 1
	tagSeed    = "Seed"    // the study's seed (self-play games)
	tagSeconds = "Seconds" // the game's wall time
	tagOpening = "Opening" // the opening's length in turns
)

// StageAnchor is the Stage tag of the games against the anchor player.
const StageAnchor = "anchor"

// SelfPlayStage is the Stage tag of the self-play games at sims
// simulations.
func SelfPlayStage(sims int) string { return fmt.Sprintf("self-play, %d sims", sims) }

// Fingerprint names the study that Study(m, opts) makes: a hash of the
// variant, the model's checksum and every setting its games depend on
// (the figures VariantResult.Matches compares), "" for a model without a
// checksum. Its games' records carry it (TagStudy), so that a study
// resumed game by game (Options.Played) counts only games of the same
// study.
func Fingerprint(m *model.Model, opts Options) string {
	sum := m.Metadata[net.MetaChecksum]
	if sum == "" {
		return ""
	}
	search := mcts.DefaultConfig()
	if opts.Search != nil {
		search = *opts.Search
	}
	sims, mainSims := opts.ladder()
	h := sha256.New()
	fmt.Fprintf(h, "variant %q\nmodel %s\nsearch %q\nopenings %d turns, temperature %g, %q\nseed %d\ngames %d at %v, main %d\nanchor %q, %d games\n",
		m.Rules.Name, sum, describeSearch(search, opts.Guard), opts.OpeningTurns, opts.OpeningTemperature, openingRedraw,
		opts.Seed, opts.Games, sims, mainSims, opts.CheckAnchor, opts.CheckGames)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// playedKey is the key of a game in study.played: its stage and number.
func playedKey(stage string, number int) string { return stage + "\x00" + strconv.Itoa(number) }

// indexPlayed keeps the records of opts.Played that carry the study's
// fingerprint, by stage and game number; two records of one game are an
// error.
func (s *study) indexPlayed(fingerprint string) error {
	if fingerprint == "" || len(s.opts.Played) == 0 {
		return nil
	}
	s.played = map[string]*game.Record{}
	for k, rec := range s.opts.Played {
		if rec == nil || rec.Tags[TagStudy] != fingerprint {
			continue
		}
		n, err := strconv.Atoi(rec.Tags[TagGame])
		if err != nil || n < 1 {
			return fmt.Errorf("balance: earlier record %d: tag %s is %q: want a game's number", k+1, TagGame, rec.Tags[TagGame])
		}
		key := playedKey(rec.Tags[TagStage], n)
		if _, dup := s.played[key]; dup {
			return fmt.Errorf("balance: earlier record %d: a second record of %s game %s", k+1, rec.Tags[TagStage], rec.Tags[TagGame])
		}
		s.played[key] = rec
	}
	return nil
}

// resumed returns the earlier record of game number (from 1) of stage, if
// Options.Played has one of this study, checked against the game: its
// players (south and north), its opening o and every turn, which must
// replay to the end of the game with the result it gives. It returns nil
// when there is none.
func (s *study) resumed(stage string, number int, o opening, south, north string) (*game.Record, game.Status, time.Duration, error) {
	rec := s.played[playedKey(stage, number)]
	if rec == nil {
		return nil, game.Status{}, 0, nil
	}
	fail := func(format string, a ...any) (*game.Record, game.Status, time.Duration, error) {
		return nil, game.Status{}, 0, fmt.Errorf("balance: %s, earlier record of %s game %d: %s (move the games file aside to play it again)",
			s.r.Name, stage, number, fmt.Sprintf(format, a...))
	}
	switch {
	case rec.South != south || rec.North != north:
		return fail("%s (South) against %s (North), not %s against %s", rec.South, rec.North, south, north)
	case rec.Setup != "":
		return fail("starts from %q, not the variant's start", rec.Setup)
	case rec.Tags[tagOpening] != strconv.Itoa(len(o.turns)) ||
		len(rec.Turns) < len(o.turns) || !slices.Equal(rec.Turns[:len(o.turns)], o.turns):
		return fail("its opening is not the game's")
	}
	p, err := rec.Replay(s.r)
	if err != nil {
		return fail("%v", err)
	}
	st := p.Status()
	if !st.Over() {
		return fail("unfinished after %d turns", len(rec.Turns))
	}
	if rec.Result != st.Outcome.Result() {
		return fail("result %q, but the game ends %s", rec.Result, st.Outcome.Result())
	}
	d, err := match.TagDuration(rec, tagSeconds)
	if err != nil {
		return fail("%v", err)
	}
	s.resumedGames.Add(1)
	return rec, st, d, nil
}

// tag gives the record of a game just played the study's tags.
func (s *study) tag(rec *game.Record, stage string, number int, took time.Duration) {
	rec.Tags[TagStage] = stage
	rec.Tags[TagGame] = strconv.Itoa(number)
	rec.Tags[tagSeconds] = strconv.FormatFloat(took.Seconds(), 'f', 1, 64)
	if s.fingerprint != "" {
		rec.Tags[TagStudy] = s.fingerprint
	}
}
