package xsize

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/solvertest"
)

// TestProgressReports: a minimisation, so the sampled cost never rises,
// the bound stays at most the cost, the fraction never falls, and the last
// report carries the answer's cost with fraction 1.
func TestProgressReports(t *testing.T) {
	for _, name := range []string{"gen2d.json", "gen2d_mix.json", "gen3d_nodes.json", "gen4d.json", "small2d.json"} {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			var meta solver.Meta
			reps := solvertest.SampleProgress(func(ctx context.Context) {
				_, meta, err = Solve(ctx, raw, solver.Options{Seed: 1})
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(reps) == 0 {
				t.Fatal("no progress reported")
			}
			for i, p := range reps {
				if p.Phase == "" || p.Fraction == nil || p.Objective == nil || p.Bound == nil {
					t.Fatalf("report %d incomplete: %+v", i, p)
				}
				if *p.Bound > *p.Objective {
					t.Errorf("report %d (%s): bound %v above cost %v", i, p.Phase, *p.Bound, *p.Objective)
				}
				if i > 0 {
					q := reps[i-1]
					if *p.Fraction < *q.Fraction {
						t.Errorf("report %d (%s): fraction fell %v → %v", i, p.Phase, *q.Fraction, *p.Fraction)
					}
					if *p.Objective > *q.Objective {
						t.Errorf("report %d (%s): cost rose %v → %v", i, p.Phase, *q.Objective, *p.Objective)
					}
				}
			}
			last := reps[len(reps)-1]
			if *last.Fraction != 1 {
				t.Errorf("last report %s has fraction %v, want 1", last.Phase, *last.Fraction)
			}
			if meta.Objective == nil || *last.Objective != *meta.Objective {
				t.Errorf("last report's cost %v, answer's %v", *last.Objective, meta.Objective)
			}
			t.Logf("%d sampled reports, last %s", len(reps), last.Phase)
		})
	}
}
