package progress

import "context"

// Incumbent is a solver's best complete answer so far, offered while it
// keeps searching: GET /v1/jobs/{id}/result?partial=true serves it, marked
// partial, while the job runs. Result is what the response's result would
// be were the solve to stop now (the problem's own Result type, encoded
// as the finished solve encodes it); the solver must not change it after
// offering it (offer a fresh value each time). Objective and Bound are
// its objective and the bound proven so far, when known; Solver names the
// algorithm as meta.solver does.
type Incumbent struct {
	Result    any
	Objective *float64
	Bound     *float64
	Solver    string
}

// incumbentSlot is a Reporter's latest incumbent.
type incumbentSlot struct {
	inc     Incumbent
	changed bool
}

// Listening reports whether anything takes the reports made under ctx
// (an asynchronous job runs the solve). A solver building an incumbent
// costs time and memory, so it asks first: outside a job it skips the
// work.
func Listening(ctx context.Context) bool {
	_, ok := ctx.Value(progressKey{}).(*Reporter)
	return ok
}

// Offer records inc as the solver's best answer so far for the job that
// runs it; a no-op outside a job. Offer at most a few times a second or
// at improvements: the job stores the latest one at each progress tick.
func Offer(ctx context.Context, inc Incumbent) {
	if r, ok := ctx.Value(progressKey{}).(*Reporter); ok {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.inc = incumbentSlot{inc: inc, changed: true}
	}
}

// TakeIncumbent returns the latest incumbent offered and whether it is
// new since the last take (false, too, when none was ever offered).
func (r *Reporter) TakeIncumbent() (Incumbent, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.inc.changed
	r.inc.changed = false
	return r.inc.inc, c
}
