package xschedule

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

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
	// burst, when positive, makes the stream bursts instead: application
	// k of n asks for burst times its forecast concurrency of each size
	// within [k·span/n, k·span/n + span/(10n)), held for ever (the apps
	// in turn, each over-subscribing the cluster).
	burst float64
	apps  []claimApp
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
	// baseSuccess are the successes of each of SweepBaselines (drf,
	// yarn_fair, yarn_capacity).
	baseSuccess []int
}

// runClaim runs X-Size, X-Select and the simulation for one setting.
func runClaim(ctx context.Context, s claimSetting) (claimOutcome, error) {
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
	sres, err := solveRequest[*xsize.Result](ctx, xsize.Solve, sreq)
	if err != nil {
		return claimOutcome{}, err
	}
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
	xres, err := solveRequest[*xselect.Result](ctx, xselect.Solve, xreq)
	if err != nil {
		return claimOutcome{}, err
	}
	req := simulate.Request{Placement: &assign.Placement{Request: xreq, Result: *xres}, Requests: claimTrace(s),
		Baselines: []string{"yarn_fair", "yarn_capacity"}}
	for _, a := range s.apps {
		req.Apps = append(req.Apps, assign.App{Name: a.name, SharingBound: s.bound})
	}
	grace, iv := 5.0, 1.0
	req.Settings = &simulate.Settings{Settings: assign.Settings{GracePeriod: &grace}, SchedulingInterval: &iv, Patience: &s.patience}
	zero := 0
	req.Limits = &simulate.Limits{MaxEvents: &zero}
	if s.fill || s.burst > 0 {
		h := 2 * s.span
		req.Horizon = &h
	}
	res, err := solveSim(ctx, &req)
	if err != nil {
		return claimOutcome{}, err
	}
	x, d := res.Summary, res.Baselines.DRF.Summary
	o := claimOutcome{lambda: xres.Lambda, asked: len(req.Requests), xGranted: x.Granted, xPreempted: x.Preemptions,
		drfGranted: d.Granted, xSuccess: x.Granted - x.Preemptions, drfSuccess: d.Granted, xExpired: x.Expired, drfExpired: d.Expired,
		xUntil: res.Until, drfUntil: res.Baselines.DRF.Until, xEnded: res.Ended, drfEnded: res.Baselines.DRF.Ended}
	for _, sh := range sres.Shapes {
		o.shapes = append(o.shapes, sh.Size)
	}
	o.ratio = float64(o.xSuccess) / float64(o.drfSuccess)
	// Baselines never preempt: their successes are their grants.
	o.baseSuccess = []int{d.Granted, res.Baselines.YarnFair.Summary.Granted, res.Baselines.YarnCapacity.Summary.Granted}
	return o, nil
}

// claimTrace draws the request stream: Poisson arrivals of each size at
// its rate, one container each, owned_first.
func claimTrace(s claimSetting) []simulate.Ask {
	rng := rand.New(rand.NewPCG(s.seed, 32))
	if s.fill {
		return fillTrace(s, rng)
	}
	if s.burst > 0 {
		return burstTrace(s, rng)
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

// burstTrace is the applications' bursts in turn (claimSetting.burst).
func burstTrace(s claimSetting, rng *rand.Rand) []simulate.Ask {
	var out []simulate.Ask
	gap := s.span / float64(len(s.apps))
	for k, a := range s.apps {
		for j, sz := range a.sizes {
			for range int(math.Ceil(s.burst * a.rates[j] * s.load * s.meanDur)) {
				at := float64(k)*gap + rng.Float64()*gap/10
				out = append(out, simulate.Ask{ID: fmt.Sprintf("%s-%d-%d", a.name, j, len(out)), App: a.name, Count: 1, Size: sz,
					Arrival: math.Round(at*1000) / 1000, Duration: 100 * s.span})
			}
		}
	}
	return out
}

// awkward is a mix of shapes that pack badly together: X-Select's
// proportional λ leaves room idle when the mix cannot all be placed.
var awkward = []claimApp{
	{"a", [][]float64{{5, 20}, {3, 45}}, []float64{0.1, 0.1}},
	{"b", [][]float64{{7, 10}, {2, 30}}, []float64{0.1, 0.1}},
	{"c", [][]float64{{6, 6}, {1, 50}}, []float64{0.1, 0.1}},
}

// complementary are applications whose shapes complement each other in
// two dimensions: cpu-heavy against memory-heavy, so a node packs best
// with both.
var complementary = []claimApp{
	{"cpu", [][]float64{{6, 8}, {3, 4}}, []float64{0.1, 0.1}},
	{"mem", [][]float64{{1, 24}, {2, 40}}, []float64{0.1, 0.1}},
}

// bigThenSmall are two applications whose bursts come in turn: large
// containers first, then many small ones.
var bigThenSmall = []claimApp{
	{"big", [][]float64{{8, 32}}, []float64{0.1}},
	{"small", [][]float64{{1, 4}}, []float64{0.8}},
}

// claimWorkload is a named setting of the 32% experiment.
type claimWorkload struct {
	name string
	s    claimSetting
}

// claimWorkloads are the workloads of RESULTS.md and REPRODUCTION.md:
// those on which X-Schedule is granted nearly every request (the
// ceiling, asked / baseline successes, is then below 1.32 and no
// scheduler could show the claim), and workloads whose ceiling allows
// it: over-subscribed churn, complementary 2-D shapes over-subscribed,
// and bursts in turn.
var claimWorkloads = []claimWorkload{
	{"fill, forecast fits (λ=1)", claimSetting{nodes: 20, span: 100, meanDur: 40, patience: 10, bound: 5, k: 6, load: 6.25, fill: true, apps: claimApps}},
	{"fill, 20% over (λ=0.85)", claimSetting{nodes: 20, span: 100, meanDur: 40, patience: 10, bound: 5, k: 6, load: 7.5, fill: true, apps: claimApps}},
	{"fill, awkward shapes (λ=1)", claimSetting{nodes: 20, span: 100, meanDur: 40, patience: 10, bound: 5, k: 6, load: 1.5, fill: true, apps: awkward}},
	{"fill, awkward shapes over (λ=0.35)", claimSetting{nodes: 20, span: 100, meanDur: 40, patience: 10, bound: 5, k: 6, load: 5, fill: true, apps: awkward}},
	{"churn, patience 10 (λ=1)", claimSetting{nodes: 8, span: 600, meanDur: 40, patience: 10, bound: 5, k: 5, load: 2.5, apps: claimApps}},
	{"churn, patience 10, Δ=0", claimSetting{nodes: 8, span: 600, meanDur: 40, patience: 10, bound: 0, k: 5, load: 2.5, apps: claimApps}},
	{"churn, 2× over-subscribed", claimSetting{nodes: 8, span: 600, meanDur: 40, patience: 10, bound: 5, k: 5, load: 5, apps: claimApps}},
	{"fill, complementary shapes 2× over", claimSetting{nodes: 20, span: 100, meanDur: 40, patience: 10, bound: 5, k: 4, load: 12, fill: true, apps: complementary}},
	{"bursts in turn, big then small", claimSetting{nodes: 20, span: 200, meanDur: 40, patience: 10, bound: 5, k: 2, load: 5, burst: 2, apps: bigThenSmall}},
	{"bursts in turn, small then big", claimSetting{nodes: 20, span: 200, meanDur: 40, patience: 10, bound: 5, k: 2, load: 5, burst: 2, apps: []claimApp{bigThenSmall[1], bigThenSmall[0]}}},
}
