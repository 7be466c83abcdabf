package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dablot-zero/dablot/configs"
	"github.com/dablot-zero/dablot/net/model"
	"github.com/dablot-zero/dablot/net/safetensors"
)

// TestChainModels: the models of the 8-hour chains and of the ablations
// load, with their rules covered by their checksums.
func TestChainModels(t *testing.T) {
	var files []string
	for _, dir := range []string{"chains", "ablations"} {
		found, err := filepath.Glob("../../models/" + dir + "/*.dbm")
		if err != nil || len(found) == 0 {
			t.Fatalf("no models in models/%s: %v", dir, err)
		}
		files = append(files, found...)
	}
	for _, path := range files {
		m, err := model.LoadModel(path)
		if err != nil {
			t.Error(err)
			continue
		}
		if m.Metadata[safetensors.MetadataChecksumKey] == "" {
			t.Errorf("%s has no metadata checksum: its rules are not covered", path)
		}
		if err := m.CheckRules(configs.MustVariant(m.Rules.Name)); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
}

// TestShippedModels: every variant of configs/variants has a model in
// models/, and each model loads in info, engine, play and serve and plays
// a move there.
func TestShippedModels(t *testing.T) {
	files, err := filepath.Glob("../../models/*.dbm")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".dbm")
		have[name] = true
		t.Run(name, func(t *testing.T) {
			m, err := model.LoadModel(path)
			if err != nil {
				t.Fatal(err)
			}
			if m.Metadata[safetensors.MetadataChecksumKey] == "" {
				t.Errorf("%s has no metadata checksum: its rules are not covered", path)
			}
			if m.Rules.Name != name {
				t.Fatalf("%s plays %s", path, m.Rules.Name)
			}
			if err := m.CheckRules(configs.MustVariant(name)); err != nil {
				t.Fatalf("rules differ from configs/variants/%s.yaml: %v", name, err)
			}
			if out, err := runCmd(t, "info", path); err != nil || !strings.Contains(out, "variant       "+name) {
				t.Errorf("info: %v\n%s", err, out)
			}
			lines := engineSession(t, "uci\nisready\nposition startpos\ngo sims 8\nquit\n", "--model", path)
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, "bestmove ") {
				t.Errorf("engine: last line %q", last)
			}
			out, err := playScript(t, "hint\nquit\n", "--model", path, "--sims", "8")
			if err != nil || !strings.Contains(out, "the model's best turns") {
				t.Errorf("play: %v\n%s", err, out)
			}
			a, err := newTestAnalyst(m, searchSettings{Sims: 8, Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			srv := httptest.NewServer(newWebServer(a, filepath.Base(path), 100, true))
			defer srv.Close()
			var eng engineJSON
			if code, body := call(t, srv, "POST", "/api/engine", "application/json", `{"turns":[],"play":true,"sims":8}`, nil, &eng); code != http.StatusOK || eng.Move == "" {
				t.Errorf("serve: %d %s", code, body)
			}
		})
	}
	for _, v := range configs.VariantNames() {
		if !have[v] {
			t.Errorf("no models/%s.dbm", v)
		}
	}
}
