package lp

import (
	"context"
	"math"
	"time"
)

const (
	// intTol: an LP value within this of an integer counts as integral
	// (CBC's default integer tolerance is 1e-6 as well).
	intTol = 1e-6
	// prunePrecision is the relative slack with which a node whose LP bound
	// is not better than the incumbent is pruned: the native search proves
	// optimality to this relative precision, far below MIP gaps used in
	// practice and well above the LP's own error on small models.
	prunePrecision = 1e-9
	// nativeNodeLimit caps the branch-and-bound nodes of one native solve;
	// the search has no cuts and a dense LP per node, so the native MIP is
	// meant for small models (the coin backend handles real ones).
	nativeNodeLimit = 200000
	// roundingEvery: the rounding heuristic runs at the root and then at
	// every roundingEvery-th node; it costs one LP over the continuous
	// columns, and it is what finds a first incumbent when integer columns
	// are unbounded and plain depth-first branching would dive forever.
	roundingEvery = 8
)

// nativeBackend is the pure-Go backend: the bounded revised simplex of
// native_simplex.go for LPs and depth-first branch and bound over it for MIPs.
type nativeBackend struct{}

func (nativeBackend) Name() string { return BackendNative }

// Solve implements Backend.
func (nativeBackend) Solve(ctx context.Context, m *Model, opts Options) (*Solution, error) {
	name, deadline, early, done, err := begin(ctx, m, opts, "native/simplex", "native/bb")
	if done {
		return early, err
	}
	p := newLPProblem(m)
	lo := make([]float64, p.n)
	up := make([]float64, p.n)
	for j, v := range m.Vars {
		lo[j], up[j] = v.Lower, v.Upper
	}
	var sol *Solution
	if m.IsMIP() {
		sol = nativeMIP(ctx, m, p, lo, up, deadline, opts.MIPGap)
	} else {
		sol = nativeLP(ctx, m, p, lo, up, deadline)
	}
	sol.Backend = name
	return sol, nil
}

func nativeLP(ctx context.Context, m *Model, p *lpProblem, lo, up []float64, deadline time.Time) *Solution {
	r := solveLP(ctx, p, lo, up, deadline, nil)
	if r.status != Optimal {
		sol := limitSolution("")
		sol.Status = r.status
		return sol
	}
	sense := 1.0
	if m.Maximize {
		sense = -1
	}
	sol := &Solution{Status: Optimal, X: r.x, RowDuals: r.y, ReducedCosts: r.d}
	for i := range sol.RowDuals {
		sol.RowDuals[i] *= sense
	}
	for j := range sol.ReducedCosts {
		sol.ReducedCosts[j] *= sense
	}
	sol.Objective = objective(m, sol.X)
	sol.Bound = sol.Objective
	return sol
}

// bbNode is an open node of the search: column bounds and the LP bound of
// its parent (minimisation sense).
type bbNode struct {
	lo, up []float64
	bound  float64
	warm   *warmStart // the parent's optimal basis
}

// nativeMIP is depth-first branch and bound. Branching variable: the
// integer column whose LP value is most fractional (closest to .5; ties to
// the smaller index). Child order: the side the LP value rounds to is
// explored first. The search stops at nativeNodeLimit nodes, the deadline,
// or when the incumbent is within gap of the best open bound.
func nativeMIP(ctx context.Context, m *Model, p *lpProblem, lo, up []float64, deadline time.Time, gap float64) *Solution {
	for j, v := range m.Vars {
		if v.Integer {
			lo[j] = math.Ceil(lo[j] - intTol)
			up[j] = math.Floor(up[j] + intTol)
		}
	}
	st, x, bound := branchAndBound(ctx, m, p, lo, up, deadline, gap)
	if st == Unbounded {
		// The relaxation is unbounded; the MIP is unbounded iff it has an
		// integer point, which a zero-cost search decides.
		zero := *p
		zero.cost = make([]float64, p.n)
		switch fst, _, _ := branchAndBound(ctx, m, &zero, lo, up, deadline, 0); fst {
		case Optimal:
		case Infeasible:
			st = Infeasible
		default:
			st = TimeLimit
		}
	}
	sense := 1.0
	if m.Maximize {
		sense = -1
	}
	sol := limitSolution("")
	sol.Status = st
	switch st {
	case Optimal, Feasible:
		sol.X = x
		sol.Objective = objective(m, x)
		sol.Bound = sense*bound + m.ObjOffset
		if st == Optimal && gap == 0 {
			sol.Bound = sol.Objective
		}
	case TimeLimit:
		if !math.IsInf(bound, 0) {
			sol.Bound = sense*bound + m.ObjOffset
		}
	}
	return sol
}

