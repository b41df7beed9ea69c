package xsize

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/xflex/xflex/internal/progress"
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

// TestIncumbentsOffered: inside a job every step of the PTAS offers its
// answer so far (progress.Offer): a complete result (every request
// assigned to one of the K shapes) whose cost is the objective offered,
// at least the final answer's (a minimisation that only improves), with
// a bound at most that cost; outside a job nothing is built.
func TestIncumbentsOffered(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "gen2d.json"))
	if err != nil {
		t.Fatal(err)
	}
	var req Request
	if err := json.Unmarshal(raw, &req); err != nil {
		t.Fatal(err)
	}
	r := &progress.Reporter{}
	var offers []progress.Incumbent
	ctx := progress.WithReporter(context.Background(), r)
	// Sample offers as the job's monitor does, but at every report:
	// wrap the context so each Offer is seen (the reporter keeps the last).
	_, meta, err := Solve(offerSpy{ctx, r, &offers}, raw, solver.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if inc, ok := r.TakeIncumbent(); ok {
		offers = append(offers, inc)
	}
	if len(offers) == 0 {
		t.Fatal("no incumbent offered")
	}
	for i, inc := range offers {
		res, ok := inc.Result.(*Result)
		if !ok || len(res.Assignment) != len(req.Requests) || len(res.Shapes) == 0 || len(res.Shapes) > req.K {
			t.Fatalf("offer %d: not a complete result: %+v", i, inc.Result)
		}
		if inc.Objective == nil || *inc.Objective != res.Cost || *inc.Objective < *meta.Objective*(1-1e-9) ||
			inc.Bound == nil || *inc.Bound > *inc.Objective {
			t.Errorf("offer %d: objective %v bound %v cost %v, final %v", i, inc.Objective, inc.Bound, res.Cost, *meta.Objective)
		}
	}
	t.Logf("%d offers, the last by %s; final %s", len(offers), offers[len(offers)-1].Solver, meta.Solver)
	if progress.Listening(context.Background()) {
		t.Error("listening outside a job")
	}
}

// offerSpy is a context whose Value hands out the reporter and records
// the incumbent after each progress call that reads it.
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
