package game

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Side is a player: South moves up the board from row 1, North down.
type Side uint8

// The two sides.
const (
	South Side = iota
	North
)

// Other returns the opponent of s.
func (s Side) Other() Side { return s ^ 1 }

func (s Side) String() string {
	if s == South {
		return "south"
	}
	return "north"
}

// Rank is a piece's rank: a piece may capture only enemy pieces of equal or
// lower rank.
type Rank uint8

// The ranks, lowest first.
const (
	Soldier Rank = iota
	Prince
	King
	NumRanks = 3
)

var rankNames = [NumRanks]string{"soldier", "prince", "king"}

func (r Rank) String() string {
	if r < NumRanks {
		return rankNames[r]
	}
	return fmt.Sprintf("Rank(%d)", uint8(r))
}

// StepGroup names a set of directions relative to the side that moves.
type StepGroup uint8

// Relative direction sets. A relative direction counts from "forward" (away
// from the mover's own side) clockwise, like Direction counts from north.
var stepGroups = map[string]uint8{
	"straight-forward":  1 << 0,
	"diagonal-forward":  1<<1 | 1<<7,
	"sideways":          1<<2 | 1<<6,
	"diagonal-backward": 1<<3 | 1<<5,
	"straight-backward": 1 << 4,
}

// NoMoveRule says what happens to a side with no legal move.
type NoMoveRule uint8

// What a side with no legal move does.
const (
	NoMoveLoses NoMoveRule = iota
	NoMovePasses
)

func (r NoMoveRule) String() string {
	if r == NoMovePasses {
		return "pass"
	}
	return "lose"
}

// RankRules are the rules that differ by rank.
type RankRules struct {
	// Step is the set of relative directions (bit r: r eighth-turns clockwise
	// from forward) in which a piece of this rank may step. Captures go in
	// every direction.
	Step uint8
	// MustCapture: if any piece of a rank with MustCapture can capture, the
	// turn must be a capture by such a piece.
	MustCapture bool
	// ChainMustContinue: a capture chain by this rank goes on while the
	// piece can jump; otherwise it may stop after any jump.
	ChainMustContinue bool
}

// Rules is one variant: the board, the setup and every rule that tells
// variants apart. It is plain data; the engine reads nothing else. Rules are
// made by ParseVariant (from YAML) and must not be changed afterwards.
type Rules struct {
	Name        string
	Description string
	Source      string // where the rules come from
	Board       *Board
	Setup       string // FEN of the start position
	First       Side
	Ranks       [NumRanks]RankRules
	NoReturn    bool // a capture chain may not land on the point where it started
	// PromoteTo is the rank a soldier takes when its turn ends on the
	// farthest row; Soldier means no promotion.
	PromoteTo    Rank
	SingleCombat bool // one piece each of equal rank: capture if possible, else close in

	WinNoPieces     bool // the opponent has no pieces left
	WinKingCaptured bool // the opponent's king is captured
	WinLoneKing     bool // the opponent is reduced to its king alone
	WinImmobilised  bool // the opponent's only piece outranks every piece of the mover and cannot move
	DrawKingsOnly   bool // each side has only its king
	DrawTwoPasses   bool // two passes in a row
	NoMove          NoMoveRule

	NoCaptureLimit int // draw after this many plies without a capture (0: never)
	MaxPlies       int // draw when the game reaches this many plies (0: never)

	// Assumed lists the choices made where the sources are silent.
	Assumed []string

	start      Position
	stepDirs   [2][NumRanks]uint8 // absolute direction masks by side and rank
	stepGroups [2][]stepGroup     // ranks that step alike, stepped together
	mustRanks  uint8              // bit r set: rank r must capture
	zobrist    *zobristKeys
}

// Start returns the start position of the variant.
func (r *Rules) Start() Position { return r.start }

