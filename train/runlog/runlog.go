// Package runlog keeps the records of a training run directory: one JSON
// line per generation in metrics.jsonl and one per rating match in
// ratings.jsonl. Records are appended with O_APPEND and fsync, so a killed
// run loses at most the line it was writing; readers ignore such a torn
// last line, and TrimAfter drops the records written after the checkpoint
// a run resumes from.
//
// JSON has no NaN or infinity: Append fails on a record holding one, so
// write 0 for a quantity that was not measured.
package runlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/dablot-zero/dablot/internal/durable"
)

// The file names of a run directory.
const (
	MetricsFile = "metrics.jsonl" // Generation records
	RatingsFile = "ratings.jsonl" // Match records
)

// Generation is one line of metrics.jsonl: what one generation of the
// training loop did. Cumulative fields count from the start of the run,
// across resumes and warm starts. Fields of a line that Generation no
// longer has are ignored, so old runs' logs still read: reanalysed,
// reanalysed_tables, reanalysed_vetoed and reanalyse_seconds, written by
// runs with selfplay.reanalyse (which left the program).
type Generation struct {
	Generation int       `json:"generation"`
	Time       time.Time `json:"time"`                // when the generation ended
	Hours      float64   `json:"hours"`               // cumulative wall-clock hours of training
	CPUHours   float64   `json:"cpu_hours,omitempty"` // cumulative CPU hours of the run's own processes
	Games      int       `json:"games"`               // cumulative self-play games
	Samples    int64     `json:"samples"`

	GenGames   int `json:"gen_games"`   // self-play games this generation
	GenSamples int `json:"gen_samples"` // samples this generation
	// GenFullSearches counts this generation's full searches: the samples it
	// writes without policy surprise weighting (selfplay.policy_surprise;
	// with it GenSamples is about as many). MeanSurprise is their mean
	// policy surprise, KL(policy target ‖ network's prior) in nats.
	// Records from before they were kept have neither.
	GenFullSearches int     `json:"gen_full_searches,omitempty"`
	MeanSurprise    float64 `json:"mean_surprise,omitempty"`
	// Game statistics count the games of the network against itself that
	// start from the variant's setup; the curriculum games that start from
	// random endgames, and the games against fixed opponents, are counted
	// apart.
	MeanLength       float64        `json:"mean_length"`   // complete turns per self-play game
	MedianLength     float64        `json:"median_length"` // complete turns per self-play game
	DrawRate         float64        `json:"draw_rate"`
	FirstPlayerScore float64        `json:"first_player_score"` // mean score of the side that moves first
	Ends             map[string]int `json:"ends,omitempty"`     // games per end reason
	EndgameGames     int            `json:"endgame_games,omitempty"`
	EndgameDrawRate  float64        `json:"endgame_draw_rate,omitempty"`
	// OpponentGames and OpponentScore (the network's mean score in them)
	// count the games against fixed opponents in the metrics of runs with
	// them (written no more: selfplay.opponents left the program).
	OpponentGames int     `json:"opponent_games,omitempty"`
	OpponentScore float64 `json:"opponent_score,omitempty"`

	PolicyLoss float64 `json:"policy_loss"`
	ValueLoss  float64 `json:"value_loss"`
	// ScoreLoss is the score head's mean squared error (networks with a
	// score head only).
	ScoreLoss float64 `json:"score_loss,omitempty"`
	// ShortTermLoss is the short-term value heads' squared error, summed
	// over the heads, in the metrics of runs with them (written no more:
	// network.short_term_heads left the program).
	ShortTermLoss float64 `json:"short_term_loss,omitempty"`
	// OwnershipLoss is the ownership head's squared error, averaged over
	// the points (networks with the head only).
	OwnershipLoss float64 `json:"ownership_loss,omitempty"`
	TrainSteps    int     `json:"train_steps"` // cumulative optimiser steps
	LearningRate  float64 `json:"learning_rate"`

	// The candidate's match against the best model, from the candidate's
	// point of view.
	CandidateWins   int     `json:"candidate_wins"`
	CandidateDraws  int     `json:"candidate_draws"`
	CandidateLosses int     `json:"candidate_losses"`
	CandidateScore  float64 `json:"candidate_score"`
	Promoted        bool    `json:"promoted"`
	Best            int     `json:"best"` // generation of the best model after this one

	// Utilisation is process CPU-seconds / (wall-seconds × cores) over the
	// generation.
	Utilisation     float64 `json:"utilisation"`
	SelfPlaySeconds float64 `json:"self_play_seconds"`
	TrainSeconds    float64 `json:"train_seconds"`
	EvalSeconds     float64 `json:"eval_seconds"`
	RatingSeconds   float64 `json:"rating_seconds"`
}

// Match is one line of ratings.jsonl: a rating match of Player against
// Opponent, counted from Player's point of view. Players are named "genN"
// for the model of generation N, or by an anchor's player spec ("random",
// "greedy", "alphabeta:depth=2").
type Match struct {
	Time       time.Time `json:"time"`
	Hours      float64   `json:"hours"`      // cumulative training hours when it was played
	Generation int       `json:"generation"` // generation of the model that played, or -1
	Player     string    `json:"player"`
	Opponent   string    `json:"opponent"`
	Wins       int       `json:"wins"`
	Draws      int       `json:"draws"`
	Losses     int       `json:"losses"`
	Settings   string    `json:"settings,omitempty"` // search settings, such as "gumbel sims=64"
}

