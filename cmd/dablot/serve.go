package main

// "dablot serve": the command and the web server around the page's JSON API
// (serve_api.go): it serves the page and guards the API (loopback hosts only
// by default, no POST from another site's page, security headers).

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/dablot-zero/dablot/game"
	"github.com/dablot-zero/dablot/mcts"
)

// cmdServe serves the web page.
var cmdServe = &command{
	name:  "serve",
	usage: "--model FILE [--addr 127.0.0.1:8080] [--sims N] [--max-sims N] [--gumbel] [--variant V]",
	short: "play a model in the web browser",
	long: `Serves a page to play the model at http://ADDR/: the board, the model's evaluation and
best turns, the move list with undo, positions from FEN and the game record. The page
talks to a small JSON API under /api/. The address is loopback by default; on another
address anyone who can reach it can use the engine.`,
	run: runServe,
}

// webFiles are the page's static files: plain HTML, CSS and JavaScript.
//
//go:embed web
var webFiles embed.FS

// runServe runs "dablot serve" until interrupted.
func runServe(args []string, out io.Writer) error {
	fs := newFlags("serve", out)
	model := fs.String("model", "", "model file (required)")
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks a free one)")
	variant := fs.String("variant", "", "variant (default: the model's; if given, it must match)")
	maxSims := rangeFlag(fs, "max-sims", 5000, 1, mcts.MaxSims, "the most simulations per decision the page may ask for")
	var ss searchSettings
	ss.addFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *model == "":
		return usagef("--model FILE is required")
	case ss.Sims > *maxSims:
		return usagef("--sims %d is more than --max-sims %d", ss.Sims, *maxSims)
	}
	a, err := openAnalyst(*model, *variant, ss)
	if err != nil {
		return err
	}
	defer a.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	loopback := isLoopbackAddr(ln.Addr())
	srv := newWebServer(a, modelName(*model, a.model), *maxSims, loopback)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Fprintf(out, "serving %s (%s) at http://%s/ (Ctrl-C to stop)\n", srv.name, a.model.Rules.Name, ln.Addr())
	if !loopback {
		fmt.Fprintf(out, "warning: %s is not a loopback address: anyone who can reach it can use the engine\n", ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return hs.Shutdown(shutdown)
}

// isLoopbackAddr reports whether a listener's address is on the loopback
// interface.
func isLoopbackAddr(a net.Addr) bool {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.IsLoopback()
	}
	return false
}

// webServer is the page and its JSON API. The API is stateless: every
// request carries the game (the setup and the turns), which the server
// replays and checks.
type webServer struct {
	mu       sync.Mutex // one search at a time: the analyst is not safe for concurrent use
	a        *analyst
	r        *game.Rules
	name     string
	maxSims  int
	loopback bool // refuse requests whose Host is not a loopback name (DNS rebinding)
	info     []byte
	mux      *http.ServeMux
	origin   *http.CrossOriginProtection // refuses a POST another site's page sends
}

// apiRoute is one call of the JSON API.
type apiRoute struct {
	method, path string
	handle       http.HandlerFunc
}

// allow is the Allow header of a route: GET serves HEAD too.
func (a apiRoute) allow() string {
	if a.method == http.MethodGet {
		return "GET, HEAD"
	}
	return a.method
}

// newWebServer makes the page and the API of the model behind a.
func newWebServer(a *analyst, name string, maxSims int, loopback bool) *webServer {
	s := &webServer{a: a, r: a.Rules(), name: name, maxSims: maxSims, loopback: loopback, mux: http.NewServeMux(),
		origin: http.NewCrossOriginProtection()}
	s.info = mustJSON(s.infoResponse())
	static, err := fs.Sub(webFiles, "web")
	if err != nil {
		panic(err) // cannot happen: the directory is embedded
	}
	files := http.FileServerFS(static)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, http.StatusMethodNotAllowed, fmt.Errorf("method %s: the page is read with GET", r.Method))
			return
		}
		files.ServeHTTP(w, r)
	})
	api := []apiRoute{
		{http.MethodGet, "/api/info", func(w http.ResponseWriter, _ *http.Request) { writeJSONBytes(w, http.StatusOK, s.info) }},
		{http.MethodPost, "/api/state", s.withGame(s.handleState)},
		{http.MethodPost, "/api/move", s.withGame(s.handleMove)},
		{http.MethodPost, "/api/engine", s.withGame(s.handleEngine)},
	}
	var names []string
	for _, a := range api {
		s.mux.HandleFunc(a.method+" "+a.path, a.handle)
		names = append(names, a.method+" "+a.path)
	}
	// Anything else under /api/: a known path asked with another method,
	// or no API at all.
	s.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		for _, a := range api {
			if a.path == r.URL.Path {
				w.Header().Set("Allow", a.allow())
				writeError(w, http.StatusMethodNotAllowed, fmt.Errorf("method %s: %s takes %s", r.Method, a.path, a.allow()))
				return
			}
		}
		writeError(w, http.StatusNotFound, fmt.Errorf("no API %s %s (%s)", r.Method, r.URL.Path, strings.Join(names, ", ")))
	})
	return s
}

// ServeHTTP checks the Host, sets the security headers and dispatches.
func (s *webServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.loopback && !loopbackHost(r.Host) {
		writeError(w, http.StatusForbidden, fmt.Errorf("host %q: this server answers only to localhost, 127.0.0.1 or [::1]", r.Host))
		return
	}
	// A page of another site may not make the engine search (a POST it
	// sends without asking first); GET and HEAD are harmless.
	if err := s.origin.Check(r); err != nil {
		writeError(w, http.StatusForbidden, fmt.Errorf("%s from another site's page refused: %v", r.Method, err))
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if strings.HasPrefix(r.URL.Path, "/api/") {
		h.Set("Cache-Control", "no-store")
	}
	s.mux.ServeHTTP(w, r)
}

// loopbackHost reports whether a Host header names the loopback interface.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// errorJSON is the answer to a bad request.
type errorJSON struct {
	Error string `json:"error"`
}

// writeError answers with a status and {"error": reason}.
func writeError(w http.ResponseWriter, code int, err error) {
	writeJSON(w, code, errorJSON{Error: err.Error()})
}

// writeJSON answers with a status and v as JSON.
func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		code, data = http.StatusInternalServerError, mustJSON(errorJSON{Error: fmt.Sprintf("encoding the answer: %v", err)})
	}
	writeJSONBytes(w, code, data)
}

// writeJSONBytes answers with a status and JSON already encoded.
func writeJSONBytes(w http.ResponseWriter, code int, data []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	w.Write(data)
	w.Write([]byte("\n"))
}

// mustJSON encodes v, which holds only strings and integers.
func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("serve: encoding %T: %v", v, err)) // cannot happen: no floats, no channels
	}
	return data
}
