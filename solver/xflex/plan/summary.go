package plan

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/xflex/xflex/solver/xschedule/simulate"
	"github.com/xflex/xflex/solver/xselect"
	"github.com/xflex/xflex/solver/xsize"
)

// Summary is the plan's outcome in a few numbers, each read from the
// stage answers above it.
type Summary struct {
	K             int            `json:"k"`
	Shapes        []ShapeSummary `json:"shapes,omitempty"`
	Epsilon       *float64       `json:"epsilon,omitempty"`
	EpsilonTarget *float64       `json:"epsilon_target,omitempty"`
	Cost          *float64       `json:"cost,omitempty"`
	ExactFitCost  *float64       `json:"exact_fit_cost,omitempty"`
	Waste         *float64       `json:"waste,omitempty"`
	// Lambda, LambdaUpperBound and LambdaGap are X-Select's.
	Lambda           *float64 `json:"lambda,omitempty"`
	LambdaUpperBound *float64 `json:"lambda_upper_bound,omitempty"`
	LambdaGap        *float64 `json:"lambda_gap,omitempty"`
	Containers       *int64   `json:"containers,omitempty"`
	// XFlex and Baselines are the simulation's runs.
	XFlex     *RunSummary           `json:"xflex,omitempty"`
	Baselines map[string]RunSummary `json:"baselines,omitempty"`
	// SuccessRatio is X-Flex's successes over DRF's; Ceiling is the
	// requests asked over DRF's successes, the largest that ratio can be.
	SuccessRatio *float64 `json:"success_ratio,omitempty"`
	Ceiling      *float64 `json:"ceiling,omitempty"`
	// CommonTime is set when the runs stopped at different times (a cut
	// budget): SuccessRatio and Ceiling then count up to it.
	CommonTime *float64 `json:"common_time,omitempty"`
	// The headline figures of X-Flex's and DRF's runs again, flat, so a
	// scenario's comparison table (which reads figures two levels deep)
	// shows them side by side.
	XFlexSuccesses   *int     `json:"xflex_successes,omitempty"`
	DRFSuccesses     *int     `json:"drf_successes,omitempty"`
	XFlexUtilization *float64 `json:"xflex_utilization,omitempty"`
	DRFUtilization   *float64 `json:"drf_utilization,omitempty"`
	XFlexAvgWait     *float64 `json:"xflex_avg_wait,omitempty"`
	DRFAvgWait       *float64 `json:"drf_avg_wait,omitempty"`
}

// ShapeSummary is one X-Size shape.
type ShapeSummary struct {
	Name           string    `json:"name"`
	Size           []float64 `json:"size"`
	NormalizedSize float64   `json:"normalized_size"`
	Weight         float64   `json:"weight"`
	Waste          float64   `json:"waste"`
}

// RunSummary is one scheduler's run of the trace. Successes are granted
// containers (a container granted again after a preemption counts
// again, as asked does); Utilization is the time-mean over [0, until] of
// the cluster's use (mean over resources of the fraction in use),
// PeakUtilization its largest value.
type RunSummary struct {
	Until           float64 `json:"until"`
	Ended           string  `json:"ended"`
	Asked           int     `json:"asked"`
	Successes       int     `json:"successes"`
	Completed       int     `json:"completed"`
	Expired         int     `json:"expired"`
	Waiting         int     `json:"waiting"`
	Preemptions     int     `json:"preemptions"`
	AvgWait         float64 `json:"avg_wait"`
	Utilization     float64 `json:"utilization"`
	PeakUtilization float64 `json:"peak_utilization"`
}

// summarize reads the summary from the stages that ran.
func summarize(res *Result, p *checked) Summary {
	s := Summary{K: p.k}
	if run := res.Stages.XSize; run != nil {
		if xs, err := answerOf[xsize.Result](run); err == nil {
			s.addXSize(xs, run)
		}
	}
	if run := res.Stages.XSelect; run != nil {
		if sel, err := answerOf[xselect.Result](run); err == nil {
			s.Lambda, s.LambdaUpperBound, s.LambdaGap = &sel.Lambda, &sel.UpperBound, &sel.Gap
			s.Containers = &sel.Containers
		}
	}
	if run := res.Stages.Simulate; run != nil {
		s.addSimulation(run)
	}
	return s
}

// addXSize records the shapes, the guarantee and the waste against
// exact fit: X-Size's cost over the cost of giving every forecast
// request a container of exactly its size, less 1.
func (s *Summary) addXSize(xs *xsize.Result, run *StageRun) {
	var req xsize.Request
	if json.Unmarshal(run.Request, &req) != nil {
		return
	}
	for i, sh := range xs.Shapes {
		s.Shapes = append(s.Shapes, ShapeSummary{Name: shapeName(i), Size: sh.Size, NormalizedSize: sh.NormalizedSize, Weight: sh.Weight, Waste: sh.Waste})
	}
	s.Epsilon, s.EpsilonTarget, s.Cost = &xs.Epsilon, xs.EpsilonTarget, &xs.Cost
	exact := 0.0
	for _, r := range req.Requests {
		var c float64
		for i, x := range r.Size {
			if req.Fit == "max" {
				c = math.Max(c, x/req.Totals[i])
			} else {
				c += x / req.Totals[i]
			}
		}
		exact += *r.Weight * c
	}
	s.ExactFitCost = &exact
	if exact > 0 {
		w := xs.Cost/exact - 1
		s.Waste = &w
	}
}

