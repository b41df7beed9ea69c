package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
)

// TestSolveSVGMatchesHTTP checks the contract that `xflex solve PROBLEM
// FILE --svg OUT.svg` writes exactly the bytes POST /v1/PROBLEM answers
// with Accept: image/svg+xml, for every problem that has a picture, on
// its example, while stdout keeps the JSON response.
func TestSolveSVGMatchesHTTP(t *testing.T) {
	runner, err := solver.NewRunner(problems.All(), 0)
	if err != nil {
		t.Fatal(err)
	}
	srv := httpapi.New(httpapi.Config{}, runner, zerolog.Nop())
	drawn := 0
	for _, p := range runner.Problems() {
		if p.Picture == nil {
			continue
		}
		drawn++
		t.Run(p.Command(), func(t *testing.T) {
			example, err := os.ReadFile(examplePath(p))
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out.svg")
			stdout, stderr, code := runCLI(t, "solve", p.Command(), examplePath(p), "--svg", out)
			if code != 0 || !strings.HasPrefix(stdout, `{"result":`) {
				t.Fatalf("exit %d, stderr %s, stdout %.200s", code, stderr, stdout)
			}
			cli, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			req := httptest.NewRequest(http.MethodPost, "http://localhost/v1/"+p.Name, bytes.NewReader(example))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "image/svg+xml")
			rec := httptest.NewRecorder()
			srv.Handler().ServeHTTP(rec, req)
			if rec.Code != 200 || !bytes.Equal(cli, rec.Body.Bytes()) {
				t.Errorf("CLI's SVG (%d bytes) and HTTP's (%d, %d bytes) differ", len(cli), rec.Code, rec.Body.Len())
			}
		})
	}
	if drawn == 0 {
		t.Fatal("no problem has a picture")
	}
}

func TestSolveSVGArgs(t *testing.T) {
	for _, c := range []struct {
		args []string
		ok   bool
		svg  string
	}{
		{[]string{"xselect", "f.json"}, true, ""},
		{[]string{"xselect", "f.json", "--svg", "o.svg"}, true, "o.svg"},
		{[]string{"--svg=o.svg", "xselect", "-"}, true, "o.svg"},
		{[]string{"xselect", "f.json", "--svg"}, false, ""},
		{[]string{"xselect", "f.json", "--svg="}, false, ""},
		{[]string{"xselect", "f.json", "--png", "o"}, false, ""},
		{[]string{"xselect"}, false, ""},
	} {
		a, ok := parseSolveArgs(c.args)
		if ok != c.ok || a.svg != c.svg {
			t.Errorf("parseSolveArgs(%q) = %+v, %v; want svg %q, %v", c.args, a, ok, c.svg, c.ok)
		}
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "in.json")
	if err := os.WriteFile(file, []byte(`{"oops"`), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.svg")
	if _, _, code := runCLI(t, "solve", "xselect", file, "--svg", out); code != 1 {
		t.Errorf("malformed input: exit %d, want 1", code)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed solve wrote a picture")
	}
}
