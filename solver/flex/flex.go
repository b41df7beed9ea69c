package flex

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/xflex/xflex/internal/progress"
	"github.com/xflex/xflex/solver"
)

// Result is the response's result (schemas/flex.response.json).
type Result struct {
	Objective      float64       `json:"objective"`
	Metric         string        `json:"metric"`
	Aggregate      string        `json:"aggregate"`
	Ordering       []string      `json:"ordering"`
	OrderingSource string        `json:"ordering_source"`
	MPSOptimal     bool          `json:"mps_optimal"`
	Optimal        bool          `json:"optimal"`
	RAPMethod      string        `json:"rap_method"`
	Intervals      []IntervalOut `json:"intervals"`
	IntervalsCut   bool          `json:"intervals_truncated"`
	Jobs           []JobOut      `json:"jobs"`
	Baselines      Baselines     `json:"baselines"`
	Candidates     []CandOut     `json:"candidates"`
}

// IntervalOut is one interval of the winning schedule.
type IntervalOut struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Slots Slots   `json:"slots"`
}

// Slots is an interval's slot count per job, in byte-wise order of job
// id: the order in which json.Marshal writes a map's keys, so it encodes
// as the JSON object {"id": slots, ...} (a map[string]int until 100,000
// jobs made sorting three such maps at encoding time most of a small
// budget).
type Slots []JobSlots

// JobSlots is one job's slots in an interval.
type JobSlots struct {
	ID    string
	Slots int
}

// JobOut is one job's outcome in the winning schedule.
type JobOut struct {
	ID         string  `json:"id"`
	Completion float64 `json:"completion"`
	Penalty    float64 `json:"penalty"`
}

// Baselines are the FIFO and Fair objectives on the same instance.
type Baselines struct {
	FIFO Baseline `json:"fifo"`
	Fair Baseline `json:"fair"`
}

// Baseline is one baseline's outcome.
type Baseline struct {
	// Objective is absent only when the baseline was skipped.
	Objective *float64 `json:"objective,omitempty"`
	// Ratio is objective / flex objective when both are positive.
	Ratio *float64 `json:"ratio,omitempty"`
	// Skipped: the deadline had (nearly) passed before the first answer,
	// and this baseline cost more than the answer itself (Fair at 10⁵ jobs
	// is about half of it); see firstAnswer.
	Skipped bool `json:"skipped,omitempty"`
}

// CandOut is one candidate schedule considered.
type CandOut struct {
	Source    string  `json:"source"`
	Objective float64 `json:"objective"`
}

// Tuning constants.
const (
	// RefineAutoMaxJobs: refine "auto" runs the LP refinement up to this
	// many jobs (the LP has J²/2 columns; 60 jobs solve in milliseconds).
	RefineAutoMaxJobs = 60
	// RefineMaxJobs caps refine "on": 400 jobs make an LP of 80,000
	// columns, seconds for CLP; beyond that the model alone is too big.
	RefineMaxJobs = 400
	// RefineAutoMaxJobsMILP: the same for the MILP of tardy jobs and SLAs.
	RefineAutoMaxJobsMILP = 12
	// ExactLPMaxJobs: exact=true also enumerates every completion order
	// with the LP (J! LPs) up to this many jobs, proving the malleable
	// optimum for every metric; ExactMILPMaxJobs for the MILP metrics.
	// (about 2 ms per LP and 35 ms per MILP with CLP/CBC: 120 LPs or 24
	// MILPs fit the default budget).
	ExactLPMaxJobs   = 5
	ExactMILPMaxJobs = 4
)

// DefaultMaxEntries caps the (job, slots) pairs listed when the request
// sets no max_intervals: a 10,000-job MPS schedule has 5·10⁷ of them, far
// more than any caller reads (a scheduler uses the first interval).
const DefaultMaxEntries = 200_000

// DefaultLocalSearchEvals is the local search's MPS-evaluation budget when
// the request names none: generous for small instances (which reach a
// local optimum long before it), about 2·10⁵·J log J work for large ones.
func DefaultLocalSearchEvals(n int) int {
	if n <= 0 {
		return 0
	}
	return max(50, min(20000, 400000/n))
}