// variantFile is the YAML schema of a variant. Pointer fields must be given
// (directly or by the base variant), so nothing is silently defaulted.
type variantFile struct {
	Name        string `yaml:"name"`
	Base        string `yaml:"base"`
	Description string `yaml:"description"`
	Source      string `yaml:"source"`
	Board       *struct {
		Columns *int `yaml:"columns"`
		Rows    *int `yaml:"rows"`
	} `yaml:"board"`
	Setup *string `yaml:"setup"`
	First *string `yaml:"first"`
	Ranks *struct {
		Soldier *rankFile `yaml:"soldier"`
		Prince  *rankFile `yaml:"prince"`
		King    *rankFile `yaml:"king"`
	} `yaml:"ranks"`
	NoReturn     *bool   `yaml:"no_return"`
	Promotion    *string `yaml:"promotion"`
	SingleCombat *bool   `yaml:"single_combat"`
	Win          *struct {
		NoPieces     *bool `yaml:"no_pieces"`
		KingCaptured *bool `yaml:"king_captured"`
		LoneKing     *bool `yaml:"lone_king"`
		Immobilised  *bool `yaml:"immobilised"`
	} `yaml:"win"`
	Draw *struct {
		KingsOnly *bool `yaml:"kings_only"`
		TwoPasses *bool `yaml:"two_passes"`
	} `yaml:"draw"`
	NoMove         *string  `yaml:"no_move"`
	NoCaptureLimit *int     `yaml:"no_capture_limit"`
	MaxPlies       *int     `yaml:"max_plies"`
	Assumed        []string `yaml:"assumed"`
}

type rankFile struct {
	Step              yaml.Node `yaml:"step"`
	MustCapture       *bool     `yaml:"must_capture"`
	ChainMustContinue *bool     `yaml:"chain_must_continue"`
}

// FieldError is an invalid or missing field of a variant file.
type FieldError struct {
	Variant string // the variant's name, or the file it came from
	Field   string // dotted path, such as "ranks.soldier.step"
	Reason  string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("variant %s: %s: %s", e.Variant, e.Field, e.Reason)
}

// BaseLookup finds the YAML text of a variant by name, for "base:".
type BaseLookup func(name string) ([]byte, error)

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_.,=+-]*$`)

// Bounds of a variant file. A file, each base it builds on, and the
// complete rules written back as one (Rules.YAML, as model files and run
// directories store them) may take at most MaxVariantBytes; the name at
// most 256 bytes; the description, the source and each of at most 32
// assumptions at most 4096.
const (
	MaxVariantBytes = 64 << 10
	maxNameBytes    = 256
	maxTextBytes    = 4096
	maxAssumed      = 32
)

// ParseVariant reads a variant from YAML. Unknown keys, repeated keys,
// missing fields, values out of range and texts longer than their bounds
// (MaxVariantBytes) are errors that name the field. A file may start from
// another variant with "base: NAME", found through lookup (which may be nil
// when no file uses base), and give only the fields that differ.
func ParseVariant(data []byte, lookup BaseLookup) (*Rules, error) {
	var f variantFile
	if err := decodeVariant(data, &f, lookup, 0); err != nil {
		return nil, err
	}
	return f.rules()
}

func decodeVariant(data []byte, f *variantFile, lookup BaseLookup, depth int) error {
	if len(data) > MaxVariantBytes {
		return fmt.Errorf("variant: the file has %d bytes, more than the %d a variant file may have", len(data), MaxVariantBytes)
	}
	var head struct {
		Base string `yaml:"base"`
	}
	if err := yaml.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("variant: %w", cleanYAMLError(data, err))
	}
	if head.Base != "" {
		if depth >= 8 {
			return fmt.Errorf("variant: base %q: bases nest deeper than 8 (a cycle?)", head.Base)
		}
		if lookup == nil {
			return fmt.Errorf("variant: base %q: no variant library to look it up in", head.Base)
		}
		baseData, err := lookup(head.Base)
		if err != nil {
			return fmt.Errorf("variant: base %q: %w", head.Base, err)
		}
		if err := decodeVariant(baseData, f, lookup, depth+1); err != nil {
			return fmt.Errorf("base %q: %w", head.Base, err)
		}
		f.Name, f.Description, f.Source = "", "", ""
	}
	inherited := f.Assumed
	f.Assumed = nil
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(f); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("variant: the file is empty")
		}
		return fmt.Errorf("variant: %w", cleanYAMLError(data, err))
	}
	f.Assumed = append(inherited, f.Assumed...)
	return nil
}

// cleanYAMLError rewrites yaml.v3's errors so that each names the field
// ("no_return (line 3): cannot unmarshal !!str `maybe` into bool") rather
// than Go types.
func cleanYAMLError(data []byte, err error) error {
	var root yaml.Node
	_ = yaml.Unmarshal(data, &root)
	lineRE := regexp.MustCompile(`line (\d+): `)
	valueRE := regexp.MustCompile("`([^`]*)`")
	typeRE := regexp.MustCompile(` in type [^ ]+| in type struct \{.*\}`)
	var lines []string
	for _, msg := range strings.Split(err.Error(), "\n") {
		msg = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(msg), "yaml: unmarshal errors:"))
		if msg == "" {
			continue
		}
		msg = typeRE.ReplaceAllString(msg, "")
		msg = strings.NewReplacer("into game.rankFile", "into a rank's rules (a mapping)", "into game.variantFile", "into a variant (a mapping)").Replace(msg)
		if m := lineRE.FindStringSubmatchIndex(msg); m != nil {
			line, _ := strconv.Atoi(msg[m[2]:m[3]])
			value := ""
			if v := valueRE.FindStringSubmatch(msg); v != nil {
				value = v[1]
			}
			field := fieldAtLine(&root, line, value, "")
			if field == "" {
				field = fieldAtLine(&root, line, "", "")
			}
			if field != "" {
				msg = msg[:m[0]] + field + " (line " + msg[m[2]:m[3]] + "): " + msg[m[1]:]
			}
		}
		lines = append(lines, msg)
	}
	return errors.New(strings.Join(lines, "; "))
}

