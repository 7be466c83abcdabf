package match

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/dablot-zero/dablot/game"
)

// The tags a match's game records carry: which game of which match, from
// which opening, and how long it took.
const (
	tagGame         = "Game"         // the game's number in the match, from 1
	tagSeed         = "Seed"         // the match's seed
	tagBook         = "Book"         // the opening's number in the book, from 1
	tagOpening      = "Opening"      // the random turns before the players took over
	tagSeconds      = "Seconds"      // the game's wall time
	tagMatchSeconds = "MatchSeconds" // the match's wall time when the game was counted
	tagCode         = "Code"         // the program that played the game (ArenaConfig.Code)
)

// CodeUnrecorded stands in ArenaResult.Codes for the games whose records
// do not say which program played them (written before the tag existed).
const CodeUnrecorded = "unrecorded"

// Codes returns the programs that played the match's games
// (ArenaConfig.Code, read back from the records of resumed games), each
// once, in the order of the games; CodeUnrecorded for records without
// the tag. One element unless the match was resumed by another build.
func (r *ArenaResult) Codes() []string {
	var codes []string
	for _, g := range r.Games {
		c := g.Record.Tags[tagCode]
		if c == "" {
			c = CodeUnrecorded
		}
		if !slices.Contains(codes, c) {
			codes = append(codes, c)
		}
	}
	return codes
}

// PairKey returns what the two games of a match from one opening share
// (RunArena plays games 2k−1 and 2k from opening k, the colours swapped):
// the start position, the match's seed and k, read from the record's
// tags. A record without a game number (written by something other than
// the arena) has its start position alone.
func PairKey(rec *game.Record) string {
	n, err := strconv.Atoi(rec.Tags[tagGame])
	if err != nil || n < 1 {
		return rec.Setup
	}
	return fmt.Sprintf("%s|seed %s|pair %d", rec.Setup, rec.Tags[tagSeed], (n+1)/2)
}

// Resume reads back the games of an earlier run of the match cfg
// describes, from the records that run wrote (RunArena counts and so
// writes its games in index order: records[k] is game k), and returns them
// for cfg.Done. Each record is checked against the match before it counts:
// its variant, its players as South and North, its game number, seed and
// opening, cfg.Tags, and every turn, which must replay to the end of the game with
// the result the record gives. A record of another match, of another seed
// or players, or of a game left unfinished is an error naming it.
func Resume(ctx context.Context, cfg ArenaConfig, records []*game.Record) ([]*ArenaGame, error) {
	if cfg.Rules == nil || cfg.A == nil || cfg.B == nil {
		return nil, fmt.Errorf("resume: the match has no variant or players")
	}
	if len(records) > cfg.Games {
		return nil, fmt.Errorf("resume: the records hold %d games, more than the match's %d", len(records), cfg.Games)
	}
	start := matchStart(&cfg)
	done := make([]*ArenaGame, 0, len(records))
	for k, rec := range records {
		g, err := resumeGame(ctx, &cfg, start, k, rec)
		if err != nil {
			return nil, fmt.Errorf("resume: record %d: %w", k+1, err)
		}
		done = append(done, g)
	}
	return done, nil
}

// resumeGame checks rec as game i of the match and returns the game.
func resumeGame(ctx context.Context, cfg *ArenaConfig, start game.Position, i int, rec *game.Record) (*ArenaGame, error) {
	_, want, err := gameOpening(ctx, cfg, start, i)
	if err != nil {
		return nil, err
	}
	switch {
	case rec.Variant != want.Variant:
		return nil, fmt.Errorf("a game of %s, not %s", rec.Variant, want.Variant)
	case rec.South != want.South || rec.North != want.North:
		return nil, fmt.Errorf("%s (South) against %s (North); game %d of this match is %s against %s",
			rec.South, rec.North, i+1, want.South, want.North)
	}
	for _, k := range slices.Sorted(maps.Keys(want.Tags)) {
		if got, w := rec.Tags[k], want.Tags[k]; got != w {
			return nil, fmt.Errorf("tag %s is %q; game %d of this match has %q", k, got, i+1, w)
		}
	}
	for _, k := range []string{tagBook, tagOpening} {
		if _, ok := want.Tags[k]; !ok && rec.Tags[k] != "" {
			return nil, fmt.Errorf("tag %s is %q; game %d of this match has none", k, rec.Tags[k], i+1)
		}
	}
	if rec.Setup != want.Setup {
		return nil, fmt.Errorf("starts from %q; game %d of this match starts from %q", rec.Setup, i+1, want.Setup)
	}
	if len(rec.Turns) < len(want.Turns) || !slices.Equal(rec.Turns[:len(want.Turns)], want.Turns) {
		return nil, fmt.Errorf("its opening turns are not those of game %d of this match", i+1)
	}
	p, err := rec.Replay(cfg.Rules)
	if err != nil {
		return nil, err
	}
	if !p.Status().Over() {
		return nil, fmt.Errorf("game %d is unfinished after %d turns", i+1, len(rec.Turns))
	}
	g := &ArenaGame{Index: i, AIsSouth: i%2 == 0}
	if g.Duration, err = TagDuration(rec, tagSeconds); err != nil {
		return nil, err
	}
	if g.Elapsed, err = TagDuration(rec, tagMatchSeconds); err != nil {
		return nil, err
	}
	g.finish(rec, p)
	return g, nil
}

// TagDuration reads a record's tag of seconds (0 if the record has none:
// records written before the tag existed); a value that is not seconds is
// an error naming the tag.
func TagDuration(rec *game.Record, tag string) (time.Duration, error) {
	v, ok := rec.Tags[tag]
	if !ok {
		return 0, nil
	}
	s, err := strconv.ParseFloat(v, 64)
	if err != nil || !(s >= 0 && s < 1e9) {
		return 0, fmt.Errorf("tag %s is %q: want seconds", tag, v)
	}
	return time.Duration(s * float64(time.Second)), nil
}

// matchStart returns the match's start position: cfg.Start, else the
// variant's.
func matchStart(cfg *ArenaConfig) game.Position {
	if cfg.Start != nil {
		return *cfg.Start
	}
	return cfg.Rules.Start()
}
