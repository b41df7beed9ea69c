package simulate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/xflex/xflex/solver"
)

// FuzzSimulate: any body gets a typed error or an answer, never a panic;
// an accepted request's X-Schedule run keeps the invariants.
func FuzzSimulate(f *testing.F) {
	for _, fn := range []string{filepath.Join("..", "..", "..", "examples", "xschedule-simulate.json"), filepath.Join("testdata", "placement.json")} {
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
		resp, err := r.Run(context.Background(), "xschedule/simulate", raw)
		if err != nil {
			if _, ok := err.(*solver.Error); !ok {
				t.Fatalf("non-typed error %T: %v", err, err)
			}
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
