package flex

import (
	"math"
	"sort"

	"github.com/xflex/xflex/solver"
)

// Metric is a per-job penalty function of the completion time.
type Metric int

// The metrics of the paper's Fig. 1 plus stretch and makespan.
const (
	WeightedResponseTime Metric = iota // w·(C − arrival)
	Stretch                            // (C − arrival) / (work/max); no weight
	Makespan                           // C − start; no weight
	Tardy                              // w if C > deadline, else 0
	Tardiness                          // w·max(0, C − deadline)
	Lateness                           // w·(C − deadline), may be negative
	SLA                                // penalty of the last pseudo-deadline missed
)

var metricNames = []string{"weighted_response_time", "stretch", "makespan", "tardy", "tardiness", "lateness", "sla"}

func (m Metric) String() string { return metricNames[m] }

func parseMetric(s string) (Metric, bool) {
	for i, n := range metricNames {
		if n == s {
			return Metric(i), true
		}
	}
	return 0, false
}

// needsDeadline reports whether the metric reads a job's deadline.
func (m Metric) needsDeadline() bool { return m == Tardy || m == Tardiness || m == Lateness }

// Aggregate combines per-job penalties.
type Aggregate int

const (
	// Sum is the minisum objective Σ_j f_j(C_j).
	Sum Aggregate = iota
	// Max is the minimax objective max_j f_j(C_j).
	Max
)

func (a Aggregate) String() string {
	if a == Max {
		return "max"
	}
	return "sum"
}

// Step is one SLA step after validation (deadlines strictly increasing).
type Step struct {
	Deadline float64
	Penalty  float64
}

// Job is a validated job. Max is the effective maximum min(max, S).
type Job struct {
	ID       string
	Work     float64
	Min, Max int
	Weight   float64
	Deadline float64
	Steps    []Step
	Arrival  float64
	Metric   Metric
}

// Instance is a validated problem.
type Instance struct {
	S      int
	T0     float64
	Agg    Aggregate
	Metric Metric // the cluster-wide metric (jobs may override)
	Jobs   []Job
}

// N is the number of jobs.
func (in *Instance) N() int { return len(in.Jobs) }

// late reports whether completion c misses deadline d.
func late(c, d float64) bool { return c > d+TimeTol*math.Max(1, math.Abs(d)) }

// Penalty is job j's penalty when it completes at time c.
func (in *Instance) Penalty(j int, c float64) float64 {
	jb := &in.Jobs[j]
	switch jb.Metric {
	case WeightedResponseTime:
		return jb.Weight * (c - jb.Arrival)
	case Stretch:
		return (c - jb.Arrival) * float64(jb.Max) / jb.Work
	case Makespan:
		return c - in.T0
	case Tardy:
		if late(c, jb.Deadline) {
			return jb.Weight
		}
		return 0
	case Tardiness:
		if late(c, jb.Deadline) {
			return jb.Weight * (c - jb.Deadline)
		}
		return 0
	case Lateness:
		return jb.Weight * (c - jb.Deadline)
	case SLA:
		p := 0.0
		for _, s := range jb.Steps {
			if late(c, s.Deadline) {
				p = s.Penalty
			}
		}
		return p
	}
	panic("flex: unknown metric")
}

// Objective aggregates the penalties of completions c.
func (in *Instance) Objective(c []float64) float64 {
	if in.Agg == Max {
		v := math.Inf(-1)
		for j := range c {
			v = math.Max(v, in.Penalty(j, c[j]))
		}
		return v
	}
	v := 0.0
	for j := range c {
		v += in.Penalty(j, c[j])
	}
	return v
}

// Build validates a decoded request and returns the instance. Every
// semantic problem is reported at once with a JSON pointer naming the job.
func Build(req *Request) (*Instance, error) {
	var vs solver.Violations
	metric, agg := checkRequest(req, &vs)
	in := &Instance{S: req.Slots, T0: req.Start, Agg: agg, Metric: metric, Jobs: make([]Job, 0, len(req.Jobs))}
	seen := make(map[string]int, len(req.Jobs))
	minSum := 0
	for i := range req.Jobs {
		jr := &req.Jobs[i]
		jc := jobCheck{req: req, i: i, jr: jr, vs: &vs}
		if prev, dup := seen[jr.ID]; dup {
			vs.Add(jc.ptr("id"), "job id %q duplicates /jobs/%d", jr.ID, prev)
		} else {
			seen[jr.ID] = i
		}
		jm := jc.metric(metric)
		minSum = jc.checkSizes(minSum)
		w := jc.weight(jm)
		d := jc.deadline(jm)
		steps := jc.steps(jm)
		arr := jc.arrival()
		in.Jobs = append(in.Jobs, Job{ID: jr.ID, Work: jr.Work, Min: jr.Min, Max: min(jr.Max, req.Slots), Weight: w, Deadline: d, Steps: steps, Arrival: arr, Metric: jm})
	}
	if err := vs.Err(); err != nil {
		return nil, err
	}
	return in, nil
}

