package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/train/rundir"
)

// The curve's defaults (dablot ladder --curve).
const (
	curveDefaultGames   = 50
	curveDefaultResults = "docs/curve.tsv"
	// curveTurns is the length of a game the plan's time assumes: the
	// mean over a five-snapshot dablot curve at 100 ms, whose games against
	// alphabeta last about 310 turns, against classical 570 and against the
	// snapshot before about 730 (docs/experiments/2026-12-learning.md).
	curveTurns = 520
)

// curveSnapshot is one snapshot of a curve: its file, its CPU hours and
// its model's checksum.
type curveSnapshot struct {
	path  string
	hours float64
	sha   string
}

// name is the snapshot's file name without .dbm, such as dablot-2h.
func (s curveSnapshot) name() string { return strings.TrimSuffix(filepath.Base(s.path), ".dbm") }

// curveMatch is a match of the curve and the name of its records file.
type curveMatch struct {
	ladderMatch
	file string
}

// runCurve plays the curve of the snapshots in lf.curve: for each snapshot
// in order of CPU hours, a match against the snapshot before it (none for
// the first), against alphabeta:ms=T and against classical:ms=T, each
// with its records file in --out and its row in the results file.
func runCurve(ctx context.Context, out io.Writer, lf *ladderFlags) error {
	if _, err := ladderSpec(lf.player, "snapshot.dbm", lf.ms, nil); err != nil {
		return err // a bad --player before the snapshots are read
	}
	folder, snaps, err := curveSnapshots(lf.curve, lf.variant)
	if err != nil {
		return err
	}
	r, err := curveRules(snaps)
	if err != nil {
		return err
	}
	ls, err := newLadderSetup(ctx, out, lf, r)
	if err != nil {
		return err
	}
	var made factories
	defer made.close()
	matches, err := curvePlayers(ls, snaps, &made)
	if err != nil {
		return err
	}
	printCurvePlan(out, ls, folder, snaps, len(matches))
	if ls.out != "" {
		if err := os.MkdirAll(ls.out, 0o755); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
	}
	for _, m := range matches {
		file := ""
		if ls.out != "" {
			file = filepath.Join(ls.out, m.file)
		}
		if err := playCurveMatch(ctx, out, ls, m.ladderMatch, file); err != nil {
			return err
		}
	}
	if ls.results != "" {
		fmt.Fprintf(out, "curve: %d matches measured; plot them with dablot report --curve %s --snapshots %s --ms %d\n",
			len(matches), ls.results, folder, ls.ms)
	}
	return nil
}

// curveSnapshots returns the folder of the snapshots of dir (its
// rundir.SnapshotDir if it has one, else dir itself) and the snapshots in
// it of variant (or of the only variant there), in order of CPU hours.
func curveSnapshots(dir, variant string) (string, []curveSnapshot, error) {
	folder := dir
	if st, err := os.Stat(filepath.Join(dir, rundir.SnapshotDir)); err == nil && st.IsDir() {
		folder = filepath.Join(dir, rundir.SnapshotDir)
	}
	entries, err := os.ReadDir(folder)
	if err != nil {
		return "", nil, fmt.Errorf("--curve %s: %w", dir, err)
	}
	byVariant := map[string][]curveSnapshot{}
	for _, e := range entries {
		if v, h, ok := rundir.ParseSnapshotName(e.Name()); ok && !e.IsDir() {
			byVariant[v] = append(byVariant[v], curveSnapshot{path: filepath.Join(folder, e.Name()), hours: h})
		}
	}
	variants := slices.Sorted(maps.Keys(byVariant))
	switch {
	case len(byVariant) == 0:
		return "", nil, fmt.Errorf("--curve %s: no snapshots in %s (files VARIANT-Hh.dbm such as dablot-1h.dbm; a run keeps them in %s when its config has snapshots:)",
			dir, folder, rundir.SnapshotDir)
	case variant == "" && len(byVariant) > 1:
		return "", nil, usagef("--curve %s: snapshots of %d variants (%s): pick one with --variant", dir, len(variants), strings.Join(variants, ", "))
	case variant == "":
		variant = variants[0]
	case byVariant[variant] == nil:
		return "", nil, usagef("--curve %s: no snapshots of %s, only of %s", dir, variant, strings.Join(variants, ", "))
	}
	snaps := byVariant[variant]
	slices.SortFunc(snaps, func(a, b curveSnapshot) int { return cmp.Compare(a.hours, b.hours) })
	return folder, snaps, nil
}

