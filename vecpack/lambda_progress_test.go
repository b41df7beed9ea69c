package vecpack

import (
	"context"
	"math/big"
	"testing"

	"github.com/xflex/xflex/internal/progress"
)

// TestMaxLambdaReporting: with an exact threshold oracle, every report
// (taken by the oracle itself, so none is missed) has a non-decreasing
// fraction and best λ, a non-increasing bound never below the best λ, and
// the last one has fraction To with λ = bound = the optimum. Plain
// MaxLambda reports nothing.
func TestMaxLambdaReporting(t *testing.T) {
	c := []int64{3, 5, 7, 11}
	for _, opt := range [][2]int64{{12, 5}, {1, 3}, {29, 7}, {40, 11}, {0, 1}} {
		optR := big.NewRat(opt[0], opt[1])
		r := &progress.Reporter{}
		ctx := progress.WithReporter(context.Background(), r)
		var reps []progress.Progress
		take := func() {
			if p, ok := r.Take(); ok {
				reps = append(reps, p)
			}
		}
		oracle := func(_ context.Context, n []int64) (bool, []int64, error) {
			take()
			return Attained(n, c).rat().Cmp(optR) <= 0, nil, nil
		}
		const ub = 4.2
		span := Span{Phase: "test", From: 0.25, To: 0.75, Bound: ub, Exact: true}
		res, err := MaxLambdaReporting(ctx, span, c, Lambda{}, nil, ub, oracle)
		if err != nil {
			t.Fatal(err)
		}
		take()
		if res.Best.rat().Cmp(optR) != 0 || !res.Complete {
			t.Fatalf("opt %d/%d: search found %v (complete %v)", opt[0], opt[1], res.Best, res.Complete)
		}
		// One report per call; the oracle sees those of all calls but the
		// last, whose report the final one (search complete) overwrites
		// before the take after the search.
		if len(reps) != res.Calls {
			t.Errorf("opt %d/%d: %d reports taken for %d oracle calls, want one per call", opt[0], opt[1], len(reps), res.Calls)
		}
		for i, p := range reps {
			if p.Phase != "test" || p.Fraction == nil || p.Objective == nil || p.Bound == nil {
				t.Fatalf("report %d incomplete: %+v", i, p)
			}
			if *p.Fraction < span.From || *p.Fraction > span.To {
				t.Errorf("report %d: fraction %v outside [%v, %v]", i, *p.Fraction, span.From, span.To)
			}
			if *p.Bound < *p.Objective {
				t.Errorf("report %d: bound %v below λ %v", i, *p.Bound, *p.Objective)
			}
			if i > 0 {
				q := reps[i-1]
				if *p.Fraction < *q.Fraction || *p.Objective < *q.Objective || *p.Bound > *q.Bound {
					t.Errorf("report %d after %d: fraction %v → %v, λ %v → %v, bound %v → %v", i, i-1,
						*q.Fraction, *p.Fraction, *q.Objective, *p.Objective, *q.Bound, *p.Bound)
				}
			}
		}
		last := reps[len(reps)-1]
		if *last.Fraction != span.To || *last.Objective != res.Best.Float() || *last.Bound != res.Best.Float() {
			t.Errorf("opt %d/%d: last report %+v, want fraction %v and λ = bound = %v", opt[0], opt[1], last, span.To, res.Best.Float())
		}
		if _, err := MaxLambda(ctx, c, Lambda{}, nil, ub, oracle); err != nil {
			t.Fatal(err)
		}
		if p, ok := r.Take(); ok {
			t.Errorf("MaxLambda reported %+v", p)
		}
	}
}
