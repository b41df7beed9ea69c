package solvertest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/xflex/xflex/solver"
)

// FuzzRunner seeds f with the bodies of files and returns run, which
// solves a body through a Runner holding only p (200 ms default budget),
// as a fuzz target does: it fails t on an error that is not a
// *solver.Error (any body gets a typed error or an answer) and returns
// the response, or nil when the body was rejected.
func FuzzRunner(f *testing.F, p solver.Problem, files ...string) (run func(t *testing.T, raw []byte) *solver.Response) {
	f.Helper()
	for _, fn := range files {
		raw, err := os.ReadFile(fn)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	r, err := solver.NewRunner([]solver.Problem{p}, 200*time.Millisecond)
	if err != nil {
		f.Fatal(err)
	}
	return func(t *testing.T, raw []byte) *solver.Response {
		t.Helper()
		resp, err := r.Run(context.Background(), p.Name, raw)
		if err != nil {
			if _, ok := err.(*solver.Error); !ok {
				t.Fatalf("non-typed error %T: %v", err, err)
			}
			return nil
		}
		return resp
	}
}
