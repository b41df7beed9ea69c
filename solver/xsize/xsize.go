package xsize

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/xflex/xflex/internal/progress"
	"github.com/xflex/xflex/ptas"
	"github.com/xflex/xflex/solver"
)

// Result is the response's result (schemas/xsize.response.json).
type Result struct {
	Shapes           []Shape          `json:"shapes"`
	Assignment       []int            `json:"assignment"`
	Cost             float64          `json:"cost"`
	LowerBound       float64          `json:"lower_bound"`
	Epsilon          float64          `json:"epsilon"`
	Rho              *float64         `json:"rho,omitempty"`
	EpsilonTarget    *float64         `json:"epsilon_target,omitempty"`
	Reached          bool             `json:"reached"`
	Optimal          bool             `json:"optimal"`
	Fit              string           `json:"fit"`
	Rays             string           `json:"rays"`
	Method           string           `json:"method"`
	DistinctRequests int              `json:"distinct_requests"`
	Levels           []ptas.LevelStat `json:"levels"`
	Baselines        *Baselines       `json:"baselines,omitempty"`
}

// Shape is one chosen container shape.
type Shape struct {
	Size           []float64 `json:"size"`
	Weight         float64   `json:"weight"`
	Waste          float64   `json:"waste"`
	NormalizedSize float64   `json:"normalized_size"`
	Requests       int       `json:"requests"`
	NodeTypes      []string  `json:"node_types,omitempty"`
}

// Baselines are the costs of the shapes a planner would otherwise pick.
type Baselines struct {
	Quantile Baseline `json:"quantile"`
	KMeans   Baseline `json:"kmeans"`
}

// Baseline is one baseline's outcome.
type Baseline struct {
	Cost      float64 `json:"cost"`
	Shapes    int     `json:"shapes"`
	Ratio     float64 `json:"ratio"`
	FitsNodes bool    `json:"fits_nodes"`
}

// finishShare is the part of the budget the search may use; the rest is
// kept for tightening, baselines and encoding a response of up to a
// million assignments.
const finishShare = 0.85

// Problem data after validation.
type prepared struct {
	req    Request
	in     *ptas.Instance
	raw    [][]float64 // distinct raw sizes
	index  []int       // request → distinct
	fit    ptas.Fit
	family ptas.Family
}

// MaxNormalized bounds a size or capacity over its cluster total. A
// request a trillion times the cluster is no sizing question, and the bound
// keeps Σ weight·cost finite: 1e6 requests × weight 1e15 × 16 coordinates ×
// 1e12 is about 1.6e34, far inside float64.
const MaxNormalized = 1e12

// prepare checks a request's semantics and builds the normalized,
// aggregated ptas instance with the fit and direction family: xsize's
// Build.
func prepare(req *Request) (*prepared, error) {
	var vs solver.Violations
	checkCluster(req, &vs)
	weights, sizes := requestSizes(req, &vs)
	if len(vs) > 0 {
		return nil, vs.Err()
	}
	checkMagnitudes(req, sizes, &vs)
	if len(vs) > 0 {
		return nil, vs.Err()
	}
	if err := checkFitsNodes(req, sizes); err != nil {
		return nil, err
	}
	p := &prepared{req: *req, fit: ptas.FitSum, family: ptas.FamilyAuto}
	if req.Fit == "max" {
		p.fit = ptas.FitMax
	}
	if req.Rays != "" {
		p.family = ptas.Family(req.Rays)
	}
	p.raw, _, p.index = ptas.Aggregate(sizes, weights)
	_, dw, _ := ptas.Aggregate(sizes, weights)
	in := &ptas.Instance{K: req.K, W: dw}
	for _, s := range p.raw {
		in.U = append(in.U, normalize(s, req.Totals))
	}
	for _, nt := range req.NodeTypes {
		in.Caps = append(in.Caps, normalize(nt.Capacity, req.Totals))
	}
	p.in = in
	return p, nil
}