// checkRequest checks the request's fields other than its jobs and returns
// its metric and aggregate (max by default for makespan, else sum).
func checkRequest(req *Request, vs *solver.Violations) (Metric, Aggregate) {
	metric, ok := parseMetric(req.Metric)
	if !ok {
		vs.Add("/metric", "unknown metric %q", req.Metric)
	}
	agg := Sum
	switch req.Objective {
	case "", "sum":
		if req.Objective == "" && metric == Makespan {
			agg = Max
		}
	case "max":
		agg = Max
	default:
		vs.Add("/objective", "unknown objective %q (want sum or max)", req.Objective)
	}
	if ok && metric == Makespan && agg == Sum && req.Objective == "sum" {
		vs.Add("/objective", "makespan is the maximum completion time; use objective max (or weighted_response_time with unit weights for the sum of completion times)")
	}
	if req.Slots < 1 {
		vs.Add("/slots", "slots must be at least 1")
	}
	switch req.Refine {
	case "", "auto", "on", "off":
	default:
		vs.Add("/refine", "unknown refine mode %q (want auto, on or off)", req.Refine)
	}
	if req.LocalSearch != nil && *req.LocalSearch < 0 {
		vs.Add("/local_search", "local_search must be non-negative")
	}
	if req.MaxIntervals != nil && *req.MaxIntervals < 0 {
		vs.Add("/max_intervals", "max_intervals must be non-negative")
	}
	if len(req.Jobs) == 0 {
		vs.Add("/jobs", "at least one job is required")
	}
	if !finite(req.Start) {
		vs.Add("/start", "start must be finite")
	}
	return metric, agg
}

// jobCheck checks job i of a request and reads its fields, adding a
// violation for each problem.
type jobCheck struct {
	req *Request
	i   int
	jr  *JobReq
	vs  *solver.Violations
}

// ptr points at the job's field.
func (c jobCheck) ptr(field string) string { return solver.Ptr("jobs", c.i, field) }

// metric is the job's metric, the request's when it names none.
func (c jobCheck) metric(def Metric) Metric {
	if c.jr.Metric == "" {
		return def
	}
	m, ok := parseMetric(c.jr.Metric)
	if !ok {
		c.vs.Add(c.ptr("metric"), "job %q: unknown metric %q", c.jr.ID, c.jr.Metric)
	}
	return m
}

// checkSizes checks the job's work, min and max, and that the minima so
// far (minSum before this job) fit the slots; it returns the new sum,
// reporting its overflow once, at the job that causes it.
func (c jobCheck) checkSizes(minSum int) int {
	jr, slots := c.jr, c.req.Slots
	if !(jr.Work > 0) || !finite(jr.Work) {
		c.vs.Add(c.ptr("work"), "job %q: work must be positive and finite", jr.ID)
	}
	if jr.Min < 0 {
		c.vs.Add(c.ptr("min"), "job %q: min must be non-negative", jr.ID)
	}
	if jr.Max < 1 {
		c.vs.Add(c.ptr("max"), "job %q: max must be at least 1", jr.ID)
	}
	if jr.Min > jr.Max {
		c.vs.Add(c.ptr("min"), "job %q: min %d exceeds max %d", jr.ID, jr.Min, jr.Max)
	}
	if jr.Min > slots && slots >= 1 {
		c.vs.Add(c.ptr("min"), "job %q: min %d exceeds the %d slots", jr.ID, jr.Min, slots)
	}
	minSum += jr.Min
	if minSum > slots && minSum-jr.Min <= slots && jr.Min <= slots {
		c.vs.Add(c.ptr("min"), "job %q: minima of jobs 0..%d sum to %d, above the %d slots", jr.ID, c.i, minSum, slots)
	}
	return minSum
}

