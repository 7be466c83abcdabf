package game_test

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/game"
)

// The fixtures in testdata/reference (see its README.md) are legal turns and
// perft counts from independent implementations (Ludii for keyland; two
// agreeing checkers for dablot and winther).

type refPosition struct {
	FEN   string   `json:"fen"`
	Count int      `json:"count"`
	Turns []string `json:"turns"`
}

type refPerft struct {
	FEN string `json:"fen"`
	D1  int64  `json:"d1"`
	D2  int64  `json:"d2"`
	D3  int64  `json:"d3"`
}

func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func formatTurns(p *game.Position) []string {
	var out []string
	for _, t := range p.Turns() {
		out = append(out, t.Format(p.Board()))
	}
	slices.Sort(out)
	return out
}

func TestReferencePositions(t *testing.T) {
	for _, tc := range []struct{ variant, file string }{
		{"keyland", "testdata/reference/ludii-keyland-positions.jsonl"},
		{"dablot", "testdata/reference/oracle-dablot-positions.jsonl"},
		{"winther", "testdata/reference/oracle-winther-positions.jsonl"},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			r := configs.MustVariant(tc.variant)
			refs := readJSONL[refPosition](t, tc.file)
			if len(refs) < 100 {
				t.Fatalf("only %d reference positions", len(refs))
			}
			bad := 0
			for _, ref := range refs {
				p, err := game.ParseFEN(r, ref.FEN)
				if err != nil {
					t.Fatalf("%s: %v", ref.FEN, err)
				}
				got := formatTurns(&p)
				if len(ref.Turns) != ref.Count {
					t.Fatalf("fixture inconsistent: %s", ref.FEN)
				}
				if !slices.Equal(got, ref.Turns) {
					bad++
					if bad <= 5 {
						t.Errorf("%s\n  missing: %v\n  extra:   %v", ref.FEN, diff(ref.Turns, got), diff(got, ref.Turns))
					}
				}
				// Every turn also round-trips through parsing and decisions.
				for _, s := range got {
					q := p
					if err := q.ApplyTurn(s); err != nil {
						t.Fatalf("%s: turn %s: %v", ref.FEN, s, err)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d positions differ", bad, len(refs))
			}
		})
	}
}

func diff(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

func TestReferencePerft(t *testing.T) {
	r := configs.MustVariant("keyland")
	for _, ref := range readJSONL[refPerft](t, "testdata/reference/ludii-keyland-perft.jsonl") {
		p, err := game.ParseFEN(r, ref.FEN)
		if err != nil {
			t.Fatal(err)
		}
		for d, want := range []int64{ref.D1, ref.D2, ref.D3} {
			if got := p.PerftTurns(d + 1); got != want {
				t.Errorf("%s: perft(%d) = %d, want %d", ref.FEN, d+1, got, want)
			}
		}
	}
}

// Perft from the start, from the tables in testdata/reference/README.md.
func TestStartPerft(t *testing.T) {
	tests := []struct {
		variant   string
		decisions bool
		want      []int64
	}{
		{"keyland", false, []int64{15, 223, 4361, 85421, 1862477}},
		{"keyland", true, []int64{15, 223, 4361, 84329, 1807597}},
		{"dablot", false, []int64{15, 155, 1941, 24839}},
		{"winther", false, []int64{15, 167, 2041, 25414}},
	}
	for _, tc := range tests {
		name := tc.variant + "/turns"
		if tc.decisions {
			name = tc.variant + "/decisions"
		}
		t.Run(name, func(t *testing.T) {
			p := configs.MustVariant(tc.variant).Start()
			for d, want := range tc.want {
				if testing.Short() && d >= 4 {
					break
				}
				var got int64
				if tc.decisions {
					got = p.PerftDecisions(d + 1)
				} else {
					got = p.PerftTurns(d + 1)
				}
				if got != want {
					t.Errorf("perft(%d) = %d, want %d", d+1, got, want)
				}
			}
			start := configs.MustVariant(tc.variant).Start()
			if p.FEN() != start.FEN() || p.Hash() != start.Hash() {
				t.Error("perft changed the position")
			}
		})
	}
}
