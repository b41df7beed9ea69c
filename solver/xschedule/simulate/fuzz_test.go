package simulate

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/xflex/xflex/solver/solvertest"
)

// FuzzSimulate: any body gets a typed error or an answer, never a panic;
// an accepted request's X-Schedule run keeps the invariants.
func FuzzSimulate(f *testing.F) {
	run := solvertest.FuzzRunner(f, Problem(), filepath.Join("..", "..", "..", "examples", "xschedule-simulate.json"), filepath.Join("testdata", "placement.json"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		resp := run(t, raw)
		if resp == nil {
			return
		}
		var req Request
		if err := json.Unmarshal(raw, &req); err != nil {
			t.Fatalf("accepted request does not decode: %v", err)
		}
		if req.Placement == nil {
			checkXRun(t, "fuzz", &req, resp.Result.(*Result))
		}
	})
}
