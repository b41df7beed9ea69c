package lp

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Backend names accepted by Options.Backend and BackendByName.
const (
	BackendCoin   = "coin"
	BackendNative = "native"
)

// Backends lists the backends compiled into this binary, the default first:
// "coin" (when built with cgo) and "native" (always).
func Backends() []string {
	var names []string
	if coinAvailable() {
		names = append(names, BackendCoin)
	}
	return append(names, BackendNative)
}

// DefaultBackend is the name Solve uses when Options.Backend is empty.
func DefaultBackend() string { return Backends()[0] }

// BackendByName returns the named backend ("" selects the default). It
// returns an error wrapping ErrNoBackend for a backend that is unknown or not
// compiled in (e.g. "coin" with CGO_ENABLED=0).
func BackendByName(name string) (Backend, error) {
	if name == "" {
		name = DefaultBackend()
	}
	switch name {
	case BackendNative:
		return nativeBackend{}, nil
	case BackendCoin:
		if b := coinBackend(); b != nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("%w: %q (available: %v)", ErrNoBackend, name, Backends())
}

// Solve solves m with the backend named by opts.Backend (default: "coin"
// when built with cgo, else "native").
//
// Solve returns an error only for an invalid model (see Model.Validate) or an
// unavailable backend. Everything about the problem itself is reported in
// Solution.Status: infeasible, unbounded, or a limit reached. An expired or
// cancelled context is treated like the time limit: the result is Feasible
// with the best incumbent found so far, or TimeLimit without one.
//
// Whatever the backend, an Optimal or Feasible solution has one value per
// column: one that does not is reported Failed (a last guard; none of the
// randomized sweeps has produced one, see TestSolutionsCarryX).
func Solve(ctx context.Context, m *Model, opts Options) (*Solution, error) {
	b, err := BackendByName(opts.Backend)
	if err != nil {
		return nil, err
	}
	if lo, hi := CoefRange(m); b.Name() == BackendCoin && m != nil && m.IsMIP() && hi > MaxCoinMIPSpread*lo {
		// CBC would abort the whole process (see MaxCoinMIPSpread).
		b = nativeBackend{}
		spreadGuard.Add(1)
	}
	countCall(b.Name())
	sol, err := b.Solve(ctx, m, opts)
	if err == nil && (sol.Status == Optimal || sol.Status == Feasible) && len(sol.X) != len(m.Vars) {
		sol = &Solution{Status: Failed, Objective: math.NaN(), Bound: math.NaN(), Backend: sol.Backend}
	}
	return sol, err
}

// MaxCoinMIPSpread bounds the coefficient spread (hi/lo of CoefRange) of
// the MIPs Solve hands to CBC; wider ones go to the native branch and
// bound, whatever Options.Backend says. COIN-OR 2.10.8 (Debian's CBC)
// fails an assertion in its dual simplex (ClpSimplexDual.cpp:3626,
// dualColumn0) and aborts the process, which Go cannot recover from, on
// Flex's tardy-jobs MILP once the jobs' work reaches 2e10 (spread 8e10;
// 6e10 solved; solver/flex TestCoinMIPSpreadFallsBack keeps the instance).
// The MIPs of the whole test suite span at most 6e9, so 1e10 moves none.
const MaxCoinMIPSpread = 1e10

// CoefRange is the smallest and largest nonzero |coefficient| of m's rows
// (1, 1 for a model without any, or a nil model): how badly scaled its
// matrix is.
func CoefRange(m *Model) (lo, hi float64) {
	if m == nil {
		return 1, 1
	}
	lo, hi = math.Inf(1), 0
	for _, r := range m.Rows {
		for _, c := range r.Coef {
			if a := math.Abs(c); a > 0 {
				lo, hi = min(lo, a), max(hi, a)
			}
		}
	}
	if hi == 0 {
		return 1, 1
	}
	return lo, hi
}

// boundTol is the slack allowed when deciding trivially that crossed bounds
// or an empty row make a model infeasible; it matches the primal feasibility
// tolerance of both backends (CLP's default primal tolerance is 1e-7).
const boundTol = 1e-7

// prepare runs the checks every backend shares before it touches the
// engine: model validation, an expired context, crossed bounds and models
// with no columns. done reports that sol is final.
func prepare(ctx context.Context, m *Model, backend string) (sol *Solution, done bool, err error) {
	if m == nil {
		return nil, true, fmt.Errorf("lp: nil model")
	}
	if err := m.Validate(); err != nil {
		return nil, true, err
	}
	if ctx.Err() != nil {
		return &Solution{Status: TimeLimit, Objective: math.NaN(), Bound: math.NaN(), Backend: backend}, true, nil
	}
	infeasible := &Solution{Status: Infeasible, Objective: math.NaN(), Bound: math.NaN(), Backend: backend}
	for _, v := range m.Vars {
		if v.Lower > v.Upper+boundTol || math.IsInf(v.Lower, 1) || math.IsInf(v.Upper, -1) {
			return infeasible, true, nil
		}
		if v.Integer && math.Floor(v.Upper+boundTol) < math.Ceil(v.Lower-boundTol) {
			return infeasible, true, nil
		}
	}
	for _, r := range m.Rows {
		if r.Lower > r.Upper+boundTol || math.IsInf(r.Lower, 1) || math.IsInf(r.Upper, -1) {
			return infeasible, true, nil
		}
	}
	if len(m.Vars) == 0 {
		// Every row activity is 0.
		for _, r := range m.Rows {
			if r.Lower > boundTol || r.Upper < -boundTol {
				return infeasible, true, nil
			}
		}
		sol := &Solution{Status: Optimal, Objective: m.ObjOffset, Bound: m.ObjOffset, X: []float64{}, ReducedCosts: []float64{}, Backend: backend}
		if !m.IsMIP() {
			sol.RowDuals = make([]float64, len(m.Rows))
		}
		return sol, true, nil
	}
	return nil, false, nil
}

// limitSolution is the result when the limit is hit without an incumbent.
func limitSolution(backend string) *Solution {
	return &Solution{Status: TimeLimit, Objective: math.NaN(), Bound: math.NaN(), Backend: backend}
}

// roundIntegers rounds the integer columns of a MIP solution to the
// nearest integer (engines return them within their integrality tolerance).
func roundIntegers(m *Model, x []float64) {
	for j, v := range m.Vars {
		if v.Integer {
			x[j] = math.Round(x[j])
		}
	}
}

// objective returns c·x + offset.
func objective(m *Model, x []float64) float64 {
	s := m.ObjOffset
	for j, v := range m.Vars {
		s += v.Cost * x[j]
	}
	return s
}

// csc is a model's constraint matrix in compressed sparse column form with
// duplicate entries summed and explicit zeros dropped.
type csc struct {
	start []int32 // len = columns+1
	index []int32 // row indices
	value []float64
}

func buildCSC(m *Model) csc {
	n := len(m.Vars)
	// Merge duplicates per row first (rows are short), then bucket by column.
	type entry struct {
		row int32
		val float64
	}
	cols := make([][]entry, n)
	pos := make(map[int]int)
	for i, r := range m.Rows {
		clear(pos)
		var es []struct {
			col int
			val float64
		}
		for k, j := range r.Index {
			if p, ok := pos[j]; ok {
				es[p].val += r.Coef[k]
				continue
			}
			pos[j] = len(es)
			es = append(es, struct {
				col int
				val float64
			}{j, r.Coef[k]})
		}
		for _, e := range es {
			if e.val != 0 {
				cols[e.col] = append(cols[e.col], entry{int32(i), e.val})
			}
		}
	}
	var c csc
	c.start = make([]int32, n+1)
	for j := range cols {
		c.start[j+1] = c.start[j] + int32(len(cols[j]))
	}
	c.index = make([]int32, 0, c.start[n])
	c.value = make([]float64, 0, c.start[n])
	for _, col := range cols {
		for _, e := range col {
			c.index = append(c.index, e.row)
			c.value = append(c.value, e.val)
		}
	}
	return c
}

// begin is what every backend's Solve does first: name the engine (lpName,
// or mipName for a model with integer columns), run prepare, and turn the
// effective time limit into a deadline (zero when there is none). done
// reports that sol/err are final.
func begin(ctx context.Context, m *Model, opts Options, lpName, mipName string) (name string, deadline time.Time, sol *Solution, done bool, err error) {
	name = lpName
	if m != nil && m.IsMIP() {
		name = mipName
	}
	if sol, done, err := prepare(ctx, m, name); done {
		return name, deadline, sol, true, err
	}
	if limit, ok := EffectiveLimit(ctx, opts); ok {
		if limit <= 0 {
			return name, deadline, limitSolution(name), true, nil
		}
		deadline = time.Now().Add(limit)
	}
	return name, deadline, nil, false, nil
}
