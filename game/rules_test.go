package game_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// setup builds a FEN of board b from a list such as "S:a1,c1 s:a3 K:k1"
// (letter, colon, squares) and the side to move.
func setup(t *testing.T, b *game.Board, pieces, side string) string {
	t.Helper()
	grid := map[int]byte{}
	for _, group := range strings.Fields(pieces) {
		letter, squares, ok := strings.Cut(group, ":")
		if !ok || len(letter) != 1 {
			t.Fatalf("bad piece group %q", group)
		}
		for _, sq := range strings.Split(squares, ",") {
			q, err := b.ParseSquare(sq)
			if err != nil {
				t.Fatal(err)
			}
			grid[q] = letter[0]
		}
	}
	var rows []string
	for y := b.Height - 1; y >= 0; y-- {
		var sb strings.Builder
		empty := 0
		for x := y % 2; x < b.Width; x += 2 {
			c, ok := grid[b.At(x, y)]
			if !ok {
				empty++
				continue
			}
			if empty > 0 {
				sb.WriteByte(byte('0' + empty))
				empty = 0
			}
			sb.WriteByte(c)
		}
		if empty > 0 {
			sb.WriteByte(byte('0' + empty))
		}
		rows = append(rows, sb.String())
	}
	return strings.Join(rows, "/") + " " + side
}

