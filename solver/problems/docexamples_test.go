package problems_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/problems"
)

// docExamples is where each problem's documented example answer lives,
// beside the README that pairs it with its request in examples/.
var docExamples = filepath.Join("..", "..", "docs", "examples")

// TestDocExamples: docs/examples/PROBLEM.response.json is what
// examples/PROBLEM.json answers, indented, with meta.elapsed_ms (and
// fairshare's deprecated result.elapsed_ms) zeroed, so the documented
// answers stay current; -update rewrites them. Every file there answers a
// problem's example, and the README there links every one.
func TestDocExamples(t *testing.T) {
	r, err := solver.NewRunner(problems.All(), 0)
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(docExamples, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, p := range r.Problems() {
		if !bytes.Contains(readme, []byte("("+p.Command()+".response.json)")) {
			t.Errorf("docs/examples/README.md does not link %s.response.json: add the problem's row", p.Command())
		}
		raw, err := os.ReadFile(filepath.Join("..", "..", "examples", p.Command()+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := json.Indent(&got, answer(t, r, p, raw), "", "  "); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(docExamples, p.Command()+".response.json")
		want[path] = true
		if *update {
			if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		have, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(have, got.Bytes()) {
			t.Errorf("%s is not what examples/%s.json answers now (%v); rewrite it with go test ./solver/problems -run TestDocExamples -update",
				path, p.Command(), err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(docExamples, "*.response.json"))
	for _, f := range files {
		if !want[f] {
			t.Errorf("%s answers no problem's example; delete it", f)
		}
	}
}
