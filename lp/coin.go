//go:build cgo

package lp

/*
#cgo pkg-config: cbc clp
#include <stdlib.h>
#include <Clp_C_Interface.h>
#include <Cbc_C_Interface.h>
#include "coin_cbc.h"
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
	name, deadline, early, done, err := begin(ctx, m, opts, "coin/clp", "coin/cbc")
	if done {
		return early, err
	}
	var sol *Solution
	if m.IsMIP() {
		sol = solvePresolvedMIP(ctx, m, deadline, opts)
	} else {
		sol = solveCoin(ctx, m, deadline, opts)
	}
	sol.Backend = name
	if ctx.Err() != nil && sol.Status == Failed {
		sol = limitSolution(name)
	}
	return sol, nil
}

// solvePresolvedMIP runs presolveMIP, solves the reduced model and maps the
// answer back; the result is checked with Verify against the original.
func solvePresolvedMIP(ctx context.Context, m *Model, deadline time.Time, opts Options) *Solution {
	nan := math.NaN()
	p := presolveMIP(m)
	if p.infeasible {
		return &Solution{Status: Infeasible, Objective: nan, Bound: nan}
	}
	sol := solveCoin(ctx, p.reduced, deadline, opts)
	sol.RowDuals, sol.ReducedCosts = nil, nil
	if sol.Status != Optimal && sol.Status != Feasible {
		sol.X = nil
		return sol
	}
	sol.X = p.postsolve(sol.X)
	roundIntegers(m, sol.X)
	sol.Objective = objective(m, sol.X)
	if !p.reduced.IsMIP() && sol.Status == Optimal {
		sol.Bound = sol.Objective
	}
	if Verify(m, sol, VerifyTol) != nil {
		return &Solution{Status: Failed, Objective: nan, Bound: nan}
	}
	return sol
}

// solveCoin solves m (an LP, or a MIP after presolveMIP) with CLP or CBC.
func solveCoin(ctx context.Context, m *Model, deadline time.Time, opts Options) *Solution {
	in := newCoinInput(m)
	var sol *Solution
	switch {
	case in.emptyRowInfeasible:
		sol = &Solution{Status: Infeasible, Objective: math.NaN(), Bound: math.NaN()}
	case in.nCols == 0 && in.ray:
		// All rows are empty and contain 0, so the model is feasible.
		sol = &Solution{Status: Unbounded, Objective: math.NaN(), Bound: math.NaN()}
	case in.nCols == 0:
		// Every column is empty and fixed at its best bound (all rows
		// are empty too and contain 0).
		sol = &Solution{Status: Optimal, X: in.expandX(nil)}
		sol.Objective = objective(m, sol.X)
		sol.Bound = sol.Objective
		if !m.IsMIP() {
			sol.RowDuals, sol.ReducedCosts = in.expandDuals(m, nil, nil)
		}
	case len(in.integerColumns) == 0:
		// An LP, or a MIP whose integer columns are all empty and fixed:
		// CLP alone (CBC's handling of MIPs without integer columns is not
		// needed).
		sol = solveCLP(m, in, deadline)
		if m.IsMIP() {
			sol.RowDuals, sol.ReducedCosts = nil, nil
			sol.Bound = sol.Objective
		}
	default:
		sol = solveMIP(ctx, m, in, deadline, opts)
	}
	return sol
}

// coinInput is the model in COIN-OR's column-major layout, reduced: rows
// and columns without any nonzero are not passed to COIN-OR (an empty row
// together with unbounded integer columns makes CBC abort the whole process
// on an assertion in OsiClpSolverInterface::crunch, and CLP misjudges
// unbounded empty columns, see solveCLP). Empty rows are checked here and
// empty columns fixed at their best bound. The arrays live in Go memory: the
// C interfaces copy them during load and keep no pointer to them, and they
// contain no Go pointers, so passing them follows the cgo rules.
type coinInput struct {
	start          []C.CoinBigIndex
	index          []C.int
	value          []C.double
	colLo, colUp   []C.double
	obj, zeroObj   []C.double
	rowLo, rowUp   []C.double
	nCols, nRows   int   // reduced sizes
	cols, rows     []int // model index of each reduced column / row
	integerColumns []int // reduced indices
	// fixed holds, per model column, the value of an empty column.
	fixed []float64
	// emptyRowInfeasible: an empty row excludes activity 0.
	emptyRowInfeasible bool
	// ray: an empty column improves the objective without limit.
	ray bool
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
	in := &coinInput{fixed: make([]float64, len(m.Vars))}
	newRow := make([]int, len(m.Rows))
	for i := range newRow {
		newRow[i] = -1
	}
	for _, i := range a.index {
		newRow[i] = 0
	}
	for i, r := range m.Rows {
		if newRow[i] < 0 {
			if r.Lower > boundTol || r.Upper < -boundTol {
				in.emptyRowInfeasible = true
			}
			continue
		}
		newRow[i] = len(in.rows)
		in.rows = append(in.rows, i)
		in.rowLo = append(in.rowLo, toCoin(r.Lower))
		in.rowUp = append(in.rowUp, toCoin(r.Upper))
	}
	in.start = append(in.start, 0)
	for j, v := range m.Vars {
		if a.start[j] == a.start[j+1] {
			in.fixed[j] = emptyColumnValue(v, sense*v.Cost, &in.ray)
			continue
		}
		if v.Integer {
			in.integerColumns = append(in.integerColumns, len(in.cols))
		}
		in.cols = append(in.cols, j)
		for k := a.start[j]; k < a.start[j+1]; k++ {
			in.index = append(in.index, C.int(newRow[a.index[k]]))
			in.value = append(in.value, C.double(a.value[k]))
		}
		in.start = append(in.start, C.CoinBigIndex(len(in.index)))
		in.colLo = append(in.colLo, toCoin(v.Lower))
		in.colUp = append(in.colUp, toCoin(v.Upper))
		in.obj = append(in.obj, C.double(sense*v.Cost))
	}
	in.nCols, in.nRows = len(in.cols), len(in.rows)
	in.zeroObj = make([]C.double, in.nCols)
	// Never hand C a nil pointer: one spare slot in every array (the sizes
	// passed keep COIN-OR from reading it).
	in.index, in.value = append(in.index, 0), append(in.value, 0)
	in.colLo, in.colUp = append(in.colLo, 0), append(in.colUp, 0)
	in.obj, in.zeroObj = append(in.obj, 0), append(in.zeroObj, 0)
	in.rowLo, in.rowUp = append(in.rowLo, 0), append(in.rowUp, 0)
	return in
}

// emptyColumnValue is the best value of a column without row entries and
// minimisation-sense cost c; it sets *ray when that value is infinite.
// Integer columns get an integer inside their bounds (prepare has checked
// that one exists).
func emptyColumnValue(v Var, c float64, ray *bool) float64 {
	lo, up := v.Lower, v.Upper
	if v.Integer {
		lo, up = math.Ceil(lo-intTol), math.Floor(up+intTol)
	}
	switch {
	case c > 0 && math.IsInf(lo, -1), c < 0 && math.IsInf(up, 1):
		// Any finite value inside the bounds serves the feasibility
		// check that follows.
		*ray = true
		return math.Max(lo, math.Min(up, 0))
	case c > 0:
		return lo
	case c < 0:
		return up
	}
	return math.Max(lo, math.Min(up, 0))
}

// expandX maps reduced column values to model columns.
func (in *coinInput) expandX(xr []float64) []float64 {
	x := make([]float64, len(in.fixed))
	copy(x, in.fixed)
	for k, j := range in.cols {
		x[j] = xr[k]
	}
	return x
}

// expandDuals maps reduced row duals to model rows (0 for empty rows) and
// reduced costs to model columns (the cost itself for empty columns), both
// given in minimisation sense and returned in the model's sense.
func (in *coinInput) expandDuals(m *Model, yr, dr []float64) (y, d []float64) {
	sense := 1.0
	if m.Maximize {
		sense = -1
	}
	y = make([]float64, len(m.Rows))
	for k, i := range in.rows {
		y[i] = sense * yr[k]
	}
	d = make([]float64, len(m.Vars))
	for j, v := range m.Vars {
		d[j] = v.Cost
	}
	for k, j := range in.cols {
		d[j] = sense * dr[k]
	}
	return y, d
}

func fromC(p *C.double, n int) []float64 {
	out := make([]float64, n)
	if p == nil || n == 0 {
		return out
	}
	copy(out, unsafe.Slice((*float64)(unsafe.Pointer(p)), n))
	return out
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
	if in.ray {
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

// clpScaling is the scaling mode of every CLP solve: 1, equilibrium,
// rather than CLP's default 2, geometric. With geometric scaling CLP 1.17.6
// aborted the whole process (ClpPackedMatrix.cpp:5222,
// gutsOfTransposeTimesByRowGE3, assert(elValue)) on a clean LP: xselect's
// bound relaxation for 100,000 nodes and 1,000 applications (6,082
// columns, 2,033 rows, 31 distinct coefficients from 1/96 to 20, no zero
// or duplicate entry; testdata/clp_scaling_abort.gob.gz). In every mode
// (initialSolve, dual or primal without presolve) its steepest-edge
// pricing built a dual vector whose entries fall by 2^-53 from one to the
// next down to 5e-324, and a product with a matrix element underflows to
// the exact zero the assertion forbids. Equilibrium scaling and no scaling
// both solve it (and the whole test suite); equilibrium keeps a scaled
// solve for badly scaled models. TestCLPScalingNoAbort keeps the instance.
const clpScaling = 1

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
	C.Clp_scaling(model, clpScaling)
	switch mode {
	case clpAuto:
		clpInitialSolve(model)
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
		sol.X = in.expandX(fromC(C.Clp_primalColumnSolution(model), in.nCols))
		sol.RowDuals, sol.ReducedCosts = in.expandDuals(m,
			fromC(C.Clp_dualRowSolution(model), in.nRows), fromC(C.Clp_dualColumnSolution(model), in.nCols))
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

// solveMIP solves a MIP with CBC and double-checks CBC's verdicts, because
// CBC 2.10.8 (driven through Cbc_solve) gets some of them wrong, as the
// randomized cross-checks against the native backend and enumeration showed
// (the instances are kept in coin_test.go):
//   - with its default preprocessing (CglPreProcess) it returns wrong
//     "optimal" solutions on some small models, e.g. optimum 12 reported for
//     min −2a + 5b, a ∈ [−1, 2], b ∈ [1, 4] integer, −3 ≤ 4a − 3b ≤ −2, whose
//     optimum is 9 (a=0, b=1); about 1 in 3,000 random small MIPs. So
//     preprocessing is switched off; presolveMIP runs first in Go because
//     without preprocessing CBC aborts the process on an assertion
//     (OsiClpSolverInterface::crunch) when rows become empty;
//   - without preprocessing it has reported a feasible model with free
//     integer columns infeasible, so an "infeasible" whose LP relaxation is
//     feasible is re-checked by a run with preprocessing on, and a verified
//     solution from that run is taken;
//   - it reports a MIP whose LP relaxation is unbounded as infeasible. So an
//     "infeasible" is re-derived from the relaxation, solved with CLP: an
//     infeasible relaxation confirms it, an unbounded one sends the model to
//     the feasibility check below;
//   - an unbounded relaxation says nothing about integer feasibility, so
//     "unbounded" is confirmed by a zero-objective CBC solve finding an
//     integer point (otherwise Infeasible, or TimeLimit if undecided);
//   - an incumbent that fails Verify becomes Failed.
func solveMIP(ctx context.Context, m *Model, in *coinInput, deadline time.Time, opts Options) *Solution {
	nan := math.NaN()
	var sol *Solution
	var firstRun time.Duration
	if in.ray {
		// As for CLP (see solveCLP), decide feasibility only.
		sol = &Solution{Status: Unbounded, Objective: nan, Bound: nan}
	} else {
		started := time.Now()
		sol = solveCBC(ctx, m, in, deadline, opts, cbcDefault)
		firstRun = time.Since(started)
	}
	if sol.Status == Infeasible || sol.Status == Failed {
		var final bool
		if sol, final = recheckInfeasible(ctx, m, in, deadline, opts, sol); final {
			return sol
		}
	}
	if sol.Status == Unbounded {
		sol = confirmUnbounded(ctx, m, in, deadline, opts, sol)
	}
	if (sol.Status == Optimal || sol.Status == Feasible) && Verify(m, sol, VerifyTol) != nil {
		// CBC's incumbent violates the model beyond tolerance.
		sol = &Solution{Status: Failed, Objective: nan, Bound: nan}
	}
	if sol.Status == Optimal && opts.MIPGap == 0 {
		sol = secondOpinion(ctx, m, in, deadline, opts, sol, firstRun)
	}
	return sol
}

// recheckInfeasible re-derives CBC's "infeasible" (or its stop without any
// verdict or incumbent, Failed) from the LP relaxation, solved with CLP:
// an infeasible relaxation confirms it, an unbounded one makes the answer
// Unbounded (for confirmUnbounded), and a feasible one asks CBC again with
// its preprocessing on, taking a verified solution (or, after Failed, an
// Infeasible). Failed is how the process-wide state of CBC's driver showed
// when solves ran concurrently (an infeasible feasibility-only MIP came
// back Failed, see cbcMutex and TestCoinConcurrentFeasibility). final
// reports that the relaxation's own answer (a limit or failure) is the
// result.
func recheckInfeasible(ctx context.Context, m *Model, in *coinInput, deadline time.Time, opts Options, sol *Solution) (_ *Solution, final bool) {
	nan := math.NaN()
	failed := sol.Status == Failed
	relaxed := *m
	relaxed.Vars = append([]Var(nil), m.Vars...)
	for j := range relaxed.Vars {
		relaxed.Vars[j].Integer = false
	}
	switch relax := solveCLP(&relaxed, in, deadline); relax.Status {
	case Unbounded:
		return &Solution{Status: Unbounded, Objective: nan, Bound: nan}, false
	case Infeasible:
		return &Solution{Status: Infeasible, Objective: nan, Bound: nan}, false
	case Optimal:
		run := cbcDefault
		run.preprocess = true
		alt := solveCBC(ctx, m, in, deadline, opts, run)
		switch {
		case (alt.Status == Optimal || alt.Status == Feasible) && Verify(m, alt, VerifyTol) == nil:
			return alt, false
		case failed && alt.Status == Infeasible:
			return alt, false
		}
		return sol, false
	default:
		return relax, true
	}
}

// confirmUnbounded decides whether an unbounded MIP has an integer point by
// a zero-objective CBC solve: Infeasible when it proves none, TimeLimit
// when undecided, else sol stands. CBC without preprocessing can stall on
// this question when integer columns are free, with preprocessing it
// sometimes answers at once: a point found with it (verified) settles the
// question, anything else goes to the run without it.
func confirmUnbounded(ctx context.Context, m *Model, in *coinInput, deadline time.Time, opts Options, sol *Solution) *Solution {
	run := cbcDefault
	run.zeroObjective, run.preprocess = true, true
	first := time.Now().Add(feasibilityFirstTry)
	if !deadline.IsZero() {
		first = time.Now().Add(time.Until(deadline) / 2)
	}
	feas := solveCBC(ctx, m, in, first, opts, run)
	if (feas.Status != Optimal && feas.Status != Feasible) || Verify(m, feas, VerifyTol) != nil {
		run.preprocess = false
		feas = solveCBC(ctx, m, in, deadline, opts, run)
	}
	switch feas.Status {
	case Infeasible:
		return feas
	case Optimal, Feasible:
		return sol
	}
	return limitSolution("")
}

// secondOpinion runs CBC with preprocessing on, looking only for strictly
// better solutions than the optimum sol, and takes a verified better one.
// Each configuration alone returned a wrong optimum on about 1 in 6,000
// random small MIPs; they were never wrong on the same one. The second
// opinion may not stretch a quick solve to the whole budget: it gets twice
// the first run's time (plus a little); if it runs out of time the first
// answer stands.
func secondOpinion(ctx context.Context, m *Model, in *coinInput, deadline time.Time, opts Options, sol *Solution, firstRun time.Duration) *Solution {
	cbcObj := 0.0
	for k, j := range in.cols {
		cbcObj += float64(in.obj[k]) * sol.X[j]
	}
	run := cbcDefault
	run.preprocess = true
	run.cutoff = cbcObj - improveTol*max(1, math.Abs(cbcObj))
	second := time.Now().Add(2*firstRun + secondOpinionSlack)
	if !deadline.IsZero() && deadline.Before(second) {
		second = deadline
	}
	alt := solveCBC(ctx, m, in, second, opts, run)
	sense := 1.0
	if m.Maximize {
		sense = -1
	}
	if (alt.Status == Optimal || alt.Status == Feasible) && sense*(alt.Objective-sol.Objective) < 0 && Verify(m, alt, VerifyTol) == nil {
		return alt
	}
	return sol
}

// secondOpinionSlack is added to twice the first CBC run's duration to cap
// the second-opinion run (so tiny models still get a real second look).
const secondOpinionSlack = 100 * time.Millisecond

// feasibilityFirstTry caps the first (preprocessed) feasibility run of an
// unbounded MIP when the solve has no deadline; with one, it gets half.
const feasibilityFirstTry = 2 * time.Second

// improveTol is the relative improvement the second-opinion CBC run must
// find over the first optimum (smaller differences are within CBC's own
// tolerances).
const improveTol = 1e-6

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

// cbcRun selects how solveCBC runs CBC.
type cbcRun struct {
	// zeroObjective: feasibility only (decides whether a MIP with an
	// unbounded relaxation has an integer point).
	zeroObjective bool
	// preprocess switches CBC's own preprocessing on (see solveMIP).
	preprocess bool
	// cutoff, when not NaN, makes CBC look only for solutions with a
	// minimisation-sense objective (without offset) below it.
	cutoff float64
}

var cbcDefault = cbcRun{cutoff: math.NaN()}

// cbcResultHook, when set (by tests only), replaces each solveCBC result:
// it is how the tests reproduce CBC answers that the checks in solveMIP
// exist for but that a sequential CBC run does not give on demand.
var cbcResultHook func(run cbcRun, sol *Solution) *Solution

// solveCBC runs CBC on m as run selects and translates its answer (x mapped
// back to model columns, integers rounded, objective recomputed in Go).
func solveCBC(ctx context.Context, m *Model, in *coinInput, deadline time.Time, opts Options, run cbcRun) *Solution {
	sol := runCBC(ctx, m, in, deadline, opts, run)
	if cbcResultHook != nil {
		sol = cbcResultHook(run, sol)
	}
	return sol
}

// runCBC runs CBC once (see solveCBC).
func runCBC(ctx context.Context, m *Model, in *coinInput, deadline time.Time, opts Options, run cbcRun) *Solution {
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
	if run.zeroObjective {
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
	if !run.preprocess {
		setParam(model, "preprocess", "off")
	}
	if !math.IsNaN(run.cutoff) {
		C.Cbc_setCutoff(model, C.double(run.cutoff))
	}
	C.cbcSolve(model)

	sense := 1.0
	if m.Maximize {
		sense = -1
	}
	nan := math.NaN()
	var x []float64
	if p := C.Cbc_bestSolution(model); p != nil {
		x = in.expandX(fromC(p, in.nCols))
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

// clpInitialSolve is Clp_initialSolve (presolve, then the simplex CLP
// picks, with CLP's default options) with CLP's interrupt handling off.
//
// Solves never touch the process's signal handlers. CLP's initialSolve
// otherwise points SIGINT at its own handler (which stops the model a
// static pointer names) and puts the previous one back when it returns: a
// SIGINT during a solve never reaches Go, and overlapping solves on two
// threads restore each other's handler, so CLP's, pointing at a freed
// model, could stay installed for good and `xflex serve` ignored Ctrl-C.
// ClpSolve special option 2 ("interrupt handling: 0 yes, 1 no (for
// threadsafe)", ClpSolve.hpp) skips both the handler and the pointer.
// This and cbcSolve (coin_cbc.cpp, for the CLP inside CBC) are the only
// ways into initialSolve; Clp_dual and Clp_primal install nothing.
// TestCoinLeavesSignalHandlers checks every entry point.
func clpInitialSolve(model unsafe.Pointer) {
	opts := C.ClpSolve_new()
	defer C.ClpSolve_delete(opts)
	C.ClpSolve_setSpecialOption(opts, 2, 1, -1)
	C.Clp_initialSolveWithOptions(model, opts)
}
