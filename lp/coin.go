//go:build cgo

package lp

/*
#cgo pkg-config: cbc clp
#include <stdlib.h>
#include <Clp_C_Interface.h>
#include <Cbc_C_Interface.h>
*/
import "C"

import (
	"context"
	"math"
	"strconv"
	"time"
	"unsafe"
)

// coinInf is COIN-OR's infinity (COIN_DBL_MAX); ±Inf bounds are passed as
// ±coinInf and values at or beyond it read back as ±Inf.
const coinInf = math.MaxFloat64

// minCoinSeconds is the smallest time limit handed to CLP/CBC. A zero or
// negative limit means "no limit" to COIN-OR, so an (almost) exhausted budget
// is checked in Go before the call and otherwise rounded up to this.
const minCoinSeconds = 1e-3

func coinAvailable() bool { return true }

func coinBackend() Backend { return coin{} }

// coin is the COIN-OR backend: CLP for LPs, CBC for MIPs. Every C object is
// created and deleted within one Solve call (defer), so nothing outlives it.
type coin struct{}

func (coin) Name() string { return BackendCoin }

// Solve implements Backend.
func (c coin) Solve(ctx context.Context, m *Model, opts Options) (*Solution, error) {
	name := "coin/clp"
	if m != nil && m.IsMIP() {
		name = "coin/cbc"
	}
	if sol, done, err := prepare(ctx, m, name); done {
		return sol, err
	}
	var deadline time.Time
	if limit, ok := EffectiveLimit(ctx, opts); ok {
		if limit <= 0 {
			return limitSolution(name), nil
		}
		deadline = time.Now().Add(limit)
	}
	in := newCoinInput(m)
	var sol *Solution
	if m.IsMIP() {
		if emptyColumnRay(m, in) {
			// As for CLP (see solveCLP), decide feasibility only.
			sol = &Solution{Status: Unbounded, Objective: math.NaN(), Bound: math.NaN()}
		} else {
			sol = solveCBC(ctx, m, in, deadline, opts, false)
		}
		if sol.Status == Unbounded {
			// CBC reports an unbounded LP relaxation; the MIP itself may be
			// infeasible. Decide with a zero-objective MIP solve.
			switch feas := solveCBC(ctx, m, in, deadline, opts, true); feas.Status {
			case Infeasible:
				sol = feas
			case Optimal:
			default:
				sol = limitSolution(name)
			}
		}
		if (sol.Status == Optimal || sol.Status == Feasible) && Verify(m, sol, VerifyTol) != nil {
			// CBC's incumbent violates the model beyond tolerance.
			sol = &Solution{Status: Failed, Objective: math.NaN(), Bound: math.NaN()}
		}
	} else {
		sol = solveCLP(m, in, deadline)
	}
	sol.Backend = name
	if ctx.Err() != nil && sol.Status == Failed {
		sol = limitSolution(name)
	}
	return sol, nil
}

// coinInput is the model in COIN-OR's column-major layout. It lives in Go
// memory: the C interfaces copy it during load and keep no pointer to it,
// and it contains no Go pointers, so passing it follows the cgo rules.
type coinInput struct {
	start          []C.CoinBigIndex
	index          []C.int
	value          []C.double
	colLo, colUp   []C.double
	obj, zeroObj   []C.double
	rowLo, rowUp   []C.double
	nCols, nRows   int
	integerColumns []int
}

func toCoin(v float64) C.double {
	switch {
	case v >= coinInf:
		return C.double(coinInf)
	case v <= -coinInf:
		return C.double(-coinInf)
	}
	return C.double(v)
}

