package xschedule

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/xschedule/assign"
	"github.com/xflex/xflex/solver/xschedule/simulate"
	"github.com/xflex/xflex/solver/xselect"
	"github.com/xflex/xflex/solver/xsize"
)

// The paper's 2-D claim (§3): "The same realtime workload in X-Flex
// produced 32% more successful container requests than DRF", with the
// forecast of request dimensions factored out. Our setting: a stream of
// 2-D container requests from three applications with known shape
// mixes; X-Size picks K shapes from the forecast profile, X-Select packs
// the applications' expected concurrent demand (arrival rate × mean
// duration, Little's law) λ times into the nodes, and the stream runs
// under X-Schedule on that placement and under online DRF (best fit, no
// containers made in advance) on the same nodes. A container request
// succeeds when granted within the patience; one whose container is
// preempted has not succeeded (its work is lost), so successes are
// granted − preempted (DRF never preempts).

// claimApp is one application's forecast: shapes with arrival rates.
type claimApp struct {
	name  string
	sizes [][]float64
	rates []float64 // arrivals per second of each size
}

var claimApps = []claimApp{
	{"batch", [][]float64{{4, 4}, {2, 2}}, []float64{0.08, 0.12}},
	{"ml", [][]float64{{1, 12}, {2, 24}}, []float64{0.12, 0.05}},
	{"web", [][]float64{{2, 8}}, []float64{0.2}},
}

// claimSetting is one run of the experiment.
type claimSetting struct {
	nodes    int     // nodes of 16 cpu, 64 mem
	span     float64 // arrivals in [0, span)
	meanDur  float64 // durations uniform in [meanDur/2, 3·meanDur/2]
	patience float64
	bound    float64 // every application's δ
	k        int     // X-Size shapes
	load     float64 // multiplies every arrival rate
	seed     uint64
	// fill: the stream is exactly the forecast (each size's expected
	// concurrency, in random order over span) and nothing leaves: the
	// packing effect alone.
	fill bool
	apps []claimApp
}

// claimOutcome is what a setting measured.
type claimOutcome struct {
	lambda               float64
	shapes               [][]float64
	asked                int
	xGranted, xPreempted int
	drfGranted           int
	xSuccess, drfSuccess int
	xExpired, drfExpired int
	ratio                float64
	xUntil, drfUntil     float64
	xEnded, drfEnded     string
}

// runClaim runs X-Size, X-Select and the simulation for one setting.
func runClaim(t testing.TB, s claimSetting) claimOutcome {
	t.Helper()
	ctx := context.Background()
	nodes := make([]xselect.Node, s.nodes)
	for i := range nodes {
		nodes[i] = xselect.Node{Name: fmt.Sprintf("n%d", i), Rack: fmt.Sprintf("r%d", i/4), Capacity: []float64{16, 64}}
	}
	// X-Size on the forecast profile: each size weighted by its expected
	// concurrency.
	sreq := xsize.Request{Resources: []string{"cpu", "mem"}, Totals: []float64{16, 64}, K: s.k}
	for _, a := range s.apps {
		for j, sz := range a.sizes {
			w := a.rates[j] * s.load * s.meanDur
			sreq.Requests = append(sreq.Requests, xsize.RequestItem{Size: sz, Weight: &w, Name: fmt.Sprintf("%s/%d", a.name, j)})
		}
	}
	sres := solveJSON[*xsize.Result](t, xsize.Solve, ctx, sreq)
	// X-Select: the applications' expected concurrent containers of
	// each chosen shape.
	xreq := xselect.Request{Resources: []string{"cpu", "mem"}, Nodes: nodes}
	for i, sh := range sres.Shapes {
		xreq.Shapes = append(xreq.Shapes, xselect.Shape{Name: fmt.Sprintf("s%d", i), Size: sh.Size})
	}
	item := 0
	for _, a := range s.apps {
		mix := map[string]int64{}
		for j := range a.sizes {
			mix[fmt.Sprintf("s%d", sres.Assignment[item])] += int64(math.Ceil(a.rates[j] * s.load * s.meanDur))
			item++
		}
		xreq.Apps = append(xreq.Apps, xselect.App{Name: a.name, Mix: mix})
	}
	xres := solveJSON[*xselect.Result](t, xselect.Solve, ctx, xreq)
	req := simulate.Request{Placement: &assign.Placement{Request: xreq, Result: *xres}, Requests: claimTrace(s)}
	for _, a := range s.apps {
		req.Apps = append(req.Apps, assign.App{Name: a.name, SharingBound: s.bound})
	}
	grace, iv := 5.0, 1.0
	req.Settings = &simulate.Settings{Settings: assign.Settings{GracePeriod: &grace}, SchedulingInterval: &iv, Patience: &s.patience}
	zero := 0
	req.Limits = &simulate.Limits{MaxEvents: &zero}
	if s.fill {
		h := 2 * s.span
		req.Horizon = &h
	}
	res := solveJSON[*simulate.Result](t, simulate.Problem().Solve, ctx, req)
	x, d := res.Summary, res.Baselines.DRF.Summary
	o := claimOutcome{lambda: xres.Lambda, asked: len(req.Requests), xGranted: x.Granted, xPreempted: x.Preemptions,
		drfGranted: d.Granted, xSuccess: x.Granted - x.Preemptions, drfSuccess: d.Granted, xExpired: x.Expired, drfExpired: d.Expired,
		xUntil: res.Until, drfUntil: res.Baselines.DRF.Until, xEnded: res.Ended, drfEnded: res.Baselines.DRF.Ended}
	for _, sh := range sres.Shapes {
		o.shapes = append(o.shapes, sh.Size)
	}
	o.ratio = float64(o.xSuccess) / float64(o.drfSuccess)
	return o
}