// kind of candidate schedule.
const (
	kindMPS = iota
	kindFair
	kindLP
)

type candidate struct {
	source string
	kind   int
	prio   []int // MPS priority list, or completion order
	comp   []float64
	obj    float64
	ivs    []Interval
	// backend names the LP/MILP engine of an LP candidate.
	backend string
}

// completionOrder sorts jobs by completion, ties by prio position.
func completionOrder(comp []float64, prio []int) []int {
	pos := make([]float64, len(prio))
	for k, j := range prio {
		pos[j] = float64(k)
	}
	return orderByKeys(comp, pos)
}

func run(ctx context.Context, in *Instance, req *Request, opts solver.Options) (*Result, solver.Meta, error) {
	n := in.N()
	if deadlineNearlyGone(ctx, n) {
		return in.firstAnswer(req)
	}
	var meta solver.Meta
	rng := rand.New(rand.NewPCG(uint64(opts.Seed), 0x9e3779b97f4a7c15))
	ev := newEvaluator(in)
	// Fair, the FIFO baseline and (when the exact searches are off, so
	// the bound is always reported) the root lower bound do not depend on
	// the orderings: compute them in a second goroutine. Each is a pure
	// function of the instance, so the answer is the same as computed in
	// sequence.
	var side struct {
		fcomp, fifoComp []float64
		forder          []int
		bound           float64
	}
	sideDone := make(chan struct{})
	go func() {
		defer close(sideDone)
		side.fcomp, side.forder, _ = in.fair(0)
		side.fifoComp = make([]float64, n)
		in.mps(in.arrivalOrder(), true, newMPSWork(n), side.fifoComp, nil)
		side.bound = math.NaN()
		if !req.Exact {
			side.bound = in.rootBound()
		}
	}()
	var cands []*candidate
	addMPS := func(name string, prio []int) *candidate {
		comp := make([]float64, n)
		in.mps(prio, false, ev.w, comp, nil)
		c := &candidate{source: name, kind: kindMPS, prio: prio, comp: comp, obj: in.Objective(comp)}
		cands = append(cands, c)
		return c
	}
	timedOut := false
	alloc, method := in.rapSolve()
	addMPS("rap", in.rapOrdering(alloc))
	if method == "greedy-fallback" {
		meta.Notes = append(meta.Notes, fmt.Sprintf("RAP: the DP table would exceed %d cells; greedy marginal allocation used (not exact for this metric)", DPMaxCells))
	}
	// Each ordering costs sorts and an MPS run (tens of ms each at 10⁵
	// jobs): past the deadline, the RAP ordering is the answer.
	var orderings []ordering
	if ctx.Err() != nil {
		timedOut = true
	} else {
		orderings = in.specificOrderings()
	}
	for _, o := range orderings {
		if ctx.Err() != nil {
			timedOut = true
			break
		}
		dup := false
		for _, c := range cands {
			dup = dup || slices.Equal(c.prio, o.prio)
		}
		if !dup {
			addMPS(o.name, o.prio)
		}
	}
	bestMPS := cands[0]
	for _, c := range cands[1:] {
		if better(c.obj, bestMPS.obj) {
			bestMPS = c
		}
	}
	progress.Report(ctx, progress.Progress{Phase: "orderings", Objective: progress.F(bestMPS.obj)})
	evals := DefaultLocalSearchEvals(n)
	if req.LocalSearch != nil {
		evals = *req.LocalSearch
	}
	if evals > 0 {
		prio, obj, stopped := ev.iteratedLocalSearch(ctx, cands, evals, rng)
		timedOut = timedOut || stopped
		if better(obj, bestMPS.obj) {
			bestMPS = addMPS("local_search", prio)
		}
		meta.Notes = append(meta.Notes, fmt.Sprintf("local search: %d MPS evaluations", ev.evals))
	}
	mpsProven := false
	if req.Exact {
		prio, obj, done := in.exactMPS(ctx, bestMPS.prio, bestMPS.obj)
		mpsProven = done
		if !done {
			timedOut = true
			meta.Notes = append(meta.Notes, "exact MPS search stopped by the budget")
		}
		if better(obj, bestMPS.obj) {
			bestMPS = addMPS("exact_mps", prio)
		}
		if done {
			meta.Notes = append(meta.Notes, fmt.Sprintf("exact MPS search complete: %s is the best MPS ordering", bestMPS.source))
		}
	}
	<-sideDone
	fairC := &candidate{source: "fair", kind: kindFair, prio: side.forder, comp: side.fcomp, obj: in.Objective(side.fcomp)}
	cands = append(cands, fairC)

	// LP/MILP refinement of the best MPS completion order and Fair's.
	mip := !in.rapConvex()
	limit := RefineAutoMaxJobs
	if mip {
		limit = RefineAutoMaxJobsMILP
	}
	doRefine := req.Refine == "on" || ((req.Refine == "" || req.Refine == "auto") && n <= limit)
	if doRefine && n > RefineMaxJobs {
		doRefine = false
		meta.Notes = append(meta.Notes, fmt.Sprintf("refinement skipped: its LP has J²/2 columns, allowed up to %d jobs", RefineMaxJobs))
	}
	if doRefine {
		for _, base := range []*candidate{bestMPS, fairC} {
			if ctx.Err() != nil {
				timedOut = true
				break
			}
			order := completionOrder(base.comp, base.prio)
			r, err := in.refine(ctx, order, "")
			if err != nil {
				meta.Notes = append(meta.Notes, fmt.Sprintf("refinement of %s skipped: %v", base.source, err))
				continue
			}
			if err := in.verify(r.ivs, r.comp, false); err != nil {
				meta.Notes = append(meta.Notes, fmt.Sprintf("refinement of %s rejected: %v", base.source, err))
				continue
			}
			cands = append(cands, &candidate{source: "lp_refinement", kind: kindLP, prio: completionOrder(r.comp, order), comp: r.comp, obj: r.obj, ivs: r.ivs, backend: r.backend})
		}
	}
	malleableProven := false
	provenValue := math.NaN()
	if req.Exact && n <= in.exactLimit() {
		c, val, done := in.exactMalleable(ctx)
		if c != nil {
			cands = append(cands, c)
		}
		switch {
		case done:
			malleableProven, provenValue = true, val
			meta.Notes = append(meta.Notes, fmt.Sprintf("every completion order solved by LP/MILP: the malleable optimum is %g", val))
		case ctx.Err() != nil:
			timedOut = true
		default:
			// Not the budget: some order's LP/MILP was refused or not
			// proven (an ill-scaled model; the refinement notes say why).
			meta.Notes = append(meta.Notes, "exact search incomplete: not every completion order's LP/MILP was solved to optimality")
		}
	}
	win := cands[0]
	for _, c := range cands[1:] {
		if better(c.obj, win.obj) {
			win = c
		}
	}

	res := &Result{
		Objective: win.obj, Metric: in.Metric.String(), Aggregate: in.Agg.String(),
		OrderingSource: win.source, MPSOptimal: mpsProven, RAPMethod: method,
	}
	res.Ordering = in.idsOf(win.prio)
	lim, more := listLimit(req, n, &meta)
	var ivs []Interval
	switch win.kind {
	case kindMPS:
		rec := &mpsRecord{events: make([]rateEvent, 0, 2*n)}
		if more >= 0 {
			// Interval k ends at the k-th completion; zero-length ones
			// are dropped, so run until more distinct completion times.
			rec.stopAfter = min(n, more+countTies(win.comp, more))
		}
		comp := append([]float64(nil), win.comp...)
		in.mps(win.prio, false, ev.w, comp, rec)
		ivs = in.intervalsFromRecord(rec, comp, more)
	case kindFair:
		_, _, ivs = in.fair(more)
	case kindLP:
		ivs = win.ivs
	}
	if lim >= 0 && len(ivs) > lim {
		ivs, res.IntervalsCut = ivs[:lim], true
	}
	var byID []int
	if len(ivs) > 0 {
		byID = in.idOrder()
	}
	res.Intervals = in.intervalsOut(ivs, byID)
	res.Jobs = in.jobsOut(win.comp)
	res.Baselines.FIFO = baseline(in.Objective(side.fifoComp), win.obj)
	res.Baselines.Fair = baseline(fairC.obj, win.obj)
	for _, c := range cands {
		res.Candidates = append(res.Candidates, CandOut{Source: c.source, Objective: c.obj})
	}

	meta.Solver = "flex/" + win.source
	if win.backend != "" {
		meta.Solver += "+" + win.backend
	}
	meta.SetObjective(win.obj)
	switch {
	case malleableProven:
		res.Optimal = true
		meta.Status = solver.StatusOptimal
		meta.SetBound(math.Min(provenValue, win.obj))
	case in.lemma1Holds() && mpsProven:
		res.Optimal = true
		meta.Status = solver.StatusOptimal
		meta.SetBound(win.obj)
		meta.Notes = append(meta.Notes, "Lemma 1 holds for this metric (sum of linear penalties): the best MPS ordering is a malleable optimum")
	default:
		if timedOut {
			meta.Status = solver.StatusTimeout
		} else {
			meta.Status = solver.StatusFeasible
		}
		bound := side.bound
		if math.IsNaN(bound) {
			bound = in.rootBound()
		}
		meta.SetBound(math.Min(bound, win.obj))
		if bound >= win.obj {
			// The proven bound meets the schedule's value.
			res.Optimal = true
			meta.Status = solver.StatusOptimal
			meta.Notes = append(meta.Notes, "the lower bound equals the objective: the schedule is optimal")
		}
	}
	return res, meta, nil
}