// checkCluster checks the totals (one positive entry per resource), k and
// the node types' capacity lengths and names.
func checkCluster(req *Request, vs *solver.Violations) {
	d := len(req.Resources)
	if len(req.Totals) != d {
		vs.Add("/totals", "has %d entries, want one per resource (%d)", len(req.Totals), d)
	}
	for i, t := range req.Totals {
		if !(t > 0) {
			vs.Add(solver.Ptr("totals", i), "total of %q must be positive", req.Resources[min(i, d-1)])
		}
	}
	if req.K < 1 {
		vs.Add("/k", "k must be at least 1, got %d", req.K)
	}
	names := map[string]int{}
	for n, nt := range req.NodeTypes {
		if len(nt.Capacity) != d {
			vs.Add(solver.Ptr("node_types", n, "capacity"), "has %d entries, want %d", len(nt.Capacity), d)
		}
		if p, dup := names[nt.Name]; dup {
			vs.Add(solver.Ptr("node_types", n, "name"), "duplicate node type name %q (also /node_types/%d)", nt.Name, p)
		}
		names[nt.Name] = n
	}
}

// requestSizes are the requests' weights (1 by default, positive) and
// sizes (one finite non-negative entry per resource).
func requestSizes(req *Request, vs *solver.Violations) (weights []float64, sizes [][]float64) {
	d := len(req.Resources)
	weights = make([]float64, len(req.Requests))
	sizes = make([][]float64, len(req.Requests))
	for j, r := range req.Requests {
		weights[j] = 1
		if r.Weight != nil {
			weights[j] = *r.Weight
			if !(weights[j] > 0) {
				vs.Add(solver.Ptr("requests", j, "weight"), "weight must be positive, got %v", weights[j])
			}
		}
		if len(r.Size) != d {
			vs.Add(solver.Ptr("requests", j, "size"), "has %d entries, want one per resource (%d)", len(r.Size), d)
			continue
		}
		for i, x := range r.Size {
			if !(x >= 0) || math.IsInf(x, 0) {
				vs.Add(solver.Ptr("requests", j, "size", i), "size must be finite and non-negative")
			}
		}
		sizes[j] = r.Size
	}
	return weights, sizes
}

// checkMagnitudes bounds sizes and capacities by MaxNormalized times the
// totals. Normalized sizes (size over the cluster total) feed cost sums
// weighted by up to 1e15 per request: bound them so every cost stays
// finite rather than overflowing to +Inf (a tiny total such as 1e-300 made
// a size of 1 normalize to 1e300 and the weighted cost to +Inf).
func checkMagnitudes(req *Request, sizes [][]float64, vs *solver.Violations) {
	for j, s := range sizes {
		for i, x := range s {
			if x/req.Totals[i] > MaxNormalized {
				vs.Add(solver.Ptr("requests", j, "size", i), "size %g is %.3g times the total %g of %q; at most %g times the total is accepted (normalized sizes must keep weighted costs finite)", x, x/req.Totals[i], req.Totals[i], req.Resources[i], MaxNormalized)
			}
		}
	}
	for n, nt := range req.NodeTypes {
		for i, x := range nt.Capacity {
			if x/req.Totals[i] > MaxNormalized {
				vs.Add(solver.Ptr("node_types", n, "capacity", i), "capacity %g is %.3g times the total %g of %q; at most %g times the total is accepted", x, x/req.Totals[i], req.Totals[i], req.Resources[i], MaxNormalized)
			}
		}
	}
}

// checkFitsNodes makes the request infeasible when, with node types
// given, some request fits none of them.
func checkFitsNodes(req *Request, sizes [][]float64) error {
	if len(req.NodeTypes) == 0 {
		return nil
	}
	var vs solver.Violations
	for j, s := range sizes {
		fits := slices.ContainsFunc(req.NodeTypes, func(nt NodeType) bool { return ptas.Fits(s, nt.Capacity) })
		if !fits {
			vs.Add(solver.Ptr("requests", j, "size"), "request %s is larger than every node type", describe(req.Requests[j], j))
		}
	}
	if len(vs) > 0 {
		return solver.Infeasible(fmt.Sprintf("%d request(s) fit no node type", len(vs)), vs...)
	}
	return nil
}

// Instance decodes and validates a request body (already schema-valid) and
// returns the normalized, aggregated ptas instance Solve would work on, the
// fit and the direction family. Benchmarks use it to time the algorithm
// apart from request decoding.
func Instance(raw json.RawMessage) (*ptas.Instance, ptas.Options, error) {
	req := new(Request)
	if err := solver.Decode(raw, req); err != nil {
		return nil, ptas.Options{}, err
	}
	p, err := prepare(req)
	if err != nil {
		return nil, ptas.Options{}, err
	}
	opts := ptas.Options{Family: p.family, Fit: p.fit}
	if p.req.Epsilon != nil {
		opts.Epsilon = *p.req.Epsilon
	}
	return p.in, opts, nil
}

