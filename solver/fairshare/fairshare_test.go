package fairshare

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/xflex/xflex/solver/solvertest"
)

// TestGolden runs every request in testdata through the Runner twice:
// schema-valid response, byte-identical apart from elapsed_ms, and an
// optimal status only with a certified gap below 1e-6.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, fn := range files {
		t.Run(filepath.Base(fn), func(t *testing.T) {
			raw, err := os.ReadFile(fn)
			if err != nil {
				t.Fatal(err)
			}
			out := solvertest.Check(t, Problem(), raw)
			meta := out["meta"].(map[string]any)
			if gap, ok := meta["gap"].(float64); ok && meta["status"] == "optimal" && gap > 1e-6 {
				t.Fatalf("optimal with gap %g", gap)
			}
			if testing.Verbose() {
				t.Logf("%v", meta)
			}
		})
	}
}
