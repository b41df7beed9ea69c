package plan

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/xschedule/assign"
	"github.com/xflex/xflex/solver/xschedule/simulate"
	"github.com/xflex/xflex/solver/xselect"
)

// traceSalt separates the trace's random streams from other uses of
// the seed.
const traceSalt = 0x78666c6578 // "xflex"

// TraceInfo says where the simulation's trace came from.
type TraceInfo struct {
	Generated bool     `json:"generated"`
	Requests  int      `json:"requests"`
	Horizon   *float64 `json:"horizon,omitempty"`
	Seed      *int64   `json:"seed,omitempty"`
}

// generateTrace draws the trace from the forecasts: for each application
// in order, a Poisson process of rate R_a = Σ rates of its forecast
// requests over [0, horizon) (exponential gaps of mean 1/R_a from the
// application's own stream, PCG(seed, salt+a)); each arrival is one of its
// forecast requests drawn with probability rate/R_a (the superposition of
// one Poisson process per forecast request), asking for one container of
// that size, held for that duration. A forecast request given by weight
// alone asks nothing. The requests are merged by arrival, ties by
// application then draw order, and named APP-k (k from 1 per
// application). More than maxRequests requests is refused.
func (p *checked) generateTrace(seed int64, horizon float64, maxRequests int) ([]simulate.Ask, error) {
	type drawn struct {
		ask     simulate.Ask
		app, at int
	}
	var all []drawn
	for a, app := range p.req.Apps {
		var rates []float64
		var total float64
		for _, it := range app.Forecast {
			r := 0.0
			if it.Rate != nil {
				r = *it.Rate
			}
			rates = append(rates, r)
			total += r
		}
		if total <= 0 {
			continue
		}
		if expected := total * horizon; expected > 2*float64(maxRequests) {
			return nil, solver.Infeasible(fmt.Sprintf("trace: the forecasts' rates over horizon %g make about %.0f requests, more than %d", horizon, expected, maxRequests),
				solver.Violation{Pointer: "/trace/horizon", Message: fmt.Sprintf("trace: application %q alone expects %.0f requests; shorten the horizon or raise trace.max_requests (at most %d)", app.Name, expected, DefaultMaxRequests)})
		}
		r := rand.New(rand.NewPCG(uint64(seed), traceSalt+uint64(a)))
		t, k := r.ExpFloat64()/total, 0
		for t < horizon {
			it := pick(r, rates, total)
			k++
			ask := simulate.Ask{ID: fmt.Sprintf("%s-%d", app.Name, k), App: app.Name, Count: 1, Size: app.Forecast[it].Size,
				Arrival: t, Duration: app.Forecast[it].Duration}
			all = append(all, drawn{ask: ask, app: a, at: k})
			if len(all) > maxRequests {
				return nil, solver.Infeasible(fmt.Sprintf("trace: more than %d requests drawn over horizon %g", maxRequests, horizon),
					solver.Violation{Pointer: "/trace/horizon", Message: fmt.Sprintf("trace: more than %d requests drawn; shorten the horizon or raise trace.max_requests", maxRequests)})
			}
			t += r.ExpFloat64() / total
		}
	}
	slices.SortStableFunc(all, func(x, y drawn) int {
		switch {
		case x.ask.Arrival < y.ask.Arrival:
			return -1
		case x.ask.Arrival > y.ask.Arrival:
			return 1
		case x.app != y.app:
			return x.app - y.app
		}
		return x.at - y.at
	})
	out := make([]simulate.Ask, len(all))
	for i, d := range all {
		out[i] = d.ask
	}
	return out, nil
}

// pick draws index i with probability w[i]/total.
func pick(r *rand.Rand, w []float64, total float64) int {
	u := r.Float64() * total
	last := 0
	for i, x := range w {
		if x <= 0 {
			continue
		}
		last = i
		if u < x {
			return i
		}
		u -= x
	}
	return last
}

// trace is the simulation's trace and where it came from.
func (p *checked) trace() ([]simulate.Ask, TraceInfo, error) {
	tr := p.req.Trace
	if len(tr.Requests) > 0 {
		return tr.Requests, TraceInfo{Requests: len(tr.Requests)}, nil
	}
	seed := int64(0)
	if p.req.Seed != nil {
		seed = *p.req.Seed
	}
	if tr.Seed != nil {
		seed = *tr.Seed
	}
	asks, err := p.generateTrace(seed, *tr.Horizon, p.maxRequests())
	info := TraceInfo{Generated: true, Requests: len(asks), Horizon: tr.Horizon, Seed: &seed}
	return asks, info, err
}

// simulateRequest is stage 4's request: X-Select's request and result as
// the placement, the applications' sharing modes and bounds, the trace
// and the plan's simulation settings.
func (p *checked) simulateRequest(xreq *xselect.Request, xres *xselect.Result, asks []simulate.Ask) *simulate.Request {
	req := &simulate.Request{Placement: &assign.Placement{Request: *xreq, Result: *xres}, Requests: asks, Seed: p.req.Seed}
	for _, app := range p.req.Apps {
		req.Apps = append(req.Apps, assign.App{Name: app.Name, Mode: app.Mode, SharingBound: app.SharingBound, SharingBounds: app.SharingBounds})
	}
	if s := p.req.Simulate; s != nil {
		req.Settings, req.Horizon, req.Limits, req.Prices = s.Settings, s.Horizon, s.Limits, s.Prices
	}
	setBaselines(req, p.req.Baselines)
	return req
}

// simulatePtr translates a pointer into the simulation's request into
// the plan's.
func (p *checked) simulatePtr(ptr string) string {
	var i int
	switch {
	case strings.HasPrefix(ptr, "/requests/"):
		if len(p.req.Trace.Requests) > 0 {
			return "/trace" + ptr
		}
		return "/trace"
	case strings.HasPrefix(ptr, "/apps/"):
		if n, _ := fmt.Sscanf(ptr, "/apps/%d", &i); n == 1 {
			return "/apps" + strings.TrimPrefix(ptr, "/apps")
		}
	case strings.HasPrefix(ptr, "/settings") || strings.HasPrefix(ptr, "/prices") || strings.HasPrefix(ptr, "/limits") || ptr == "/horizon":
		return "/simulate" + ptr
	case strings.HasPrefix(ptr, "/placement"):
		return "/cluster"
	}
	return ""
}