func describe(r RequestItem, j int) string {
	if r.Name != "" {
		return fmt.Sprintf("%q", r.Name)
	}
	return fmt.Sprintf("#%d", j)
}

func normalize(s, totals []float64) []float64 {
	out := make([]float64, len(s))
	for i, x := range s {
		out[i] = x / totals[i]
	}
	return out
}

// solve runs the PTAS (or the exact max-fit DP) on a prepared request
// under the budget, then the baselines.
func solve(ctx context.Context, b solver.Built[Request, *prepared], opts solver.Options) (any, solver.Meta, error) {
	var meta solver.Meta
	p := b.In
	req, in := p.req, p.in
	sctx := ctx
	if dl, ok := ctx.Deadline(); ok {
		share := time.Duration(float64(time.Until(dl)) * finishShare)
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, share)
		defer cancel()
	}
	po := ptas.Options{Family: p.family, Fit: p.fit}
	if req.Epsilon != nil {
		po.Epsilon = *req.Epsilon
	}
	if progress.Listening(ctx) {
		po.OnStep = func(res *ptas.Result) { offerIncumbent(ctx, p, res) }
	}
	res, err := ptas.Solve(sctx, in, po)
	if err != nil {
		if errors.Is(err, ptas.ErrTooFewShapes) {
			return nil, meta, solver.Infeasible(fmt.Sprintf("k = %d shapes cannot serve every request inside the node types: %v", req.K, err),
				solver.Violation{Pointer: "/k", Message: err.Error()})
		}
		return nil, meta, fmt.Errorf("xsize: %w", err)
	}
	// The baselines are valid answers too when their shapes fit the node
	// types; a planner should never get less than them, so the cheaper one
	// becomes the answer (its bound is still the PTAS's).
	var base *Baselines
	if req.Baselines == nil || *req.Baselines {
		qs, ks := QuantileShapes(in.U, in.W, in.K), KMeansShapes(in.U, in.W, in.K, opts.Seed)
		base = baselines(in, res.Cost, p.fit, qs, ks)
		adoptBaseline(in, res, p.fit, qs, base.Quantile, "quantile")
		adoptBaseline(in, res, p.fit, ks, base.KMeans, "kmeans")
		// A baseline may have lowered the cost; the bound is the PTAS's.
		progress.Report(ctx, progress.Progress{Phase: "baselines", Fraction: progress.F(1),
			Objective: progress.F(res.Cost), Bound: progress.F(math.Min(res.LowerBound, res.Cost))})
	}
	out := buildResult(p, res)
	out.Baselines = base
	if req.Epsilon != nil {
		out.EpsilonTarget = req.Epsilon
		out.Reached = res.Epsilon <= *req.Epsilon
	} else {
		out.Reached = true
	}
	meta.SetObjective(res.Cost)
	meta.SetBound(res.LowerBound)
	meta.Solver = "xsize/" + res.Method
	switch {
	case res.Optimal:
		meta.Status = solver.StatusOptimal
	case res.TimedOut && !(req.Epsilon != nil && out.Reached):
		meta.Status = solver.StatusTimeout
	default:
		meta.Status = solver.StatusFeasible
	}
	if !out.Reached && !res.TimedOut {
		meta.Notes = append(meta.Notes, fmt.Sprintf("epsilon %g not reached: the next finer direction set exceeds the size limit; reached %.4g", *req.Epsilon, res.Epsilon))
	}
	meta.Notes = append(meta.Notes, res.Notes...)
	for _, l := range res.Levels {
		meta.Notes = append(meta.Notes, fmt.Sprintf("level %s/%d: %d rays, ρ=%.4g, %d candidates, ray value %.6g, bound %.6g, %s", l.Family, l.Param, l.Rays, l.Rho, l.Candidates, l.RayValue, l.RayBound, l.Method))
	}
	return out, meta, nil
}

