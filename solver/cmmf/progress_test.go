package cmmf

import (
	"context"
	"fmt"
	"testing"

	"github.com/xflex/xflex/solver/solvertest"
)

// TestProgressReports: every method reports its rounds with a
// non-decreasing share of users frozen and a non-decreasing frozen level;
// the last report has every user frozen and the highest level of the
// allocation.
func TestProgressReports(t *testing.T) {
	for _, method := range []string{MethodFlow, MethodLP} {
		for _, divisible := range []bool{true, false} {
			for seed := int64(1); seed <= 3; seed++ {
				t.Run(fmt.Sprintf("%s/divisible=%v/seed=%d", method, divisible, seed), func(t *testing.T) {
					req := GenerateRequest(seed, GenParams{Users: 30, Types: 12, Machines: 300, Weighted: true, CappedFrac: 0.3, Divisible: divisible})
					req.Method = method
					in, err := Build(req)
					if err != nil {
						t.Fatal(err)
					}
					var a *Allocation
					reps := solvertest.SampleProgress(func(ctx context.Context) {
						a, err = SolveAllocation(ctx, in, method)
					})
					if err != nil {
						t.Fatal(err)
					}
					if len(reps) == 0 {
						t.Fatal("no progress reported")
					}
					for i, p := range reps {
						if p.Fraction == nil || p.Objective == nil || p.Bound != nil {
							t.Fatalf("report %d: want fraction and objective, no bound: %+v", i, p)
						}
						if i > 0 {
							q := reps[i-1]
							if *p.Fraction < *q.Fraction {
								t.Errorf("%s after %s: fraction fell %v → %v", p.Phase, q.Phase, *q.Fraction, *p.Fraction)
							}
							if *p.Objective < *q.Objective {
								t.Errorf("%s after %s: level fell %v → %v", p.Phase, q.Phase, *q.Objective, *p.Objective)
							}
						}
					}
					last := reps[len(reps)-1]
					top := 0.0
					for _, l := range a.Level {
						top = max(top, l)
					}
					if *last.Fraction != 1 || *last.Objective != top {
						t.Errorf("last report %s: fraction %v, level %v; want 1 and the top level %v", last.Phase, *last.Fraction, *last.Objective, top)
					}
					var k int
					if _, err := fmt.Sscanf(last.Phase, "round %d", &k); err != nil || k < len(reps) || k > len(a.Level)+1 {
						t.Errorf("last phase %q after %d sampled reports for %d users, want \"round k\"", last.Phase, len(reps), len(a.Level))
					}
					t.Logf("%d sampled reports, last %s", len(reps), last.Phase)
				})
			}
		}
	}
}
