//go:build cgo

package lp

/*
#cgo pkg-config: clp
#include <stdlib.h>
#include <Clp_C_Interface.h>
*/
import "C"

import (
	"context"
	"time"
	"unsafe"
)

// warmCoin keeps one CLP model (and so its basis) between solves. The
// model is loaded whole (no reduction of empty rows or columns, unlike a
// cold coin solve): CLP's verdicts are verified anyway, and a failure is
// answered by a cold Solve.
type warmCoin struct {
	model unsafe.Pointer // Clp_Simplex; nil: load the whole model at the next solve
	nCols int            // columns CLP has
	nRows int
}

func newWarmCoin() warmEngine { return &warmCoin{} }

func (w *warmCoin) close() {
	if w.model != nil {
		C.Clp_deleteModel(w.model)
		w.model = nil
	}
}

// minSense is +1 for minimisation, −1 for maximisation: CLP always gets a
// minimisation (see solveCLP for why).
func minSense(m *Model) float64 {
	if m.Maximize {
		return -1
	}
	return 1
}

func (w *warmCoin) load(m *Model) {
	a := buildCSC(m)
	s := minSense(m)
	n, rows := len(m.Vars), len(m.Rows)
	start := make([]C.CoinBigIndex, 0, n+1)
	index := make([]C.int, 0, len(a.index)+1)
	value := make([]C.double, 0, len(a.value)+1)
	colLo := make([]C.double, 0, n+1)
	colUp := make([]C.double, 0, n+1)
	obj := make([]C.double, 0, n+1)
	for j, v := range m.Vars {
		start = append(start, C.CoinBigIndex(a.start[j]))
		colLo = append(colLo, toCoin(v.Lower))
		colUp = append(colUp, toCoin(v.Upper))
		obj = append(obj, C.double(s*v.Cost))
	}
	start = append(start, C.CoinBigIndex(a.start[n]))
	for k := range a.index {
		index = append(index, C.int(a.index[k]))
		value = append(value, C.double(a.value[k]))
	}
	rowLo := make([]C.double, 0, rows+1)
	rowUp := make([]C.double, 0, rows+1)
	for _, r := range m.Rows {
		rowLo = append(rowLo, toCoin(r.Lower))
		rowUp = append(rowUp, toCoin(r.Upper))
	}
	// Never hand C a nil pointer (spare slots; the sizes keep CLP off them).
	index, value = append(index, 0), append(value, 0)
	colLo, colUp, obj = append(colLo, 0), append(colUp, 0), append(obj, 0)
	rowLo, rowUp = append(rowLo, 0), append(rowUp, 0)
	w.model = C.Clp_newModel()
	C.Clp_setLogLevel(w.model, 0)
	C.Clp_loadProblem(w.model, C.int(n), C.int(rows), &start[0], &index[0], &value[0],
		&colLo[0], &colUp[0], &obj[0], &rowLo[0], &rowUp[0])
	w.nCols, w.nRows = n, rows
}

func (w *warmCoin) addCols(m *Model, cols []pendingCol) {
	s := minSense(m)
	first := w.nCols
	start := []C.CoinBigIndex{0}
	var index []C.int
	var value []C.double
	var colLo, colUp, obj []C.double
	for k, pc := range cols {
		v := m.Vars[first+k]
		for e, i := range pc.rows {
			index = append(index, C.int(i))
			value = append(value, C.double(pc.coef[e]))
		}
		start = append(start, C.CoinBigIndex(len(index)))
		colLo = append(colLo, toCoin(v.Lower))
		colUp = append(colUp, toCoin(v.Upper))
		obj = append(obj, C.double(s*v.Cost))
	}
	index, value = append(index, 0), append(value, 0)
	colLo, colUp, obj = append(colLo, 0), append(colUp, 0), append(obj, 0)
	C.Clp_addColumns(w.model, C.int(len(cols)), &colLo[0], &colUp[0], &obj[0], &start[0], &index[0], &value[0])
	w.nCols += len(cols)
}

func (w *warmCoin) solve(ctx context.Context, m *Model, cols []pendingCol, opts Options) (*Solution, bool) {
	var deadline time.Time
	if limit, ok := EffectiveLimit(ctx, opts); ok {
		deadline = time.Now().Add(limit)
	}
	secs, ok := secondsUntil(deadline)
	if !ok {
		return nil, false
	}
	first := w.model == nil || w.nRows != len(m.Rows) || w.nCols+len(cols) != len(m.Vars)
	if first {
		w.close()
		w.load(m)
	} else if len(cols) > 0 {
		w.addCols(m, cols)
	}
	if secs > 0 {
		C.Clp_setMaximumSeconds(w.model, C.double(secs))
	}
	if first {
		clpInitialSolve(w.model)
	} else {
		// Primal simplex from the current basis: the new columns are
		// nonbasic at their lower bound, so it stays primal feasible.
		C.Clp_primal(w.model, 0)
	}
	status := int(C.Clp_status(w.model))
	if status == 0 && C.Clp_secondaryStatus(w.model) >= 2 {
		// Optimal only for the scaled problem: polish without scaling.
		C.Clp_scaling(w.model, 0)
		C.Clp_primal(w.model, 0)
		status = int(C.Clp_status(w.model))
	}
	if status != 0 {
		w.close()
		return nil, false
	}
	s := minSense(m)
	n, rows := len(m.Vars), len(m.Rows)
	sol := &Solution{Status: Optimal, Backend: "coin/clp"}
	sol.X = fromC(C.Clp_primalColumnSolution(w.model), n)
	sol.RowDuals = fromC(C.Clp_dualRowSolution(w.model), rows)
	sol.ReducedCosts = fromC(C.Clp_dualColumnSolution(w.model), n)
	for i := range sol.RowDuals {
		sol.RowDuals[i] *= s
	}
	for j := range sol.ReducedCosts {
		sol.ReducedCosts[j] *= s
	}
	sol.Objective = objective(m, sol.X)
	sol.Bound = sol.Objective
	if Verify(m, sol, VerifyTol) != nil {
		w.close()
		return nil, false
	}
	return sol, true
}
