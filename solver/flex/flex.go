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

// run is the solve as a sequence of named steps: the order-independent
// side results in a second goroutine, then the MPS candidates (RAP, the
// metric's orderings, local search, the exact MPS search), Fair, the
// LP/MILP refinements and the exact malleable search, and the answer
// from the best candidate.
func run(ctx context.Context, in *Instance, req *Request, opts solver.Options) (*Result, solver.Meta, error) {
	n := in.N()
	if deadlineNearlyGone(ctx, n) {
		return in.firstAnswer(req)
	}
	rng := rand.New(rand.NewPCG(uint64(opts.Seed), 0x9e3779b97f4a7c15))
	r := &flexRun{ctx: ctx, in: in, req: req, n: n, ev: newEvaluator(in), provenValue: math.NaN()}
	sideDone := r.startSide()
	r.orderings()
	r.localSearch(rng)
	r.exactMPS()
	<-sideDone
	r.fairC = &candidate{source: "fair", kind: kindFair, prio: r.side.forder, comp: r.side.fcomp, obj: in.Objective(r.side.fcomp)}
	r.cands = append(r.cands, r.fairC)
	r.refineBest()
	r.exactMalleable()
	win := bestCandidate(r.cands)
	res := r.result(win)
	r.settle(res, win)
	return res, r.meta, nil
}

// flexRun is run's state: the candidates so far, the best MPS one, and
// what the searches proved.
type flexRun struct {
	ctx  context.Context
	in   *Instance
	req  *Request
	n    int
	ev   *evaluator
	meta solver.Meta
	// side is what startSide's goroutine computes.
	side struct {
		fcomp, fifoComp []float64
		forder          []int
		bound           float64
	}
	cands          []*candidate
	bestMPS, fairC *candidate
	rapMethod      string
	// timedOut: some step was cut short by the deadline.
	timedOut, mpsProven, malleableProven bool
	// provenValue is the malleable optimum when malleableProven.
	provenValue float64
}

// startSide computes Fair, the FIFO baseline and (when the exact searches
// are off, so the bound is always reported) the root lower bound in a
// second goroutine: they do not depend on the orderings, and each is a
// pure function of the instance, so the answer is the same as computed in
// sequence. The channel closes when they are done.
func (r *flexRun) startSide() <-chan struct{} {
	in, n := r.in, r.n
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.side.fcomp, r.side.forder, _ = in.fair(0)
		r.side.fifoComp = make([]float64, n)
		in.mps(in.arrivalOrder(), true, newMPSWork(n), r.side.fifoComp, nil)
		r.side.bound = math.NaN()
		if !r.req.Exact {
			r.side.bound = in.rootBound()
		}
	}()
	return done
}

// addMPS adds the MPS schedule of priority list prio as a candidate.
func (r *flexRun) addMPS(name string, prio []int) *candidate {
	comp := make([]float64, r.n)
	r.in.mps(prio, false, r.ev.w, comp, nil)
	c := &candidate{source: name, kind: kindMPS, prio: prio, comp: comp, obj: r.in.Objective(comp)}
	r.cands = append(r.cands, c)
	return c
}

// orderings adds the RAP ordering and the metric's specific orderings (each
// once) and sets the best of them. Each ordering costs sorts and an MPS run
// (tens of ms each at 10⁵ jobs): past the deadline, the RAP ordering is
// the answer.
func (r *flexRun) orderings() {
	alloc, method := r.in.rapSolve()
	r.rapMethod = method
	r.addMPS("rap", r.in.rapOrdering(alloc))
	if method == "greedy-fallback" {
		r.meta.Notes = append(r.meta.Notes, fmt.Sprintf("RAP: the DP table would exceed %d cells; greedy marginal allocation used (not exact for this metric)", DPMaxCells))
	}
	var orderings []ordering
	if r.ctx.Err() != nil {
		r.timedOut = true
	} else {
		orderings = r.in.specificOrderings()
	}
	for _, o := range orderings {
		if r.ctx.Err() != nil {
			r.timedOut = true
			break
		}
		if !slices.ContainsFunc(r.cands, func(c *candidate) bool { return slices.Equal(c.prio, o.prio) }) {
			r.addMPS(o.name, o.prio)
		}
	}
	r.bestMPS = bestCandidate(r.cands)
	progress.Report(r.ctx, progress.Progress{Phase: "orderings", Objective: progress.F(r.bestMPS.obj)})
}

