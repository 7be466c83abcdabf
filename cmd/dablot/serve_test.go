package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/mcts"
	"github.com/dablot-zero/dablot/net/model"
)

// newTestWebServer serves a small model of variant spec on 127.0.0.1:0.
func newTestWebServer(t *testing.T, spec string, sims int) *httptest.Server {
	t.Helper()
	m, err := model.LoadModel(testModel(t, spec))
	if err != nil {
		t.Fatal(err)
	}
	a, err := newTestAnalyst(m, searchSettings{Sims: sims, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(newWebServer(a, "test.dbm", 100, true))
	t.Cleanup(func() {
		srv.Close()
		a.Close()
	})
	return srv
}

// call sends a request and decodes the JSON answer into v (if not nil).
func call(t *testing.T, srv *httptest.Server, method, path, contentType, body string, header map[string]string, v any) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, val := range header {
		if k == "Host" {
			req.Host = val
		} else {
			req.Header.Set(k, val)
		}
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if v != nil && res.StatusCode == http.StatusOK {
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("%s %s: %v\n%s", method, path, err, data)
		}
	}
	return res.StatusCode, string(data)
}

// TestServeInfo: the board's geometry comes from the server, for both
// board sizes.
func TestServeInfo(t *testing.T) {
	for _, spec := range []string{"keyland", "frostviken"} {
		srv := newTestWebServer(t, spec, 8)
		var info infoJSON
		if code, body := call(t, srv, "GET", "/api/info", "", "", nil, &info); code != http.StatusOK {
			t.Fatalf("%s: %d %s", spec, code, body)
		}
		b := configs.MustVariant(spec).Board
		if len(info.Board.Points) != b.Points() || len(info.Board.Lines) != b.Lines() || info.Variant != spec {
			t.Errorf("%s: %d points, %d lines; want %d and %d", spec, len(info.Board.Points), len(info.Board.Lines), b.Points(), b.Lines())
		}
		for i, p := range info.Board.Points {
			if x, y := b.XY(i); p.X != x || p.Y != y || p.Name != b.Name(i) {
				t.Errorf("%s: point %d = %+v, want %s at (%d, %d)", spec, i, p, b.Name(i), x, y)
			}
		}
		if info.Sims != 8 || info.MaxSims != 100 {
			t.Errorf("%s: sims %d, max %d", spec, info.Sims, info.MaxSims)
		}
	}
}

// TestServeGame: a game through the API: the state, a move, the engine's
// reply, and the record.
func TestServeGame(t *testing.T) {
	srv := newTestWebServer(t, "keyland", 8)
	var st stateJSON
	if code, body := call(t, srv, "POST", "/api/state", "application/json", `{}`, nil, &st); code != http.StatusOK {
		t.Fatalf("state: %d %s", code, body)
	}
	if len(st.Legal) != 15 || st.Side != "south" || len(st.Pieces) != 60 || st.Chain != -1 || st.Status.Over {
		t.Errorf("start: %d legal, side %s, %d pieces, chain %d", len(st.Legal), st.Side, len(st.Pieces), st.Chain)
	}
	if code, body := call(t, srv, "POST", "/api/move", "application/json", `{"turns":[],"move":"I5-I7","human":"south"}`, nil, &st); code != http.StatusOK {
		t.Fatalf("move: %d %s", code, body)
	}
	if len(st.Turns) != 1 || st.Turns[0] != "i5-i7" || st.Side != "north" || !strings.Contains(st.PGN, "1. i5-i7") {
		t.Errorf("after i5-i7: turns %v, side %s, pgn %q", st.Turns, st.Side, st.PGN)
	}
	var eng engineJSON
	if code, body := call(t, srv, "POST", "/api/engine", "application/json", `{"turns":["i5-i7"],"play":true,"sims":8,"human":"south"}`, nil, &eng); code != http.StatusOK {
		t.Fatalf("engine: %d %s", code, body)
	}
	if len(eng.State.Turns) != 2 || eng.State.Turns[1] != eng.Move || eng.State.Side != "south" {
		t.Errorf("engine: move %q, turns %v, side %s", eng.Move, eng.State.Turns, eng.State.Side)
	}
	a := eng.Analysis
	if a.Side != "north" || len(a.Top) == 0 || a.Top[0].Turn != eng.Move || a.Sims < 8 {
		t.Errorf("analysis %+v", a)
	}
	if sum := a.WDL[0] + a.WDL[1] + a.WDL[2]; sum < 0.999 || sum > 1.001 || a.SouthWDL[0] != a.WDL[2] {
		t.Errorf("wdl %v, south's %v", a.WDL, a.SouthWDL)
	}
	if !strings.Contains(eng.State.PGN, `[South "person"]`) || !strings.Contains(eng.State.PGN, `[North "test.dbm"]`) {
		t.Errorf("record players: %s", eng.State.PGN)
	}
	// Analysis only: the position does not change.
	eng = engineJSON{}
	if code, body := call(t, srv, "POST", "/api/engine", "application/json", `{"turns":["i5-i7"],"sims":8}`, nil, &eng); code != http.StatusOK {
		t.Fatalf("analyse: %d %s", code, body)
	}
	if eng.Move != "" || len(eng.State.Turns) != 1 || len(eng.Analysis.Top) == 0 {
		t.Errorf("analyse: move %q, turns %v", eng.Move, eng.State.Turns)
	}
}

// TestServeProof: with Solve, /api/engine reports the proof the search
// found (a lure of the shipped winther-all-must-capture model, as in
// TestEngineProof) and the best turn's exact result.
func TestServeProof(t *testing.T) {
	m, err := model.LoadModel("../../models/winther-all-must-capture.dbm")
	if err != nil {
		t.Fatal(err)
	}
	a, err := newTestAnalyst(m, searchSettings{Sims: 400, Threads: 1, Search: "gumbel", Solve: true, Forced: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(newWebServer(a, "test.dbm", 400, true))
	defer func() { srv.Close(); a.Close() }()
	var eng engineJSON
	req := `{"turns":["e5-d6","c9-d8","c5-b6","a7xc5xe7"],"sims":400}`
	if code, body := call(t, srv, "POST", "/api/engine", "application/json", req, nil, &eng); code != http.StatusOK {
		t.Fatalf("engine: %d %s", code, body)
	}
	an := eng.Analysis
	if an.Proof == nil || *an.Proof != (proof{Result: "win", Decisions: 5}) {
		t.Fatalf("proof %+v, want a win in 5", an.Proof)
	}
	if best := an.Top[0].Turn; best != "g5-g7" && best != "g5-f6" || an.Value != 1 || an.WDL != [3]float32{1, 0, 0} || an.SouthWDL != [3]float32{1, 0, 0} {
		t.Errorf("best %s, value %v, wdl %v, south's %v: want g5-g7 or g5-f6 and a sure win for South", an.Top[0].Turn, an.Value, an.WDL, an.SouthWDL)
	}
}

// TestServeErrors: every bad request gets a status and a JSON reason.
func TestServeErrors(t *testing.T) {
	srv := newTestWebServer(t, "keyland", 8)
	const js = "application/json"
	won := `{"setup":"6/5/6/5/6/5/6/5/6/5/6/5/S5 n"}`
	for _, tc := range []struct {
		name, method, path, ctype, body string
		header                          map[string]string
		code                            int
		want                            string
	}{
		{"illegal move", "POST", "/api/move", js, `{"move":"i5-i9"}`, nil, 400, "not one step"},
		{"no move", "POST", "/api/move", js, `{"turns":[]}`, nil, 400, "no turn given"},
		{"not notation", "POST", "/api/move", js, `{"move":"hello"}`, nil, 400, "want a step"},
		{"bad turn in game", "POST", "/api/state", js, `{"turns":["i5-i7","zz"]}`, nil, 400, "turn 2"},
		{"bad setup", "POST", "/api/state", js, `{"setup":"x"}`, nil, 400, "setup"},
		{"setup of another board", "POST", "/api/state", js, `{"setup":"sssss/ssss/pssss/ksss/5/SSSK/SSSSP/SSSS/SSSSS s"}`, nil, 400, "setup"},
		{"bad human", "POST", "/api/state", js, `{"human":"alien"}`, nil, 400, `human "alien"`},
		{"unknown field", "POST", "/api/state", js, `{"bogus":1}`, nil, 400, "unknown field"},
		{"not JSON", "POST", "/api/state", js, `{"turns":`, nil, 400, "bad request body"},
		{"two values", "POST", "/api/state", js, `{} {}`, nil, 400, "more than one"},
		{"wrong type", "POST", "/api/state", js, `{"turns":"i5-i7"}`, nil, 400, "bad request body"},
		{"content type", "POST", "/api/state", "text/plain", `{}`, nil, 415, "application/json"},
		// A form or a plain fetch of another page sends no JSON type.
		{"no content type", "POST", "/api/engine", "", `{}`, nil, 415, `content type "": want application/json`},
		{"form", "POST", "/api/engine", "application/x-www-form-urlencoded", `{}`, nil, 415, "want application/json"},
		{"almost JSON", "POST", "/api/engine", "application/jsonx", `{}`, nil, 415, "want application/json"},
		// A page of another site, as the browser reports it.
		{"cross-site", "POST", "/api/engine", js, `{}`, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, "from another site's page refused"},
		{"foreign origin", "POST", "/api/engine", js, `{}`, map[string]string{"Origin": "http://attacker.example"}, 403, "from another site's page refused"},
		{"too big", "POST", "/api/state", js, `{"setup":"` + strings.Repeat("s", serveMaxBody) + `"}`, nil, 413, "over"},
		{"too many turns", "POST", "/api/state", js, `{"turns":[` + strings.Repeat(`"i5-i7",`, serveMaxTurns) + `"i5-i7"]}`, nil, 400, "at most"},
		{"too many sims", "POST", "/api/engine", js, `{"sims":1000}`, nil, 400, "sims 1000: want 1 to 100"},
		{"negative sims", "POST", "/api/engine", js, `{"sims":-1}`, nil, 400, "sims -1"},
		{"game over", "POST", "/api/engine", js, won, nil, 400, "the game is over"},
		{"move after the end", "POST", "/api/move", js, `{"setup":"6/5/6/5/6/5/6/5/6/5/6/5/S5 n","move":"a1-a3"}`, nil, 400, "the game is over"},
		{"unknown API", "GET", "/api/nosuch", "", "", nil, 404, "no API"},
		{"GET of a POST API", "GET", "/api/state", "", "", nil, 405, "method GET: /api/state takes POST"},
		{"POST of a GET API", "POST", "/api/info", js, "{}", nil, 405, "method POST: /api/info takes GET, HEAD"},
		{"DELETE", "DELETE", "/api/engine", "", "", nil, 405, "takes POST"},
		{"POST to the page", "POST", "/", js, "{}", nil, 405, "GET"},
		{"foreign host", "GET", "/", "", "", map[string]string{"Host": "attacker.example:80"}, 403, "localhost"},
	} {
		code, body := call(t, srv, tc.method, tc.path, tc.ctype, tc.body, tc.header, nil)
		var e errorJSON
		if code != tc.code || json.Unmarshal([]byte(body), &e) != nil || !strings.Contains(e.Error, tc.want) {
			t.Errorf("%s: %d %s; want %d and an error with %q", tc.name, code, body, tc.code, tc.want)
		}
	}
}

// TestServeMethods: the API answers a method it does not take with 405 and
// an Allow header, and takes a JSON POST from its own page.
func TestServeMethods(t *testing.T) {
	srv := newTestWebServer(t, "keyland", 8)
	for _, tc := range []struct{ method, path, allow string }{
		{"GET", "/api/state", "POST"},
		{"PUT", "/api/move", "POST"},
		{"POST", "/api/info", "GET, HEAD"},
		{"GET", "/api/nosuch", ""},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		want := http.StatusMethodNotAllowed
		if tc.allow == "" {
			want = http.StatusNotFound
		}
		if res.StatusCode != want || res.Header.Get("Allow") != tc.allow {
			t.Errorf("%s %s: %d, Allow %q; want %d, Allow %q", tc.method, tc.path, res.StatusCode, res.Header.Get("Allow"), want, tc.allow)
		}
	}
	// The page's own requests pass: same origin, JSON with a charset.
	same := map[string]string{"Origin": srv.URL, "Sec-Fetch-Site": "same-origin"}
	if code, body := call(t, srv, "POST", "/api/state", "application/json; charset=utf-8", `{}`, same, nil); code != http.StatusOK {
		t.Errorf("the page's own POST: %d %s", code, body)
	}
}

// howToMove is the page's one line on how to move.
const howToMove = "Click a piece, then the point it moves to; for a capture chain click each landing point in turn."

// TestServeStatic: the embedded page, with its security headers; the page
// says how to move.
func TestServeStatic(t *testing.T) {
	srv := newTestWebServer(t, "frostviken", 8)
	for _, tc := range []struct{ path, want string }{
		{"/", "<text class=\"placeholder\""},
		{"/", `<p id="howto">` + howToMove + "</p>"},
		{"/app.js", "/api/engine"},
		{"/style.css", "#board"},
	} {
		res, err := srv.Client().Get(srv.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(string(data), tc.want) || !strings.Contains(res.Header.Get("Content-Security-Policy"), "default-src 'self'") {
			t.Errorf("%s: %d, CSP %q, body lacks %q", tc.path, res.StatusCode, res.Header.Get("Content-Security-Policy"), tc.want)
		}
	}
}

// TestServeFlags: command-line errors of "dablot serve".
func TestServeFlags(t *testing.T) {
	model := testModel(t, "keyland")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"serve"}, 2, "--model FILE is required"},
		{[]string{"serve", "--model", model, "--max-sims", "0"}, 2, "--max-sims 0"},
		{[]string{"serve", "--model", model, "--sims", "900", "--max-sims", "100"}, 2, "more than --max-sims"},
		{[]string{"serve", "--model", model, "--addr", "nonsense"}, 1, "nonsense"},
		{[]string{"serve", "--model", "/nonexistent.dbm"}, 1, "no such file"},
	} {
		code, _, stderr := run(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost:8080": true, "LOCALHOST": true, "127.0.0.1:1": true, "127.1.2.3": true, "[::1]:80": true, "::1": true,
		"example.com": false, "10.0.0.1:80": false, "localhost.evil.com": false, "": false,
	} {
		if got := loopbackHost(host); got != want {
			t.Errorf("loopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestServeTables: in an ending of three pieces /api/engine answers from
// the endgame tables (--eg, on by default where the rules allow them): the
// tables' result, the exact value, no search.
func TestServeTables(t *testing.T) {
	m, err := model.LoadModel("../../models/dablot.dbm")
	if err != nil {
		t.Fatal(err)
	}
	a, err := newTestAnalyst(m, searchSettings{Sims: 16, Threads: 1, Endgames: mcts.MaxEndgamePieces})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(newWebServer(a, "test.dbm", 16, true))
	defer func() { srv.Close(); a.Close() }()
	var eng engineJSON
	// King and prince against a soldier, the soldier's side to move: lost.
	req := `{"setup":"1p4/5/4k1/5/6/5/6/5/1S4/5/6/5/6 s - 0 264","sims":16}`
	if code, body := call(t, srv, "POST", "/api/engine", "application/json", req, nil, &eng); code != http.StatusOK {
		t.Fatalf("engine: %d %s", code, body)
	}
	an := eng.Analysis
	if !strings.HasPrefix(an.Tables, "loss ") || an.Sims != 0 || an.Value != -1 || an.WDL != [3]float32{0, 0, 1} || len(an.Top) != 1 {
		t.Errorf("analysis %+v: want the tables' loss, value -1, no simulations", an)
	}
}