// listLimit is how many intervals the answer lists (−1: all) and how
// many to build (one more, to know whether the list is cut): the request's
// max_intervals, or about DefaultMaxEntries (job, slots) pairs, with a
// note.
func listLimit(req *Request, n int, meta *solver.Meta) (lim, more int) {
	lim = -1
	if req.MaxIntervals != nil {
		lim = *req.MaxIntervals
	} else if n*(n+1)/2 > DefaultMaxEntries {
		// Interval k lists at most n−k jobs: cap the listing near
		// DefaultMaxEntries (job, slots) pairs.
		lim = 0
		for entries := 0; lim < n && entries < DefaultMaxEntries; lim++ {
			entries += n - lim
		}
		meta.Notes = append(meta.Notes, fmt.Sprintf("listing the first %d intervals (set max_intervals for more)", lim))
	}
	more = lim
	if lim >= 0 {
		more = lim + 1
	}
	return lim, more
}

// idsOf is the ids of jobs in order.
func (in *Instance) idsOf(order []int) []string {
	ids := make([]string, 0, len(order))
	for _, j := range order {
		ids = append(ids, in.Jobs[j].ID)
	}
	return ids
}

// jobsOut is each job's completion and penalty under comp.
func (in *Instance) jobsOut(comp []float64) []JobOut {
	out := make([]JobOut, 0, len(comp))
	for j, c := range comp {
		out = append(out, JobOut{ID: in.Jobs[j].ID, Completion: c, Penalty: in.Penalty(j, c)})
	}
	return out
}

