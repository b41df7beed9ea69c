package flex

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/solvertest"
)

// TestProgressReports: Flex minimises, so the sampled best objective never
// rises, the local-search fraction stays in [0, 1], and the final answer is
// no worse than the last report.
func TestProgressReports(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		req, err := Generate(seed, map[string]string{})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		var meta solver.Meta
		var solveErr error
		got := solvertest.SampleProgress(func(ctx context.Context) {
			ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			_, meta, solveErr = Problem().Solve(ctx, raw, solver.Options{Budget: 20 * time.Second, Start: time.Now(), Seed: seed})
		})
		if solveErr != nil {
			t.Fatalf("seed %d: %v", seed, solveErr)
		}
		if len(got) == 0 {
			t.Fatalf("seed %d: no progress report", seed)
		}
		for i, p := range got {
			if p.Objective == nil {
				t.Fatalf("seed %d: report %d has no objective: %+v", seed, i, p)
			}
			if p.Fraction != nil && (*p.Fraction < 0 || *p.Fraction > 1) {
				t.Errorf("seed %d: fraction %v out of [0,1]", seed, *p.Fraction)
			}
			if i > 0 && *p.Objective > *got[i-1].Objective+1e-9*math.Max(1, math.Abs(*got[i-1].Objective)) {
				t.Errorf("seed %d: objective rose from %v to %v", seed, *got[i-1].Objective, *p.Objective)
			}
		}
		last := *got[len(got)-1].Objective
		if meta.Objective == nil || *meta.Objective > last+1e-9*math.Max(1, math.Abs(last)) {
			t.Errorf("seed %d: final objective %v worse than the last report %v", seed, meta.Objective, last)
		}
	}
}
