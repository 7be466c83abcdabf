package configs

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"strings"

	"github.com/dablot-zero/dablot/game"
)

//go:embed books/*.txt
var bookFS embed.FS

// BookNames returns the variants that have a built-in opening book
// (books/NAME.txt), sorted.
func BookNames() []string { return embeddedNames(bookFS, "books", ".txt") }

// BookPath returns where the built-in book of a variant lives in the
// repository, as its errors name it.
func BookPath(name string) string { return "configs/books/" + name + ".txt" }

// BookText returns the text of the built-in book of a variant.
func BookText(name string) ([]byte, error) {
	data, ok := embeddedFile(bookFS, "books", name, ".txt")
	if !ok {
		return nil, fmt.Errorf("no opening book for %q (books: %s)", name, strings.Join(BookNames(), ", "))
	}
	return data, nil
}

// Book returns the built-in opening book of r: the openings of the
// built-in variant of r's name, when r has exactly that variant's rules.
// ok is false when there is none (another variant, or the rules changed by
// overrides); err is set if the book does not parse.
func Book(r *game.Rules) (openings []game.Position, ok bool, err error) {
	data, err := BookText(r.Name)
	if err != nil {
		return nil, false, nil
	}
	builtin, err := Variant(r.Name)
	if err != nil || builtin.Fingerprint() != r.Fingerprint() {
		return nil, false, nil
	}
	openings, err = ParseBook(r, BookPath(r.Name), data)
	return openings, err == nil, err
}

// MaxBookBytes bounds an opening book file: some thousands of openings.
const MaxBookBytes = 4 << 20

// ParseBook reads an opening book of variant r: one position a line, in
// the FEN that game.ParseFEN reads; "#" starts a comment (to the end of the
// line) and blank lines are skipped. Every opening must be a game that is
// not over, and no line may repeat another. An error names the book (name)
// and the line: "configs/books/dablot.txt:7: ...".
func ParseBook(r *game.Rules, name string, data []byte) ([]game.Position, error) {
	if len(data) > MaxBookBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than an opening book may have (%d)", name, len(data), MaxBookBytes)
	}
	var openings []game.Position
	first := map[string]int{} // FEN → line of its first use
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text, _, _ := strings.Cut(sc.Text(), "#")
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		p, err := game.ParseFEN(r, text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if st := p.Status(); st.Over() {
			return nil, fmt.Errorf("%s:%d: the game is already over (%s)", name, line, st)
		}
		if len(p.Decisions(nil)) == 0 {
			return nil, fmt.Errorf("%s:%d: the side to move has no legal decision", name, line)
		}
		fen := p.FEN()
		if at, dup := first[fen]; dup {
			return nil, fmt.Errorf("%s:%d: the same opening as line %d", name, line, at)
		}
		first[fen] = line
		openings = append(openings, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if len(openings) == 0 {
		return nil, fmt.Errorf("%s: no openings (want one FEN a line of variant %s; # starts a comment)", name, r.Name)
	}
	return openings, nil
}
