package flex

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"

	"github.com/xflex/xflex/solver"
)

// Generate builds an instance of the paper's simulation study (Sect. 4.1):
// bimodal job sizes (the sum of two left-truncated normals, the large mean
// 10× the small, standard deviations a third of the means), normalised to a
// fixed total work; maxima from the work; minima from a truncated normal
// whose mean leaves the requested slack, at least 1 per job and resampled
// while above the maximum.
//
// Parameters (all optional):
//
//	jobs=10          number of jobs
//	slots=100        S
//	small=0.8        fraction of small jobs (rounded to a count)
//	slack=0.75       target fraction of slots not covered by minima
//	total_work=10·S  total work, in slot-seconds
//	task=1           work per task: M_j = min(S, ⌈work_j / task⌉), the
//	                 paper's open "work to slots" conversion; with the
//	                 defaults this is M_j = min(S, ⌈work_j⌉), 10·S one-slot
//	                 tasks in all
//	metric=weighted_response_time, objective=sum|max (default per metric)
//	weights=unit|uniform   weights 1, or uniform on (0,1) as in the paper
//	steps=3          SLA steps per job (metric sla)
//	exact=false      ask for the exact search
//
// Deadlines and pseudo-deadlines are uniform on (0, total_work/S], SLA
// penalties uniform on (0,1) sorted increasing.
func Generate(seed int64, params map[string]string) (any, error) {
	p := genParams{jobs: 10, slots: 100, small: 0.8, slack: 0.75, task: 1, metric: "weighted_response_time", weights: "unit", steps: 3}
	if err := p.parse(params); err != nil {
		return nil, err
	}
	return generate(seed, p)
}

type genParams struct {
	jobs, slots       int
	small, slack      float64
	totalWork, task   float64
	metric, objective string
	weights           string
	steps             int
	exact             bool
}

// parse reads the generator's parameters into p, keeping p's defaults for
// those absent; total_work defaults to 10·S once slots is known.
func (p *genParams) parse(params map[string]string) error {
	for k, v := range params {
		set, ok := genSetters[k]
		if !ok {
			return fmt.Errorf("unknown parameter %q (jobs, slots, small, slack, total_work, task, metric, objective, weights, steps, exact)", k)
		}
		if err := set(p, v); err != nil {
			return fmt.Errorf("parameter %s=%q: %v", k, v, err)
		}
	}
	if p.totalWork == 0 {
		p.totalWork = 10 * float64(p.slots)
	}
	return nil
}

// genSetters reads each generator parameter into its field of genParams,
// with the range it must lie in.
var genSetters = map[string]func(p *genParams, v string) error{
	"jobs": func(p *genParams, v string) (err error) { p.jobs, err = intIn(v, 1, 100000, "want 1..100000"); return },
	"slots": func(p *genParams, v string) (err error) {
		p.slots, err = intIn(v, 1, 1000000000, "want 1..1e9")
		return
	},
	"steps": func(p *genParams, v string) (err error) { p.steps, err = intIn(v, 1, 100, "want 1..100"); return },
	"small": func(p *genParams, v string) (err error) { p.small, err = unitFloat(v); return },
	"slack": func(p *genParams, v string) (err error) { p.slack, err = unitFloat(v); return },
	"total_work": func(p *genParams, v string) (err error) {
		p.totalWork, err = positiveFloat(v)
		return
	},
	"task": func(p *genParams, v string) (err error) { p.task, err = positiveFloat(v); return },
	"metric": func(p *genParams, v string) error {
		p.metric = v
		if _, ok := parseMetric(v); !ok {
			return fmt.Errorf("unknown metric")
		}
		return nil
	},
	"objective": func(p *genParams, v string) error {
		p.objective = v
		return oneOf(v, "want sum or max", "sum", "max")
	},
	"weights": func(p *genParams, v string) error {
		p.weights = v
		return oneOf(v, "want unit or uniform", "unit", "uniform")
	},
	"exact": func(p *genParams, v string) (err error) { p.exact, err = strconv.ParseBool(v); return },
}

// intIn parses an integer in [lo, hi]; out of range, the error says want.
func intIn(v string, lo, hi int, want string) (int, error) {
	n, err := strconv.Atoi(v)
	if err == nil && (n < lo || n > hi) {
		err = errors.New(want)
	}
	return n, err
}

// positiveFloat parses a number in (0, 1e15).
func positiveFloat(v string) (float64, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err == nil && !(f > 0 && f < 1e15) {
		err = fmt.Errorf("want a positive number")
	}
	return f, err
}

// oneOf is nil when v is one of allowed, else an error saying want.
func oneOf(v, want string, allowed ...string) error {
	if !slices.Contains(allowed, v) {
		return errors.New(want)
	}
	return nil
}

