package xschedule

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/xflex/xflex/solver/xschedule/master"
	"github.com/xflex/xflex/solver/xschedule/simulate"
)

// Reading is one reading of the X-Flex paper's Table 1 for the baseline
// sweep: what the paper leaves unstated (task length, arrivals, the
// order the jobs are submitted in, the baseline's AM limit, AM start-up
// and container launch latency, whether a MapReduce job gives each
// container back after its task) fixed one way. The X-Flex columns run
// through the simulator on their own containers (owned_only: no
// sharing, the fixed pools of RunTable1), the baseline column through
// simulate.RunBaseline.
type Reading struct {
	TaskSeconds float64
	// Spread: 0 every job at time 0, else Poisson over about Spread s.
	Spread float64
	// LargeFirst submits the large job first (its arrival is the first
	// of the sequence; the others keep their random order).
	LargeFirst bool
	// AMShare is the baseline's AM limit (maxAMShare for drf and
	// yarn_fair, maximum-am-resource-percent for yarn_capacity).
	AMShare float64
	// AMLatency and LaunchLatency are the start-up delays, in every run.
	AMLatency, LaunchLatency float64
	// Release: the baseline's jobs give each container back when its
	// task ends (YARN's MapReduce AM) instead of reusing it.
	Release bool
}

// readingJobs are one application's jobs under r with seed: Table1Jobs,
// the large job moved to the front when r.LargeFirst (the arrival times
// stay in sequence).
func readingJobs(r Reading, seed uint64) []simulate.MasterJobIn {
	jobs := master.Table1Jobs(r.TaskSeconds, r.Spread, seed)
	if r.LargeFirst {
		i := slices.IndexFunc(jobs, func(j master.Job) bool { return master.Table1Class(j.Tasks) == "large" })
		at := make([]float64, len(jobs))
		for k, j := range jobs {
			at[k] = j.Arrival
		}
		large := jobs[i]
		jobs = append([]master.Job{large}, slices.Delete(jobs, i, i+1)...)
		for k := range jobs {
			jobs[k].Arrival = at[k]
		}
	}
	out := make([]simulate.MasterJobIn, len(jobs))
	for k, j := range jobs {
		out[k] = simulate.MasterJobIn{ID: j.ID, Arrival: j.Arrival, Tasks: j.Tasks, TaskDuration: j.TaskDuration}
	}
	return out
}

// readingRequest is the Table 1 simulation of reading r with seed: no
// sharing between the X-Flex applications (every ask owned_only).
func readingRequest(r Reading, seed uint64) *simulate.Request {
	req := simulate.Table1Request(r.TaskSeconds, r.Spread, seed, 0, 0, "owned_only", "owned_only")
	jobs := readingJobs(r, seed)
	for i := range req.Masters {
		req.Masters[i].Jobs = jobs
		req.Masters[i].ReleaseEachTask = r.Release
	}
	am, aml, ll := r.AMShare, r.AMLatency, r.LaunchLatency
	req.Settings.AMShare, req.Settings.CapacityAMShare = &am, &am
	req.Settings.AMLatency, req.Settings.LaunchLatency = &aml, &ll
	return req
}

// xflexKey is what the X-Flex columns depend on (not the baseline's AM
// limit nor its containers' release).
func (r Reading) xflexKey() Reading {
	r.AMShare, r.Release = 0.5, false
	return r
}

// RunXFlexColumns runs the three X-Flex applications of reading r with
// seed on their own containers: rows flex, fair, fifo.
func RunXFlexColumns(ctx context.Context, r Reading, seed uint64) ([]Table1Row, error) {
	res, err := solveSim(ctx, readingRequest(r.xflexKey(), seed))
	if err != nil {
		return nil, err
	}
	var rows []Table1Row
	for _, m := range res.Masters {
		if m.Makespan == nil {
			return nil, fmt.Errorf("reading %+v seed %d: %s did not finish", r, seed, m.App)
		}
		rows = append(rows, simRow(m.Policy, []simulate.MasterOut{m}, res.Summary.Used))
	}
	return rows, nil
}

// RunBaselineColumn runs baseline name (drf, yarn_fair, yarn_capacity)
// on reading r with seed: its row of Table 1 (the 93 jobs, each its own
// user with its own AM).
func RunBaselineColumn(ctx context.Context, r Reading, seed uint64, name string) (Table1Row, error) {
	run, err := simulate.RunBaseline(ctx, readingRequest(r, seed), name)
	if err != nil {
		return Table1Row{}, err
	}
	if run.Ended != simulate.EndQuiet {
		return Table1Row{}, fmt.Errorf("reading %+v seed %d: %s ended %s", r, seed, name, run.Ended)
	}
	return simRow(name, run.Masters, run.Summary.Used), nil
}

// solveSim solves a simulation through the problem's Go API.
func solveSim(ctx context.Context, req *simulate.Request) (*simulate.Result, error) {
	return solveRequest[*simulate.Result](ctx, simulate.Problem().Solve, req)
}

// distance is how far rows (flex, fair, fifo, baseline) are from the
// paper's Table 1: the root mean square of the relative errors of the
// twenty response times and makespans.
func distance(rows []Table1Row) float64 {
	s, n := 0.0, 0
	for i, r := range rows {
		p := Table1Paper[i]
		for _, f := range [][2]float64{{r.Small, p.Small}, {r.Medium, p.Medium}, {r.Large, p.Large}, {r.Overall, p.Overall}, {r.Makespan, p.Makespan}} {
			e := (f[0] - f[1]) / f[1]
			s += e * e
			n++
		}
	}
	return math.Sqrt(s / float64(n))
}
