package sighttest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Case is a request with the answer the server gives it.
type Case struct {
	Name              string
	Request, Response []byte
}

// Stored returns a problem's example request (ROOT/examples/CLI.json),
// its package's testdata requests (DIR/testdata/*.json) and its extreme
// inputs (ROOT/solver/robust/testdata/CLI-*.json) paired with
// their stored answers (ROOT/solver/problems/testdata/responses/CLI/,
// kept byte-exact by TestStoredResponses), those answers that have a
// result (not errors). root is the repository root and dir the problem's
// package, both relative to the calling test's directory; cli is the
// problem's CLI name. It fails t when it finds no case.
func Stored(t testing.TB, root, cli, dir string) []Case {
	t.Helper()
	answers := filepath.Join(root, "solver", "problems", "testdata", "responses", cli)
	var out []Case
	add := func(prefix, pattern string) {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			name := prefix + strings.TrimSuffix(filepath.Base(f), ".json")
			req, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := os.ReadFile(filepath.Join(answers, name+".json"))
			if err != nil {
				t.Fatalf("%s: no stored answer: %v", f, err)
			}
			if bytes.HasPrefix(resp, []byte(`{"result":`)) {
				out = append(out, Case{Name: name, Request: req, Response: resp})
			}
		}
	}
	add("example-", filepath.Join(root, "examples", cli+".json"))
	add("testdata-", filepath.Join(dir, "testdata", "*.json"))
	add("robust-", filepath.Join(root, "solver", "robust", "testdata", cli+"-*.json"))
	if len(out) == 0 {
		t.Fatalf("no stored answers for %s", cli)
	}
	return out
}

// MaxStoredBytes is the most a stored answer's picture may weigh.
const MaxStoredBytes = 300_000

// EachStored runs a subtest per case Stored finds for cli (root as for
// Stored; the problem's package is the calling test's directory). Each
// draws the case with draw and fails unless the SVG passes Check, a second
// drawing gives the same bytes and it weighs at most MaxStoredBytes; it
// then decodes the stored answer's result into an R and hands it, with
// the case and the SVG's shape, to count, which compares the problem's
// class counts with the answer.
func EachStored[R any](t *testing.T, root, cli string, draw func(req, resp json.RawMessage) ([]byte, error), count func(t *testing.T, c Case, res *R, s Shape)) {
	t.Helper()
	for _, c := range Stored(t, root, cli, ".") {
		t.Run(c.Name, func(t *testing.T) {
			svg, err := draw(c.Request, c.Response)
			if err != nil {
				t.Fatal(err)
			}
			s := Check(t, svg)
			var resp struct{ Result R }
			if err := json.Unmarshal(c.Response, &resp); err != nil {
				t.Fatal(err)
			}
			count(t, c, &resp.Result, s)
			again, _ := draw(c.Request, c.Response)
			if !bytes.Equal(svg, again) {
				t.Error("two drawings of the same answer differ")
			}
			if len(svg) > MaxStoredBytes {
				t.Errorf("SVG is %d bytes", len(svg))
			}
		})
	}
}
