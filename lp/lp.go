// Package lp is xflex's linear and mixed-integer programming layer: a small
// model builder (columns with bounds, cost and integrality; sparse rows with
// lower and upper bounds) and Solve, which hands the model to a backend.
//
// Backends implement Backend. The default is COIN-OR CLP for LPs and CBC for
// MIPs through a thin cgo binding (backend "coin"); a pure-Go backend
// ("native") is used when cgo is off and serves as an independent cross-check
// in tests. Keeping the interface narrow lets a HiGHS backend slot in later.
//
// Conventions: minimisation unless Model.Maximize is set; infinite bounds
// are math.Inf; row duals are reported for LPs with the sign convention
// d(objective)/d(row activity bound), i.e. for a minimisation a binding
// "≥" row has a non-negative dual and a binding "≤" row a non-positive one
// (CLP's convention).
package lp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
)

// Inf is +∞ for bounds.
var Inf = math.Inf(1)

// Var is one column.
type Var struct {
	Name    string
	Lower   float64
	Upper   float64
	Cost    float64
	Integer bool
}

// Row is one sparse constraint Lower ≤ Σ Coef[k]·x[Index[k]] ≤ Upper.
type Row struct {
	Name  string
	Index []int
	Coef  []float64
	Lower float64
	Upper float64
}

// Model is an LP or MIP. The zero value is an empty minimisation.
type Model struct {
	Vars     []Var
	Rows     []Row
	Maximize bool
	// ObjOffset is added to the reported objective.
	ObjOffset float64
}

// NewModel returns an empty minimisation model.
func NewModel() *Model { return &Model{} }

// AddVar adds a column and returns its index.
func (m *Model) AddVar(name string, lower, upper, cost float64, integer bool) int {
	m.Vars = append(m.Vars, Var{Name: name, Lower: lower, Upper: upper, Cost: cost, Integer: integer})
	return len(m.Vars) - 1
}

// AddRow adds a constraint lower ≤ Σ coef·x[idx] ≤ upper and returns its
// index. The slices are copied.
func (m *Model) AddRow(name string, idx []int, coef []float64, lower, upper float64) int {
	r := Row{Name: name, Index: append([]int(nil), idx...), Coef: append([]float64(nil), coef...), Lower: lower, Upper: upper}
	m.Rows = append(m.Rows, r)
	return len(m.Rows) - 1
}

// IsMIP reports whether any column is integer.
func (m *Model) IsMIP() bool {
	for _, v := range m.Vars {
		if v.Integer {
			return true
		}
	}
	return false
}

// MaxCoef bounds the magnitude of costs and constraint coefficients that
// Validate accepts. CLP asserts |cost| < 1e25 when it sets up a solve and
// aborts the whole process otherwise (seen with an α-fair objective at
// α = 50); 1e20 leaves room for its internal scaling, and no model this
// service builds needs more (larger data means the caller should rescale).
const MaxCoef = 1e20

// Validate checks index ranges, NaN coefficients, coefficient magnitudes
// (MaxCoef) and crossed bounds.
func (m *Model) Validate() error {
	for j, v := range m.Vars {
		if math.IsNaN(v.Lower) || math.IsNaN(v.Upper) || math.IsNaN(v.Cost) || math.IsInf(v.Cost, 0) {
			return fmt.Errorf("lp: column %d (%s): NaN or infinite data", j, v.Name)
		}
		if math.Abs(v.Cost) > MaxCoef {
			return fmt.Errorf("lp: column %d (%s): cost %g exceeds %g in magnitude (rescale the model)", j, v.Name, v.Cost, MaxCoef)
		}
	}
	for i, r := range m.Rows {
		if len(r.Index) != len(r.Coef) {
			return fmt.Errorf("lp: row %d (%s): %d indices but %d coefficients", i, r.Name, len(r.Index), len(r.Coef))
		}
		if math.IsNaN(r.Lower) || math.IsNaN(r.Upper) {
			return fmt.Errorf("lp: row %d (%s): NaN bound", i, r.Name)
		}
		for k, j := range r.Index {
			if j < 0 || j >= len(m.Vars) {
				return fmt.Errorf("lp: row %d (%s): column index %d out of range", i, r.Name, j)
			}
			if math.IsNaN(r.Coef[k]) || math.IsInf(r.Coef[k], 0) {
				return fmt.Errorf("lp: row %d (%s): non-finite coefficient", i, r.Name)
			}
			if math.Abs(r.Coef[k]) > MaxCoef {
				return fmt.Errorf("lp: row %d (%s): coefficient %g exceeds %g in magnitude (rescale the model)", i, r.Name, r.Coef[k], MaxCoef)
			}
		}
	}
	return nil
}

