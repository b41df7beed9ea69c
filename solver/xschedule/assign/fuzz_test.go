package assign

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/xflex/xflex/solver/solvertest"
)

// FuzzRound: any body gets a typed error or an answer, never a panic;
// Build, which runs on bodies not yet validated (PreBuild), returns on
// any decoded request; an accepted request's decisions keep the
// invariants.
func FuzzRound(f *testing.F) {
	run := solvertest.FuzzRunner(f, Problem(), filepath.Join("..", "..", "..", "examples", "xschedule-assign.json"), filepath.Join("testdata", "placement.json"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var req Request
		if json.Unmarshal(raw, &req) == nil {
			_, _ = Build(&req) // must return on unvalidated input
		}
		if run(t, raw) == nil {
			return
		}
		m, err := Build(&req)
		if err != nil {
			t.Fatalf("accepted request does not build: %v", err)
		}
		if req.Placement == nil {
			rd, _ := m.decide(context.Background())
			checkRound(t, "fuzz", &req, rd, m.pairList())
		}
	})
}