// simRun is the part of a simulated run the summary reads (decoding
// only these skips the per-request outcomes, most of a large answer).
type simRun struct {
	Until       float64              `json:"until"`
	Ended       string               `json:"ended"`
	Summary     simulate.Summary     `json:"summary"`
	Utilization simulate.Utilization `json:"utilization"`
	Events      []simEvent           `json:"events"`
	Dropped     int                  `json:"events_dropped"`
}

// simEvent is the part of an event the summary reads.
type simEvent struct {
	T    float64 `json:"t"`
	Kind string  `json:"kind"`
}

// simAnswer is the part of the simulation's answer the summary reads.
type simAnswer struct {
	simRun
	Baselines map[string]simRun `json:"baselines"`
}

// addSimulation records X-Flex's run, each baseline's the simulator
// ran, and the success
// ratio against DRF with its ceiling. Runs that stopped at different
// times (a budget cut one) are compared up to the earlier: grants and
// asks counted from the events and the trace up to CommonTime.
func (s *Summary) addSimulation(run *StageRun) {
	ans, err := answerSonic[simAnswer](run)
	if err != nil {
		return
	}
	x := runSummary(&ans.simRun)
	s.XFlex = &x
	s.XFlexSuccesses, s.XFlexUtilization, s.XFlexAvgWait = &x.Successes, &x.Utilization, &x.AvgWait
	s.Baselines = map[string]RunSummary{}
	for name, b := range ans.Baselines {
		s.Baselines[name] = runSummary(&b)
	}
	drf, ok := ans.Baselines["drf"]
	if !ok {
		return
	}
	d := runSummary(&drf)
	s.DRFSuccesses, s.DRFUtilization, s.DRFAvgWait = &d.Successes, &d.Utilization, &d.AvgWait
	xg, dg, asked := float64(x.Successes), float64(d.Successes), float64(x.Asked)
	if (ans.Ended == simulate.EndBudget || drf.Ended == simulate.EndBudget) && ans.Until != drf.Until {
		if ans.Dropped > 0 || drf.Dropped > 0 {
			return // no fair comparison: the events are not all listed
		}
		common := math.Min(ans.Until, drf.Until)
		s.CommonTime = &common
		xg, dg = grantsBy(ans.Events, common), grantsBy(drf.Events, common)
		asked = askedBy(run.Request, ans.Events, common)
	}
	if dg > 0 {
		r, c := xg/dg, asked/dg
		s.SuccessRatio, s.Ceiling = &r, &c
	}
}

// grantsBy counts the grants at or before t.
func grantsBy(evs []simEvent, t float64) float64 {
	n := 0
	for _, e := range evs {
		if e.Kind == "grant" && e.T <= t {
			n++
		}
	}
	return float64(n)
}

// askedBy counts the containers asked at or before t under X-Flex: the
// trace's, and one again per preemption.
func askedBy(request json.RawMessage, evs []simEvent, t float64) float64 {
	var req struct {
		Requests []struct {
			Count   int     `json:"count"`
			Arrival float64 `json:"arrival"`
		} `json:"requests"`
	}
	if json.Unmarshal(request, &req) != nil {
		return 0
	}
	n := 0
	for _, r := range req.Requests {
		if r.Arrival <= t {
			n += r.Count
		}
	}
	for _, e := range evs {
		if e.Kind == "preempt" && e.T <= t {
			n++
		}
	}
	return float64(n)
}

// runSummary is a run's summary and utilisation.
func runSummary(r *simRun) RunSummary {
	out := RunSummary{Until: r.Until, Ended: r.Ended, Asked: r.Summary.Asked, Successes: r.Summary.Granted, Completed: r.Summary.Completed,
		Expired: r.Summary.Expired, Waiting: r.Summary.Waiting, Preemptions: r.Summary.Preemptions, AvgWait: r.Summary.AvgWait}
	out.Utilization, out.PeakUtilization = meanUtilization(r.Utilization.Points, r.Until)
	return out
}

// meanUtilization is the time-mean over [0, until] of the total use of
// piecewise-constant points (each holds until the next) and its peak.
func meanUtilization(pts []simulate.UtilPoint, until float64) (mean, peak float64) {
	var area float64
	for i, pt := range pts {
		total := 0.0
		for _, k := range sortedKeys(pt.ByApp) {
			total += pt.ByApp[k]
		}
		peak = math.Max(peak, total)
		end := until
		if i+1 < len(pts) {
			end = pts[i+1].T
		}
		if end > pt.T {
			area += total * (end - pt.T)
		}
	}
	if until > 0 {
		mean = area / until
	}
	return mean, peak
}

// notes are the summary's headline for meta.notes.
func (s Summary) notes() []string {
	var out []string
	if s.Waste != nil && s.Epsilon != nil {
		out = append(out, fmt.Sprintf("X-Size: %d shapes, ε %.4g, waste %.1f%% over exact fit", len(s.Shapes), *s.Epsilon, 100**s.Waste))
	}
	if s.Lambda != nil {
		out = append(out, fmt.Sprintf("X-Select: λ %.4g (upper bound %.4g)", *s.Lambda, *s.LambdaUpperBound))
	}
	if s.SuccessRatio != nil {
		out = append(out, fmt.Sprintf("X-Schedule: %d successes, %.3f× DRF's (ceiling %.3f×)", s.XFlex.Successes, *s.SuccessRatio, *s.Ceiling))
	}
	if s.CommonTime != nil {
		out = append(out, fmt.Sprintf("the runs stopped at different times: the success ratio counts grants up to t = %.6g, where both got", *s.CommonTime))
	}
	return out
}
