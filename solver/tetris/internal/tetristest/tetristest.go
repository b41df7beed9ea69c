// Package tetristest has the test helpers tetris/assign and tetris/simulate
// share, on top of solvertest: typed results, the testdata sweep, expected
// violations and the decoder fuzz target.
package tetristest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/solvertest"
)

// Result solves raw with solvertest.Check (schema-valid response,
// deterministic) and decodes the response's result into R.
func Result[R any](t testing.TB, p solver.Problem, raw []byte) *R {
	t.Helper()
	out := solvertest.Check(t, p, raw)
	b, err := json.Marshal(out["result"])
	if err != nil {
		t.Fatal(err)
	}
	var res R
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	return &res
}

// Testdata runs solvertest.Check on every testdata/*.json request, failing
// when there are fewer than min of them.
func Testdata(t *testing.T, p solver.Problem, min int) {
	t.Helper()
	files, err := filepath.Glob("testdata/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < min {
		t.Fatalf("want at least %d testdata files, have %d", min, len(files))
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(f), func(t *testing.T) { solvertest.Check(t, p, raw) })
	}
}

// ExpectViolation fails unless body is rejected with the given kind and a
// violation at ptr.
func ExpectViolation(t *testing.T, p solver.Problem, body string, kind solver.Kind, ptr string) {
	t.Helper()
	xe := solvertest.ExpectError(t, p, []byte(body), kind)
	for _, v := range xe.Violations {
		if v.Pointer == ptr {
			return
		}
	}
	t.Fatalf("no violation at %q: %+v", ptr, xe.Violations)
}

// Fuzz runs the fuzz target every Tetris decoder gets: any body up to
// maxLen bytes, after prepare (nil: as is), must be solved with a response
// that encodes (no NaN or ±Inf: the HTTP API would answer 500) or refused
// with a typed *solver.Error other than KindInternal, never panic.
func Fuzz(f *testing.F, p solver.Problem, maxLen int, prepare func([]byte) []byte) {
	r, err := solver.NewRunner([]solver.Problem{p}, 0)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) > maxLen {
			return
		}
		if prepare != nil {
			raw = prepare(raw)
		}
		resp, err := r.Run(context.Background(), p.Name, raw)
		if err != nil {
			xe, ok := err.(*solver.Error)
			if !ok {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			if xe.Kind == solver.KindInternal {
				t.Fatalf("internal error on %s: %v", raw, xe)
			}
			return
		}
		if _, err := resp.AppendJSON(nil); err != nil {
			t.Fatalf("response to %s does not encode: %v", raw, err)
		}
	})
}
