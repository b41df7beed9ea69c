package ui_test

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/xflex/xflex/httpapi"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
)

func serve(t *testing.T, h http.Handler, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://localhost"+path, nil)) // a loopback Host (hosts.go)
	return rec
}

// TestPageServed: /ui and /ui/ are the page, under a
// Content-Security-Policy that keeps it to its own server; every file
// the page names is served with its type; an unknown one is a 404.
func TestPageServed(t *testing.T) {
	runner, err := solver.NewRunner(problems.All(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	h := httpapi.New(httpapi.Config{}, runner, zerolog.Nop()).Handler()
	if rec, slash := serve(t, h, "/ui"), serve(t, h, "/ui/"); rec.Code != 200 || rec.Body.String() != slash.Body.String() {
		t.Fatalf("GET /ui: %d, not the page /ui/ serves", rec.Code)
	}
	page := serve(t, h, "/ui/")
	if page.Code != 200 || !strings.HasPrefix(page.Header().Get("Content-Type"), "text/html") ||
		!strings.Contains(page.Body.String(), "<title>xflex planner</title>") {
		t.Fatalf("GET /ui/: %d %q %.100q", page.Code, page.Header().Get("Content-Type"), page.Body.String())
	}
	if csp := page.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") ||
		!strings.Contains(csp, "connect-src 'self'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	types := map[string]string{".js": "text/javascript", ".css": "text/css"}
	for _, name := range staticFiles(t) {
		rec := serve(t, h, "/ui/"+name)
		if want := types[filepath.Ext(name)]; rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), want) {
			t.Errorf("GET /ui/%s: %d %q", name, rec.Code, rec.Header().Get("Content-Type"))
		}
	}
	for _, bad := range []string{"/ui/nope.js", "/ui/index.html", "/ui/..%2Fui.go", "/ui/static"} {
		if rec := serve(t, h, bad); rec.Code != 404 || rec.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("GET %s: %d %q", bad, rec.Code, rec.Header().Get("Content-Type"))
		}
	}
}

// staticFiles lists the page's files other than index.html.
func staticFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := fs.WalkDir(os.DirFS("static"), ".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && path != "index.html" {
			out = append(out, path)
		}
		return err
	})
	if err != nil || len(out) == 0 {
		t.Fatalf("static files %v: %v", out, err)
	}
	return out
}

// TestPageNeedsNoNetwork: no file of the page names another host (no
// CDN, no font or script from outside), and every file index.html and
// the modules load is one of the page's own.
func TestPageNeedsNoNetwork(t *testing.T) {
	external := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}`)
	local := regexp.MustCompile(`(?:src|href)="([^"]*)"|from "\./([^"]+)"`)
	for _, name := range append(staticFiles(t), "index.html") {
		b, err := os.ReadFile(filepath.Join("static", name))
		if err != nil {
			t.Fatal(err)
		}
		if m := external.Find(b); m != nil {
			t.Errorf("%s names another host: %s", name, m)
		}
		for _, m := range local.FindAllSubmatch(b, -1) {
			ref, found := strings.CutPrefix(string(m[1]), "/ui/")
			if len(m[2]) > 0 {
				ref, found = string(m[2]), true
			}
			if _, err := os.Stat(filepath.Join("static", ref)); !found || err != nil {
				t.Errorf("%s loads %q, which the page does not have", name, ref)
			}
		}
	}
}

// TestExamplesServed: every problem lists its example in /v1/problems,
// and GET there answers examples/COMMAND.json byte for byte.
func TestExamplesServed(t *testing.T) {
	runner, err := solver.NewRunner(problems.All(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	h := httpapi.New(httpapi.Config{}, runner, zerolog.Nop()).Handler()
	var list struct {
		Problems []struct{ Name, Command, Example string }
	}
	if err := json.Unmarshal(serve(t, h, "/v1/problems").Body.Bytes(), &list); err != nil || len(list.Problems) == 0 {
		t.Fatalf("problem list: %v", err)
	}
	for _, p := range list.Problems {
		want, err := os.ReadFile(filepath.Join("..", "..", "examples", p.Command+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if p.Example != "/v1/examples/"+p.Name {
			t.Errorf("%s lists its example at %q", p.Name, p.Example)
			continue
		}
		rec := serve(t, h, p.Example)
		if rec.Code != 200 || rec.Body.String() != string(want) || rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("GET %s: %d %q, %d bytes (file: %d)", p.Example, rec.Code, rec.Header().Get("Content-Type"), rec.Body.Len(), len(want))
		}
	}
	if rec := serve(t, h, "/v1/examples/nope"); rec.Code != 404 {
		t.Errorf("unknown example: %d", rec.Code)
	}
}
