package solvertest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/xflex/xflex/solver"
)

// Files reads every file matching glob (a problem's testdata requests).
func Files(t *testing.T, glob string) [][]byte {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil {
		t.Fatal(err)
	}
	var bodies [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	return bodies
}

// DecodeMatches checks that a problem's own decoder (a Typed.Decode such
// as solver.DecodeSonic) gives, on every body, the request solver.Decode
// gives, and that it refuses unknown, a body with an unknown field.
func DecodeMatches[Req any](t *testing.T, decode func(json.RawMessage) (*Req, error), bodies [][]byte, unknown string) {
	t.Helper()
	for k, b := range bodies {
		got, err := decode(b)
		if err != nil {
			t.Fatalf("body %d: %v", k, err)
		}
		var want Req
		if err := solver.Decode(b, &want); err != nil {
			t.Fatalf("body %d: %v", k, err)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("body %d: decoded %+v, encoding/json %+v", k, *got, want)
		}
	}
	if _, err := decode([]byte(unknown)); err == nil {
		t.Errorf("%s decoded without error", unknown)
	}
}