// offerIncumbent offers the PTAS's result so far to the job running the
// solve (progress.Offer): the shapes and assignment of the last finished
// level, without the baselines, which are computed at the end.
func offerIncumbent(ctx context.Context, p *prepared, res *ptas.Result) {
	snap := *res
	snap.Levels = slices.Clone(res.Levels) // res keeps growing
	// The guarantee so far, as ptas's finish computes it at the end.
	snap.LowerBound = math.Min(snap.LowerBound, snap.Cost)
	snap.Epsilon = math.Max(snap.Cost/math.Max(snap.LowerBound, ptas.GapFloor)-1, 0)
	out := buildResult(p, &snap)
	out.Reached = p.req.Epsilon == nil || snap.Epsilon <= *p.req.Epsilon
	out.EpsilonTarget = p.req.Epsilon
	progress.Offer(ctx, progress.Incumbent{Result: out, Objective: progress.F(snap.Cost),
		Bound: progress.F(snap.LowerBound), Solver: "xsize/" + snap.Method})
}

func buildResult(p *prepared, res *ptas.Result) *Result {
	in := p.in
	cost := ptas.Cost
	if p.fit == ptas.FitMax {
		cost = ptas.MaxCost
	}
	out := &Result{Cost: res.Cost, LowerBound: res.LowerBound, Epsilon: res.Epsilon, Optimal: res.Optimal,
		Fit: string(p.fit), Rays: string(p.family), Method: res.Method, DistinctRequests: len(in.U), Levels: res.Levels}
	if out.Levels == nil {
		out.Levels = []ptas.LevelStat{}
	}
	if res.Rho > 0 {
		r := res.Rho
		out.Rho = &r
	}
	groups := make([][]int, len(res.Shapes))
	for j, s := range res.Assign {
		groups[s] = append(groups[s], j)
	}
	out.Shapes = make([]Shape, len(res.Shapes))
	for s, sh := range res.Shapes {
		sz := ptas.Join(p.raw, groups[s])
		c := cost(sh)
		var w, waste float64
		for _, j := range groups[s] {
			w += in.W[j]
			waste += in.W[j] * (c - cost(in.U[j]))
		}
		shape := Shape{Size: sz, Weight: w, NormalizedSize: c, Requests: 0}
		if w > 0 {
			shape.Waste = math.Max(0, waste/w)
		}
		for _, nt := range p.req.NodeTypes {
			if ptas.Fits(sz, nt.Capacity) {
				shape.NodeTypes = append(shape.NodeTypes, nt.Name)
			}
		}
		out.Shapes[s] = shape
	}
	out.Assignment = make([]int, len(p.index))
	for r, j := range p.index {
		s := res.Assign[j]
		out.Assignment[r] = s
		out.Shapes[s].Requests++
	}
	return out
}

func baselines(in *ptas.Instance, ours float64, fit ptas.Fit, quantile, kmeans [][]float64) *Baselines {
	cost := ptas.Cost
	if fit == ptas.FitMax {
		cost = ptas.MaxCost
	}
	eval := func(shapes [][]float64) Baseline {
		_, c := ptas.Assign(in, shapes, cost)
		b := Baseline{Cost: c, Shapes: len(shapes), FitsNodes: true}
		if ours > 0 {
			b.Ratio = c / ours
		}
		if len(in.Caps) > 0 {
			for _, s := range shapes {
				ok := false
				for _, cp := range in.Caps {
					ok = ok || ptas.Fits(s, cp)
				}
				b.FitsNodes = b.FitsNodes && ok
			}
		}
		return b
	}
	return &Baselines{Quantile: eval(quantile), KMeans: eval(kmeans)}
}

// adoptBaseline replaces res's answer by the baseline's shapes (tightened)
// when they fit the node types and cost less.
func adoptBaseline(in *ptas.Instance, res *ptas.Result, fit ptas.Fit, shapes [][]float64, b Baseline, name string) {
	if !b.FitsNodes || b.Cost >= res.Cost {
		return
	}
	cost := ptas.Cost
	if fit == ptas.FitMax {
		cost = ptas.MaxCost
	}
	sh, asg, c := ptas.Tighten(in, shapes, cost)
	if c >= res.Cost {
		return
	}
	res.Shapes, res.Assign, res.Cost = sh, asg, c
	res.Method = "baseline/" + name
	if res.LowerBound > c {
		res.LowerBound = c
	}
	res.Epsilon = max(c/math.Max(res.LowerBound, ptas.GapFloor)-1, 0)
	res.Optimal = res.LowerBound >= c*(1-ptas.OptTol)
}
