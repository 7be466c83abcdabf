package game

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Record is a game record: the variant, the setup, the players, the turns in
// notation and the result. It is written as PGN-like text (WritePGN,
// ReadPGN) or as one JSON object per line (encoding/json).
type Record struct {
	Variant        string            `json:"variant"`
	Setup          string            `json:"setup,omitempty"` // FEN, if not the variant's start
	South          string            `json:"south,omitempty"`
	North          string            `json:"north,omitempty"`
	Result         string            `json:"result"`                // 1-0, 0-1, 1/2-1/2 or *
	Termination    string            `json:"termination,omitempty"` // Reason.Key of the end
	NoCaptureLimit int               `json:"no_capture_limit"`
	MaxPlies       int               `json:"max_plies"`
	Turns          []string          `json:"turns"`
	Tags           map[string]string `json:"tags,omitempty"` // other tags, such as Date or Seed
}

// NewRecord starts a record of a game of r from start (nil: the variant's
// start position).
func NewRecord(r *Rules, start *Position) *Record {
	rec := &Record{Variant: r.Name, Result: "*", NoCaptureLimit: r.NoCaptureLimit, MaxPlies: r.MaxPlies}
	if start != nil {
		s := r.Start()
		if fen := start.FEN(); fen != s.FEN() {
			rec.Setup = fen
		}
	}
	return rec
}

// Finish sets the result and termination from a final status.
func (rec *Record) Finish(st Status) {
	rec.Result = st.Outcome.Result()
	rec.Termination = st.Reason.Key()
	if !st.Over() {
		rec.Termination = ""
	}
}

// Declared returns the end the record states, its Result and Termination:
// Ongoing for "*". A result without a termination (records written before
// terminations were kept) ends for a reason of NotOver; an unknown result
// or termination, or one without the other's agreement, is an error.
func (rec *Record) Declared() (Status, error) {
	var st Status
	var err error
	if st.Outcome, err = parseResult(rec.Result); err != nil {
		return st, err
	}
	if rec.Termination != "" {
		reason, err := ParseReason(rec.Termination)
		if err != nil {
			return st, err
		}
		if st.Outcome == Ongoing {
			return st, fmt.Errorf("Termination %q with Result *", rec.Termination)
		}
		st.Reason = reason
	}
	return st, nil
}

// StartPosition returns the record's first position.
func (rec *Record) StartPosition(r *Rules) (Position, error) {
	if r.Name != rec.Variant {
		return Position{}, fmt.Errorf("record is of variant %q, not %q", rec.Variant, r.Name)
	}
	return ParseSetup(r, rec.Setup)
}

// Replay plays the record's turns from its start and returns the final
// position. Every turn is checked; the error names the first bad one.
func (rec *Record) Replay(r *Rules) (Position, error) {
	p, err := rec.StartPosition(r)
	if err != nil {
		return p, err
	}
	if rec.NoCaptureLimit != r.NoCaptureLimit || rec.MaxPlies != r.MaxPlies {
		return p, fmt.Errorf("record has no_capture_limit %d and max_plies %d, variant %s has %d and %d",
			rec.NoCaptureLimit, rec.MaxPlies, r.Name, r.NoCaptureLimit, r.MaxPlies)
	}
	if _, err := p.ApplyTurns(rec.Turns); err != nil {
		return p, err
	}
	if st := p.Status(); st.Over() && rec.Result != "*" && st.Outcome.Result() != rec.Result {
		return p, fmt.Errorf("record says %s, but the game ends %s (%s)", rec.Result, st.Outcome.Result(), st)
	}
	return p, nil
}

var knownTags = []string{"Variant", "Setup", "South", "North", "Result", "Termination", "NoCaptureLimit", "MaxPlies"}

// WritePGN writes the record as tag pairs and numbered turns.
func (rec *Record) WritePGN(w io.Writer) error {
	bw := bufio.NewWriter(w)
	tag := func(k, v string) { fmt.Fprintf(bw, "[%s %s]\n", k, strconv.Quote(v)) }
	tag("Variant", rec.Variant)
	if rec.Setup != "" {
		tag("Setup", rec.Setup)
	}
	tag("South", rec.South)
	tag("North", rec.North)
	tag("Result", rec.Result)
	if rec.Termination != "" {
		tag("Termination", rec.Termination)
	}
	tag("NoCaptureLimit", strconv.Itoa(rec.NoCaptureLimit))
	tag("MaxPlies", strconv.Itoa(rec.MaxPlies))
	for _, k := range slices.Sorted(maps.Keys(rec.Tags)) {
		tag(k, rec.Tags[k])
	}
	bw.WriteString("\n")
	col := 0
	for i, t := range rec.Turns {
		word := t
		if i%2 == 0 {
			word = strconv.Itoa(i/2+1) + ". " + t
		}
		if col > 0 && col+len(word) > 78 {
			bw.WriteString("\n")
			col = 0
		} else if col > 0 {
			bw.WriteString(" ")
			col++
		}
		bw.WriteString(word)
		col += len(word)
	}
	if col > 0 {
		bw.WriteString(" ")
	}
	bw.WriteString(rec.Result + "\n\n")
	return bw.Flush()
}

