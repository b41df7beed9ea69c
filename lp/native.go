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
	bb := &bbSearch{ctx: ctx, m: m, p: p, deadline: deadline, incObj: math.Inf(1),
		stack: []bbNode{{lo: lo, up: up, bound: math.Inf(-1)}}}
	for len(bb.stack) > 0 {
		if bb.nodes >= nativeNodeLimit || ctx.Err() != nil || (!deadline.IsZero() && time.Now().After(deadline)) {
			bb.stopped = true
			break
		}
		if gap > 0 && bb.incumbent != nil {
			if b := bb.openBound(); bb.incObj-b <= gap*max(1, math.Abs(bb.incObj)) {
				return Optimal, bb.incumbent, b
			}
		}
		nd := bb.stack[len(bb.stack)-1]
		bb.stack = bb.stack[:len(bb.stack)-1]
		if bb.prune(nd.bound) {
			continue
		}
		if bb.visit(nd) {
			return Unbounded, nil, math.Inf(-1)
		}
		if bb.stopped {
			break
		}
	}
	return bb.result()
}

// bbSearch is branchAndBound's state: the open nodes (depth first), the
// incumbent and its cost, the nodes solved, and whether a node failed or
// the search stopped (limit, time or a node cut short).
type bbSearch struct {
	ctx             context.Context
	m               *Model
	p               *lpProblem
	deadline        time.Time
	stack           []bbNode
	incumbent       []float64
	incObj          float64
	nodes           int
	failed, stopped bool
}

// openBound is the best bound over the open nodes and the incumbent.
func (bb *bbSearch) openBound() float64 {
	b := bb.incObj
	for _, nd := range bb.stack {
		b = min(b, nd.bound)
	}
	return b
}

// prune reports whether a node of bound v cannot beat the incumbent.
func (bb *bbSearch) prune(v float64) bool {
	return v >= bb.incObj-prunePrecision*max(1, math.Abs(bb.incObj))
}

// visit solves node nd's relaxation and then drops it, takes its integral
// solution as the incumbent, or branches on its most fractional integer
// column (trying the rounding heuristic every roundingEvery nodes). A node
// cut short by the time limit or a failure goes back on the stack and
// stops the search. It reports an unbounded root relaxation.
func (bb *bbSearch) visit(nd bbNode) (unbounded bool) {
	r := solveLP(bb.ctx, bb.p, nd.lo, nd.up, bb.deadline, nd.warm)
	bb.nodes++
	switch r.status {
	case Infeasible:
		return false
	case Unbounded:
		if bb.nodes == 1 {
			return true
		}
		// A bounded-below relaxation cannot become unbounded after
		// tightening bounds; treat numerical trouble as failure.
		bb.failed = true
		return false
	case TimeLimit:
		bb.stack = append(bb.stack, nd)
		bb.stopped = true
		return false
	case Failed:
		bb.failed = true
		bb.stack = append(bb.stack, nd)
		bb.stopped = true
		return false
	}
	if bb.prune(r.obj) {
		return false
	}
	bj := bb.branchColumn(r.x)
	if bj < 0 {
		bb.setIncumbent(r.x)
		return false
	}
	if bb.nodes%roundingEvery == 1 {
		if x, c, ok := roundingHeuristic(bb.ctx, bb.m, bb.p, nd, r.x, bb.deadline); ok && c < bb.incObj {
			bb.incumbent, bb.incObj = x, c
			if bb.prune(r.obj) {
				return false
			}
		}
	}
	bb.branch(nd, r, bj)
	return false
}

// branchColumn is the integer column of x furthest from an integer (past
// intTol), or -1 when x is integral.
func (bb *bbSearch) branchColumn(x []float64) int {
	bj, bf := -1, 0.0
	for j, v := range bb.m.Vars {
		if !v.Integer {
			continue
		}
		f := x[j] - math.Floor(x[j])
		if dist := min(f, 1-f); dist > intTol && dist > bf {
			bj, bf = j, dist
		}
	}
	return bj
}

// setIncumbent takes the integral x, its integer columns rounded, as the
// incumbent.
func (bb *bbSearch) setIncumbent(x []float64) {
	for j, v := range bb.m.Vars {
		if v.Integer {
			x[j] = math.Round(x[j])
		}
	}
	c := 0.0
	for j := range x {
		c += bb.p.cost[j] * x[j]
	}
	bb.incumbent, bb.incObj = x, c
}

// branch pushes node nd's two children on column bj, the side nearer the
// relaxation's value on top.
func (bb *bbSearch) branch(nd bbNode, r lpResult, bj int) {
	v := r.x[bj]
	down := bbNode{lo: nd.lo, up: append([]float64(nil), nd.up...), bound: r.obj, warm: r.warm}
	down.up[bj] = math.Floor(v)
	upn := bbNode{lo: append([]float64(nil), nd.lo...), up: nd.up, bound: r.obj, warm: r.warm}
	upn.lo[bj] = math.Ceil(v)
	if v-math.Floor(v) >= 0.5 {
		bb.stack = append(bb.stack, down, upn)
	} else {
		bb.stack = append(bb.stack, upn, down)
	}
}

// result is the search's outcome once it ended or stopped.
func (bb *bbSearch) result() (Status, []float64, float64) {
	switch {
	case !bb.stopped && !bb.failed && bb.incumbent != nil:
		return Optimal, bb.incumbent, bb.incObj
	case !bb.stopped && !bb.failed:
		return Infeasible, nil, math.Inf(1)
	case bb.incumbent != nil:
		return Feasible, bb.incumbent, bb.openBound()
	case bb.failed:
		return Failed, nil, math.Inf(-1)
	}
	return TimeLimit, nil, bb.openBound()
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
