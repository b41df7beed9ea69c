package flex

import (
	"context"
	"math"
	"time"

	"github.com/xflex/xflex/solver"
)

// This file is the answer given when the deadline has (nearly) passed
// before the solve starts. The paper's first answer (the RAP ordering and
// its MPS schedule, beside the Fair and FIFO baselines and the root bound)
// costs about 0.35 s at 10⁵ jobs on one idle core pair, far past a 50 ms
// budget: RAP is two sorts and a greedy over a heap, Fair a simulation
// over four heaps. Smith's rule is one sort, and on the benchmark
// instances its MPS schedule is as good as RAP's (272,443 against 273,146
// at 10⁵ jobs: Smith's ratio rule is the classical first try for weighted
// completion times, and the paper's own list of metric-specific rules
// starts with it), so that is the answer; FIFO and the root bound
// (whose Smith sort it is) are cheap and still given, Fair is skipped.

// firstAnswerPerJob is the paper path's first answer per job (RAP, its
// MPS run, the Fair baseline and the result), rounded up from about 2.6 µs
// measured at 10⁵ jobs: a deadline nearer than n times this is treated as
// gone.
const firstAnswerPerJob = 3 * time.Microsecond

// deadlineNearlyGone reports whether ctx's deadline has passed or is too
// near for the paper path's first answer on n jobs.
func deadlineNearlyGone(ctx context.Context, n int) bool {
	if ctx.Err() != nil {
		return true
	}
	dl, ok := ctx.Deadline()
	return ok && time.Until(dl) < time.Duration(n)*firstAnswerPerJob
}

// firstAnswer is Smith's ordering and its MPS schedule, with the FIFO
// baseline, the root lower bound and the listed intervals, status timeout.
// The MPS run records its rate changes, so the intervals need no second
// run; the bound, FIFO and the id order for the intervals are computed on
// a second core meanwhile.
func (in *Instance) firstAnswer(req *Request) (*Result, solver.Meta, error) {
	n := in.N()
	var meta solver.Meta
	lim, more := listLimit(req, n, &meta)
	var side struct {
		bound    float64
		fifoComp []float64
		byID     []int
	}
	sideDone := make(chan struct{})
	go func() {
		defer close(sideDone)
		side.bound = in.rootBound()
		side.fifoComp = make([]float64, n)
		in.mps(in.arrivalOrder(), true, newMPSWork(n), side.fifoComp, nil)
		if lim != 0 {
			side.byID = in.idOrder()
		}
	}()
	prio := sortedBy(n, in.smithKey)
	comp := make([]float64, n)
	rec := &mpsRecord{events: make([]rateEvent, 0, 2*n)}
	in.mps(prio, false, newMPSWork(n), comp, rec)
	obj := in.Objective(comp)
	res := &Result{
		Objective: obj, Metric: in.Metric.String(), Aggregate: in.Agg.String(),
		Ordering: in.idsOf(prio), OrderingSource: "smith", RAPMethod: "skipped",
		Jobs:       in.jobsOut(comp),
		Candidates: []CandOut{{Source: "smith", Objective: obj}},
	}
	ivs := in.intervalsFromRecord(rec, comp, more)
	if lim >= 0 && len(ivs) > lim {
		ivs, res.IntervalsCut = ivs[:lim], true
	}
	<-sideDone
	res.Intervals = in.intervalsOut(ivs, side.byID)
	res.Baselines.FIFO = baseline(in.Objective(side.fifoComp), obj)
	res.Baselines.Fair = Baseline{Skipped: true}
	meta.Notes = append(meta.Notes, "the deadline had (nearly) passed before the first answer: Smith's ordering and its MPS schedule (RAP, the other orderings, the local search, the refinement and the Fair baseline skipped)")
	meta.Solver = "flex/smith"
	meta.Status = solver.StatusTimeout
	meta.SetObjective(obj)
	meta.SetBound(math.Min(side.bound, obj))
	if side.bound >= obj {
		res.Optimal = true
		meta.Status = solver.StatusOptimal
		meta.Notes = append(meta.Notes, "the lower bound equals the objective: the schedule is optimal")
	}
	return res, meta, nil
}
