package cmmf

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/solvertest"
)

// TestExamples runs every request in testdata through the Runner twice
// (schema-valid response, byte-identical runs).
func TestExamples(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out := solvertest.Check(t, Problem(), raw)
			meta := out["meta"].(map[string]any)
			if meta["status"] != string(solver.StatusOptimal) {
				t.Fatalf("status %v", meta["status"])
			}
		})
	}
}
