package simulate

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/xflex/xflex/solver"
)

// slowTol is the relative delay below which a job does not count as slowed
// down: finish times are sums of event times, so relative round-off is
// ~1e-12; 1e-6 ignores it and counts any delay a user could notice.
const slowTol = 1e-6

// solve simulates a built request.
func solve(ctx context.Context, b solver.Built[Request, *Instance], opts solver.Options) (any, solver.Meta, error) {
	return b.In.Run(ctx)
}

// Run simulates the instance under its policy and, for the slowdown
// comparison, under its fair policy.
func (in *Instance) Run(ctx context.Context) (*Result, solver.Meta, error) {
	pol, fairPol := in.Policy, in.FairPolicy
	meta := solver.Meta{Status: solver.StatusFeasible, Solver: "tetris/simulate:" + pol}
	meta.Notes = append(meta.Notes,
		"status is feasible, not optimal: this is a deterministic event-driven simulation of the policy; objective is the makespan and bound a lower bound on any schedule's makespan (critical paths and resource volume), so gap measures how far the policy is from that bound",
		"instance: "+in.String())
	o, err := Simulate(ctx, in, pol)
	if err != nil {
		return nil, meta, err
	}
	res := in.result(pol, o)
	if !o.complete {
		meta.Status = solver.StatusTimeout
		meta.Notes = append(meta.Notes, fmt.Sprintf("budget ran out at simulated time %g with %d jobs unfinished; raise budget_ms", o.end, len(res.Unfinished)))
		meta.SetBound(res.MakespanLB) // no makespan yet, so no gap
		return res, meta, nil
	}
	if fairPol != PolicyNone {
		var fo *outcome
		if fairPol == pol {
			fo = o
		} else {
			fo, err = Simulate(ctx, in, fairPol)
			var xe *solver.Error
			if errors.As(err, &xe) && xe.Kind == solver.KindInfeasible {
				meta.Notes = append(meta.Notes, "fair policy "+fairPol+" cannot run this trace ("+xe.Detail+"); slowdowns omitted")
				fo, err = nil, nil
			}
			if err != nil {
				return nil, meta, err
			}
		}
		switch {
		case fo == nil: // the fair policy cannot run the trace (noted above)
		case fo.complete:
			res.Compare(in.result(fairPol, fo))
		default:
			meta.Notes = append(meta.Notes, "budget ran out during the fair-policy run; slowdowns omitted")
		}
	}
	meta.SetObjective(res.Makespan)
	meta.SetBound(res.MakespanLB)
	return res, meta, nil
}

func (in *Instance) result(pol string, o *outcome) *Result {
	res := &Result{Policy: pol, Complete: o.complete, Jobs: []JobOut{}, Unfinished: []string{},
		AvgUtil: map[string]float64{}, Overalloc: map[string]float64{}, MakespanLB: in.lowerBound()}
	n := 0
	for j, jb := range in.Jobs {
		f := o.finish[j]
		if math.IsNaN(f) {
			res.Unfinished = append(res.Unfinished, jb.id)
			continue
		}
		jo := JobOut{ID: jb.id, Arrival: jb.arrival, Completion: f, Duration: f - jb.arrival, Stages: []StageOut{}}
		for k, st := range jb.stages {
			jo.Stages = append(jo.Stages, StageOut{Name: st.name, Finish: o.stageEnd[j][k]})
		}
		res.Jobs = append(res.Jobs, jo)
		res.Makespan = math.Max(res.Makespan, f)
		res.AvgCompletion += f - jb.arrival
		res.AvgFinish += f
		n++
	}
	if n > 0 {
		res.AvgCompletion /= float64(n)
		res.AvgFinish /= float64(n)
	}
	res.Tasks.Count = o.nTasks
	if o.nTasks > 0 {
		res.Tasks.AvgStretch = o.stretchSum / float64(o.nTasks)
		res.Tasks.MaxStretch = o.stretchMax
	}
	res.Utilization = o.bins.out(o.end, in.Resources, in.Total)
	for k, r := range in.Resources {
		if o.end > 0 && in.Total[k] > 0 {
			res.AvgUtil[r] = perCapacityTime(o.bins.total(k), o.end, in.Total[k])
		}
		if o.end > 0 && len(in.Cap) > 0 {
			res.Overalloc[r] = perCapacityTime(o.over[k], o.end, float64(len(in.Cap)))
		}
	}
	return res
}

// Compare fills res.Fair and the per-job slowdowns against fr, the same
// trace run under the fair policy: slowdown is duration/fair_duration − 1
// (positive: the job finished later than under the fair policy).
func (res *Result) Compare(fr *Result) {
	f := &FairOut{Policy: fr.Policy, Makespan: fr.Makespan, AvgCompletion: fr.AvgCompletion}
	if fr.Makespan > 0 {
		f.MakespanReduction = (fr.Makespan - res.Makespan) / fr.Makespan
	}
	if fr.AvgCompletion > 0 {
		f.AvgReduction = (fr.AvgCompletion - res.AvgCompletion) / fr.AvgCompletion
	}
	fd := map[string]float64{}
	for _, j := range fr.Jobs {
		fd[j.ID] = j.Duration
	}
	slowed, sum := 0, 0.0
	for i := range res.Jobs {
		j := &res.Jobs[i]
		d, ok := fd[j.ID]
		if !ok {
			continue
		}
		j.FairDuration = &d
		sd := 0.0
		if d > 0 {
			sd = j.Duration/d - 1
		}
		j.Slowdown = &sd
		if sd > slowTol {
			slowed++
			sum += sd
			f.MaxSlowdown = math.Max(f.MaxSlowdown, sd)
		}
	}
	if len(res.Jobs) > 0 {
		f.SlowedFraction = float64(slowed) / float64(len(res.Jobs))
	}
	if slowed > 0 {
		f.AvgSlowdown = sum / float64(slowed)
	}
	res.Fair = f
}

// lowerBound is a lower bound on the makespan of any schedule: every job
// needs its arrival plus its critical path (stage durations along the
// longest chain), and every resource r needs Σ demand·duration / Σ capacity
// after the first arrival (slowing a task never lowers the resource-time it
// uses).
func (in *Instance) lowerBound() float64 {
	lb := 0.0
	first := math.Inf(1)
	d := len(in.Resources)
	vol := make([]float64, d)
	for _, jb := range in.Jobs {
		first = math.Min(first, jb.arrival)
		// Longest path by memoised DFS in the (acyclic) stage DAG.
		memo := make([]float64, len(jb.stages))
		for i := range memo {
			memo[i] = -1
		}
		var lp func(s int) float64
		lp = func(s int) float64 {
			if memo[s] >= 0 {
				return memo[s]
			}
			best := 0.0
			for _, p := range jb.stages[s].after {
				best = math.Max(best, lp(p))
			}
			dur := 0.0
			if jb.stages[s].tasks > 0 {
				dur = jb.stages[s].duration
			}
			memo[s] = best + dur
			return memo[s]
		}
		for s := range jb.stages {
			lb = math.Max(lb, jb.arrival+lp(s))
		}
		for _, st := range jb.stages {
			for k, x := range st.demand {
				vol[k] += x * st.duration * float64(st.tasks)
			}
		}
	}
	if math.IsInf(first, 1) {
		return lb
	}
	for k, v := range vol {
		if in.Total[k] > 0 {
			lb = math.Max(lb, first+v/in.Total[k])
		}
	}
	return lb
}