// idOrder is the jobs in byte-wise order of id (ids are unique). The ids
// are sorted next to their indices: comparing through in.Jobs reads two
// scattered Job records per comparison.
func (in *Instance) idOrder() []int {
	type idJob struct {
		id string
		j  int
	}
	ks := make([]idJob, len(in.Jobs))
	for j := range in.Jobs {
		ks[j] = idJob{in.Jobs[j].ID, j}
	}
	slices.SortFunc(ks, func(a, b idJob) int { return strings.Compare(a.id, b.id) })
	byID := make([]int, len(ks))
	for r, x := range ks {
		byID[r] = x.j
	}
	return byID
}

// intervalsOut lists ivs with each interval's jobs in byte-wise id order
// (byID, from idOrder): per interval a sort by rank or, when the interval
// holds more than about n/log n of the n jobs (the first intervals of an
// MPS schedule hold nearly all), a scan of the ids in order.
func (in *Instance) intervalsOut(ivs []Interval, byID []int) []IntervalOut {
	out := make([]IntervalOut, 0, len(ivs))
	if len(ivs) == 0 {
		return out
	}
	n := in.N()
	rank := make([]int, n)
	for r, j := range byID {
		rank[j] = r
	}
	posOf := make([]int, n) // the job's position in iv.Jobs, plus one; 0 if absent
	for _, iv := range ivs {
		k := len(iv.Jobs)
		pos := make([]int, 0, k)
		if k*bits.Len(uint(k)) > n {
			for i, j := range iv.Jobs {
				posOf[j] = i + 1
			}
			for _, j := range byID {
				if posOf[j] > 0 {
					pos = append(pos, posOf[j]-1)
					posOf[j] = 0
				}
			}
		} else {
			pos = identity(k)
			slices.SortFunc(pos, func(a, b int) int { return rank[iv.Jobs[a]] - rank[iv.Jobs[b]] })
		}
		o := IntervalOut{Start: iv.Start, End: iv.End, Slots: make(Slots, len(pos))}
		for x, i := range pos {
			o.Slots[x] = JobSlots{ID: in.Jobs[iv.Jobs[i]].ID, Slots: iv.Slots[i]}
		}
		out = append(out, o)
	}
	return out
}

