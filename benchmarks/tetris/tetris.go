// Package tetris benchmarks the Tetris problems: the assign round's speed at
// the paper's scale (10,000 pending tasks, 250 machines; the target is under
// 5 ms) and the simulator's quality on the synthetic workload of the paper's
// deployment (§5.1) and a 4x-load variant (a quarter of the machines, as
// §5.3.3 varies load), comparing tetris with drf, slot-fair, capacity and
// tetris restricted to CPU and memory.
package tetris

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"sort"
	"time"

	"github.com/xflex/xflex/benchmarks"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/tetris"
	"github.com/xflex/xflex/solver/tetris/assign"
	"github.com/xflex/xflex/solver/tetris/simulate"
)

// Sizes of the assign benchmark.
const (
	AssignMachines = 250
	AssignTasks    = 10000
	AssignJobs     = 100
	// SteadyBusy is the mean used fraction of every resource (±10% per
	// machine and resource): a heartbeat in a loaded cluster, where a few
	// tasks fit per machine.
	SteadyBusy = 0.9
)

// Workload sizes per scale.
type workload struct {
	jobs, machines int
	size           float64
}

var scales = map[string]workload{
	"small": {jobs: 30, machines: 20, size: 0.1},
	"full":  {jobs: 100, machines: 250, size: 1},
}

// Seed of the benchmark workloads.
const Seed = 11

// Report prints the assign timing and the simulation tables.
func Report(ctx context.Context, w io.Writer, scale string) error {
	wl, ok := scales[scale]
	if !ok {
		return fmt.Errorf("unknown scale %q (small or full)", scale)
	}
	reps := 21
	if scale == "small" {
		reps = 7
	}
	fmt.Fprintf(w, "# Tetris (scale %s)\n\n", scale)
	if err := reportAssign(ctx, w, reps); err != nil {
		return err
	}
	for _, load := range []struct {
		name     string
		machines int
	}{{"1x load", wl.machines}, {"4x load", max(1, wl.machines/4)}} {
		for _, hz := range []float64{3600, 0} {
			if err := reportSim(ctx, w, wl, load.name, load.machines, hz, 0, false); err != nil {
				return err
			}
		}
	}
	// Over-allocation with a throughput penalty (seeks, incast): an
	// over-allocated disk or NIC delivers c/(1 + 0.5·(u/c − 1)).
	for _, hz := range []float64{3600, 0} {
		if err := reportSim(ctx, w, wl, "4x load", max(1, wl.machines/4), hz, ReportInterference, false); err != nil {
			return err
		}
	}
	// Map tasks reading their input blocks from seeded machines: remote
	// reads load the network and the input machine's disks.
	if err := reportSim(ctx, w, wl, "4x load", max(1, wl.machines/4), 3600, 0, true); err != nil {
		return err
	}
	return reportFairness(ctx, w, wl, max(1, wl.machines/4))
}

func median(xs []time.Duration) time.Duration {
	s := append([]time.Duration(nil), xs...)
	sort.Slice(s, func(a, b int) bool { return s[a] < s[b] })
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d.Microseconds())/1000) }

func reportAssign(ctx context.Context, w io.Writer, reps int) error {
	fmt.Fprintf(w, "## assign: one round, %d pending tasks (%d jobs), %d machines\n\n", AssignTasks, AssignJobs, AssignMachines)
	fmt.Fprintf(w, "Median of %d runs; wall and process CPU time in ms (CPU time is what the work costs; wall includes waiting for a shared core).\n\n", reps)
	fmt.Fprintln(w, "| cluster state | placed | unplaced | round wall | round CPU | explain CPU | Solve (JSON in, result out) wall | Solve CPU |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, st := range []struct {
		name string
		busy float64
		hb   int // heartbeat of the first hb machines; 0: every machine
	}{{"steady (90% used)", SteadyBusy, 0}, {"idle cluster", 0, 0},
		{"steady, one machine's heartbeat", SteadyBusy, 1}, {"idle, one machine's heartbeat", 0, 1}} {
		req := assign.GenerateRequest(rand.New(rand.NewPCG(1, 2)), AssignMachines, AssignTasks, AssignJobs, st.busy, 1)
		for _, m := range req.Machines[:st.hb] {
			req.Heartbeat = append(req.Heartbeat, m.Name)
		}
		raw, err := json.Marshal(req)
		if err != nil {
			return err
		}
		var rw, rc, ec, sw, sc []time.Duration
		placed, unplaced := 0, 0
		for i := 0; i < reps; i++ {
			in, err := assign.Build(req)
			if err != nil {
				return err
			}
			runtime.GC() // do not bill the round for collecting Build's garbage
			w0, c0 := time.Now(), benchmarks.CPUTime()
			ps, err := in.Round(ctx)
			if err != nil {
				return err
			}
			w1, c1 := time.Now(), benchmarks.CPUTime()
			tetris.ExplainOn(ctx, in.Machines, in.Offered, in.Groups, in.Config())
			c2 := benchmarks.CPUTime()
			rw, rc, ec = append(rw, w1.Sub(w0)), append(rc, c1-c0), append(ec, c2-c1)
			placed = len(ps)
			w3, c3 := time.Now(), benchmarks.CPUTime()
			res, _, err := assign.Solve(ctx, raw, solver.Options{})
			if err != nil {
				return err
			}
			sw, sc = append(sw, time.Since(w3)), append(sc, benchmarks.CPUTime()-c3)
			unplaced = res.(*assign.Result).Summary.Unplaced
		}
		fmt.Fprintf(w, "| %s | %d | %d | %s | %s | %s | %s | %s |\n", st.name, placed, unplaced,
			ms(median(rw)), ms(median(rc)), ms(median(ec)), ms(median(sw)), ms(median(sc)))
	}
	fmt.Fprintln(w)
	return reportStages(ctx, w, reps)
}