func newCoinInput(m *Model) *coinInput {
	a := buildCSC(m)
	sense := 1.0
	if m.Maximize {
		sense = -1
	}
	in := &coinInput{nCols: len(m.Vars), nRows: len(m.Rows)}
	in.start = make([]C.CoinBigIndex, len(a.start))
	for k, s := range a.start {
		in.start[k] = C.CoinBigIndex(s)
	}
	// Never hand C a nil pointer for the element arrays: keep one spare slot.
	in.index = make([]C.int, len(a.index), len(a.index)+1)
	in.value = make([]C.double, len(a.value), len(a.value)+1)
	for k := range a.index {
		in.index[k] = C.int(a.index[k])
		in.value[k] = C.double(a.value[k])
	}
	in.index, in.value = in.index[:len(a.index)+1], in.value[:len(a.value)+1]
	in.colLo = make([]C.double, in.nCols)
	in.colUp = make([]C.double, in.nCols)
	in.obj = make([]C.double, in.nCols)
	in.zeroObj = make([]C.double, in.nCols)
	for j, v := range m.Vars {
		in.colLo[j], in.colUp[j], in.obj[j] = toCoin(v.Lower), toCoin(v.Upper), C.double(sense*v.Cost)
		if v.Integer {
			in.integerColumns = append(in.integerColumns, j)
		}
	}
	// One spare slot so that a zero-row model still passes valid pointers.
	in.rowLo = make([]C.double, in.nRows+1)
	in.rowUp = make([]C.double, in.nRows+1)
	for i, r := range m.Rows {
		in.rowLo[i], in.rowUp[i] = toCoin(r.Lower), toCoin(r.Upper)
	}
	return in
}

func fromC(p *C.double, n int) []float64 {
	out := make([]float64, n)
	if p == nil || n == 0 {
		return out
	}
	copy(out, unsafe.Slice((*float64)(unsafe.Pointer(p)), n))
	return out
}

// emptyColumnRay reports whether some column without row entries can move
// to infinity while improving the objective, which makes the model
// unbounded as soon as it is feasible.
func emptyColumnRay(m *Model, in *coinInput) bool {
	for j, v := range m.Vars {
		if in.start[j] != in.start[j+1] {
			continue
		}
		c := v.Cost
		if m.Maximize {
			c = -c
		}
		if (c < 0 && math.IsInf(v.Upper, 1)) || (c > 0 && math.IsInf(v.Lower, -1)) {
			return true
		}
	}
	return false
}

// secondsUntil converts a deadline (zero: none) into a COIN-OR time limit
// (0: none). ok is false when the deadline has passed.
func secondsUntil(deadline time.Time) (secs float64, ok bool) {
	if deadline.IsZero() {
		return 0, true
	}
	rem := time.Until(deadline).Seconds()
	if rem <= 0 {
		return 0, false
	}
	return max(rem, minCoinSeconds), true
}

// clpMode selects how runCLP calls CLP.
type clpMode int

const (
	clpAuto             clpMode = iota // initialSolve: presolve, CLP's choice of algorithm
	clpDualNoPresolve                  // dual simplex, no presolve
	clpPrimalNoPresolve                // primal simplex, no presolve
)

// solveCLP solves an LP with CLP, trusting none of CLP's verdicts blindly.
// The model is always passed as a minimisation (costs negated for a
// maximisation, duals negated back): with the optimisation direction set to
// -1, CLP 1.17 returns minimisation-sense reduced costs when presolve
// removes every row.
//
// Quirks of CLP 1.17 found by the randomized cross-checks against the native
// backend, and how they are handled:
//   - dual simplex (with or without presolve) reports some feasible
//     problems as primal infeasible, e.g. when free columns are involved,
//     and some unbounded ones as well, e.g. when the unbounded direction
//     uses a column without row entries (those are detected in Go);
//   - primal simplex without presolve declares some unbounded problems
//     optimal, leaving a column bounded only above at 0.
//
// So an "optimal" answer is accepted only if Verify confirms primal and dual
// feasibility and strong duality; otherwise the next mode is tried. An
// "infeasible" or "unbounded" answer is settled by a zero-objective primal
// solve, which decides feasibility: infeasible stays infeasible, dual
// infeasible plus feasible is unbounded, and a contradicted "infeasible" moves
// on to the next mode.
func solveCLP(m *Model, in *coinInput, deadline time.Time) *Solution {
	nan := math.NaN()
	feasible := -1 // unknown; 0 no, 1 yes
	decideFeasible := func() *Solution {
		if feasible >= 0 {
			return nil
		}
		switch st, sol := runCLP(m, in, deadline, true, clpPrimalNoPresolve); st {
		case 0:
			sol.RowDuals, sol.ReducedCosts = nil, nil // duals of the zero objective
			if Verify(m, sol, VerifyTol) != nil {
				return &Solution{Status: Failed, Objective: nan, Bound: nan}
			}
			feasible = 1
		case 1:
			feasible = 0
		default:
			return sol
		}
		return nil
	}
	if emptyColumnRay(m, in) {
		if sol := decideFeasible(); sol != nil {
			return sol
		}
		if feasible == 0 {
			return &Solution{Status: Infeasible, Objective: nan, Bound: nan}
		}
		return &Solution{Status: Unbounded, Objective: nan, Bound: nan}
	}
	for _, mode := range []clpMode{clpAuto, clpDualNoPresolve, clpPrimalNoPresolve} {
		st, sol := runCLP(m, in, deadline, false, mode)
		switch st {
		case 0:
			if Verify(m, sol, VerifyTol) == nil {
				return sol
			}
			continue
		case 1, 2:
			if sol := decideFeasible(); sol != nil {
				return sol
			}
			if feasible == 0 {
				return &Solution{Status: Infeasible, Objective: nan, Bound: nan}
			}
			if st == 2 {
				return &Solution{Status: Unbounded, Objective: nan, Bound: nan}
			}
			continue
		case 3:
			return sol
		}
	}
	return &Solution{Status: Failed, Objective: nan, Bound: nan}
}

