package fairshare

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/solvertest"
)

// TestPFProgressReports: the PF method reports after every LP; the last
// report carries the answer's objective and certified bound, the bound is
// never below the objective (PF maximises), and the objective never falls
// between samples.
func TestPFProgressReports(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		req, err := Generate(seed, map[string]string{})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		doc["policy"] = "pf"
		raw, _ = json.Marshal(doc)

		var meta solver.Meta
		var solveErr error
		got := solvertest.SampleProgress(func(ctx context.Context) {
			ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			_, meta, solveErr = Problem().Solve(ctx, raw, solver.Options{Budget: 30 * time.Second, Start: time.Now()})
		})
		if solveErr != nil {
			t.Fatalf("seed %d: %v", seed, solveErr)
		}
		if len(got) == 0 {
			t.Fatalf("seed %d: no progress report", seed)
		}
		for i, p := range got {
			if p.Objective == nil || p.Bound == nil {
				t.Fatalf("seed %d: report %d lacks objective or bound: %+v", seed, i, p)
			}
			if *p.Bound < *p.Objective-1e-9*math.Max(1, math.Abs(*p.Objective)) {
				t.Errorf("seed %d: report %d bound %v below objective %v", seed, i, *p.Bound, *p.Objective)
			}
			if i > 0 && *p.Objective < *got[i-1].Objective {
				t.Errorf("seed %d: objective fell from %v to %v", seed, *got[i-1].Objective, *p.Objective)
			}
		}
		last := got[len(got)-1]
		if meta.Objective == nil || math.Abs(*last.Objective-*meta.Objective) > 1e-9*math.Max(1, math.Abs(*meta.Objective)) {
			t.Errorf("seed %d: last report objective %v, meta objective %v", seed, *last.Objective, meta.Objective)
		}
	}
}
