// Package ladder keeps the results file of the equal-time ladder (dablot
// ladder, make strength): one tab-separated row a match, appended durably,
// read back and checked.
package ladder

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dablot-zero/dablot/internal/durable"
	"github.com/dablot-zero/dablot/mcts/match"
	"github.com/dablot-zero/dablot/train/runlog"
)

// Row is one match of the equal-time ladder (dablot ladder), a row
// of its results file: who played whom, at what time per move, from which
// openings, and the result from the player's point of view.
type Row struct {
	Time        time.Time // when the match ended (UTC)
	Code        string    // CodeVersion of the program that played it
	Model       string    // the player's model file ("-" for none)
	ModelSHA256 string    // its checksum (net.MetaChecksum; "-" for none)
	Variant     string
	Player      string    // the player's spec
	Opponent    string    // the opponent's spec
	MS          int       // time per move of both, in milliseconds
	WDL         match.WDL // the player's wins, draws and losses
	// AsSouth and AsNorth split WDL by the player's side.
	AsSouth, AsNorth match.WDL
	Book             string // the openings: a book file, or "generated:N"
	Threads          int    // games played at once, one core each
	Seed             uint64
	Wall             time.Duration // the match's wall time
}

// Columns are the columns of a ladder results file, its first line.
// Scores are fractions of a point per game with their 95 % interval, Elo
// the logistic difference with its interval ("+inf" and "-inf" at the
// ends); south and north are the player's W/D/L with each colour.
var Columns = []string{
	"date_utc", "code_version", "model", "model_sha256", "variant", "player", "opponent", "ms_per_move",
	"games", "wins", "draws", "losses", "score", "score_lo95", "score_hi95", "elo", "elo_lo95", "elo_hi95",
	"south_wdl", "north_wdl", "book", "threads", "seed", "wall_s",
}

// Header is the first line of a ladder results file.
func Header() string { return strings.Join(Columns, "\t") }

// Format writes the row as a line of tab-separated fields (no newline),
// in the order of Columns. Tabs and newlines in the text fields
// become spaces.
func (r Row) Format() string {
	lo, hi := r.WDL.ScoreCI(0.95)
	elo, elo0, elo1 := r.WDL.Elo(0.95)
	text := func(s string) string {
		if s == "" {
			return "-"
		}
		return strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s)
	}
	fields := []string{
		r.Time.UTC().Format(time.RFC3339), text(r.Code), text(r.Model), text(r.ModelSHA256), text(r.Variant),
		text(r.Player), text(r.Opponent), strconv.Itoa(r.MS),
		strconv.Itoa(r.WDL.Games()), strconv.Itoa(r.WDL.W), strconv.Itoa(r.WDL.D), strconv.Itoa(r.WDL.L),
		fmt.Sprintf("%.4f", r.WDL.Score()), fmt.Sprintf("%.4f", lo), fmt.Sprintf("%.4f", hi),
		match.FormatElo(elo), match.FormatElo(elo0), match.FormatElo(elo1),
		formatWDL(r.AsSouth), formatWDL(r.AsNorth), text(r.Book),
		strconv.Itoa(r.Threads), strconv.FormatUint(r.Seed, 10), strconv.Itoa(int(math.Round(r.Wall.Seconds()))),
	}
	return strings.Join(fields, "\t")
}

func formatWDL(w match.WDL) string { return fmt.Sprintf("%d/%d/%d", w.W, w.D, w.L) }

func parseWDL(s string) (match.WDL, error) {
	var w match.WDL
	parts := strings.Split(s, "/")
	if len(parts) != 3 {
		return w, fmt.Errorf("%q: want W/D/L", s)
	}
	for i, dst := range []*int{&w.W, &w.D, &w.L} {
		n, err := strconv.Atoi(parts[i])
		if err != nil || n < 0 {
			return w, fmt.Errorf("%q: want W/D/L", s)
		}
		*dst = n
	}
	return w, nil
}

