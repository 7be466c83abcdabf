package main

// The JSON API of "dablot serve"'s page (web/app.js): the messages, and the
// handlers that answer them, replaying the request's game and asking the
// analyst. serve.go holds the web server around them.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/mcts/analysis"
)

// Bounds of the web API's input.
const (
	serveMaxBody  = 256 << 10 // bytes of one request body
	serveMaxTurns = 5000      // turns of one game
)

// pointJSON is one point of the board: its name and doubled coordinates
// (x from the left, y from South's side).
type pointJSON struct {
	Name   string `json:"name"`
	X      int    `json:"x"`
	Y      int    `json:"y"`
	Corner bool   `json:"corner"`
}

// boardJSON is the geometry of the board, for drawing it.
type boardJSON struct {
	Cols   int         `json:"cols"`
	Rows   int         `json:"rows"`
	Width  int         `json:"width"`  // doubled grid: x runs 0 … width-1
	Height int         `json:"height"` // and y 0 … height-1
	Points []pointJSON `json:"points"` // by point number
	Lines  [][2]int    `json:"lines"`  // pairs of neighbouring points
}

// infoJSON is the answer of GET /api/info.
type infoJSON struct {
	Variant     string    `json:"variant"`
	Description string    `json:"description"`
	Board       boardJSON `json:"board"`
	Start       string    `json:"start"` // FEN of the variant's start
	Model       string    `json:"model"`
	Search      string    `json:"search"`
	Sims        int       `json:"sims"`     // the default simulations per decision
	MaxSims     int       `json:"max_sims"` // the most a request may ask for
}

// infoResponse is the answer of GET /api/info, the same for every request.
func (s *webServer) infoResponse() infoJSON {
	b := s.r.Board
	bj := boardJSON{Cols: b.Cols, Rows: b.Rows, Width: b.Width, Height: b.Height}
	for p := range b.Points() {
		x, y := b.XY(p)
		bj.Points = append(bj.Points, pointJSON{Name: b.Name(p), X: x, Y: y, Corner: b.IsCorner(p)})
		// Each line once: the four directions N, NE, E, SE.
		for d := game.DirN; d <= game.DirSE; d++ {
			if q := b.Neighbor[p][d]; q >= 0 {
				bj.Lines = append(bj.Lines, [2]int{p, int(q)})
			}
		}
	}
	start := s.r.Start()
	return infoJSON{Variant: s.r.Name, Description: s.r.Description, Board: bj, Start: start.FEN(),
		Model: s.name, Search: s.a.describe(), Sims: s.a.settings.Sims, MaxSims: s.maxSims}
}

// gameRequest is the body of every POST: the game so far and what to do.
type gameRequest struct {
	Setup string   `json:"setup"` // FEN of the first position ("" or "startpos": the variant's start)
	Turns []string `json:"turns"` // the turns played from it
	Human string   `json:"human"` // who the person plays: south, north, both or none (names the record's players)
	Move  string   `json:"move"`  // /api/move: the turn to play
	Sims  int      `json:"sims"`  // /api/engine: simulations per decision (0: the server's default)
	Play  bool     `json:"play"`  // /api/engine: play the best turn (else only analyse)
}

// pieceJSON is a piece on a point.
type pieceJSON struct {
	Point int    `json:"point"`
	Side  string `json:"side"` // south or north
	Rank  string `json:"rank"` // soldier, prince or king
}

// legalJSON is one legal complete turn.
type legalJSON struct {
	Text    string `json:"text"`
	Path    []int  `json:"path"` // the points: start, then each landing point (empty for a pass)
	Capture bool   `json:"capture"`
}

// statusJSON says whether and how the game ended.
type statusJSON struct {
	Over   bool   `json:"over"`
	Result string `json:"result"` // 1-0, 0-1, 1/2-1/2 or *
	Reason string `json:"reason,omitempty"`
	Text   string `json:"text"`
}

// stateJSON is a position of the game with everything the page draws.
type stateJSON struct {
	Setup  string      `json:"setup"` // "" for the variant's start
	Turns  []string    `json:"turns"`
	FEN    string      `json:"fen"`
	Side   string      `json:"side"`   // to move
	Chain  int         `json:"chain"`  // the point in the middle of a capture chain, or -1
	Last   []int       `json:"last"`   // the path of the last turn
	Pieces []pieceJSON `json:"pieces"` // every piece
	Legal  []legalJSON `json:"legal"`  // sorted by notation; none when over
	Status statusJSON  `json:"status"` // the game's end, if over
	PGN    string      `json:"pgn"`    // the game record so far
}

// turnJSON is one turn of the model's analysis.
type turnJSON struct {
	Turn   string     `json:"turn"`
	Visits int        `json:"visits"`
	Value  float32    `json:"value"` // for the side to move
	WDL    [3]float32 `json:"wdl"`   // for the side to move
}

