// Package progress is the hook through which a solver reports how far it
// got to the asynchronous job running it (package jobs). Outside a job
// Report is a no-op.
//
// It is a leaf (standard library only) so that every layer may import it:
// the libraries ptas and vecpack report their phases through it without
// reaching up into solver/, the solver packages report through it, and jobs
// reads the reports. It is internal because it is xflex's own plumbing for
// the jobs API, not a library for other modules: Progress mirrors the wire
// format of GET /v1/jobs/{id} (exported to callers as jobs.Progress), so it
// must change with that API and no outside importer should pin it.
package progress

import (
	"context"
	"math"
	"sync"
)

// Progress is what GET /v1/jobs/{id} reports while a job runs. Every field
// but Phase is optional: a solver reports what it knows.
type Progress struct {
	// Phase names the stage: "queued", "solving", "done", "cancelled",
	// "failed", "requeued", or a solver-specific stage such as "bisection".
	Phase string `json:"phase"`
	// Fraction of the work done in [0, 1], where the solver knows it.
	// Fraction, Objective and Bound are always present in JSON, null when
	// unknown.
	Fraction *float64 `json:"fraction"`
	// Objective and Bound are the best objective and the proven bound so far
	// (anytime solvers).
	Objective *float64 `json:"objective"`
	Bound     *float64 `json:"bound"`
	// BudgetUsed is the fraction of the solve budget elapsed, in [0, 1]: a
	// worst-case estimate of the remaining time when Fraction is unknown.
	BudgetUsed *float64 `json:"budget_used,omitempty"`
	// Message is a short free-form remark from the solver.
	Message string `json:"message,omitempty"`
	// VariantsDone and VariantsTotal count finished variants of a scenario.
	VariantsDone  *int `json:"variants_done,omitempty"`
	VariantsTotal *int `json:"variants_total,omitempty"`
}

// F returns a pointer to v, or nil when v is NaN or infinite (JSON has no
// encoding for them): a helper for building Progress values.
func F(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

type progressKey struct{}

// Reporter keeps the latest progress a solver reported; the worker reads it
// periodically and stores it.
type Reporter struct {
	mu      sync.Mutex
	p       Progress
	changed bool
	inc     incumbentSlot // see Offer
}

// Set stores p as the latest report, clamping Fraction to [0, 1] and
// dropping non-finite numbers (JSON cannot carry them).
func (r *Reporter) Set(p Progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p.Fraction != nil {
		p.Fraction = F(math.Min(math.Max(*p.Fraction, 0), 1))
	}
	if p.Objective != nil {
		p.Objective = F(*p.Objective)
	}
	if p.Bound != nil {
		p.Bound = F(*p.Bound)
	}
	r.p = p
	r.changed = true
}

// Take returns the latest report and whether it changed since the last take.
func (r *Reporter) Take() (Progress, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.changed
	r.changed = false
	return r.p, c
}

// Report records a solver's progress for the asynchronous job that
// runs it. Solvers call it from Solve with the context they were given; it
// is cheap (a mutex and a copy; the worker stores reports at most a few
// times a second) and a no-op outside a job (synchronous solves, tests).
func Report(ctx context.Context, p Progress) {
	if r, ok := ctx.Value(progressKey{}).(*Reporter); ok {
		r.Set(p)
	}
}

// WithReporter returns ctx carrying r, so Report calls under it reach r.
func WithReporter(ctx context.Context, r *Reporter) context.Context {
	return context.WithValue(ctx, progressKey{}, r)
}