// Append writes v as one JSON line at the end of the file path, creating
// it if need be, and syncs it to disk. If the file ends in a torn line (one
// without its newline, as a kill leaves), Append first completes it when it
// is valid JSON and otherwise cuts it off, so the new record starts a line
// of its own. Only one process may append to a file at a time.
func Append(path string, v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("runlog: %s: %w", path, err)
	}
	return AppendLine(path, line, json.Valid)
}

// AppendLine writes line and a newline at the end of the file path in one
// write, creating the file if need be, and syncs it to disk, so that a
// crash loses at most this line and never an earlier one. If the file ends
// in a torn line (one without its newline, as a kill leaves), AppendLine
// first completes it when complete says it is whole and otherwise cuts it
// off. Only one process may append to a file at a time.
func AppendLine(path string, line []byte, complete func(line []byte) bool) error {
	f, err := durable.Append(path)
	if err != nil {
		return err
	}
	if err := mendTail(f, complete); err != nil {
		f.Close()
		return fmt.Errorf("runlog: %s: %w", path, err)
	}
	if _, err := f.Write(append(line[:len(line):len(line)], '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// mendTail makes the file f (opened for appending) end in a newline: a
// last line without one is finished if complete says it is whole and
// removed if not.
func mendTail(f *os.File, complete func([]byte) bool) error {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return err
	}
	r, err := os.Open(f.Name())
	if err != nil {
		return err
	}
	defer r.Close()
	// Read backwards in blocks until a newline or the start of the file.
	const block = 4096
	size := st.Size()
	var tail []byte
	for off := size; off > 0; {
		n := min(int64(block), off)
		off -= n
		buf := make([]byte, n)
		if _, err := r.ReadAt(buf, off); err != nil {
			return err
		}
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			tail = append(buf[i+1:], tail...)
			break
		}
		tail = append(buf, tail...)
	}
	switch {
	case len(tail) == 0:
		return nil
	case complete(tail):
		_, err := f.Write([]byte{'\n'})
		return err
	}
	return f.Truncate(size - int64(len(tail)))
}

// ReadGenerations reads the Generation records of a metrics.jsonl file in
// order. A missing file holds none.
func ReadGenerations(path string) ([]Generation, error) { return read[Generation](path) }

// ReadMatches reads the Match records of a ratings.jsonl file in order. A
// missing file holds none.
func ReadMatches(path string) ([]Match, error) { return read[Match](path) }

// read decodes every line of a JSON-lines file. Blank lines are skipped; a
// last line that does not decode is a torn write and is ignored; any other
// bad line is an error naming the file and line.
func read[T any](path string) ([]T, error) {
	lines, err := readLines(path)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(lines))
	for _, l := range lines {
		var v T
		if err := json.Unmarshal(l.text, &v); err != nil {
			if l.last {
				break
			}
			return nil, fmt.Errorf("%s:%d: %w", path, l.number, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// line is one non-blank line of a file.
type line struct {
	text   []byte // without the newline
	number int    // from 1
	last   bool   // no non-blank line follows
}

// MaxLogBytes bounds a run log that readers take in: some hundred
// thousand generations' lines.
const MaxLogBytes = 256 << 20

// readLines returns the non-blank lines of a file; none if it is missing.
// The file must be a regular file of at most MaxLogBytes.
func readLines(path string) ([]line, error) {
	data, err := durable.ReadFile(path, "run log", MaxLogBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var lines []line
	r := bufio.NewReader(bytes.NewReader(data))
	for n := 1; ; n++ {
		text, err := r.ReadBytes('\n')
		if t := bytes.TrimSpace(text); len(t) > 0 {
			lines = append(lines, line{text: t, number: n})
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if len(lines) > 0 {
		lines[len(lines)-1].last = true
	}
	return lines, nil
}

// TrimAfter rewrites the file path keeping only the records whose
// "generation" is at most generation, with a torn last line dropped; lines
// without a "generation" field, and so matches between anchors (generation
// -1), are kept. A run resuming from the
// checkpoint of a generation calls it on metrics.jsonl and ratings.jsonl to
// forget what was written after that checkpoint. The rewrite is atomic (a
// new file renamed over the old one) and kept lines are copied byte for
// byte. A missing file is left missing; a bad line other than the last is
// an error and the file is not changed.
func TrimAfter(path string, generation int) error {
	lines, err := readLines(path)
	if err != nil {
		return err
	}
	if lines == nil {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil
		}
	}
	var buf bytes.Buffer
	for _, l := range lines {
		var rec struct {
			Generation *int `json:"generation"`
		}
		if err := json.Unmarshal(l.text, &rec); err != nil {
			if l.last {
				break
			}
			return fmt.Errorf("%s:%d: %w", path, l.number, err)
		}
		if rec.Generation == nil || *rec.Generation <= generation {
			buf.Write(l.text)
			buf.WriteByte('\n')
		}
	}
	return durable.WriteFile(path, buf.Bytes())
}