func mustPosition(t *testing.T, variant, pieces, side string) game.Position {
	t.Helper()
	r := configs.MustVariant(variant)
	p, err := game.ParseFEN(r, setup(t, r.Board, pieces, side))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func turnStrings(p *game.Position) []string {
	return formatTurns(p)
}

// TestRulesThatDiffer has one case for each rule that tells variants apart:
// the same position under different rules, with the turns or the result
// each must give.
func TestRulesThatDiffer(t *testing.T) {
	tests := []struct {
		name, variant, pieces, side string
		play                        []string    // turns to play first
		turns                       []string    // exactly these turns, if set
		has, hasNot                 []string    // turns that must / must not be legal
		status                      game.Status // the status after play (zero: still going)
	}{
		// Compulsory capture for every rank: only the capture is legal.
		{name: "all must capture", variant: "dablot", pieces: "K:e5 S:a1 s:e7 k:k13", side: "s",
			turns: []string{"e5xe9"}},
		{name: "captures optional", variant: "keyland", pieces: "K:e5 S:a1 s:e7 k:k13", side: "s",
			has: []string{"e5xe9", "a1-a3", "e5-e3"}},
		// Soldiers only: a soldier capture excludes a king capture...
		{name: "soldier must capture", variant: "winther", pieces: "S:c3 K:i5 s:c5 p:i7 k:a13", side: "s",
			turns: []string{"c3xc7"}},
		{name: "soldier must capture (cyningstan-modern)", variant: "cyningstan-modern", pieces: "S:c3 K:i5 s:c5 p:i7 k:a13", side: "s",
			turns: []string{"c3xc7"}},
		// ...but a king capture alone is optional.
		{name: "king capture optional", variant: "winther", pieces: "S:a1 K:i5 p:i7 k:a13", side: "s",
			has: []string{"i5xi9", "i5-i3", "a1-a3"}},
		// A chain may stop after any jump, or must go on.
		{name: "chain may stop", variant: "keyland", pieces: "S:a1 s:a3,a7 K:k1 k:k13", side: "s",
			has: []string{"a1xa5", "a1xa5xa9"}},
		{name: "chain must continue", variant: "dablot", pieces: "S:a1 s:a3,a7 K:k1 k:k13", side: "s",
			turns: []string{"a1xa5xa9"}},
		{name: "soldier chain must continue, king's may stop", variant: "winther", pieces: "K:a1 s:a3,a7 S:k1 k:k13", side: "s",
			has: []string{"a1xa5", "a1xa5xa9"}},
		// Rank rule: a soldier cannot capture a prince, a prince can.
		{name: "soldier cannot capture prince", variant: "keyland", pieces: "S:e5 p:e7 K:k1 k:k13", side: "s",
			hasNot: []string{"e5xe9"}},
		{name: "prince captures prince", variant: "keyland", pieces: "P:e5 p:e7 K:k1 k:k13", side: "s",
			has: []string{"e5xe9"}},
		{name: "prince cannot capture king", variant: "keyland", pieces: "P:e5 k:e7 K:k1 s:k13", side: "s",
			hasNot: []string{"e5xe9"}},
		// Forward-only soldiers, but captures go every way.
		{name: "forward soldiers", variant: "winther", pieces: "S:e5 K:k1 k:k13 s:a13", side: "s",
			has: []string{"e5-e7", "e5-d6", "e5-f6"}, hasNot: []string{"e5-e3", "e5-c5", "e5-g5", "e5-d4", "e5-f4"}},
		{name: "forward soldiers (north)", variant: "winther", pieces: "s:e9 K:k1 k:k13 S:a1", side: "n",
			has: []string{"e9-e7", "e9-d8", "e9-f8"}, hasNot: []string{"e9-e11", "e9-c9", "e9-d10"}},
		{name: "soldier captures backwards", variant: "winther", pieces: "S:e5 s:e3 K:k1 k:k13 s:a13", side: "s",
			turns: []string{"e5xe1"}},
		// Single combat: capture if possible, else step closer.
		{name: "single combat captures", variant: "keyland", pieces: "S:e5 s:e7", side: "s",
			turns: []string{"e5xe9"}},
		{name: "single combat closes in", variant: "keyland", pieces: "S:a1 s:k13", side: "s",
			turns: []string{"a1-a3", "a1-b2", "a1-c1"}},
		// d6 and f6 are 4 steps from e13, as e5 is: not strictly closer.
		{name: "single combat closes in (2)", variant: "keyland", pieces: "S:e5 s:e13", side: "s",
			turns: []string{"e5-e7"}},
		{name: "no single combat elsewhere", variant: "cyningstan", pieces: "S:e5 s:e13", side: "s",
			has: []string{"e5-e3", "e5-d4"}},
		// Immobilisation: the lone king outranks South's soldiers and is shut in.
		{name: "immobilised", variant: "keyland", pieces: "k:a13 S:a11,b12,a9,c11,e13,d12", side: "s",
			play: []string{"d12-c13"}, status: game.Status{Outcome: game.SouthWins, Reason: game.Immobilised}},
		{name: "no immobilisation win elsewhere", variant: "cyningstan", pieces: "k:a13 S:a11,b12,a9,c11,e13,d12", side: "s",
			play: []string{"d12-c13"}, status: game.Status{Outcome: game.SouthWins, Reason: game.NoMove}},
		// Lone king.
		{name: "lone king", variant: "winther", pieces: "S:e5 s:e7 k:a13 K:k1", side: "s",
			play: []string{"e5xe9"}, status: game.Status{Outcome: game.SouthWins, Reason: game.LoneKing}},
		{name: "no lone king rule", variant: "cyningstan", pieces: "S:e5 s:e7 k:a13 K:k1", side: "s",
			play: []string{"e5xe9"}},
		// King capture ends the game, inside a chain too.
		{name: "king capture ends", variant: "winther", pieces: "K:e5 k:e7 s:e11,a13 S:k1", side: "s",
			has: []string{"e5xe9"}, hasNot: []string{"e5xe9xe13"}},
		{name: "king capture result", variant: "cyningstan-modern", pieces: "K:e5 k:e7 s:e11,a13 S:k1", side: "s",
			play: []string{"e5xe9"}, status: game.Status{Outcome: game.SouthWins, Reason: game.KingCaptured}},
		{name: "king capture does not end", variant: "keyland", pieces: "K:e5 k:e7 s:e11,a13 S:k1", side: "s",
			has: []string{"e5xe9", "e5xe9xe13"}},
		// Promotion when the chain ends, not as it passes the farthest row.
		{name: "no promotion mid-chain", variant: "winther-promotion", pieces: "S:c11 s:d12,f12,a1 K:k1 k:a7", side: "s",
			turns: []string{"c11xe13xg11"}},
		{name: "promotion at the end", variant: "winther-promotion", pieces: "S:c11 s:d12,a1 K:k1 k:a7", side: "s",
			play: []string{"c11xe13"}},
		// No return: a chain may not land where it started.
		{name: "return allowed", variant: "daablot", pieces: "K:a1 S:i1 s:b2,d2,c1,g9,i9 k:e9", side: "s",
			has: []string{"a1xc3xe1xa1", "a1xe1xc3xa1"}},
		{name: "no return", variant: "daablot,no_return=true", pieces: "K:a1 S:i1 s:b2,d2,c1,g9,i9 k:e9", side: "s",
			has: []string{"a1xc3xe1", "a1xe1xc3"}, hasNot: []string{"a1xc3xe1xa1", "a1xe1xc3xa1"}},
		// Kings only: a draw.
		{name: "kings only", variant: "keyland", pieces: "K:e5 s:e7 k:k13", side: "s",
			play: []string{"e5xe9"}, status: game.Status{Outcome: game.Draw, Reason: game.KingsOnly}},
		{name: "kings only is no draw in dablot", variant: "dablot", pieces: "K:e5 s:e7 k:k13", side: "s",
			play: []string{"e5xe9"}},
		// No capture in 100 plies (keyland's own limit is 400).
		{name: "no-capture draw", variant: "keyland,no_capture_limit=100", pieces: "S:a1 K:k1 s:a13 k:k13", side: "s 99",
			play: []string{"a1-a3"}, status: game.Status{Outcome: game.Draw, Reason: game.NoCaptureLimit, Limit: 100}},
		// A side with no move passes (keyland) or loses (dablot).
		{name: "forced pass", variant: "keyland", pieces: "S:a1 s:a3,b2,c1,a5,c3,e1", side: "s",
			turns: []string{"pass"}},
		{name: "no move loses", variant: "dablot", pieces: "S:a1 s:a3,b2,c1,a5,c3,e1", side: "s",
			status: game.Status{Outcome: game.NorthWins, Reason: game.NoMove}},
		// Lone king ends the game inside the chain, so the king is not taken.
		{name: "lone king ends the chain", variant: "winther", pieces: "K:a1 s:a3 k:a7 S:k1", side: "s",
			has: []string{"a1xa5"}, hasNot: []string{"a1xa5xa9"}},
		{name: "no lone king, chain goes on", variant: "keyland", pieces: "K:a1 s:a3 k:a7 S:k1", side: "s",
			has: []string{"a1xa5", "a1xa5xa9"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			side, counters, _ := strings.Cut(tc.side, " ")
			r := configs.MustVariant(tc.variant)
			fen := setup(t, r.Board, tc.pieces, side)
			if counters != "" {
				fen += " - " + counters
			}
			p, err := game.ParseFEN(r, fen)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.play {
				if err := p.ApplyTurn(s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
			if got := p.Status(); got != tc.status {
				t.Errorf("status %v, want %v", got, tc.status)
			}
			if p.Status().Over() {
				return
			}
			got := turnStrings(&p)
			if tc.turns != nil && !slices.Equal(got, tc.turns) {
				t.Errorf("turns %v, want %v", got, tc.turns)
			}
			for _, s := range tc.has {
				if !slices.Contains(got, s) {
					t.Errorf("%s missing from %v", s, got)
				}
			}
			for _, s := range tc.hasNot {
				if slices.Contains(got, s) {
					t.Errorf("%s is legal but must not be", s)
				}
			}
		})
	}
}

func TestPromotion(t *testing.T) {
	for _, tc := range []struct {
		variant string
		want    game.Rank
	}{{"winther-promotion", game.Prince}, {"winther", game.Soldier}} {
		p := mustPosition(t, tc.variant, "S:c11 s:d12,a1 K:k1 k:a7", "s")
		if err := p.ApplyTurn("c11xe13"); err != nil {
			t.Fatal(err)
		}
		q, _ := p.Board().ParseSquare("e13")
		if _, r, _ := p.PieceAt(q); r != tc.want {
			t.Errorf("%s: the soldier on e13 is a %s, want %s", tc.variant, r, tc.want)
		}
	}
	// A step onto the farthest row promotes too.
	p := mustPosition(t, "winther-promotion", "S:d12 s:a1 K:k1 k:a7", "s")
	if err := p.ApplyTurn("d12-e13"); err != nil {
		t.Fatal(err)
	}
	q, _ := p.Board().ParseSquare("e13")
	if _, r, _ := p.PieceAt(q); r != game.Prince {
		t.Errorf("stepped soldier is a %s", r)
	}
}

func TestTwoPassesDraw(t *testing.T) {
	// A 2×2-line board where two forward-only soldiers block each other.
	yaml := `
name: blocked
board: {columns: 2, rows: 2}
setup: "s1/1/S1 s"
first: south
ranks:
  soldier: {step: [straight-forward], must_capture: false, chain_must_continue: false}
  prince: {step: all, must_capture: false, chain_must_continue: false}
  king: {step: all, must_capture: false, chain_must_continue: false}
no_return: false
promotion: none
single_combat: false
win: {no_pieces: true, king_captured: false, lone_king: false, immobilised: false}
draw: {kings_only: true, two_passes: true}
no_move: pass
no_capture_limit: 0
max_plies: 0
`
	r, err := game.ParseVariant([]byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := r.Start()
	for i, side := range []game.Side{game.South, game.North} {
		if p.SideToMove() != side {
			t.Fatalf("pass %d: %s to move", i, p.SideToMove())
		}
		if got := turnStrings(&p); !slices.Equal(got, []string{"pass"}) {
			t.Fatalf("pass %d: turns %v", i, got)
		}
		if err := p.ApplyTurn("pass"); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := p.Status(), (game.Status{Outcome: game.Draw, Reason: game.TwoPasses}); got != want {
		t.Errorf("after two passes: %v, want %v", got, want)
	}
}

func TestMaxPlies(t *testing.T) {
	r := configs.MustVariant("keyland,max_plies=2")
	p := r.Start()
	for _, s := range []string{"i5-i7", "c9-c7"} {
		if err := p.ApplyTurn(s); err != nil {
			t.Fatal(err)
		}
	}
	if got := p.Status(); got.Reason != game.MaxPlies || got.Outcome != game.Draw {
		t.Errorf("status %v", got)
	}
}

// TestRulesYAMLRoundTrip checks that every variant, and variants with
// options changed, read back from Rules.YAML as the same game.
func TestRulesYAMLRoundTrip(t *testing.T) {
	specs := append(configs.VariantNames(), "daablot,no_return=true,promotion=prince",
		"winther,ranks.king.step=forward,draw.two_passes=true,no_move=pass")
	for _, spec := range specs {
		t.Run(spec, func(t *testing.T) {
			r, err := configs.Variant(spec)
			if err != nil {
				t.Fatal(err)
			}
			back, err := game.ParseVariant(r.YAML(), nil)
			if err != nil {
				t.Fatalf("reading back:\n%s\n%v", r.YAML(), err)
			}
			if back.Canonical() != r.Canonical() {
				t.Errorf("canonical form changed:\n got %s\nwant %s", back.Canonical(), r.Canonical())
			}
			if back.Description != r.Description || !slices.Equal(back.Assumed, r.Assumed) {
				t.Errorf("description or assumptions lost")
			}
		})
	}
}

// TestCornerKingIsSafe records the geometry behind keyland's many draws: a
// piece on a corner of the board has no point beyond it on any of its
// lines, so no enemy can jump it. A lone king there can only lose by
// immobilisation, which needs the other side to have lost its own king.
// One step out along the edge, it can be captured.
func TestCornerKingIsSafe(t *testing.T) {
	corners := map[string][]string{
		"a1": {"c1", "a3", "b2"}, "k1": {"i1", "k3", "j2"},
		"a13": {"c13", "a11", "b12"}, "k13": {"i13", "k11", "j12"},
	}
	for corner, neighbours := range corners {
		for _, from := range neighbours {
			p := mustPosition(t, "keyland", "k:"+corner+" K:"+from+" S:f6 s:f8", "s")
			for _, turn := range turnStrings(&p) {
				if strings.Contains(turn, "x") {
					t.Errorf("king on %s, enemy king on %s: capture %s", corner, from, turn)
				}
			}
		}
	}
	p := mustPosition(t, "keyland", "k:a7 K:a5 S:f6 s:f8", "s")
	if !slices.Contains(turnStrings(&p), "a5xa9") {
		t.Errorf("a king on the edge at a7 cannot be captured from a5: %v", turnStrings(&p))
	}
}

// TestRulesYAMLLikeFiles checks that Rules.YAML is laid out as a user writes
// a variant file: the same keys in the same order, nested and flowed
// (board: {columns: 6, rows: 7}, a rank on one line) as configs/variants;
// a file with no base: reads back as the same document. No internal codes
// (such as a step mask of 255) appear.
func TestRulesYAMLLikeFiles(t *testing.T) {
	ref, err := configs.VariantYAML("keyland")
	if err != nil {
		t.Fatal(err)
	}
	want := yamlShape(t, ref)
	for _, name := range configs.VariantNames() {
		t.Run(name, func(t *testing.T) {
			r, err := configs.Variant(name)
			if err != nil {
				t.Fatal(err)
			}
			out := r.YAML()
			if got := yamlShape(t, out); !slices.Equal(got, want) {
				t.Errorf("YAML laid out as\n%s\nnot as keyland.yaml:\n%s\n(the YAML:\n%s)", strings.Join(got, "\n"), strings.Join(want, "\n"), out)
			}
			file, err := configs.VariantYAML(name)
			if err != nil {
				t.Fatal(err)
			}
			var fileDoc, outDoc map[string]any
			if err := yaml.Unmarshal(file, &fileDoc); err != nil {
				t.Fatal(err)
			}
			if err := yaml.Unmarshal(out, &outDoc); err != nil {
				t.Fatal(err)
			}
			if _, derived := fileDoc["base"]; !derived && !reflect.DeepEqual(fileDoc, outDoc) {
				t.Errorf("the YAML is not the file's document:\n%s\nthe file:\n%s", out, file)
			}
		})
	}
}

// yamlShape lists the keys of a YAML document by path, in order, with the
// style of each mapping (flow or block) and the kind of each value.
func yamlShape(t *testing.T, doc []byte) []string {
	t.Helper()
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		if n.Kind != yaml.MappingNode {
			return
		}
		style := "block"
		if n.Style&yaml.FlowStyle != 0 {
			style = "flow"
		}
		out = append(out, path+" "+style)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i].Value, n.Content[i+1]
			if path != "" {
				key = path + "." + key
			}
			if key == "base" {
				continue
			}
			kind := map[yaml.Kind]string{yaml.ScalarNode: "scalar", yaml.SequenceNode: "list", yaml.MappingNode: "map"}[val.Kind]
			if strings.HasSuffix(key, ".step") {
				kind = "step" // all, forward or a list of groups
			}
			out = append(out, key+": "+kind)
			walk(val, key)
		}
	}
	walk(root.Content[0], "")
	return out
}
