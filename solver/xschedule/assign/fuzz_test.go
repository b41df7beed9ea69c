package assign

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/xflex/xflex/solver"
)

// FuzzRound: any body gets a typed error or an answer, never a panic;
// Build, which runs on bodies not yet validated (PreBuild), returns on
// any decoded request; an accepted request's decisions keep the
// invariants.
func FuzzRound(f *testing.F) {
	for _, fn := range []string{filepath.Join("..", "..", "..", "examples", "xschedule-assign.json"), filepath.Join("testdata", "placement.json")} {
		raw, err := os.ReadFile(fn)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	r, err := solver.NewRunner([]solver.Problem{Problem()}, 200*time.Millisecond)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var req Request
		if json.Unmarshal(raw, &req) == nil {
			_, _ = Build(&req) // must return on unvalidated input
		}
		if _, err := r.Run(context.Background(), "xschedule/assign", raw); err != nil {
			if _, ok := err.(*solver.Error); !ok {
				t.Fatalf("non-typed error %T: %v", err, err)
			}
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
