package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dablot-zero/dablot/net"
	"github.com/dablot-zero/dablot/net/encode"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/net/safetensors"
)

// cmdInfo describes a model file.
var cmdInfo = &command{
	name:  "info",
	usage: "FILE",
	short: "describe a model file: variant, rules, network, training, ratings",
	long: `Prints what a model file says about itself: its variant and rules (as the YAML of
a variant file), the network's architecture and size, the program and commit that
wrote it, its training history and, after export, its ratings.`,
	run: runInfo,
}

// runInfo runs "dablot info FILE".
func runInfo(args []string, out io.Writer) error {
	fs := newFlags("info", out)
	files, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(files) == 0:
		return usagef("which model file? usage: dablot info FILE")
	case len(files) > 1:
		return usagef("unexpected argument %q", strings.Join(files[1:], " "))
	}
	file := files[0]
	m, err := model.LoadModel(file)
	if err != nil {
		return err
	}
	return printModelInfo(out, file, m)
}

// printModelInfo writes what a model file says about itself.
func printModelInfo(out io.Writer, file string, m *model.Model) error {
	meta := m.Metadata
	r := m.Rules
	cfg := m.Weights.Config
	params := 0
	for _, t := range m.Weights.Tensors {
		params += len(t.Data)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	row := func(k, format string, a ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, a...)...) }
	or := func(s, dflt string) string {
		if s == "" {
			return dflt
		}
		return s
	}
	row("file", "%s", file)
	row("variant", "%s", r.Name)
	if r.Description != "" {
		row("", "%s", r.Description)
	}
	row("fingerprint", "%s", r.Fingerprint()) // of the rules as loaded, which the checksums cover
	row("board", "%d × %d lines, %d points", r.Board.Cols, r.Board.Rows, r.Board.Points())
	row("encoding", "version %s", or(meta[model.MetaEncoding], "?"))
	row("architecture", "%s × %d channels, value head %d, %d input planes",
		plural(cfg.Blocks, "residual block"), cfg.Channels, cfg.ValueHidden, cfg.InputPlanes)
	if cfg.ScoreHead {
		row("score head", "yes: material lead, squashed; score utility %g (value + %g·score; su= overrides)", m.ScoreUtility, m.ScoreUtility)
	} else {
		row("score head", "no")
	}
	if n := cfg.ShortTermHeads; n > 0 {
		row("short-term", "%s: future search values (training aids; the search ignores them)", plural(n, "value head"))
	} else {
		row("short-term", "no")
	}
	if cfg.OwnershipHead {
		row("ownership", "yes: who holds each point at the end of the game (a training aid; the search ignores it)")
	} else {
		row("ownership", "no")
	}
	if cfg.TacticalPlanes {
		row("tactical", "yes: %d input planes of capture facts (threatened and takeable pieces, where captures end)", encode.TacticalPlanes)
	} else {
		row("tactical", "no")
	}
	row("parameters", "%s (%.1f MFLOP per position)", groupDigits(params), cfg.FLOPsPerPosition(r.Board.Points())/1e6)
	ts := m.Training
	row("generation", "%d", ts.Generation)
	row("training", "%s games, %s samples, %s steps, %.2f hours", groupDigits(ts.Games), groupDigits(int(ts.Samples)),
		groupDigits(ts.TrainSteps), ts.Hours)
	if ts.Run != "" || ts.Preset != "" {
		run := or(ts.Run, "?")
		if ts.Preset != "" {
			run += ", preset " + ts.Preset
		}
		row("run", "%s", run)
	}
	row("seed", "%d", ts.Seed)
	if ts.InitFrom != "" {
		from := ts.InitFrom
		if ts.InitSHA256 != "" {
			from += " (sha256 " + ts.InitSHA256 + ")"
		}
		row("started from", "%s", from)
		if ts.InitVariant != "" {
			row("transfer", "warm-started from a model of %s", ts.InitVariant)
		}
	}
	if ts.Description != "" {
		row("description", "%s", ts.Description)
	}
	row("trained by", "%s", or(meta[model.MetaTrainedBy], "unknown"))
	row("written by", "%s", or(meta[model.MetaCode], "unknown"))
	created := or(meta[model.MetaCreated], "unknown")
	if t, err := time.Parse(time.RFC3339, created); err == nil {
		created = t.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	row("created", "%s", created)
	row("checksum", "sha256 %s", or(meta[net.MetaChecksum], "none"))
	if sum, ok := meta[safetensors.MetadataChecksumKey]; ok {
		row("", "metadata sha256 %s (verified: the rules and the network are as written)", sum)
	} else {
		row("", "metadata not covered: the file was written before metadata checksums")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// The rules as a variant file is written (configs/variants/*.yaml).
	fmt.Fprintln(out, "\nrules:")
	fmt.Fprint(out, indent(string(r.YAML())))
	if s, ok := meta[model.MetaRatings]; ok {
		fmt.Fprintln(out, "\nratings:")
		fmt.Fprint(out, formatRatings(s))
	}
	return nil
}

// groupDigits writes n with commas between groups of three digits, such as 12,345.
func groupDigits(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// indent indents every line of t by two spaces (a section of info's output).
func indent(t string) string {
	lines := strings.Split(strings.TrimRight(t, "\n"), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight("  "+lines[i], " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// formatRatings writes a rating table stored as JSON: a list of objects
// (one per player, such as {"Name": …, "Elo": …, "Err95": …, "Games": …})
// as a table, an object of name → Elo as two columns, and anything else as
// it is.
func formatRatings(s string) string {
	var rows []map[string]any
	if err := json.Unmarshal([]byte(s), &rows); err == nil && len(rows) > 0 && !slices.ContainsFunc(rows, func(r map[string]any) bool { return r == nil }) {
		return indent(ratingTable(rows))
	}
	var byName map[string]float64
	if err := json.Unmarshal([]byte(s), &byName); err == nil && len(byName) > 0 {
		var b bytes.Buffer
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		names := make([]string, 0, len(byName))
		for n := range byName {
			names = append(names, n)
		}
		slices.SortFunc(names, func(a, b string) int {
			return cmpFloatDesc(byName[a], byName[b])
		})
		fmt.Fprintln(tw, "player\tElo")
		for _, n := range names {
			fmt.Fprintf(tw, "%s\t%s\n", n, formatJSONValue(byName[n]))
		}
		tw.Flush()
		return indent(b.String())
	}
	return indent(s)
}

func cmpFloatDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// ratingColumns is the order of the known columns of a rating table; other
// keys follow in alphabetical order.
var ratingColumns = []string{"name", "player", "elo", "err95", "games", "score", "anchor"}

// ratingTable lays out a list of JSON objects as a table, one per row.
func ratingTable(rows []map[string]any) string {
	seen := map[string]string{} // lower-case key → key as written
	for _, r := range rows {
		for k := range r {
			if _, ok := seen[strings.ToLower(k)]; !ok {
				seen[strings.ToLower(k)] = k
			}
		}
	}
	var cols []string
	for _, k := range ratingColumns {
		if orig, ok := seen[k]; ok {
			cols = append(cols, orig)
			delete(seen, k)
		}
	}
	var others []string
	for _, orig := range seen {
		others = append(others, orig)
	}
	slices.Sort(others)
	cols = append(cols, others...)

	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for i, c := range cols {
		if i > 0 {
			fmt.Fprint(tw, "\t")
		}
		fmt.Fprint(tw, strings.ToLower(c))
	}
	fmt.Fprintln(tw)
	for _, r := range rows {
		for i, c := range cols {
			if i > 0 {
				fmt.Fprint(tw, "\t")
			}
			if v, ok := r[c]; ok {
				fmt.Fprint(tw, formatJSONValue(v))
			}
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	return b.String()
}

// formatJSONValue writes a decoded JSON value compactly: numbers with at
// most one decimal unless they are small fractions.
func formatJSONValue(v any) string {
	switch x := v.(type) {
	case float64:
		switch {
		case x == float64(int64(x)):
			return fmt.Sprint(int64(x))
		case x > -0.0005 && x < 0.0005:
			return "0" // not "-0.000" for a tiny negative

		case x > -1 && x < 1:
			return fmt.Sprintf("%.3f", x)
		}
		return fmt.Sprintf("%.1f", x)
	case string:
		return x
	case nil:
		return "-"
	}
	data, _ := json.Marshal(v)
	return string(data)
}
