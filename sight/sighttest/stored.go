package sighttest

import (
	"bytes"
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