// Stages of one request as the HTTP endpoint and `xflex solve` serve it
// (solver.Runner.Run, then Response.AppendJSON, the server's encoder).
var stageNames = []string{
	"DecodeAny (runner: JSON to generic values)",
	"schema validation (runner)",
	"canonical hash (runner)",
	"Problem.Decode into the request type and its instance (runner, second core)",
	"Build: validate, group (Solve)",
	"Run: round, explanations, result (Solve)",
	"Response.AppendJSON of the result (server)",
	"whole Runner.Run + Response.AppendJSON",
}

// reportStages times each stage of a steady-state 10,000-task request:
// wall time, median of reps runs of the stage in a row, as a server busy
// with such requests meets them (no collection forced between them: a
// forced one made the next stage pay for returning memory to the OS and
// faulting it back, 150 ms "CPU" for a 15 ms encoding on this machine).
func reportStages(ctx context.Context, w io.Writer, reps int) error {
	req := assign.GenerateRequest(rand.New(rand.NewPCG(1, 2)), AssignMachines, AssignTasks, AssignJobs, SteadyBusy, 1)
	raw, err := json.Marshal(req)
	if err != nil {
		return err
	}
	run, err := solver.NewRunner([]solver.Problem{assign.Problem()}, 0)
	if err != nil {
		return err
	}
	p := assign.Problem()
	// One request's intermediate values, each stage then timed alone.
	doc, err := solver.DecodeAny(raw)
	if err != nil {
		return err
	}
	dec := new(assign.Request)
	if err := solver.Decode(raw, dec); err != nil {
		return err
	}
	in, err := assign.Build(dec)
	if err != nil {
		return err
	}
	res, err := in.Run(ctx)
	if err != nil {
		return err
	}
	stages := []func() error{
		func() error { _, err := solver.DecodeAny(raw); return err },
		func() error {
			if vs := run.Schemas().Validate(p.RequestSchema, doc); len(vs) > 0 {
				return fmt.Errorf("schema: %v", vs[0])
			}
			return nil
		},
		func() error { _, err := solver.CanonicalHash(doc); return err },
		func() error { _, err := p.Decode(raw); return err },
		func() error { _, err := assign.Build(dec); return err },
		func() error {
			in, err := assign.Build(dec) // Run consumes the instance
			if err != nil {
				return err
			}
			_, err = in.Run(ctx)
			return err
		},
		func() error { _, err := (&solver.Response{Result: res}).AppendJSON(nil); return err },
		func() error {
			resp, err := run.Run(ctx, p.Name, raw)
			if err == nil {
				_, err = resp.AppendJSON(nil)
			}
			return err
		},
	}
	fmt.Fprintf(w, "### The whole request (steady state, %d bytes of JSON), wall ms, median of %d\n\n", len(raw), reps)
	fmt.Fprintln(w, "| stage | wall ms |")
	fmt.Fprintln(w, "|---|---:|")
	for k, stage := range stages {
		var ts []time.Duration
		for i := 0; i < reps; i++ {
			t0 := time.Now()
			if err := stage(); err != nil {
				return fmt.Errorf("%s: %w", stageNames[k], err)
			}
			ts = append(ts, time.Since(t0))
		}
		fmt.Fprintf(w, "| %s | %s |\n", stageNames[k], ms(median(ts)))
	}
	fmt.Fprintln(w, "\nThe Run stage includes a Build (the instance is consumed); Problem.Decode runs beside DecodeAny, validation and hashing, so the stages add up to more than the whole.")
	fmt.Fprintln(w)
	return nil
}

// simRun runs one policy without the fair comparison.
func simRun(ctx context.Context, req *simulate.Request, pol string, knobs *simulate.Knobs) (*simulate.Result, time.Duration, error) {
	r := *req
	r.Policy, r.FairPolicy = pol, simulate.PolicyNone
	r.Knobs = knobs
	in, err := simulate.Build(&r)
	if err != nil {
		return nil, 0, err
	}
	c0 := benchmarks.CPUTime()
	res, meta, err := in.Run(ctx)
	if err != nil {
		return nil, 0, err
	}
	if meta.Status != solver.StatusFeasible || !res.Complete {
		return nil, 0, fmt.Errorf("%s did not finish (%s)", pol, meta.Status)
	}
	return res, benchmarks.CPUTime() - c0, nil
}

