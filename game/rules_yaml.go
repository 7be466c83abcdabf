package game

import (
	"bytes"
	"errors"
	"slices"

	"gopkg.in/yaml.v3"
)

// stepGroupOrder is the order in which YAML lists direction groups.
var stepGroupOrder = []string{"straight-forward", "diagonal-forward", "sideways", "diagonal-backward", "straight-backward"}

// YAML returns the rules as a complete variant file with no base: ParseVariant
// reads it back to rules with the same Canonical form. Model files and run
// directories store it, so that a model of a variant written by hand still
// knows its exact rules on another machine. It is laid out as the files of
// configs/variants are: two-space indents, the board and each rank on one line.
func (r *Rules) YAML() []byte {
	type rank struct {
		Step              any  `yaml:"step"`
		MustCapture       bool `yaml:"must_capture"`
		ChainMustContinue bool `yaml:"chain_must_continue"`
	}
	type doc struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description,omitempty"`
		Source      string `yaml:"source,omitempty"`
		Board       struct {
			Columns int `yaml:"columns"`
			Rows    int `yaml:"rows"`
		} `yaml:"board,flow"`
		Setup string `yaml:"setup"`
		First string `yaml:"first"`
		Ranks struct {
			Soldier rank `yaml:"soldier,flow"`
			Prince  rank `yaml:"prince,flow"`
			King    rank `yaml:"king,flow"`
		} `yaml:"ranks"`
		NoReturn     bool   `yaml:"no_return"`
		Promotion    string `yaml:"promotion"`
		SingleCombat bool   `yaml:"single_combat"`
		Win          struct {
			NoPieces     bool `yaml:"no_pieces"`
			KingCaptured bool `yaml:"king_captured"`
			LoneKing     bool `yaml:"lone_king"`
			Immobilised  bool `yaml:"immobilised"`
		} `yaml:"win"`
		Draw struct {
			KingsOnly bool `yaml:"kings_only"`
			TwoPasses bool `yaml:"two_passes"`
		} `yaml:"draw"`
		NoMove         string   `yaml:"no_move"`
		NoCaptureLimit int      `yaml:"no_capture_limit"`
		MaxPlies       int      `yaml:"max_plies"`
		Assumed        []string `yaml:"assumed,omitempty"`
	}
	d := doc{Name: r.Name, Description: r.Description, Source: r.Source, Setup: r.Setup, First: r.First.String(),
		NoReturn: r.NoReturn, Promotion: "none", SingleCombat: r.SingleCombat, NoMove: r.NoMove.String(),
		NoCaptureLimit: r.NoCaptureLimit, MaxPlies: r.MaxPlies, Assumed: slices.Clone(r.Assumed)}
	d.Board.Columns, d.Board.Rows = r.Board.Cols, r.Board.Rows
	if r.PromoteTo != Soldier {
		d.Promotion = r.PromoteTo.String()
	}
	d.Win.NoPieces, d.Win.KingCaptured, d.Win.LoneKing, d.Win.Immobilised = r.WinNoPieces, r.WinKingCaptured, r.WinLoneKing, r.WinImmobilised
	d.Draw.KingsOnly, d.Draw.TwoPasses = r.DrawKingsOnly, r.DrawTwoPasses
	for i, dst := range []*rank{&d.Ranks.Soldier, &d.Ranks.Prince, &d.Ranks.King} {
		rr := r.Ranks[i]
		*dst = rank{Step: stepYAML(rr.Step), MustCapture: rr.MustCapture, ChainMustContinue: rr.ChainMustContinue}
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := errors.Join(enc.Encode(d), enc.Close()); err != nil {
		panic("game: marshalling rules: " + err.Error()) // plain data: cannot happen
	}
	return out.Bytes()
}

// stepYAML writes a step mask as ParseVariant reads it.
func stepYAML(mask uint8) any {
	switch mask {
	case 0xff:
		return "all"
	case stepGroups["straight-forward"] | stepGroups["diagonal-forward"]:
		return "forward"
	}
	var names []string
	for _, name := range stepGroupOrder {
		if g := stepGroups[name]; mask&g == g {
			names = append(names, name)
		}
	}
	return names
}
