package game

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// canonicalRules is every field of Rules that changes the game, in a fixed
// order: two variants with equal canonical forms play the same game.
type canonicalRules struct {
	Name           string       `json:"name"`
	Columns        int          `json:"columns"`
	Rows           int          `json:"rows"`
	Setup          string       `json:"setup"`
	First          string       `json:"first"`
	Ranks          [3]rankCanon `json:"ranks"`
	NoReturn       bool         `json:"no_return"`
	Promotion      string       `json:"promotion"`
	SingleCombat   bool         `json:"single_combat"`
	WinNoPieces    bool         `json:"win_no_pieces"`
	WinKing        bool         `json:"win_king_captured"`
	WinLoneKing    bool         `json:"win_lone_king"`
	WinImmobilised bool         `json:"win_immobilised"`
	DrawKingsOnly  bool         `json:"draw_kings_only"`
	DrawTwoPasses  bool         `json:"draw_two_passes"`
	NoMove         string       `json:"no_move"`
	NoCaptureLimit int          `json:"no_capture_limit"`
	MaxPlies       int          `json:"max_plies"`
}

type rankCanon struct {
	Step              uint8 `json:"step"` // relative directions, bit 0 = straight forward
	MustCapture       bool  `json:"must_capture"`
	ChainMustContinue bool  `json:"chain_must_continue"`
}

// Canonical returns the rules as compact JSON with every field that changes
// the game, for model files and sample shards to record.
func (r *Rules) Canonical() string {
	c := canonicalRules{Name: r.Name, Columns: r.Board.Cols, Rows: r.Board.Rows, Setup: r.Setup,
		First: r.First.String(), NoReturn: r.NoReturn, Promotion: "none", SingleCombat: r.SingleCombat,
		WinNoPieces: r.WinNoPieces, WinKing: r.WinKingCaptured, WinLoneKing: r.WinLoneKing,
		WinImmobilised: r.WinImmobilised, DrawKingsOnly: r.DrawKingsOnly, DrawTwoPasses: r.DrawTwoPasses,
		NoMove: r.NoMove.String(), NoCaptureLimit: r.NoCaptureLimit, MaxPlies: r.MaxPlies}
	if r.PromoteTo != Soldier {
		c.Promotion = r.PromoteTo.String()
	}
	for i, rr := range r.Ranks {
		c.Ranks[i] = rankCanon{rr.Step, rr.MustCapture, rr.ChainMustContinue}
	}
	out, _ := json.Marshal(c)
	return string(out)
}

// Fingerprint returns a short hash of Canonical.
func (r *Rules) Fingerprint() string {
	sum := sha256.Sum256([]byte(r.Canonical()))
	return hex.EncodeToString(sum[:8])
}