// localSearch improves the best MPS ordering by iterated local search
// within the request's evaluation budget.
func (r *flexRun) localSearch(rng *rand.Rand) {
	evals := DefaultLocalSearchEvals(r.n)
	if r.req.LocalSearch != nil {
		evals = *r.req.LocalSearch
	}
	if evals <= 0 {
		return
	}
	prio, obj, stopped := r.ev.iteratedLocalSearch(r.ctx, r.cands, evals, rng)
	r.timedOut = r.timedOut || stopped
	if better(obj, r.bestMPS.obj) {
		r.bestMPS = r.addMPS("local_search", prio)
	}
	r.meta.Notes = append(r.meta.Notes, fmt.Sprintf("local search: %d MPS evaluations", r.ev.evals))
}

// exactMPS runs the exact search over MPS orderings when the request asks
// for it.
func (r *flexRun) exactMPS() {
	if !r.req.Exact {
		return
	}
	prio, obj, done := r.in.exactMPS(r.ctx, r.bestMPS.prio, r.bestMPS.obj)
	r.mpsProven = done
	if !done {
		r.timedOut = true
		r.meta.Notes = append(r.meta.Notes, "exact MPS search stopped by the budget")
	}
	if better(obj, r.bestMPS.obj) {
		r.bestMPS = r.addMPS("exact_mps", prio)
	}
	if done {
		r.meta.Notes = append(r.meta.Notes, fmt.Sprintf("exact MPS search complete: %s is the best MPS ordering", r.bestMPS.source))
	}
}

// doRefine says whether to refine: on request, or (auto) up to the job
// count the LP or MILP stays quick at, never past RefineMaxJobs.
func (r *flexRun) doRefine() bool {
	limit := RefineAutoMaxJobs
	if !r.in.rapConvex() {
		limit = RefineAutoMaxJobsMILP
	}
	req := r.req
	do := req.Refine == "on" || ((req.Refine == "" || req.Refine == "auto") && r.n <= limit)
	if do && r.n > RefineMaxJobs {
		r.meta.Notes = append(r.meta.Notes, fmt.Sprintf("refinement skipped: its LP has J²/2 columns, allowed up to %d jobs", RefineMaxJobs))
		return false
	}
	return do
}

// refineBest adds the LP/MILP refinements of the best MPS completion order
// and Fair's, each verified.
func (r *flexRun) refineBest() {
	if !r.doRefine() {
		return
	}
	for _, base := range []*candidate{r.bestMPS, r.fairC} {
		if r.ctx.Err() != nil {
			r.timedOut = true
			return
		}
		order := completionOrder(base.comp, base.prio)
		ref, err := r.in.refine(r.ctx, order, "")
		if err != nil {
			r.meta.Notes = append(r.meta.Notes, fmt.Sprintf("refinement of %s skipped: %v", base.source, err))
			continue
		}
		if err := r.in.verify(ref.ivs, ref.comp, false); err != nil {
			r.meta.Notes = append(r.meta.Notes, fmt.Sprintf("refinement of %s rejected: %v", base.source, err))
			continue
		}
		r.cands = append(r.cands, &candidate{source: "lp_refinement", kind: kindLP, prio: completionOrder(ref.comp, order), comp: ref.comp, obj: ref.obj, ivs: ref.ivs, backend: ref.backend})
	}
}

// exactMalleable solves every completion order by LP/MILP when the request
// asks for the exact search and the instance is small enough.
func (r *flexRun) exactMalleable() {
	if !r.req.Exact || r.n > r.in.exactLimit() {
		return
	}
	c, val, done := r.in.exactMalleable(r.ctx)
	if c != nil {
		r.cands = append(r.cands, c)
	}
	switch {
	case done:
		r.malleableProven, r.provenValue = true, val
		r.meta.Notes = append(r.meta.Notes, fmt.Sprintf("every completion order solved by LP/MILP: the malleable optimum is %g", val))
	case r.ctx.Err() != nil:
		r.timedOut = true
	default:
		// Not the budget: some order's LP/MILP was refused or not
		// proven (an ill-scaled model; the refinement notes say why).
		r.meta.Notes = append(r.meta.Notes, "exact search incomplete: not every completion order's LP/MILP was solved to optimality")
	}
}