// runCLP runs one CLP solve and returns CLP's status and its translation
// (statuses 1 and 2 translate to Infeasible and Unbounded unverified).
func runCLP(m *Model, in *coinInput, deadline time.Time, zeroObjective bool, mode clpMode) (int, *Solution) {
	nan := math.NaN()
	secs, ok := secondsUntil(deadline)
	if !ok {
		return 3, limitSolution("")
	}
	model := C.Clp_newModel()
	defer C.Clp_deleteModel(model)
	C.Clp_setLogLevel(model, 0)
	obj := &in.obj[0]
	if zeroObjective {
		obj = &in.zeroObj[0]
	}
	C.Clp_loadProblem(model, C.int(in.nCols), C.int(in.nRows), &in.start[0], &in.index[0], &in.value[0],
		&in.colLo[0], &in.colUp[0], obj, &in.rowLo[0], &in.rowUp[0])
	if secs > 0 {
		C.Clp_setMaximumSeconds(model, C.double(secs))
	}
	switch mode {
	case clpAuto:
		C.Clp_initialSolve(model)
	case clpDualNoPresolve:
		C.Clp_dual(model, 0)
	case clpPrimalNoPresolve:
		C.Clp_primal(model, 0)
	}
	status := int(C.Clp_status(model))
	if status == 0 && C.Clp_secondaryStatus(model) >= 2 {
		// Optimal only for the scaled problem: polish without scaling.
		C.Clp_scaling(model, 0)
		C.Clp_primal(model, 0)
		status = int(C.Clp_status(model))
	}
	switch status {
	case 0:
		sol := &Solution{Status: Optimal}
		sol.X = fromC(C.Clp_primalColumnSolution(model), in.nCols)
		sol.RowDuals = fromC(C.Clp_dualRowSolution(model), in.nRows)
		sol.ReducedCosts = fromC(C.Clp_dualColumnSolution(model), in.nCols)
		if m.Maximize {
			for i := range sol.RowDuals {
				sol.RowDuals[i] = -sol.RowDuals[i]
			}
			for j := range sol.ReducedCosts {
				sol.ReducedCosts[j] = -sol.ReducedCosts[j]
			}
		}
		sol.Objective = objective(m, sol.X)
		sol.Bound = sol.Objective
		return 0, sol
	case 1:
		return 1, &Solution{Status: Infeasible, Objective: nan, Bound: nan}
	case 2:
		return 2, &Solution{Status: Unbounded, Objective: nan, Bound: nan}
	case 3:
		return 3, limitSolution("")
	}
	return status, &Solution{Status: Failed, Objective: nan, Bound: nan}
}

// cbcMutex serialises CBC solves. Cbc_solve runs CBC's command-line driver
// (CbcMain1), which keeps static state: concurrent solves in one process
// return wrong statuses and even print its interactive banner to stdout
// (found by TestCoinConcurrent). CLP models are independent objects and run
// concurrently. A channel rather than sync.Mutex so that waiting for it
// honours the context and the deadline.
var cbcMutex = make(chan struct{}, 1)

