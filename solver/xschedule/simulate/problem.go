package simulate

import (
	"context"
	"math"
	"time"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/xschedule/assign"
)

// Problem is the X-Schedule simulator as served at POST /v1/xschedule/simulate.
func Problem() solver.Problem {
	return solver.Typed[Request, *Instance]{
		Name:           "xschedule/simulate",
		CLIName:        "xschedule-simulate",
		RequestSchema:  "xschedule-simulate.request.json",
		ResponseSchema: "xschedule-simulate.response.json",
		Summary:        "X-Schedule simulator: a request trace over time under X-Schedule and under online DRF",
		Generate:       Generate,
		GenParams:      genParamTable,
		Build:          Build,
		Solve:          solve,
		Picture:        picture,
		PictureShared:  pictureShared,
		// Build on the second core while the body is validated, as
		// xschedule/assign does: it checks every request of the trace.
		PreBuild: true,
		// Decode with sonic: encoding/json took 70 ms of a 20,000-request
		// trace (an X-Flex plan's simulation stage).
		Decode: solver.DecodeSonic[Request],
		Memory: memoryWithBaselines,
	}.Problem()
}

// Defaults of the settings and limits.
const (
	defaultInterval  = 1
	defaultMaxEvents = 100000
	defaultMaxPoints = 10000
)

// Instance is a checked simulation: the request, and the assign model
// that checked the cluster, the applications and the trace (its round
// state is still the start: every container free, no pair context).
type Instance struct {
	req      *Request
	model    *assign.Model
	conts    int
	interval float64
	patience float64
	horizon  float64
	maxEv    int
	maxPts   int
	// trace is the request trace sorted by arrival, each run's trace
	// agent a fresh copy of it.
	trace *traceAgent
}

// Build checks the request with xschedule/assign's checks (the trace's
// requests are that round's requests, at the same pointers) and reads
// the settings.
func Build(req *Request) (*Instance, error) {
	ar := &assign.Request{Resources: req.Resources, Nodes: req.Nodes, Placement: req.Placement, Apps: req.Apps, Prices: req.Prices}
	for _, c := range req.Containers {
		ar.Containers = append(ar.Containers, assign.Container{ID: c.ID, Node: c.Node, Size: c.Size, Owner: c.Owner})
	}
	for _, a := range req.Requests {
		ar.Requests = append(ar.Requests, assign.Ask{ID: a.ID, App: a.App, Count: a.Count, Size: a.Size, Duration: a.Duration,
			Priority: a.Priority, PreemptionPriority: a.PreemptionPriority, Rack: a.Rack, Host: a.Host, Type: a.Type})
	}
	in := &Instance{req: req, interval: defaultInterval, patience: math.Inf(1), horizon: math.Inf(1),
		maxEv: defaultMaxEvents, maxPts: defaultMaxPoints}
	if s := req.Settings; s != nil {
		ar.Settings = &s.Settings
		in.interval = deref(s.SchedulingInterval, in.interval)
		in.patience = deref(s.Patience, in.patience)
	}
	in.horizon = deref(req.Horizon, in.horizon)
	if l := req.Limits; l != nil {
		in.maxEv = deref(l.MaxEvents, in.maxEv)
		in.maxPts = deref(l.MaxPoints, in.maxPts)
	}
	m, err := assign.Build(ar)
	if err != nil {
		return nil, err
	}
	var vs solver.Violations
	checkMasters(req, m, &vs)
	if err := vs.Err(); err != nil {
		return nil, err
	}
	in.model, in.conts = m, len(m.Containers())
	in.trace = newTraceAgent(req.Requests)
	return in, nil
}

func deref[T any](p *T, def T) T {
	if p != nil {
		return *p
	}
	return def
}

// agents are the demand of a run, each run its own: the trace, then the
// masters (b: as baseline b's run sees them; nil for X-Schedule).
func (in *Instance) agents(b *baseline) []agent {
	return append([]agent{in.trace.fresh()}, in.masterAgents(b)...)
}

func (in *Instance) newSim(ctx context.Context, sched scheduler, pairs pairSource, b *baseline, base int) *sim {
	m := in.model
	nres := 0
	for _, x := range m.Totals() {
		if x > 0 {
			nres++
		}
	}
	s := &sim{sched: sched, agents: in.agents(b), horizon: in.horizon, interval: in.interval, patience: in.patience,
		byID: map[string]*pending{}, holds: map[string]hold{}, lastRound: -1, roundAt: math.Inf(1),
		rec: newRecorder(sched, pairs, m.AppNames(), nres, in.maxEv, in.maxPts, in.conts), base: base}
	s.deadline, _ = ctx.Deadline()
	s.rec.count += in.masterItems() // the masters' jobs are written too
	return s
}

// runX simulates the trace under X-Schedule; it also returns the items
// it recorded.
func (in *Instance) runX(ctx context.Context) (Run, []PairSeries, int, error) {
	x := newXsched(in.model, in.req.Requests)
	s := in.newSim(ctx, x, x, nil, 0)
	end, err := s.run(ctx)
	if err != nil {
		return Run{}, nil, 0, err
	}
	s.rec.run.Ended, s.rec.run.Packing, s.rec.run.Masters = end, x.packing(), mastersOut(s.agents)
	return s.rec.run, s.rec.pairSeries(), s.rec.items(), nil
}

// solve runs X-Schedule, then DRF. Under a deadline X-Schedule may use
// half of what is left, DRF the rest, so a tight budget leaves both a
// partial run (each saying how far it got) and status timeout.
func solve(ctx context.Context, b solver.Built[Request, *Instance], _ solver.Options) (any, solver.Meta, error) {
	in := b.In
	xctx := ctx
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		xctx, cancel = context.WithDeadline(ctx, time.Now().Add(time.Until(dl)/2))
		defer cancel()
	}
	xr, series, items, err := in.runX(xctx)
	if err != nil {
		return nil, solver.Meta{}, err
	}
	res := &Result{Run: xr, Imbalance: series}
	bs := in.baselines()
	runs := make([]Run, len(bs))
	for i, bl := range bs {
		bctx := ctx
		if dl, ok := ctx.Deadline(); ok && i < len(bs)-1 {
			// Each baseline gets an equal part of what is left.
			var cancel context.CancelFunc
			bctx, cancel = context.WithDeadline(ctx, time.Now().Add(time.Until(dl)/time.Duration(len(bs)-i)))
			defer cancel()
		}
		r, n, err := in.runBaseline(bctx, bl, items)
		if err != nil {
			return nil, solver.Meta{}, err
		}
		items += n
		runs[i] = r
		setBaseline(&res.Baselines, bl.name, r)
	}
	meta := solver.Meta{Status: solver.StatusFeasible, Solver: "xschedule/simulate"}
	if timedOut(xr, runs) {
		meta.Status = solver.StatusTimeout
	}
	meta.SetObjective(float64(xr.Summary.Granted))
	meta.Notes = append(meta.Notes, baselineNote(xr, bs, runs))
	return res, meta, nil
}
