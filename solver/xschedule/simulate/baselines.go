package simulate

import (
	"context"
	"fmt"
	"slices"

	"github.com/xflex/xflex/solver"
)

// Baseline names (request field baselines; result baselines.NAME).
// drf_best_fit is another name for drf: the global best fit of drf.go,
// stronger than the YARN schedulers the X-Flex paper measured, which
// yarn_fair and yarn_capacity model (yarn.go).
const (
	BaselineDRF          = "drf"
	BaselineDRFBestFit   = "drf_best_fit"
	BaselineYarnFair     = "yarn_fair"
	BaselineYarnCapacity = "yarn_capacity"
)

// Defaults of the YARN baselines' settings.
const (
	// defaultCapacityAMShare is the Capacity Scheduler's
	// yarn.scheduler.capacity.maximum-am-resource-percent.
	defaultCapacityAMShare = 0.1
	// defaultHeartbeat is YARN's NodeManager heartbeat, 1000 ms.
	defaultHeartbeat = 1
)

// baseline is one baseline run: its wire name and its AM limit.
type baseline struct {
	name    string
	amShare float64
}

// baselineNamed is the baseline run of a wire name, with its AM limit.
func (in *Instance) baselineNamed(name string) (baseline, bool) {
	s := in.settings()
	switch name {
	case BaselineDRF, BaselineDRFBestFit:
		return baseline{BaselineDRF, deref(s.AMShare, defaultAMShare)}, true
	case BaselineYarnFair:
		return baseline{BaselineYarnFair, deref(s.AMShare, defaultAMShare)}, true
	case BaselineYarnCapacity:
		return baseline{BaselineYarnCapacity, deref(s.CapacityAMShare, defaultCapacityAMShare)}, true
	}
	return baseline{}, false
}

// baselines are the baseline runs asked for, in a fixed order (drf,
// yarn_fair, yarn_capacity) whatever the request's order; drf always.
func (in *Instance) baselines() []baseline {
	var out []baseline
	for _, n := range []string{BaselineDRF, BaselineYarnFair, BaselineYarnCapacity} {
		if n == BaselineDRF || slices.Contains(in.req.Baselines, n) {
			b, _ := in.baselineNamed(n)
			out = append(out, b)
		}
	}
	return out
}

// baselineScheduler makes b's scheduler for one run, and the run's round
// interval.
func (in *Instance) baselineScheduler(b baseline) (scheduler, float64) {
	nodes, totals := in.model.Nodes(), in.model.Totals()
	if b.name == BaselineDRF {
		return newDRF(nodes, totals), in.interval
	}
	s := in.settings()
	capacity := b.name == BaselineYarnCapacity
	y := newYarn(nodes, totals, capacity, capacity || deref(s.AssignMultiple, false), s.HeartbeatOrder == "jitter", deref(in.req.Seed, 0))
	y.tag = "yarn"
	return y, deref(s.HeartbeatInterval, defaultHeartbeat)
}

// runBaseline simulates the trace under baseline b on the same nodes;
// base is what earlier runs recorded (their answers are written too).
func (in *Instance) runBaseline(ctx context.Context, b baseline, base int) (Run, int, error) {
	sched, interval := in.baselineScheduler(b)
	s := in.newSim(ctx, sched, nil, &b, base)
	s.interval = interval
	if y, ok := sched.(*yarn); ok {
		y.clock = func() float64 { return s.now }
	}
	end, err := s.run(ctx)
	if err != nil {
		return Run{}, 0, err
	}
	s.rec.run.Ended, s.rec.run.Packing, s.rec.run.Masters = end, sched.packing(), mastersOut(s.agents)
	return s.rec.run, s.rec.items(), nil
}

// RunBaseline simulates req under one baseline alone (drf, drf_best_fit,
// yarn_fair or yarn_capacity), without the X-Schedule run: the
// benchmarks' sweeps of the X-Flex paper's Table 1 use it.
func RunBaseline(ctx context.Context, req *Request, name string) (Run, error) {
	in, err := Build(req)
	if err != nil {
		return Run{}, err
	}
	if b, ok := in.baselineNamed(name); ok {
		r, _, err := in.runBaseline(ctx, b, 0)
		return r, err
	}
	return Run{}, fmt.Errorf("simulate: unknown baseline %q", name)
}

// setBaseline puts run r of baseline name into bs.
func setBaseline(bs *Baselines, name string, r Run) {
	switch name {
	case BaselineDRF:
		bs.DRF = r
	case BaselineYarnFair:
		bs.YarnFair = &r
	case BaselineYarnCapacity:
		bs.YarnCapacity = &r
	default:
		panic("simulate: unknown baseline " + name)
	}
}

// baselineNote is the meta note of the runs' grants.
func baselineNote(xr Run, bs []baseline, runs []Run) string {
	s := fmt.Sprintf("X-Schedule granted %d containers", xr.Summary.Granted)
	for i, b := range bs {
		name := b.name
		if name == BaselineDRF {
			name = "DRF"
		}
		s += fmt.Sprintf(", %s %d", name, runs[i].Summary.Granted)
	}
	s += fmt.Sprintf(" (simulated to %g", xr.Until)
	for _, r := range runs {
		s += fmt.Sprintf(" and %g", r.Until)
	}
	return s + ")"
}

// timedOut says whether any run ended on the budget.
func timedOut(xr Run, runs []Run) bool {
	if xr.Ended == EndBudget {
		return true
	}
	for _, r := range runs {
		if r.Ended == EndBudget {
			return true
		}
	}
	return false
}

// memoryWithBaselines scales memory's estimate, fitted to requests that
// run X-Schedule and DRF (two runs held in the answer), by the runs the
// request asks for: each YARN baseline records as much as DRF does.
func memoryWithBaselines(b solver.Built[Request, *Instance]) int64 {
	runs := int64(len(b.In.baselines()) + 1)
	m := memory(b)
	return m + (m-memBase)*(runs-2)/2
}