// Status is a solve outcome.
type Status int

const (
	// Optimal: proven optimal within the backend's tolerances.
	Optimal Status = iota
	// Infeasible: no point satisfies the constraints.
	Infeasible
	// Unbounded: the objective is unbounded in the optimisation direction.
	Unbounded
	// Feasible: a feasible (integer) solution was found but optimality was
	// not proven, usually because the time limit was hit.
	Feasible
	// TimeLimit: the limit was hit before any feasible solution was found.
	TimeLimit
	// Failed: the backend gave up for numerical or other reasons.
	Failed
)

func (s Status) String() string {
	switch s {
	case Optimal:
		return "optimal"
	case Infeasible:
		return "infeasible"
	case Unbounded:
		return "unbounded"
	case Feasible:
		return "feasible"
	case TimeLimit:
		return "time_limit"
	default:
		return "failed"
	}
}

// Solution is what a backend returns.
type Solution struct {
	Status Status
	// Objective includes Model.ObjOffset; meaningful for Optimal/Feasible.
	Objective float64
	// Bound is the best proven bound on the optimum (MIP best bound; equals
	// Objective for an optimal LP).
	Bound float64
	// X holds column values (len = number of columns) for Optimal/Feasible.
	X []float64
	// RowDuals holds one dual per row for Optimal LPs (nil for MIPs).
	RowDuals []float64
	// ReducedCosts holds one reduced cost per column for Optimal LPs.
	ReducedCosts []float64
	// Backend names the backend that produced it ("coin/clp", "coin/cbc",
	// "native/simplex", ...).
	Backend string
}

// Options tune a solve.
type Options struct {
	// Backend selects "coin", "native", or "" for the default.
	Backend string
	// TimeLimit caps the solve; the effective limit is the smaller of it
	// and the context's remaining deadline. Zero means no extra cap.
	TimeLimit time.Duration
	// MIPGap is the relative gap at which a MIP search may stop (0 means
	// the backend's default of 1e-9-ish, i.e. prove optimality).
	MIPGap float64
	// Threads for CBC (0 or 1 means single-threaded, the deterministic choice).
	Threads int
}

// Backend is one LP/MIP engine.
type Backend interface {
	Name() string
	// Solve solves the model. It must honour ctx cancellation/deadline
	// (at least by passing the remaining time as the engine's limit) and
	// must not retain the model after returning.
	Solve(ctx context.Context, m *Model, opts Options) (*Solution, error)
}

// ErrNoBackend is returned when the requested backend is not compiled in.
var ErrNoBackend = errors.New("lp: backend not available in this build")

// EffectiveLimit combines opts.TimeLimit with the context deadline. ok is
// false when neither sets a limit.
func EffectiveLimit(ctx context.Context, opts Options) (time.Duration, bool) {
	limit, ok := opts.TimeLimit, opts.TimeLimit > 0
	if dl, has := ctx.Deadline(); has {
		rem := time.Until(dl)
		if rem < 0 {
			rem = 0
		}
		if !ok || rem < limit {
			limit, ok = rem, true
		}
	}
	return limit, ok
}