func baseline(v, flex float64) Baseline {
	b := Baseline{Objective: &v}
	if v > 0 && flex > 0 {
		r := v / flex
		b.Ratio = &r
	}
	return b
}

// countTies is how many completions in comp share a time with an earlier
// one among the first k+ties distinct times: the extra MPS steps needed to
// produce k non-empty intervals.
func countTies(comp []float64, k int) int {
	c := append([]float64(nil), comp...)
	slices.Sort(c)
	ties, distinct := 0, 0
	for i, v := range c {
		if i > 0 && v-c[i-1] <= TimeTol*math.Max(1, math.Abs(v)) {
			ties++
			continue
		}
		distinct++
		if distinct > k {
			break
		}
	}
	return ties
}

// exactLimit is the largest job count for which exact=true enumerates
// every completion order.
func (in *Instance) exactLimit() int {
	if in.rapConvex() {
		return ExactLPMaxJobs
	}
	return ExactMILPMaxJobs
}

// exactMalleable solves the LP/MILP refinement for every completion order
// and returns the best schedule as a candidate, its value, and whether
// every order was solved to optimality (then it is the integer-slot
// malleable optimum: every schedule has some completion order, and the
// refinement is exact for a fixed order).
func (in *Instance) exactMalleable(ctx context.Context) (*candidate, float64, bool) {
	n := in.N()
	perm := identity(n)
	var best *candidate
	bestVal := math.Inf(1)
	all := true
	for {
		if ctx.Err() != nil {
			return best, bestVal, false
		}
		r, err := in.refine(ctx, perm, "")
		if (err != nil && !errors.Is(err, errOrderInfeasible)) || (err == nil && !r.proven) {
			all = false
		}
		if err == nil {
			if r.proven && r.lpObj < bestVal {
				bestVal = r.lpObj
			}
			if in.verify(r.ivs, r.comp, false) == nil && (best == nil || better(r.obj, best.obj)) {
				best = &candidate{source: "lp_exhaustive", kind: kindLP, prio: completionOrder(r.comp, perm), comp: r.comp, obj: r.obj, ivs: r.ivs, backend: r.backend}
			}
		}
		if !nextPerm(perm) {
			break
		}
	}
	if best != nil && best.obj < bestVal {
		bestVal = best.obj
	}
	return best, bestVal, all
}

// nextPerm advances p to the next lexicographic permutation.
func nextPerm(p []int) bool {
	i := len(p) - 2
	for i >= 0 && p[i] >= p[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	k := len(p) - 1
	for p[k] <= p[i] {
		k--
	}
	p[i], p[k] = p[k], p[i]
	for a, b := i+1, len(p)-1; a < b; a, b = a+1, b-1 {
		p[a], p[b] = p[b], p[a]
	}
	return true
}