// claimTrace draws the request stream: Poisson arrivals of each size at
// its rate, one container each, owned_first.
func claimTrace(s claimSetting) []simulate.Ask {
	rng := rand.New(rand.NewPCG(s.seed, 32))
	if s.fill {
		return fillTrace(s, rng)
	}
	var out []simulate.Ask
	for _, a := range s.apps {
		for j, sz := range a.sizes {
			rate := a.rates[j] * s.load
			for t := rng.ExpFloat64() / rate; t < s.span; t += rng.ExpFloat64() / rate {
				out = append(out, simulate.Ask{ID: fmt.Sprintf("%s-%d-%d", a.name, j, len(out)), App: a.name, Count: 1, Size: sz,
					Arrival: math.Round(t*1000) / 1000, Duration: math.Round(s.meanDur*(0.5+rng.Float64())*1000) / 1000})
			}
		}
	}
	return out
}

// fillTrace is the forecast itself: each size's expected concurrency in
// requests at random times in [0, span), held for ever.
func fillTrace(s claimSetting, rng *rand.Rand) []simulate.Ask {
	var out []simulate.Ask
	for _, a := range s.apps {
		for j, sz := range a.sizes {
			for range int(math.Ceil(a.rates[j] * s.load * s.meanDur)) {
				out = append(out, simulate.Ask{ID: fmt.Sprintf("%s-%d-%d", a.name, j, len(out)), App: a.name, Count: 1, Size: sz,
					Arrival: math.Round(rng.Float64()*s.span*1000) / 1000, Duration: 100 * s.span})
			}
		}
	}
	return out
}

// solveJSON solves v through a problem's Go API and returns its result.
func solveJSON[R any](t testing.TB, solve func(context.Context, json.RawMessage, solver.Options) (any, solver.Meta, error), ctx context.Context, v any) R {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, meta, err := solve(ctx, raw, solver.Options{})
	if err != nil {
		t.Fatalf("%T: %v", v, err)
	}
	if meta.Status == solver.StatusTimeout {
		t.Fatalf("%T: timeout", v)
	}
	return out.(R)
}

// awkward is a mix of shapes that pack badly together: X-Select's
// proportional λ leaves room idle when the mix cannot all be placed.
var awkward = []claimApp{
	{"a", [][]float64{{5, 20}, {3, 45}}, []float64{0.1, 0.1}},
	{"b", [][]float64{{7, 10}, {2, 30}}, []float64{0.1, 0.1}},
	{"c", [][]float64{{6, 6}, {1, 50}}, []float64{0.1, 0.1}},
}

// claimTol is the slack on a measured ratio: the streams are seeded
// and X-Size and X-Select run to completion (solveJSON fails on a
// timeout), so the ratios are reproducible; the slack absorbs a changed
// tie-break in those solvers moving a handful of the ~700 grants.
const claimTol = 0.02

// TestDRFClaim keeps the measured ratios of successful container
// requests, X-Schedule over DRF (RESULTS.md, "32% more successful
// container requests"), each summed over five seeded streams.
func TestDRFClaim(t *testing.T) {
	cases := []struct {
		name string
		s    claimSetting
		want float64
	}{
		{"fill, forecast fits (λ=1)", claimSetting{nodes: 20, span: 100, meanDur: 40, patience: 10, bound: 5, k: 6, load: 6.25, fill: true, apps: claimApps}, 1.029},
		{"fill, 20% over (λ=0.85)", claimSetting{nodes: 20, span: 100, meanDur: 40, patience: 10, bound: 5, k: 6, load: 7.5, fill: true, apps: claimApps}, 1.064},
		{"fill, awkward shapes (λ=1)", claimSetting{nodes: 20, span: 100, meanDur: 40, patience: 10, bound: 5, k: 6, load: 1.5, fill: true, apps: awkward}, 1.029},
		{"fill, awkward shapes over (λ=0.35)", claimSetting{nodes: 20, span: 100, meanDur: 40, patience: 10, bound: 5, k: 6, load: 5, fill: true, apps: awkward}, 0.778},
		{"churn, patience 10 (λ=1)", claimSetting{nodes: 8, span: 600, meanDur: 40, patience: 10, bound: 5, k: 5, load: 2.5, apps: claimApps}, 0.938},
		{"churn, patience 10, Δ=0", claimSetting{nodes: 8, span: 600, meanDur: 40, patience: 10, bound: 0, k: 5, load: 2.5, apps: claimApps}, 0.935},
	}
	for _, tc := range cases {
		x, d, lam := 0, 0, 0.0
		for seed := range uint64(5) {
			s := tc.s
			s.seed = seed
			if !s.fill {
				s.seed = seed + 1
			}
			o := runClaim(t, s)
			x, d, lam = x+o.xSuccess, d+o.drfSuccess, o.lambda
		}
		got := float64(x) / float64(d)
		t.Logf("%-36s λ %.2f  X-Schedule %4d  DRF %4d  ratio %.3f", tc.name, lam, x, d, got)
		if !(math.Abs(got-tc.want) <= claimTol) {
			t.Errorf("%s: ratio %.3f, measured %.3f", tc.name, got, tc.want)
		}
	}
}