func unitFloat(v string) (float64, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err == nil && !(f >= 0 && f <= 1) {
		err = fmt.Errorf("want a number in [0,1]")
	}
	return f, err
}

// truncNormal samples a normal left-truncated at 0 (resampling).
func truncNormal(rng *rand.Rand, mean, sd float64) float64 {
	for {
		if v := mean + sd*rng.NormFloat64(); v > 0 {
			return v
		}
	}
}

func generate(seed int64, p genParams) (*Request, error) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x666c6578))
	n, S := p.jobs, p.slots
	metric, _ := parseMetric(p.metric)
	nSmall := int(math.Round(p.small * float64(n)))
	isSmall := make([]bool, n)
	for i := 0; i < nSmall; i++ {
		isSmall[i] = true
	}
	rng.Shuffle(n, func(a, b int) { isSmall[a], isSmall[b] = isSmall[b], isSmall[a] })
	work := make([]float64, n)
	tot := 0.0
	for j := range work {
		mean := 1.0
		if !isSmall[j] {
			mean = 10
		}
		work[j] = truncNormal(rng, mean, mean/3)
		tot += work[j]
	}
	req := &Request{Slots: S, Metric: p.metric, Objective: p.objective, Exact: p.exact}
	minMean := (1 - p.slack) * float64(S) / float64(n)
	horizon := p.totalWork / float64(S)
	minSum := 0
	for j := 0; j < n; j++ {
		w := work[j] * p.totalWork / tot
		mx := int(math.Min(float64(S), math.Ceil(w/p.task-ceilTol)))
		if mx < 1 {
			mx = 1
		}
		mn := 1
		for tries := 0; tries < 1000; tries++ {
			mn = max(1, int(math.Round(truncNormal(rng, math.Max(minMean, minMeanFloor), math.Max(minMean, minMeanFloor)/3))))
			if mn <= mx {
				break
			}
		}
		mn = min(mn, mx)
		minSum += mn
		jr := JobReq{ID: fmt.Sprintf("j%d", j), Work: round6(w), Min: mn, Max: mx}
		if p.weights == "uniform" && metric != Stretch && metric != Makespan && metric != SLA {
			wt := round6(math.Max(minDraw, rng.Float64()))
			jr.Weight = &wt
		}
		if metric.needsDeadline() {
			d := round6(math.Max(minDraw, rng.Float64()) * horizon)
			jr.Deadline = &d
		}
		if metric == SLA {
			ds := make([]float64, p.steps)
			ps := make([]float64, p.steps)
			for k := range ds {
				ds[k] = round6(math.Max(minDraw, rng.Float64()) * horizon)
				ps[k] = round6(math.Max(minDraw, rng.Float64()))
			}
			sort.Float64s(ds)
			sort.Float64s(ps)
			for k := range ds {
				if k > 0 && ds[k] <= ds[k-1] {
					continue
				}
				jr.SLA = append(jr.SLA, StepReq{Deadline: ds[k], Penalty: ps[k]})
			}
		}
		req.Jobs = append(req.Jobs, jr)
	}
	// Normalise the minima when they exceed S: lower the largest minimum
	// (ties: the lowest index) until they fit, keeping each at least 1
	// where possible.
	for minSum > S {
		big := -1
		for j := range req.Jobs {
			if req.Jobs[j].Min > 0 && (big < 0 || req.Jobs[j].Min > req.Jobs[big].Min) {
				big = j
			}
		}
		req.Jobs[big].Min--
		minSum--
	}
	return req, nil
}

// round6 keeps generated numbers short and exactly reproducible in JSON.
func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// genParamTable declares Generate's parameters for `xflex gen --help`
// and the check for unknown ones.
var genParamTable = []solver.GenParam{
	{Name: "jobs", Default: "10", Help: "number of jobs"},
	{Name: "slots", Default: "100", Help: "S, the number of slots"},
	{Name: "small", Default: "0.8", Help: "fraction of small jobs"},
	{Name: "slack", Default: "0.75", Help: "target fraction of slots not covered by minima"},
	{Name: "total_work", Default: "10·slots", Help: "total work, in slot-seconds"},
	{Name: "task", Default: "1", Help: "work per task (M_j = min(S, ceil(work_j/task)))"},
	{Name: "metric", Default: "weighted_response_time", Help: "the metric"},
	{Name: "objective", Default: "per metric", Help: "sum or max"},
	{Name: "weights", Default: "unit", Help: "unit (all 1) or uniform on (0,1)"},
	{Name: "steps", Default: "3", Help: "SLA steps per job (metric sla)"},
	{Name: "exact", Default: "false", Help: "ask for the exact search"},
}