// analysisJSON is the model's view of a position.
type analysisJSON struct {
	Side     string     `json:"side"`      // the side to move, whose view value and wdl take
	Value    float32    `json:"value"`     // of the best turn
	WDL      [3]float32 `json:"wdl"`       // of the best turn
	SouthWDL [3]float32 `json:"south_wdl"` // the same from South's side, for the evaluation bar
	Top      []turnJSON `json:"top"`
	PV       []string   `json:"pv"`
	Sims     int        `json:"sims"`
	Millis   int64      `json:"ms"`
	Proof    *proof     `json:"proof,omitempty"` // once the solver proves the position (off with --solve=false)
	// Tables is the endgame tables' result when they chose the turn
	// (--eg): "win 17" (the settling move in 17 turns), "draw", "loss 9".
	Tables string `json:"tables,omitempty"`
}

// proof is what the solver proved of the position (analysis.Proof).
type proof struct {
	Result    string `json:"result"` // "win", "draw" or "loss", for the side to move
	Decisions int    `json:"decisions"`
}

// proofJSON is p in the answer's form, or nil if nothing was proven.
func proofJSON(p *analysis.Proof) *proof {
	if p == nil {
		return nil
	}
	return &proof{Result: p.Result, Decisions: p.Decisions}
}

// engineJSON is the answer of /api/engine.
type engineJSON struct {
	Analysis analysisJSON `json:"analysis"`
	Move     string       `json:"move,omitempty"` // the turn played, with play
	State    stateJSON    `json:"state"`          // after the move (with play), else the same position
}

// replayed is a game request checked against the rules.
type replayed struct {
	start, pos game.Position
	turns      []string // in canonical notation
	last       []int    // the path of the last turn
	human      string
}

// readGame decodes a request body (at most serveMaxBody bytes, one JSON
// object with known fields only) and replays its game.
func (s *webServer) readGame(w http.ResponseWriter, r *http.Request) (*gameRequest, *replayed, int, error) {
	// Only JSON: a browser sends it to another site only after asking
	// (CORS preflight), which this server never grants.
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, nil, http.StatusUnsupportedMediaType, fmt.Errorf("content type %q: want application/json", r.Header.Get("Content-Type"))
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, serveMaxBody))
	dec.DisallowUnknownFields()
	var req gameRequest
	if err := dec.Decode(&req); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, nil, http.StatusRequestEntityTooLarge, fmt.Errorf("request body over %d bytes", serveMaxBody)
		}
		return nil, nil, http.StatusBadRequest, fmt.Errorf("bad request body: %v", err)
	}
	if dec.More() {
		return nil, nil, http.StatusBadRequest, errors.New("bad request body: more than one JSON value")
	}
	g, err := s.replay(&req)
	if err != nil {
		return nil, nil, http.StatusBadRequest, err
	}
	return &req, g, http.StatusOK, nil
}

// replay checks a request's game and plays it.
func (s *webServer) replay(req *gameRequest) (*replayed, error) {
	switch req.Human {
	case "", "south", "north", "both", "none":
	default:
		return nil, fmt.Errorf("human %q: want south, north, both or none", req.Human)
	}
	if len(req.Turns) > serveMaxTurns {
		return nil, fmt.Errorf("%d turns: at most %d", len(req.Turns), serveMaxTurns)
	}
	start, err := game.ParseSetup(s.r, req.Setup)
	if err != nil {
		return nil, fmt.Errorf("setup: %w", err)
	}
	g := &replayed{start: start, pos: start, turns: []string{}, last: []int{}, human: req.Human}
	played, err := g.pos.ApplyTurns(req.Turns)
	if err != nil {
		return nil, err
	}
	for _, t := range played {
		g.add(t)
	}
	return g, nil
}

// add notes turn t, just played.
func (g *replayed) add(t game.Turn) {
	g.turns = append(g.turns, t.Format(g.pos.Board()))
	g.last = append([]int{}, t.Path...) // [] for a pass
}

// play plays turn t (in the notation) on the replayed game, checking it.
func (g *replayed) play(t string) error {
	turn, ds, err := g.pos.ParseTurn(t)
	if err != nil {
		return err
	}
	for _, d := range ds {
		g.pos.Apply(d)
	}
	g.add(turn)
	return nil
}

