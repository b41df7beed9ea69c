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
	limit, hasLimit := EffectiveLimit(ctx, opts)
	if hasLimit && limit.Seconds() <= 0 {
		return limitSolution(name), nil
	}
	secs := 0.0
	if hasLimit {
		secs = max(limit.Seconds(), minCoinSeconds)
	}
	in := newCoinInput(m)
	var sol *Solution
	if m.IsMIP() {
		sol = solveCBC(m, in, secs, opts, false)
		if sol.Status == Unbounded {
			// CBC reports an unbounded LP relaxation; the MIP itself may be
			// infeasible. Decide with a zero-objective MIP solve.
			limit, hasLimit = EffectiveLimit(ctx, opts)
			if hasLimit {
				secs = max(limit.Seconds(), minCoinSeconds)
			}
			switch feas := solveCBC(m, in, secs, opts, true); feas.Status {
			case Infeasible:
				sol = feas
			case Optimal:
			default:
				sol = limitSolution(name)
			}
		}
	} else {
		sol = solveCLP(m, in, secs)
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
		in.colLo[j], in.colUp[j], in.obj[j] = toCoin(v.Lower), toCoin(v.Upper), C.double(v.Cost)
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

func solveCLP(m *Model, in *coinInput, secs float64) *Solution {
	model := C.Clp_newModel()
	defer C.Clp_deleteModel(model)
	C.Clp_setLogLevel(model, 0)
	C.Clp_loadProblem(model, C.int(in.nCols), C.int(in.nRows), &in.start[0], &in.index[0], &in.value[0],
		&in.colLo[0], &in.colUp[0], &in.obj[0], &in.rowLo[0], &in.rowUp[0])
	if m.Maximize {
		C.Clp_setOptimizationDirection(model, -1)
	}
	if secs > 0 {
		C.Clp_setMaximumSeconds(model, C.double(secs))
	}
	C.Clp_initialSolve(model)
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
		sol.Objective = objective(m, sol.X)
		sol.Bound = sol.Objective
		return sol
	case 1:
		return &Solution{Status: Infeasible, Objective: math.NaN(), Bound: math.NaN()}
	case 2:
		// Dual infeasible: unbounded if the primal is feasible, which a
		// solve with a zero objective decides.
		C.Clp_chgObjCoefficients(model, &in.zeroObj[0])
		C.Clp_initialSolve(model)
		switch C.Clp_status(model) {
		case 0:
			return &Solution{Status: Unbounded, Objective: math.NaN(), Bound: math.NaN()}
		case 1:
			return &Solution{Status: Infeasible, Objective: math.NaN(), Bound: math.NaN()}
		case 3:
			return limitSolution("")
		}
		return &Solution{Status: Failed, Objective: math.NaN(), Bound: math.NaN()}
	case 3:
		return limitSolution("")
	}
	return &Solution{Status: Failed, Objective: math.NaN(), Bound: math.NaN()}
}

// solveCBC runs CBC on m. With feasibilityOnly the objective is zero, used to
// decide whether a MIP with an unbounded relaxation has any integer point.
func solveCBC(m *Model, in *coinInput, secs float64, opts Options, feasibilityOnly bool) *Solution {
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
	if m.Maximize {
		C.Cbc_setObjSense(model, -1)
	}
	C.Cbc_setLogLevel(model, 0)
	setParam(model, "log", "0")
	setParam(model, "slog", "0")
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
	}
	bound := float64(C.Cbc_getBestPossibleObjValue(model)) + m.ObjOffset
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
