package lp

import (
	"context"
	"fmt"
	"slices"
)

// Incremental re-solves an LP that grows by columns. Column generation
// solves a sequence of LPs that differ from the previous one by a few
// columns; with the coin backend the CLP model and its optimal basis stay
// alive between solves, new columns enter at their lower bound (so the old
// basis stays primal feasible) and primal simplex continues from there.
// With the native backend, or without cgo, every Solve is a cold Solve of
// the current model, with the same results.
//
// Every answer is checked as a cold Solve's: a warm "optimal" verdict is
// accepted only when Verify confirms it; anything else (another status, a
// failed check) is answered by a cold Solve of the whole model, and the next
// Solve starts a fresh CLP model.
//
// The Incremental owns the model passed to NewIncremental: AddCol appends
// to it, and the caller must not modify it otherwise (reading it, e.g. to
// look up rows or evaluate a solution, is fine). An Incremental is not safe
// for concurrent use. Close releases the CLP model.
type Incremental struct {
	m    *Model
	opts Options
	// warm is the backend's persistent state (nil: cold solves only).
	warm warmEngine
	// pending lists the columns added since the engine last saw the model.
	pending []pendingCol
	err     error
	// warmAnswers counts solves answered by the engine (not cold).
	warmAnswers int
}

// pendingCol is one added column with its merged, row-sorted entries.
type pendingCol struct {
	rows []int
	coef []float64
}

// warmEngine is a backend's re-solve state.
type warmEngine interface {
	// solve brings the engine up to date with m (cols are the columns
	// added since the last call) and re-solves; ok is false when the
	// engine could not produce a verified optimum, and then the engine
	// must be usable again after a later solve (it reloads as needed).
	solve(ctx context.Context, m *Model, cols []pendingCol, opts Options) (sol *Solution, ok bool)
	close()
}

// NewIncremental returns a re-solve handle for the LP m (no integer
// columns) with the backend named by opts.Backend.
func NewIncremental(m *Model, opts Options) (*Incremental, error) {
	if m == nil {
		return nil, fmt.Errorf("lp: nil model")
	}
	if m.IsMIP() {
		return nil, fmt.Errorf("lp: Incremental needs an LP, the model has integer columns")
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	b, err := BackendByName(opts.Backend)
	if err != nil {
		return nil, err
	}
	inc := &Incremental{m: m, opts: opts}
	if b.Name() == BackendCoin {
		inc.warm = newWarmCoin()
	}
	return inc, nil
}

// Model returns the model (owned by the Incremental: read only).
func (inc *Incremental) Model() *Model { return inc.m }

// AddCol adds a continuous column with bounds, cost and entries
// coef[k] in row rows[k] (duplicate rows are summed) and returns its index.
// An out-of-range row or malformed data makes the next Solve return an
// error.
func (inc *Incremental) AddCol(name string, lower, upper, cost float64, rows []int, coef []float64) int {
	j := inc.m.AddVar(name, lower, upper, cost, false)
	if len(rows) != len(coef) {
		inc.setErr(fmt.Errorf("lp: AddCol %d: %d rows but %d coefficients", j, len(rows), len(coef)))
		return j
	}
	type entry struct {
		row int
		val float64
	}
	es := make([]entry, 0, len(rows))
	for k, i := range rows {
		if i < 0 || i >= len(inc.m.Rows) {
			inc.setErr(fmt.Errorf("lp: AddCol %d: row index %d out of range", j, i))
			return j
		}
		es = append(es, entry{i, coef[k]})
	}
	slices.SortStableFunc(es, func(a, b entry) int { return a.row - b.row })
	var pc pendingCol
	for _, e := range es {
		if n := len(pc.rows); n > 0 && pc.rows[n-1] == e.row {
			pc.coef[n-1] += e.val
			continue
		}
		pc.rows = append(pc.rows, e.row)
		pc.coef = append(pc.coef, e.val)
	}
	for k, i := range pc.rows {
		r := &inc.m.Rows[i]
		r.Index = append(r.Index, j)
		r.Coef = append(r.Coef, pc.coef[k])
	}
	inc.pending = append(inc.pending, pc)
	return j
}

func (inc *Incremental) setErr(err error) {
	if inc.err == nil {
		inc.err = err
	}
}

// Solve solves the current model. Its contract is Solve's: an error only
// for an invalid model or a closed handle, everything else in the status.
func (inc *Incremental) Solve(ctx context.Context) (*Solution, error) {
	if inc.err != nil {
		return nil, inc.err
	}
	if inc.m == nil {
		return nil, fmt.Errorf("lp: Incremental used after Close")
	}
	if inc.warm != nil {
		if limit, ok := EffectiveLimit(ctx, inc.opts); !ok || limit > 0 {
			cols := inc.pending
			inc.pending = nil
			if err := inc.m.Validate(); err != nil {
				return nil, err
			}
			if sol, ok := inc.warm.solve(ctx, inc.m, cols, inc.opts); ok {
				inc.warmAnswers++
				countCall(BackendCoin) // the only warm engine (newWarmCoin)
				return sol, nil
			}
		}
		// An expired budget leaves the pending columns for the engine's
		// next solve.
	} else {
		inc.pending = nil
	}
	return Solve(ctx, inc.m, inc.opts)
}

// Reset drops the kept basis: the next Solve solves the whole model from
// scratch (and keeps that basis again). A warm optimum is one optimal
// basis; when the caller needs the dual values a fresh solve would pick
// (e.g. a degenerate LP whose kept duals have stopped being useful), this
// is the cold answer at the cost of one cold solve.
func (inc *Incremental) Reset() {
	if inc.warm != nil {
		inc.warm.close()
	}
}

// Close releases the backend state; the handle cannot solve afterwards.
func (inc *Incremental) Close() {
	if inc.warm != nil {
		inc.warm.close()
		inc.warm = nil
	}
	inc.m = nil
}