func pct(base, x float64) string {
	if base <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*(base-x)/base)
}

// tetrisEps0 labels tetris with ε = 0 (packing only, no SRTF term).
const tetrisEps0 = "tetris ε=0"

var policies = []string{simulate.PolicyTetris, simulate.PolicyDRF, simulate.PolicySlotFair, simulate.PolicyCapacity, simulate.PolicyTetrisCPUMem}

// ReportInterference is the contention penalty of the report's last tables.
const ReportInterference = 0.5

func reportSim(ctx context.Context, w io.Writer, wl workload, load string, machines int, horizon, interference float64, inputs bool) error {
	req := simulate.GenerateRequest(rand.New(rand.NewPCG(Seed, 1)), wl.jobs, machines, wl.size, horizon, simulate.PolicyTetris)
	if inputs {
		seed := int64(Seed)
		req.Seed = &seed
		simulate.WithInputs(req)
		load += ", map inputs on seeded machines"
	}
	if interference > 0 {
		req.Interference = &interference
		load += fmt.Sprintf(", interference %g", interference)
	}
	tasks := 0
	for _, j := range req.Jobs {
		for _, s := range j.Stages {
			tasks += s.Tasks
		}
	}
	arr := "arrivals uniform over [0, 3600] s"
	if horizon == 0 {
		arr = "all jobs arrive at 0 (the paper's makespan setting)"
	}
	fmt.Fprintf(w, "## simulate: %s, %d jobs, %d tasks, %d machines, %s\n\n", load, len(req.Jobs), tasks, machines, arr)
	res := map[string]*simulate.Result{}
	cpu := map[string]time.Duration{}
	zero := 0.0
	rows := append([]string{}, policies...)
	rows = append(rows, tetrisEps0)
	for _, p := range rows {
		var knobs *simulate.Knobs
		pol := p
		if p == tetrisEps0 {
			pol, knobs = simulate.PolicyTetris, &simulate.Knobs{Epsilon: &zero}
		}
		r, c, err := simRun(ctx, req, pol, knobs)
		if err != nil {
			return err
		}
		res[p], cpu[p] = r, c
	}
	d, s := res[simulate.PolicyDRF], res[simulate.PolicySlotFair]
	fmt.Fprintln(w, "| policy | makespan s | avg job completion s | makespan red. vs drf | vs slot-fair | avg completion red. vs drf | vs slot-fair | task stretch | cpu util | mem util | disk-read util | sim CPU s |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, p := range rows {
		r := res[p]
		fmt.Fprintf(w, "| %s | %.0f | %.1f | %s | %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f |\n", p, r.Makespan, r.AvgCompletion,
			pct(d.Makespan, r.Makespan), pct(s.Makespan, r.Makespan), pct(d.AvgCompletion, r.AvgCompletion), pct(s.AvgCompletion, r.AvgCompletion),
			r.Tasks.AvgStretch, r.AvgUtil["cpu"], r.AvgUtil["memory"], r.AvgUtil["disk_read"], cpu[p].Seconds())
	}
	lb := res[simulate.PolicyTetris].MakespanLB
	fmt.Fprintf(w, "\nMakespan lower bound (critical paths, resource volume): %.0f s; no schedule can cut drf's makespan by more than %s or slot-fair's by more than %s.\n\n",
		lb, pct(d.Makespan, lb), pct(s.Makespan, lb))
	// The simulator's own fair comparison, against the drf run above.
	res[simulate.PolicyTetris].Compare(d)
	sl := res[simulate.PolicyTetris].Fair
	fmt.Fprintf(w, "Jobs slowed by tetris (f = 0.25) against drf: %.1f%%, by %.1f%% on average, %.1f%% at most.\n\n", 100*sl.SlowedFraction, 100*sl.AvgSlowdown, 100*sl.MaxSlowdown)
	return nil
}

func reportFairness(ctx context.Context, w io.Writer, wl workload, machines int) error {
	req := simulate.GenerateRequest(rand.New(rand.NewPCG(Seed, 1)), wl.jobs, machines, wl.size, 3600, simulate.PolicyTetris)
	d, _, err := simRun(ctx, req, simulate.PolicyDRF, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "## fairness knob: tetris against drf, 4x load, arrivals over an hour (%d machines)\n\n", machines)
	fmt.Fprintln(w, "| f | makespan red. vs drf | avg completion red. vs drf | jobs slowed | avg slowdown of slowed | max slowdown |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|")
	for _, f := range []float64{0, 0.25, 0.5, 0.75, 1} {
		f := f
		r, _, err := simRun(ctx, req, simulate.PolicyTetris, &simulate.Knobs{Fairness: &f})
		if err != nil {
			return err
		}
		r.Compare(d)
		sl := r.Fair
		fmt.Fprintf(w, "| %.2f | %s | %s | %.1f%% | %.1f%% | %.1f%% |\n", f, pct(d.Makespan, r.Makespan), pct(d.AvgCompletion, r.AvgCompletion),
			100*sl.SlowedFraction, 100*sl.AvgSlowdown, 100*sl.MaxSlowdown)
	}
	fmt.Fprintln(w)
	return nil
}
