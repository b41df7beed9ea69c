package xselect

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/xflex/xflex/internal/progress"
	"github.com/xflex/xflex/solver"
)

// TestIncumbentsOffered: inside a job each packing that raises the kept
// λ is offered as the answer so far (progress.Offer): a complete result
// whose λ is the objective offered, never above the final λ nor the
// offered bound, rising from offer to offer, with every node within its
// capacity and the containers it lists counted in res.Containers.
func TestIncumbentsOffered(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		req, err := Generate(seed, map[string]string{"nodes": "40", "resources": "3", "apps": "8", "colocate": "1", "require": "0.3"})
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		r := &progress.Reporter{}
		var offers []progress.Incumbent
		ctx := offerSpy{progress.WithReporter(context.Background(), r), r, &offers}
		_, meta, err := Solve(ctx, raw, solver.Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if inc, ok := r.TakeIncumbent(); ok {
			offers = append(offers, inc)
		}
		if len(offers) == 0 {
			t.Fatalf("seed %d: no incumbent offered", seed)
		}
		prev := -1.0
		for i, inc := range offers {
			res, ok := inc.Result.(*Result)
			if !ok || len(res.Nodes) != len(req.(*Request).Nodes) {
				t.Fatalf("seed %d offer %d: not a complete result: %T", seed, i, inc.Result)
			}
			if inc.Objective == nil || *inc.Objective != res.Lambda || res.Lambda > *meta.Objective+1e-12 ||
				inc.Bound == nil || *inc.Bound < res.Lambda || res.Lambda < prev {
				t.Errorf("seed %d offer %d: λ %v objective %v bound %v, previous %v, final %v", seed, i, res.Lambda, inc.Objective, inc.Bound, prev, *meta.Objective)
			}
			prev = res.Lambda
			var listed int64
			for _, n := range res.Nodes {
				listed += int64(len(n.Containers))
				for r, u := range n.Utilization {
					if u > 1+1e-9 {
						t.Errorf("seed %d offer %d: node %s resource %d at %v of its capacity", seed, i, n.Name, r, u)
					}
				}
			}
			if listed != res.Containers {
				t.Errorf("seed %d offer %d: %d containers listed, %d counted", seed, i, listed, res.Containers)
			}
		}
		t.Logf("seed %d: %d offers, λ %v → final %v", seed, len(offers), *offers[0].Objective, *meta.Objective)
	}
}

// offerSpy is a context that records the reporter's incumbent whenever
// the solver looks the reporter up (each Report and Offer does), so every
// offer is seen although the reporter keeps only the latest.
type offerSpy struct {
	context.Context
	r      *progress.Reporter
	offers *[]progress.Incumbent
}

func (s offerSpy) Value(key any) any {
	if inc, ok := s.r.TakeIncumbent(); ok {
		*s.offers = append(*s.offers, inc)
	}
	return s.Context.Value(key)
}