// bestCandidate is the first candidate no later one is better than.
func bestCandidate(cands []*candidate) *candidate {
	win := cands[0]
	for _, c := range cands[1:] {
		if better(c.obj, win.obj) {
			win = c
		}
	}
	return win
}

// result is the answer from candidate win: its ordering, intervals (as
// many as the listing limit allows), completions, the baselines and every
// candidate's value.
func (r *flexRun) result(win *candidate) *Result {
	in := r.in
	res := &Result{
		Objective: win.obj, Metric: in.Metric.String(), Aggregate: in.Agg.String(),
		OrderingSource: win.source, MPSOptimal: r.mpsProven, RAPMethod: r.rapMethod,
	}
	res.Ordering = in.idsOf(win.prio)
	lim, more := listLimit(r.req, r.n, &r.meta)
	ivs := r.intervals(win, more)
	if lim >= 0 && len(ivs) > lim {
		ivs, res.IntervalsCut = ivs[:lim], true
	}
	var byID []int
	if len(ivs) > 0 {
		byID = in.idOrder()
	}
	res.Intervals = in.intervalsOut(ivs, byID)
	res.Jobs = in.jobsOut(win.comp)
	res.Baselines.FIFO = baseline(in.Objective(r.side.fifoComp), win.obj)
	res.Baselines.Fair = baseline(r.fairC.obj, win.obj)
	for _, c := range r.cands {
		res.Candidates = append(res.Candidates, CandOut{Source: c.source, Objective: c.obj})
	}
	return res
}

// intervals are win's schedule's first more intervals (−1: all).
func (r *flexRun) intervals(win *candidate, more int) []Interval {
	switch win.kind {
	case kindMPS:
		rec := &mpsRecord{events: make([]rateEvent, 0, 2*r.n)}
		if more >= 0 {
			// Interval k ends at the k-th completion; zero-length ones
			// are dropped, so run until more distinct completion times.
			rec.stopAfter = min(r.n, more+countTies(win.comp, more))
		}
		comp := append([]float64(nil), win.comp...)
		r.in.mps(win.prio, false, r.ev.w, comp, rec)
		return r.in.intervalsFromRecord(rec, comp, more)
	case kindFair:
		_, _, ivs := r.in.fair(more)
		return ivs
	case kindLP:
		return win.ivs
	}
	return nil
}

// settle sets meta's solver, objective, status and bound, and res.Optimal:
// optimal when the exact malleable search finished, when Lemma 1 makes the
// proven best MPS ordering optimal, or when the lower bound meets the
// objective.
func (r *flexRun) settle(res *Result, win *candidate) {
	meta := &r.meta
	meta.Solver = "flex/" + win.source
	if win.backend != "" {
		meta.Solver += "+" + win.backend
	}
	meta.SetObjective(win.obj)
	switch {
	case r.malleableProven:
		res.Optimal = true
		meta.Status = solver.StatusOptimal
		meta.SetBound(math.Min(r.provenValue, win.obj))
	case r.in.lemma1Holds() && r.mpsProven:
		res.Optimal = true
		meta.Status = solver.StatusOptimal
		meta.SetBound(win.obj)
		meta.Notes = append(meta.Notes, "Lemma 1 holds for this metric (sum of linear penalties): the best MPS ordering is a malleable optimum")
	default:
		meta.Status = solver.StatusFeasible
		if r.timedOut {
			meta.Status = solver.StatusTimeout
		}
		bound := r.side.bound
		if math.IsNaN(bound) {
			bound = r.in.rootBound()
		}
		meta.SetBound(math.Min(bound, win.obj))
		if bound >= win.obj {
			// The proven bound meets the schedule's value.
			res.Optimal = true
			meta.Status = solver.StatusOptimal
			meta.Notes = append(meta.Notes, "the lower bound equals the objective: the schedule is optimal")
		}
	}
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