// curveRules loads each snapshot, sets its checksum, and returns the
// rules they play; a snapshot of other rules than the first's is an error.
func curveRules(snaps []curveSnapshot) (*game.Rules, error) {
	var r *game.Rules
	for i := range snaps {
		m, err := model.LoadModel(snaps[i].path)
		if err != nil {
			return nil, err
		}
		if r == nil {
			r = m.Rules
		} else if err := m.CheckRules(r); err != nil {
			return nil, fmt.Errorf("--curve: %s: %v, as %s does", snaps[i].path, err, snaps[0].path)
		}
		snaps[i].sha = m.Metadata[net.MetaChecksum]
	}
	return r, nil
}

// curvePlayers makes every player of the curve before the first game, and
// returns the matches in order: for each snapshot, against the one before
// it, alphabeta:ms=T and classical:ms=T, each named by the snapshot and
// its opponent (dablot-2h-vs-dablot-1h.jsonl, dablot-2h-vs-alphabeta.jsonl).
func curvePlayers(ls *ladderSetup, snaps []curveSnapshot, made *factories) ([]curveMatch, error) {
	type opponent struct {
		name, spec string
	}
	fixed := []opponent{{"alphabeta", fmt.Sprintf("alphabeta:ms=%d", ls.ms)}, {"classical", fmt.Sprintf("classical:ms=%d", ls.ms)}}
	var matches []curveMatch
	var prev ladderMatch
	for i, s := range snaps {
		spec, err := ladderSpec(ls.player, s.path, ls.ms, ls.rules)
		if err != nil {
			return nil, err
		}
		a, err := made.make(spec, ls.rules, "--player")
		if err != nil {
			return nil, err
		}
		m := ladderMatch{a: a, specA: spec, model: s.path, sha: s.sha}
		if i > 0 {
			vs := m
			vs.b, vs.specB = prev.a, prev.specA
			matches = append(matches, curveMatch{vs, s.name() + "-vs-" + snaps[i-1].name() + ".jsonl"})
		}
		for _, o := range fixed {
			b, err := made.make(o.spec, ls.rules, "--ms")
			if err != nil {
				return nil, err
			}
			vs := m
			vs.b, vs.specB = b, o.spec
			matches = append(matches, curveMatch{vs, s.name() + "-vs-" + o.name + ".jsonl"})
		}
		prev = m
	}
	return matches, nil
}

// printCurvePlan says what the curve will play and about how long it takes.
func printCurvePlan(out io.Writer, ls *ladderSetup, folder string, snaps []curveSnapshot, matches int) {
	hours := make([]string, len(snaps))
	for i, s := range snaps {
		hours[i] = fmt.Sprintf("%gh", s.hours)
	}
	fmt.Fprintf(out, "curve: %s, %d snapshots in %s (%s), %d ms a decision, from %s\n",
		ls.rules.Name, len(snaps), folder, strings.Join(hours, ", "), ls.ms, ls.bookName)
	games := matches * ls.games
	wall := time.Duration(games*curveTurns/ls.threads) * time.Duration(ls.ms) * time.Millisecond
	stop := ""
	if ls.sprt != nil {
		stop = " at most (--sprt may stop a match early)"
	}
	fmt.Fprintf(out, "plan: %d matches × %d games = %d games%s, %d at once: about %s if a game lasts %d turns\n",
		matches, ls.games, games, stop, ls.threads, roughDuration(wall), curveTurns)
}

// roughDuration writes d to two figures at most: 40 s, 12 min, 3.5 hours.
func roughDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.0f s", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%.0f min", d.Minutes())
	case d < 10*time.Hour:
		return fmt.Sprintf("%.1f hours", d.Hours())
	}
	return fmt.Sprintf("%.0f hours", d.Hours())
}

// playCurveMatch plays a match of the curve with its records in file (""
// for none), continued from them with --resume.
func playCurveMatch(ctx context.Context, out io.Writer, ls *ladderSetup, m ladderMatch, file string) error {
	sink, recs, err := openSink(out, file, ls.resume)
	if err != nil {
		return err
	}
	defer sink.Close()
	byMatch, err := ladderRecords(recs, []ladderMatch{m})
	if err != nil {
		return fmt.Errorf("--resume: %s: %w", file, err)
	}
	if err := playLadderMatch(ctx, out, ls, m, byMatch[0], sink, file); err != nil {
		return err
	}
	if err := sink.Close(); err != nil {
		return err
	}
	if file != "" {
		fmt.Fprintf(out, "records written to %s\n", file)
	}
	return nil
}