// fieldAtLine returns the dotted path of the mapping key on line whose
// scalar value is value (any value, if value is empty).
func fieldAtLine(n *yaml.Node, line int, value, prefix string) string {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if f := fieldAtLine(c, line, value, prefix); f != "" {
				return f
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			path := k.Value
			if prefix != "" {
				path = prefix + "." + k.Value
			}
			if f := fieldAtLine(v, line, value, path); f != "" {
				return f
			}
			if v.Line == line && v.Kind == yaml.ScalarNode && (value == "" || v.Value == value) {
				return path
			}
			if k.Line == line && v.Kind != yaml.ScalarNode && v.Line != line && value == "" {
				return path
			}
		}
	}
	return ""
}

func (f *variantFile) rules() (*Rules, error) {
	name := f.Name
	fail := func(field, format string, args ...any) error {
		n := name
		if n == "" {
			n = "(unnamed)"
		}
		return &FieldError{Variant: n, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	missing := func(field string) error { return fail(field, "missing") }
	if len(name) > maxNameBytes {
		name = name[:32] + "…"
		return nil, fail("name", "%d bytes: want at most %d", len(f.Name), maxNameBytes)
	}
	if name == "" {
		return nil, missing("name")
	}
	if err := f.checkTexts(fail); err != nil {
		return nil, err
	}
	if !nameRE.MatchString(name) {
		return nil, fail("name", "%q: use lower-case letters, digits, '-' and '_'", name)
	}
	r := &Rules{Name: name, Description: strings.TrimSpace(f.Description), Source: strings.TrimSpace(f.Source), Assumed: f.Assumed}
	if err := f.boardAndRanks(r, fail); err != nil {
		return nil, err
	}
	bools := []struct {
		field string
		src   *bool
		dst   *bool
	}{
		{"no_return", f.NoReturn, &r.NoReturn},
		{"single_combat", f.SingleCombat, &r.SingleCombat},
	}
	if f.Win == nil {
		return nil, missing("win")
	}
	if f.Draw == nil {
		return nil, missing("draw")
	}
	bools = append(bools, []struct {
		field string
		src   *bool
		dst   *bool
	}{
		{"win.no_pieces", f.Win.NoPieces, &r.WinNoPieces},
		{"win.king_captured", f.Win.KingCaptured, &r.WinKingCaptured},
		{"win.lone_king", f.Win.LoneKing, &r.WinLoneKing},
		{"win.immobilised", f.Win.Immobilised, &r.WinImmobilised},
		{"draw.kings_only", f.Draw.KingsOnly, &r.DrawKingsOnly},
		{"draw.two_passes", f.Draw.TwoPasses, &r.DrawTwoPasses},
	}...)
	for _, x := range bools {
		if x.src == nil {
			return nil, missing(x.field)
		}
		*x.dst = *x.src
	}
	switch {
	case f.Promotion == nil:
		return nil, missing("promotion")
	case *f.Promotion == "none":
		r.PromoteTo = Soldier
	case *f.Promotion == "prince":
		r.PromoteTo = Prince
	case *f.Promotion == "king":
		r.PromoteTo = King
	default:
		return nil, fail("promotion", "%q: want none, prince or king", *f.Promotion)
	}
	switch {
	case f.NoMove == nil:
		return nil, missing("no_move")
	case *f.NoMove == "lose":
		r.NoMove = NoMoveLoses
	case *f.NoMove == "pass":
		r.NoMove = NoMovePasses
	default:
		return nil, fail("no_move", "%q: want lose or pass", *f.NoMove)
	}
	for _, x := range []struct {
		field string
		src   *int
		dst   *int
	}{{"no_capture_limit", f.NoCaptureLimit, &r.NoCaptureLimit}, {"max_plies", f.MaxPlies, &r.MaxPlies}} {
		if x.src == nil {
			return nil, missing(x.field)
		}
		if *x.src < 0 || *x.src > 1_000_000 {
			return nil, fail(x.field, "%d: want 0 (no limit) to 1000000 plies", *x.src)
		}
		*x.dst = *x.src
	}
	if !r.WinNoPieces && r.NoMove == NoMovePasses {
		return nil, fail("win.no_pieces", "false with no_move: pass would let a side without pieces pass for ever")
	}
	r.derive()
	if err := f.setup(r, fail); err != nil {
		return nil, err
	}
	if n := len(r.YAML()); n > MaxVariantBytes {
		return nil, fail("assumed", "the rules take %d bytes as a variant file, more than the %d a variant file may have", n, MaxVariantBytes)
	}
	return r, nil
}

// boardAndRanks sets r's board, first side and ranks from the file, or
// returns the error of the first field missing or wrong (fail makes it).
func (f *variantFile) boardAndRanks(r *Rules, fail func(field, format string, args ...any) error) error {
	missing := func(field string) error { return fail(field, "missing") }
	if f.Board == nil {
		return missing("board")
	}
	if f.Board.Columns == nil {
		return missing("board.columns")
	}
	if f.Board.Rows == nil {
		return missing("board.rows")
	}
	b, err := NewBoard(*f.Board.Columns, *f.Board.Rows)
	if err != nil {
		return fail("board", "%v", err)
	}
	r.Board = b
	switch {
	case f.First == nil:
		return missing("first")
	case *f.First == "south":
		r.First = South
	case *f.First == "north":
		r.First = North
	default:
		return fail("first", "%q: want south or north", *f.First)
	}
	if f.Ranks == nil {
		return missing("ranks")
	}
	for i, rf := range []*rankFile{f.Ranks.Soldier, f.Ranks.Prince, f.Ranks.King} {
		field := "ranks." + Rank(i).String()
		if rf == nil {
			return missing(field)
		}
		mask, err := parseStep(&rf.Step)
		if err != nil {
			return fail(field+".step", "%v", err)
		}
		if rf.MustCapture == nil {
			return missing(field + ".must_capture")
		}
		if rf.ChainMustContinue == nil {
			return missing(field + ".chain_must_continue")
		}
		r.Ranks[i] = RankRules{Step: mask, MustCapture: *rf.MustCapture, ChainMustContinue: *rf.ChainMustContinue}
	}
	return nil
}

// setup sets r's start position from the file and checks it: both sides
// have pieces (a king where taking it wins) and the game is not over.
func (f *variantFile) setup(r *Rules, fail func(field, format string, args ...any) error) error {
	missing := func(field string) error { return fail(field, "missing") }
	if f.Setup == nil {
		return missing("setup")
	}
	r.Setup = strings.TrimSpace(*f.Setup)
	start, err := ParseFEN(r, r.Setup)
	if err != nil {
		return fail("setup", "%v", err)
	}
	for _, s := range []Side{South, North} {
		if start.occ[s].Empty() {
			return fail("setup", "%s has no pieces", s)
		}
		if r.WinKingCaptured && start.pieces[s][King].Empty() {
			return fail("setup", "%s has no king, but win.king_captured is on", s)
		}
	}
	if start.Status().Over() {
		return fail("setup", "the game is already over in the start position (%s)", start.Status())
	}
	r.start = start
	return nil
}

// checkTexts reports a free text of the file longer than its bound.
func (f *variantFile) checkTexts(fail func(field, format string, args ...any) error) error {
	texts := []struct{ field, text string }{{"description", f.Description}, {"source", f.Source}}
	if len(f.Assumed) > maxAssumed {
		return fail("assumed", "%d entries: want at most %d", len(f.Assumed), maxAssumed)
	}
	for i, a := range f.Assumed {
		texts = append(texts, struct{ field, text string }{fmt.Sprintf("assumed[%d]", i), a})
	}
	for _, t := range texts {
		if len(t.text) > maxTextBytes {
			return fail(t.field, "%d bytes: want at most %d", len(t.text), maxTextBytes)
		}
	}
	return nil
}

func parseStep(n *yaml.Node) (uint8, error) {
	var names []string
	switch n.Kind {
	case 0:
		return 0, errors.New("missing")
	case yaml.ScalarNode:
		switch n.Value {
		case "all":
			return 0xff, nil
		case "forward":
			return stepGroups["straight-forward"] | stepGroups["diagonal-forward"], nil
		}
		names = []string{n.Value}
	case yaml.SequenceNode:
		if err := n.Decode(&names); err != nil {
			return 0, fmt.Errorf("line %d: want a list of direction groups", n.Line)
		}
	default:
		return 0, fmt.Errorf("line %d: want all, forward or a list of direction groups", n.Line)
	}
	var mask uint8
	for _, s := range names {
		g, ok := stepGroups[s]
		if !ok {
			return 0, fmt.Errorf("unknown direction group %q (want all, forward (the three forward directions), or a list of straight-forward, diagonal-forward, sideways, diagonal-backward, straight-backward)", s)
		}
		if mask&g != 0 {
			return 0, fmt.Errorf("direction group %q given twice", s)
		}
		mask |= g
	}
	if mask == 0 {
		return 0, errors.New("no directions: every rank needs at least one")
	}
	return mask, nil
}

// stepGroup is a set of ranks (bit r for rank r) with the same step directions.
type stepGroup struct {
	ranks, dirs uint8
	// from[d] is the board's stepFrom[d] if the group steps in direction d,
	// else empty: the points from which the group's pieces may step that way.
	from [NumDirections]Bits
}

// derive fills the tables computed from the rule fields.
func (r *Rules) derive() {
	defer func() {
		for s := range 2 {
			for rank := range NumRanks {
				dirs := r.stepDirs[s][rank]
				i := slices.IndexFunc(r.stepGroups[s], func(g stepGroup) bool { return g.dirs == dirs })
				if i < 0 {
					r.stepGroups[s] = append(r.stepGroups[s], stepGroup{dirs: dirs})
					i = len(r.stepGroups[s]) - 1
				}
				r.stepGroups[s][i].ranks |= 1 << rank
			}
			for i := range r.stepGroups[s] {
				g := &r.stepGroups[s][i]
				for d := range NumDirections {
					if g.dirs>>d&1 != 0 {
						g.from[d] = r.Board.stepFrom[d]
					}
				}
			}
		}
	}()
	for rank := range NumRanks {
		rel := r.Ranks[rank].Step
		for d := range NumDirections {
			if rel>>d&1 != 0 {
				r.stepDirs[South][rank] |= 1 << d
				r.stepDirs[North][rank] |= 1 << ((d + 4) % NumDirections)
			}
		}
		if r.Ranks[rank].MustCapture {
			r.mustRanks |= 1 << rank
		}
	}
	r.zobrist = newZobrist(r.Board.Points())
}