// ParseRow reads a line that Format wrote. The score, intervals and
// Elo are derived from the counts, so only the counts are read back; a
// line whose counts disagree with its score is an error.
func ParseRow(line string) (Row, error) {
	f := strings.Split(line, "\t")
	if len(f) != len(Columns) {
		return Row{}, fmt.Errorf("%d fields, want %d (%s)", len(f), len(Columns), Header())
	}
	col := map[string]string{}
	for i, c := range Columns {
		col[c] = f[i]
	}
	var r Row
	var err error
	bad := func(c string, e error) (Row, error) {
		return Row{}, fmt.Errorf("column %s: %q: %v", c, col[c], e)
	}
	if r.Time, err = time.Parse(time.RFC3339, col["date_utc"]); err != nil {
		return bad("date_utc", err)
	}
	r.Code, r.Model, r.ModelSHA256, r.Variant = col["code_version"], col["model"], col["model_sha256"], col["variant"]
	r.Player, r.Opponent, r.Book = col["player"], col["opponent"], col["book"]
	ints := []struct {
		c   string
		dst *int
	}{{"ms_per_move", &r.MS}, {"wins", &r.WDL.W}, {"draws", &r.WDL.D}, {"losses", &r.WDL.L}, {"threads", &r.Threads}}
	for _, it := range ints {
		if *it.dst, err = strconv.Atoi(col[it.c]); err != nil || *it.dst < 0 {
			return bad(it.c, errors.New("want a whole number ≥ 0"))
		}
	}
	if n, err := strconv.Atoi(col["games"]); err != nil || n != r.WDL.Games() {
		return bad("games", fmt.Errorf("want wins + draws + losses = %d", r.WDL.Games()))
	}
	if s, err := strconv.ParseFloat(col["score"], 64); err != nil || math.Abs(s-r.WDL.Score()) > 1e-4 {
		return bad("score", fmt.Errorf("want %.4f from the counts", r.WDL.Score()))
	}
	if r.AsSouth, err = parseWDL(col["south_wdl"]); err != nil {
		return bad("south_wdl", err)
	}
	if r.AsNorth, err = parseWDL(col["north_wdl"]); err != nil {
		return bad("north_wdl", err)
	}
	if r.Seed, err = strconv.ParseUint(col["seed"], 10, 64); err != nil {
		return bad("seed", err)
	}
	wall, err := strconv.Atoi(col["wall_s"])
	if err != nil || wall < 0 {
		return bad("wall_s", errors.New("want whole seconds"))
	}
	r.Wall = time.Duration(wall) * time.Second
	return r, nil
}

// MaxBytes bounds a ladder results file: some hundred thousand rows.
const MaxBytes = 64 << 20

// CheckFile checks, before a match, that its row can be appended to
// the results file path: the file is absent (AppendRow creates it
// with its header; its directory must exist) or starts with Header.
func CheckFile(path string) error {
	if err := durable.CheckTarget(path); err != nil {
		return fmt.Errorf("results file %s: %w", path, err)
	}
	f, err := durable.Open(path, "ladder results file", MaxBytes)
	if errors.Is(err, fs.ErrNotExist) {
		dir := filepath.Dir(path)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return fmt.Errorf("results file %s: directory %s does not exist", path, dir)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("results file %s: %w", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return fmt.Errorf("results file %s: %w", path, err)
		}
		return nil // empty: the header is written first
	}
	if got := sc.Text(); got != Header() {
		return fmt.Errorf("results file %s: its first line is not the ladder's header (%.60q…); give another --results file", path, got)
	}
	return nil
}

// AppendRow appends the row to the results file path, first writing
// the header when the file is new or empty. Each line is written in one
// write and synced (runlog.AppendLine), so a crash cannot damage the rows
// before it; a torn last line is completed if it parses and cut off if not.
func AppendRow(path string, r Row) error {
	if err := CheckFile(path); err != nil {
		return err
	}
	complete := func(line []byte) bool {
		if string(line) == Header() {
			return true
		}
		_, err := ParseRow(string(line))
		return err == nil
	}
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		if err := runlog.AppendLine(path, []byte(Header()), complete); err != nil {
			return err
		}
	}
	return runlog.AppendLine(path, []byte(r.Format()), complete)
}

// Read reads every row of a results file. A torn last line (a crash
// while writing it) is ignored; any other bad line is an error naming the
// file and line.
func Read(path string) ([]Row, error) {
	data, err := durable.ReadFile(path, "ladder results file", MaxBytes)
	if err != nil {
		return nil, err
	}
	text := string(data)
	torn := !strings.HasSuffix(text, "\n")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) == 0 || lines[0] != Header() {
		return nil, fmt.Errorf("%s:1: not the ladder's header", path)
	}
	var rows []Row
	for i, l := range lines[1:] {
		if l == "" {
			continue
		}
		r, err := ParseRow(l)
		if err != nil {
			if torn && i == len(lines)-2 {
				break
			}
			return nil, fmt.Errorf("%s:%d: %w", path, i+2, err)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// SameMatch reports whether r and o are rows of the same match: the same
// model, variant, players, time, openings and seed, with the same results.
// When it ended, the program that played it, its threads and its wall
// time may differ (a resumed match whose games were all played before).
func (r Row) SameMatch(o Row) bool {
	return r.Model == o.Model && r.ModelSHA256 == o.ModelSHA256 && r.Variant == o.Variant &&
		r.Player == o.Player && r.Opponent == o.Opponent && r.MS == o.MS && r.WDL == o.WDL &&
		r.AsSouth == o.AsSouth && r.AsNorth == o.AsNorth && r.Book == o.Book && r.Seed == o.Seed
}