// lockCBC waits for cbcMutex; it reports false when ctx or the deadline
// ends the wait first.
func lockCBC(ctx context.Context, deadline time.Time) bool {
	var expire <-chan time.Time
	if !deadline.IsZero() {
		timer := time.NewTimer(time.Until(deadline))
		defer timer.Stop()
		expire = timer.C
	}
	select {
	case cbcMutex <- struct{}{}:
		return true
	case <-ctx.Done():
	case <-expire:
	}
	return false
}

func unlockCBC() { <-cbcMutex }

// solveCBC runs CBC on m. With feasibilityOnly the objective is zero, used to
// decide whether a MIP with an unbounded relaxation has any integer point.
func solveCBC(ctx context.Context, m *Model, in *coinInput, deadline time.Time, opts Options, feasibilityOnly bool) *Solution {
	if !lockCBC(ctx, deadline) {
		return limitSolution("")
	}
	defer unlockCBC()
	secs, ok := secondsUntil(deadline)
	if !ok {
		return limitSolution("")
	}
	model := C.Cbc_newModel()
	defer C.Cbc_deleteModel(model)
	obj := &in.obj[0]
	if feasibilityOnly {
		obj = &in.zeroObj[0]
	}
	C.Cbc_loadProblem(model, C.int(in.nCols), C.int(in.nRows), &in.start[0], &in.index[0], &in.value[0],
		&in.colLo[0], &in.colUp[0], obj, &in.rowLo[0], &in.rowUp[0])
	for _, j := range in.integerColumns {
		C.Cbc_setInteger(model, C.int(j))
	}
	C.Cbc_setLogLevel(model, 0)
	setParam(model, "log", "0")
	setParam(model, "slog", "0")
	// Budgets are wall-clock; CBC measures CPU time by default.
	setParam(model, "timeMode", "elapsed")
	if secs > 0 {
		C.Cbc_setMaximumSeconds(model, C.double(secs))
	}
	if opts.MIPGap > 0 {
		C.Cbc_setAllowableFractionGap(model, C.double(opts.MIPGap))
	}
	if opts.Threads > 1 {
		setParam(model, "threads", strconv.Itoa(opts.Threads))
	}
	C.Cbc_solve(model)

	sense := 1.0
	if m.Maximize {
		sense = -1
	}
	nan := math.NaN()
	var x []float64
	if p := C.Cbc_bestSolution(model); p != nil {
		x = fromC(p, in.nCols)
		roundIntegers(m, x)
	}
	bound := sense*float64(C.Cbc_getBestPossibleObjValue(model)) + m.ObjOffset
	switch {
	case C.Cbc_isContinuousUnbounded(model) != 0:
		return &Solution{Status: Unbounded, Objective: nan, Bound: nan}
	case C.Cbc_isProvenInfeasible(model) != 0:
		return &Solution{Status: Infeasible, Objective: nan, Bound: nan}
	case C.Cbc_isProvenOptimal(model) != 0 && x != nil:
		obj := objective(m, x)
		// The proven bound can be reported loosely (it is the best open
		// node before the last pruning); at optimality it cannot be worse
		// than the objective itself by more than the allowed gap.
		if math.IsNaN(bound) || math.IsInf(bound, 0) || sense*(bound-obj) > 0 {
			bound = obj
		}
		return &Solution{Status: Optimal, Objective: obj, Bound: bound, X: x}
	case x != nil:
		return &Solution{Status: Feasible, Objective: objective(m, x), Bound: bound, X: x}
	case C.Cbc_isSecondsLimitReached(model) != 0 || C.Cbc_status(model) == 1 || C.Cbc_status(model) == 5:
		sol := limitSolution("")
		sol.Bound = bound
		return sol
	}
	return &Solution{Status: Failed, Objective: nan, Bound: nan}
}

func setParam(model unsafe.Pointer, name, value string) {
	cn, cv := C.CString(name), C.CString(value)
	defer C.free(unsafe.Pointer(cn))
	defer C.free(unsafe.Pointer(cv))
	C.Cbc_setParameter(model, cn, cv)
}
