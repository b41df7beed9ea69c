package xselect

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/solvertest"
)

// TestProgressReports: λ is maximised, so the sampled best λ never falls,
// the bound stays at least λ, the fraction never falls, and the last
// report carries the answer's λ and upper bound with fraction 1. Generated
// heuristic instances (both phases), the exact method and an incremental
// request.
func TestProgressReports(t *testing.T) {
	type tc struct {
		name string
		raw  []byte
	}
	var cases []tc
	for seed := int64(1); seed <= 4; seed++ {
		req, err := Generate(seed, map[string]string{"nodes": "40", "resources": "3", "apps": "8", "colocate": "1", "require": "0.3"})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, tc{fmt.Sprintf("generated-%d", seed), raw})
	}
	for _, name := range []string{"exact.json", "incremental.json", "basic.json"} {
		raw, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, tc{name, raw})
	}
	for _, tc := range cases {
		raw := tc.raw
		t.Run(tc.name, func(t *testing.T) {
			var res any
			var err error
			reps := solvertest.SampleProgress(func(ctx context.Context) {
				res, _, err = Solve(ctx, raw, solver.Options{Seed: 1})
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
				if *p.Bound < *p.Objective {
					t.Errorf("report %d (%s): bound %v below λ %v", i, p.Phase, *p.Bound, *p.Objective)
				}
				if i > 0 {
					q := reps[i-1]
					if *p.Fraction < *q.Fraction {
						t.Errorf("%s after %s: fraction fell %v → %v", p.Phase, q.Phase, *q.Fraction, *p.Fraction)
					}
					if *p.Objective < *q.Objective {
						t.Errorf("%s after %s: λ fell %v → %v", p.Phase, q.Phase, *q.Objective, *p.Objective)
					}
				}
			}
			r := res.(*Result)
			last := reps[len(reps)-1]
			if *last.Fraction != 1 || *last.Objective != r.Lambda || *last.Bound != math.Max(r.UpperBound, r.Lambda) {
				t.Errorf("last report %s: fraction %v, λ %v, bound %v; want 1, %v, %v", last.Phase, *last.Fraction, *last.Objective, *last.Bound, r.Lambda, r.UpperBound)
			}
			t.Logf("%d sampled reports, λ %v ≤ %v", len(reps), r.Lambda, r.UpperBound)
		})
	}
}