// state describes the replayed game's current position.
func (s *webServer) state(g *replayed) stateJSON {
	p := &g.pos
	b := p.Board()
	st := stateJSON{Turns: g.turns, FEN: p.FEN(), Side: p.SideToMove().String(), Chain: p.Chain(),
		Last: g.last, Pieces: []pieceJSON{}, Legal: []legalJSON{}}
	if start := s.r.Start(); g.start.FEN() != start.FEN() {
		st.Setup = g.start.FEN()
	}
	for q := range b.Points() {
		if side, rank, ok := p.PieceAt(q); ok {
			st.Pieces = append(st.Pieces, pieceJSON{Point: q, Side: side.String(), Rank: rank.String()})
		}
	}
	status := p.Status()
	st.Status = statusJSON{Over: status.Over(), Result: status.Outcome.Result()}
	if status.Over() {
		st.Status.Reason = status.Reason.Key()
		st.Status.Text = status.String()
	} else {
		turns, texts := p.SortedTurns()
		for i, t := range turns {
			st.Legal = append(st.Legal, legalJSON{Text: texts[i], Path: append([]int{}, t.Path...), Capture: t.Capture})
		}
		st.Status.Text = sideName(p.SideToMove()) + " to move"
	}
	south, north := s.players(g.human)
	var buf bytes.Buffer
	if err := gameRecord(&g.start, p, g.turns, south, north, nil).WritePGN(&buf); err == nil {
		st.PGN = buf.String()
	}
	return st
}

// players names South and North in the record, given who the person plays.
func (s *webServer) players(human string) (south, north string) {
	switch human {
	case "south":
		return "person", s.name
	case "north":
		return s.name, "person"
	case "both":
		return "person", "person"
	case "none":
		return s.name, s.name
	}
	return "?", "?"
}

// withGame makes the handler of a POST that carries a game: it reads and
// replays the request's game (readGame), answers a bad one with its status
// and reason, and passes a good one to h.
func (s *webServer) withGame(h func(w http.ResponseWriter, r *http.Request, req *gameRequest, g *replayed)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		req, g, code, err := s.readGame(w, r)
		if err != nil {
			writeError(w, code, err)
			return
		}
		h(w, r, req, g)
	}
}

// handleState answers POST /api/state: the game's current position.
func (s *webServer) handleState(w http.ResponseWriter, _ *http.Request, _ *gameRequest, g *replayed) {
	writeJSON(w, http.StatusOK, s.state(g))
}

// handleMove answers POST /api/move: the position after the request's move,
// or why the move is not legal.
func (s *webServer) handleMove(w http.ResponseWriter, _ *http.Request, req *gameRequest, g *replayed) {
	if strings.TrimSpace(req.Move) == "" {
		writeError(w, http.StatusBadRequest, errors.New("move: no turn given"))
		return
	}
	if err := g.play(req.Move); err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	writeJSON(w, http.StatusOK, s.state(g))
}

// handleEngine answers POST /api/engine: the model's analysis of the
// position and, with play, its turn and the position after it.
func (s *webServer) handleEngine(w http.ResponseWriter, r *http.Request, req *gameRequest, g *replayed) {
	lim := s.a.limits() // the player's own budget, unless the page asks for simulations
	if req.Sims != 0 {
		if err := inRange("sims", req.Sims, 1, s.maxSims); err != nil {
			writeError(w, http.StatusBadRequest, err)
			return
		}
		lim = mcts.Limits{Sims: req.Sims, Time: s.a.settings.MoveTime}
	}
	if g.pos.Status().Over() {
		writeError(w, http.StatusBadRequest, analysis.GameOverError(&g.pos))
		return
	}
	pv := 6
	if req.Play {
		pv = 0 // keep the search tree for the next turn
	}
	s.mu.Lock()
	an, err := s.a.Analyse(r.Context(), g.pos, analysis.Query{Limits: lim, Top: 3, PV: pv})
	s.mu.Unlock()
	if err != nil {
		if r.Context().Err() != nil {
			return // the page went away
		}
		writeError(w, http.StatusInternalServerError, fmt.Errorf("search: %w", err))
		return
	}
	b := an.Best()
	res := engineJSON{Analysis: analysisJSON{Side: an.Side.String(), Value: b.Value, WDL: b.WDL,
		SouthWDL: an.WDLFor(game.South), PV: an.PV, Sims: an.Sims, Millis: an.Time.Milliseconds(), Proof: proofJSON(an.Proof)}}
	if an.Tables != nil {
		res.Analysis.Tables = tablesText(an.Tables)
	}
	for _, t := range an.Top {
		res.Analysis.Top = append(res.Analysis.Top, turnJSON{Turn: t.Text, Visits: t.Visits, Value: t.Value, WDL: t.WDL})
	}
	if req.Play {
		if err := g.play(b.Text); err != nil {
			writeError(w, http.StatusInternalServerError, fmt.Errorf("the model's turn %s: %w", b.Text, err))
			return
		}
		res.Move = b.Text
	}
	res.State = s.state(g)
	writeJSON(w, http.StatusOK, res)
}
