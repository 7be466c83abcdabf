package main

// What the front ends "play", "engine" and "serve" share beyond the model's
// player (analyst.go): reading their input line by line, the game records
// they write, and the names of the sides.

import (
	"bufio"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/dablot-zero/dablot/game"
)

// inputLine is one line of a front end's input, without its end.
type inputLine struct {
	text    string
	tooLong bool // the line was over the limit: text is empty
}

// readInput reads in line by line in a goroutine and sends the lines on the
// first channel it returns; a line of more than limit bytes is read to its
// end and sent empty with tooLong set. At the end of the input it sends the
// read error (nil at io.EOF) on the second channel, which has room for it,
// and closes the first. It stops early when done is closed.
func readInput(in io.Reader, limit int, done <-chan struct{}) (<-chan inputLine, <-chan error) {
	lines := make(chan inputLine)
	errc := make(chan error, 1)
	go func() {
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			text, tooLong, err := readBoundedLine(br, limit)
			if tooLong || text != "" || err == nil {
				select {
				case lines <- inputLine{text, tooLong}:
				case <-done:
					return
				}
			}
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				errc <- err
				close(lines)
				return
			}
		}
	}()
	return lines, errc
}

// readBoundedLine reads one line without its end (\n or \r\n). A line longer
// than limit is read to its end and dropped, with tooLong set.
func readBoundedLine(br *bufio.Reader, limit int) (line string, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if len(buf)+len(chunk) > limit {
			tooLong = true
		} else {
			buf = append(buf, chunk...)
		}
		if err != nil {
			if tooLong {
				return "", true, err
			}
			return string(buf), false, err
		}
		if !isPrefix {
			if tooLong {
				return "", true, nil
			}
			return string(buf), false, nil
		}
	}
}

// gameRecord is the record that play and serve write of a game: from start,
// the turns played (in the notation) up to end, the players, the result if
// the game is over at end, and the date with any more tags.
func gameRecord(start, end *game.Position, turns []string, south, north string, tags map[string]string) *game.Record {
	rec := game.NewRecord(start.Rules(), start)
	rec.South, rec.North = south, north
	rec.Turns = slices.Clone(turns)
	if st := end.Status(); st.Over() {
		rec.Finish(st)
	}
	rec.Tags = map[string]string{"Date": time.Now().Format("2006.01.02")}
	maps.Copy(rec.Tags, tags)
	return rec
}

// sideName is "South" or "North".
func sideName(s game.Side) string {
	if s == game.South {
		return "South"
	}
	return "North"
}