var (
	tagRE     = regexp.MustCompile(`^\[([A-Za-z][A-Za-z0-9_]*)\s+("(?:[^"\\]|\\.)*")\]$`)
	numberRE  = regexp.MustCompile(`^[0-9]+\.(\.\.)?$`)
	resultSet = []string{"1-0", "0-1", "1/2-1/2", "*"}
)

// MaxRecordsBytes bounds a text of game records that ReadPGN and
// ReadRecords read: some 100,000 games.
const MaxRecordsBytes = 256 << 20

// boundedReader reads from r and fails once more than limit bytes come.
type boundedReader struct {
	r           io.Reader
	limit, left int64
}

func bounded(r io.Reader, limit int64) *boundedReader {
	return &boundedReader{r: r, limit: limit, left: limit}
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.tooMany()
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.r.Read(p)
	if b.left -= int64(n); b.left < 0 {
		return n, b.tooMany()
	}
	return n, err
}

func (b *boundedReader) tooMany() error {
	return fmt.Errorf("game records: more than %d bytes, the most a text of records may have", b.limit)
}

// ReadPGN reads every record of a PGN-like text of at most
// MaxRecordsBytes. Turns are checked for notation here, and for legality by
// Replay.
func ReadPGN(r io.Reader) ([]*Record, error) { return readPGN(r, MaxRecordsBytes) }

func readPGN(r io.Reader, limit int64) ([]*Record, error) {
	sc := bufio.NewScanner(bounded(r, limit))
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	var out []*Record
	var cur *Record
	line := 0
	inTurns := false
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		if strings.HasPrefix(text, "[") {
			if cur == nil || inTurns {
				cur = &Record{Result: "*"}
				out = append(out, cur)
				inTurns = false
			}
			m := tagRE.FindStringSubmatch(text)
			if m == nil {
				return nil, fmt.Errorf("line %d: malformed tag %q (want [Name \"value\"])", line, text)
			}
			v, err := strconv.Unquote(m[2])
			if err != nil {
				return nil, fmt.Errorf("line %d: tag %s: bad string %s", line, m[1], m[2])
			}
			if err := cur.setTag(m[1], v); err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("line %d: turns before any [Variant ...] tag", line)
		}
		inTurns = true
		for _, word := range strings.Fields(text) {
			switch {
			case numberRE.MatchString(word):
			case slices.Contains(resultSet, word):
				if word != cur.Result {
					return nil, fmt.Errorf("line %d: result %s differs from the Result tag %s", line, word, cur.Result)
				}
			default:
				if len(cur.Turns) > 1_000_000 {
					return nil, fmt.Errorf("line %d: too many turns", line)
				}
				cur.Turns = append(cur.Turns, strings.ToLower(word))
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for i, rec := range out {
		if rec.Variant == "" {
			return nil, fmt.Errorf("record %d: no Variant tag", i+1)
		}
	}
	return out, nil
}

func (rec *Record) setTag(k, v string) error {
	var err error
	switch k {
	case "Variant":
		rec.Variant = v
	case "Setup":
		rec.Setup = v
	case "South":
		rec.South = v
	case "North":
		rec.North = v
	case "Result":
		if _, err := parseResult(v); err != nil {
			return err
		}
		rec.Result = v
	case "Termination":
		if _, err := ParseReason(v); err != nil {
			return err
		}
		rec.Termination = v
	case "NoCaptureLimit":
		rec.NoCaptureLimit, err = strconv.Atoi(v)
	case "MaxPlies":
		rec.MaxPlies, err = strconv.Atoi(v)
	default:
		if rec.Tags == nil {
			rec.Tags = map[string]string{}
		}
		rec.Tags[k] = v
	}
	if err != nil {
		return errors.New("tag " + k + ": " + strconv.Quote(v) + " is not a whole number")
	}
	return nil
}

// ReadRecords reads game records written either as JSON lines (one Record
// object per line, as arena --out FILE.jsonl writes them) or as PGN-like
// text, telling them apart by the first character that is not white space;
// at most MaxRecordsBytes of them.
func ReadRecords(r io.Reader) ([]*Record, error) { return readRecords(r, MaxRecordsBytes) }

func readRecords(r io.Reader, limit int64) ([]*Record, error) {
	data, err := io.ReadAll(bounded(r, limit))
	if err != nil {
		return nil, err
	}
	text := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(text) == 0 {
		return nil, nil
	}
	if text[0] != '{' {
		return readPGN(bytes.NewReader(text), limit)
	}
	var out []*Record
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		rec := new(Record)
		if err := json.Unmarshal(line, rec); err != nil {
			return nil, fmt.Errorf("record line %d: %w", i+1, err)
		}
		if rec.Variant == "" {
			return nil, fmt.Errorf("record line %d: no variant", i+1)
		}
		out = append(out, rec)
	}
	return out, nil
}