// branchAndBound returns the status, the incumbent (integer columns
// rounded) and the best proven bound (minimisation sense).
func branchAndBound(ctx context.Context, m *Model, p *lpProblem, lo, up []float64, deadline time.Time, gap float64) (Status, []float64, float64) {
	var incumbent []float64
	incObj := math.Inf(1)
	stack := []bbNode{{lo: lo, up: up, bound: math.Inf(-1)}}
	nodes, failed, stopped := 0, false, false
	openBound := func() float64 {
		b := incObj
		for _, nd := range stack {
			b = min(b, nd.bound)
		}
		return b
	}
	prune := func(v float64) bool {
		return v >= incObj-prunePrecision*max(1, math.Abs(incObj))
	}
	for len(stack) > 0 {
		if nodes >= nativeNodeLimit || ctx.Err() != nil || (!deadline.IsZero() && time.Now().After(deadline)) {
			stopped = true
			break
		}
		if gap > 0 && incumbent != nil {
			if b := openBound(); incObj-b <= gap*max(1, math.Abs(incObj)) {
				return Optimal, incumbent, b
			}
		}
		nd := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if prune(nd.bound) {
			continue
		}
		r := solveLP(ctx, p, nd.lo, nd.up, deadline, nd.warm)
		nodes++
		switch r.status {
		case Infeasible:
			continue
		case Unbounded:
			if nodes == 1 {
				return Unbounded, nil, math.Inf(-1)
			}
			// A bounded-below relaxation cannot become unbounded after
			// tightening bounds; treat numerical trouble as failure.
			failed = true
			continue
		case TimeLimit:
			stack = append(stack, nd)
			stopped = true
		case Failed:
			failed = true
			stack = append(stack, nd)
			stopped = true
		}
		if stopped {
			break
		}
		if prune(r.obj) {
			continue
		}
		bj, bf := -1, 0.0
		for j, v := range m.Vars {
			if !v.Integer {
				continue
			}
			f := r.x[j] - math.Floor(r.x[j])
			if dist := min(f, 1-f); dist > intTol && dist > bf {
				bj, bf = j, dist
			}
		}
		if bj < 0 {
			x := r.x
			for j, v := range m.Vars {
				if v.Integer {
					x[j] = math.Round(x[j])
				}
			}
			c := 0.0
			for j := range x {
				c += p.cost[j] * x[j]
			}
			incumbent, incObj = x, c
			continue
		}
		if nodes%roundingEvery == 1 {
			if x, c, ok := roundingHeuristic(ctx, m, p, nd, r.x, deadline); ok && c < incObj {
				incumbent, incObj = x, c
				if prune(r.obj) {
					continue
				}
			}
		}
		v := r.x[bj]
		down := bbNode{lo: nd.lo, up: append([]float64(nil), nd.up...), bound: r.obj, warm: r.warm}
		down.up[bj] = math.Floor(v)
		upn := bbNode{lo: append([]float64(nil), nd.lo...), up: nd.up, bound: r.obj, warm: r.warm}
		upn.lo[bj] = math.Ceil(v)
		if v-math.Floor(v) >= 0.5 {
			stack = append(stack, down, upn)
		} else {
			stack = append(stack, upn, down)
		}
	}
	switch {
	case !stopped && !failed && incumbent != nil:
		return Optimal, incumbent, incObj
	case !stopped && !failed:
		return Infeasible, nil, math.Inf(1)
	case incumbent != nil:
		return Feasible, incumbent, openBound()
	case failed:
		return Failed, nil, math.Inf(-1)
	}
	return TimeLimit, nil, openBound()
}

// roundingHeuristic rounds the integer columns of a node's LP solution,
// fixes them, and re-solves for the continuous columns (or just checks the
// rows for a pure integer model). It returns the point and its
// minimisation-sense cost when that is feasible.
func roundingHeuristic(ctx context.Context, m *Model, p *lpProblem, nd bbNode, x []float64, deadline time.Time) ([]float64, float64, bool) {
	lo := append([]float64(nil), nd.lo...)
	up := append([]float64(nil), nd.up...)
	continuous := false
	for j, v := range m.Vars {
		if !v.Integer {
			continuous = true
			continue
		}
		r := math.Max(lo[j], math.Min(up[j], math.Round(x[j])))
		lo[j], up[j] = r, r
	}
	var pt []float64
	if continuous {
		res := solveLP(ctx, p, lo, up, deadline, nil)
		if res.status != Optimal {
			return nil, 0, false
		}
		pt = res.x
	} else {
		pt = lo
		act := make([]float64, p.m)
		for j := 0; j < p.n; j++ {
			for k := p.a.start[j]; k < p.a.start[j+1]; k++ {
				act[p.a.index[k]] += p.a.value[k] * pt[j]
			}
		}
		for i := range act {
			if act[i] < p.rowLo[i]-feasTol*(1+math.Abs(p.rowLo[i])) || act[i] > p.rowUp[i]+feasTol*(1+math.Abs(p.rowUp[i])) {
				return nil, 0, false
			}
		}
	}
	roundIntegers(m, pt)
	c := 0.0
	for j := range pt {
		c += p.cost[j] * pt[j]
	}
	return pt, c, true
}