// weight is the job's weight, 1 by default; metrics stretch, makespan and
// sla take none.
func (c jobCheck) weight(jm Metric) float64 {
	if c.jr.Weight == nil {
		return 1
	}
	w := *c.jr.Weight
	if !(w >= 0) || !finite(w) {
		c.vs.Add(c.ptr("weight"), "job %q: weight must be non-negative and finite", c.jr.ID)
	}
	if jm == Stretch || jm == Makespan || jm == SLA {
		c.vs.Add(c.ptr("weight"), "job %q: weights do not apply to metric %s", c.jr.ID, jm)
	}
	return w
}

// deadline is the job's deadline (0 when none), which its metric must
// need.
func (c jobCheck) deadline(jm Metric) float64 {
	if c.jr.Deadline == nil {
		if jm.needsDeadline() {
			c.vs.Add(c.ptr("deadline"), "job %q: metric %s needs a deadline", c.jr.ID, jm)
		}
		return 0
	}
	d := *c.jr.Deadline
	if !finite(d) {
		c.vs.Add(c.ptr("deadline"), "job %q: deadline must be finite", c.jr.ID)
	}
	if !jm.needsDeadline() {
		c.vs.Add(c.ptr("deadline"), "job %q: metric %s takes no deadline", c.jr.ID, jm)
	}
	return d
}

// steps are the job's SLA steps sorted by pseudo-deadline (metric sla
// only), with distinct pseudo-deadlines and penalties that do not fall.
func (c jobCheck) steps(jm Metric) []Step {
	jr := c.jr
	if len(jr.SLA) > 0 && jm != SLA {
		c.vs.Add(c.ptr("sla"), "job %q: metric %s takes no SLA steps", jr.ID, jm)
	}
	if jm != SLA {
		return nil
	}
	if len(jr.SLA) == 0 {
		c.vs.Add(c.ptr("sla"), "job %q: metric sla needs at least one step", jr.ID)
	}
	var steps []Step
	for k, s := range jr.SLA {
		if !finite(s.Deadline) {
			c.vs.Add(solver.Ptr("jobs", c.i, "sla", k, "deadline"), "job %q: step deadline must be finite", jr.ID)
		}
		if !(s.Penalty >= 0) || !finite(s.Penalty) {
			c.vs.Add(solver.Ptr("jobs", c.i, "sla", k, "penalty"), "job %q: step penalty must be non-negative and finite", jr.ID)
		}
		steps = append(steps, Step{Deadline: s.Deadline, Penalty: s.Penalty})
	}
	sort.SliceStable(steps, func(a, b int) bool { return steps[a].Deadline < steps[b].Deadline })
	for k := 1; k < len(steps); k++ {
		if steps[k].Deadline == steps[k-1].Deadline {
			c.vs.Add(c.ptr("sla"), "job %q: two steps share pseudo-deadline %g", jr.ID, steps[k].Deadline)
		} else if steps[k].Penalty < steps[k-1].Penalty {
			c.vs.Add(c.ptr("sla"), "job %q: penalties must not fall as pseudo-deadlines grow (%g at %g after %g at %g)", jr.ID, steps[k].Penalty, steps[k].Deadline, steps[k-1].Penalty, steps[k-1].Deadline)
		}
	}
	return steps
}

// arrival is the job's arrival, the request's start by default, which it
// may not be after.
func (c jobCheck) arrival() float64 {
	start := c.req.Start
	if c.jr.Arrival == nil {
		return start
	}
	arr := *c.jr.Arrival
	if !finite(arr) || arr > start {
		c.vs.Add(c.ptr("arrival"), "job %q: arrival must be finite and not after start %g", c.jr.ID, start)
	}
	return arr
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// lemma1Holds reports whether Lemma 1 (some MPS ordering is an optimal
// malleable schedule) is known to hold for the instance: every job's
// penalty is linear in its completion time (weighted response time,
// stretch, lateness) and the aggregate is the sum. For the minimax
// aggregate and for tardy jobs, tardiness and SLA sums it fails (see
// TestLemma1Counterexample).
func (in *Instance) lemma1Holds() bool {
	if in.Agg != Sum {
		return false
	}
	for _, j := range in.Jobs {
		switch j.Metric {
		case WeightedResponseTime, Stretch, Lateness:
		default:
			return false
		}
	}
	return true
}
