package lp

import (
	"fmt"
	"math"
)

// VerifyTol is the default tolerance of Verify: violations are measured
// relative to 1 + the magnitude of the quantities involved. It is looser
// than the engines' own tolerances (1e-7 in CLP, 1e-9 natively) because
// those apply to scaled problems and to the final basis, not to every
// recomputed activity.
const VerifyTol = 1e-6

// Verify checks a solution against its model independently of the backend
// that produced it. For Optimal and Feasible it checks that X has one value
// per column, satisfies column bounds, row bounds and integrality within
// tol. For an Optimal LP that carries duals it also checks that
// ReducedCosts = c − Aᵀ·RowDuals, the sign conditions of the package's dual
// convention (for a minimisation a positive dual only on a row or column at
// its lower bound, a negative one only at its upper bound; mirrored for a
// maximisation), and strong duality: the dual objective equals Objective.
// Other statuses are not checked. The returned error names the first
// violation.
//
// Limitation: duals and reduced costs within ±tol count as zero and are not
// sign-checked, so Verify cannot tell an optimum from a non-optimal basis
// when the true duals are themselves that small (rows whose activity is
// ~1e6 times the objective). Models must be scaled so that duals are
// well above tol: an MMF LP with levels near 1e-3 and capacities near 1e6
// passed Verify 7% below its optimum (solver/fairshare, TestMMFManyFrameworks).
func Verify(m *Model, s *Solution, tol float64) error {
	if s.Status != Optimal && s.Status != Feasible {
		return nil
	}
	act, err := verifyPrimal(m, s, tol)
	if err != nil {
		return err
	}
	if s.Status != Optimal || m.IsMIP() || s.RowDuals == nil {
		return nil
	}
	return verifyDuals(m, s, tol, act)
}

// outside reports whether v lies outside [lo, up] by more than tol
// relative to scale plus the bound's magnitude.
func outside(v, lo, up, scale, tol float64) bool {
	return v < lo-tol*(scale+math.Abs(lo)) || v > up+tol*(scale+math.Abs(up))
}

// verifyPrimal checks the columns' bounds and integrality, the rows'
// bounds and the objective; it returns the rows' activities.
func verifyPrimal(m *Model, s *Solution, tol float64) ([]float64, error) {
	if len(s.X) != len(m.Vars) {
		return nil, fmt.Errorf("lp: verify: %d values for %d columns", len(s.X), len(m.Vars))
	}
	for j, v := range m.Vars {
		x := s.X[j]
		if math.IsNaN(x) || outside(x, v.Lower, v.Upper, 1, tol) {
			return nil, fmt.Errorf("lp: verify: column %d (%s) = %g outside [%g, %g]", j, v.Name, x, v.Lower, v.Upper)
		}
		if v.Integer && math.Abs(x-math.Round(x)) > tol {
			return nil, fmt.Errorf("lp: verify: integer column %d (%s) = %g", j, v.Name, x)
		}
	}
	act := make([]float64, len(m.Rows))
	for i, r := range m.Rows {
		scale := 1.0
		for k, j := range r.Index {
			act[i] += r.Coef[k] * s.X[j]
			scale += math.Abs(r.Coef[k] * s.X[j])
		}
		if outside(act[i], r.Lower, r.Upper, scale, tol) {
			return nil, fmt.Errorf("lp: verify: row %d (%s) activity %g outside [%g, %g]", i, r.Name, act[i], r.Lower, r.Upper)
		}
	}
	if obj := objective(m, s.X); math.Abs(obj-s.Objective) > tol*(1+math.Abs(obj)) {
		return nil, fmt.Errorf("lp: verify: objective %g but c·x gives %g", s.Objective, obj)
	}
	return act, nil
}

// verifyDuals checks an optimal LP's duals: the reduced costs, the sign
// conditions and strong duality.
func verifyDuals(m *Model, s *Solution, tol float64, act []float64) error {
	if len(s.RowDuals) != len(m.Rows) || len(s.ReducedCosts) != len(m.Vars) {
		return fmt.Errorf("lp: verify: %d duals and %d reduced costs for %d rows and %d columns",
			len(s.RowDuals), len(s.ReducedCosts), len(m.Rows), len(m.Vars))
	}
	if err := verifyReducedCosts(m, s, tol); err != nil {
		return err
	}
	dc := &dualCheck{tol: tol, sense: 1, scale: 1}
	if m.Maximize {
		dc.sense = -1
	}
	for j, v := range m.Vars {
		dc.scale += math.Abs(v.Cost * s.X[j])
	}
	for i, r := range m.Rows {
		if err := dc.check("row", i, s.RowDuals[i], act[i], r.Lower, r.Upper); err != nil {
			return err
		}
	}
	for j, v := range m.Vars {
		if err := dc.check("column", j, s.ReducedCosts[j], s.X[j], v.Lower, v.Upper); err != nil {
			return err
		}
	}
	if primal := dc.sense * (s.Objective - m.ObjOffset); math.Abs(dc.dualObj-primal) > tol*dc.scale {
		return fmt.Errorf("lp: verify: dual objective %g differs from primal %g", dc.dualObj, primal)
	}
	return nil
}

// verifyReducedCosts checks ReducedCosts = c − Aᵀ·RowDuals.
func verifyReducedCosts(m *Model, s *Solution, tol float64) error {
	rc := make([]float64, len(m.Vars))
	for j, v := range m.Vars {
		rc[j] = v.Cost
	}
	for i, r := range m.Rows {
		for k, j := range r.Index {
			rc[j] -= r.Coef[k] * s.RowDuals[i]
		}
	}
	for j := range rc {
		if math.Abs(rc[j]-s.ReducedCosts[j]) > tol*(1+math.Abs(rc[j])) {
			return fmt.Errorf("lp: verify: reduced cost of column %d is %g, c−Aᵀy gives %g", j, s.ReducedCosts[j], rc[j])
		}
	}
	return nil
}

// dualCheck checks the duals' signs one row or column at a time and sums
// the dual objective (and its scale, for the strong-duality tolerance).
type dualCheck struct {
	tol, sense     float64
	dualObj, scale float64
}

// check checks the dual of a row or column with value val in [lo, up]: a
// positive (sense-adjusted) dual only at the lower bound, a negative one
// only at the upper bound.
func (dc *dualCheck) check(kind string, idx int, dual, val, lo, up float64) error {
	d := dc.sense * dual
	near := func(b float64) bool { return math.Abs(val-b) <= dc.tol*(1+math.Abs(b)) }
	switch {
	case d > dc.tol:
		if !near(lo) {
			return fmt.Errorf("lp: verify: %s %d has dual %g but %g is not at its lower bound %g", kind, idx, dual, val, lo)
		}
		dc.add(d * lo)
	case d < -dc.tol:
		if !near(up) {
			return fmt.Errorf("lp: verify: %s %d has dual %g but %g is not at its upper bound %g", kind, idx, dual, val, up)
		}
		dc.add(d * up)
	default:
		dc.add(d * val)
	}
	return nil
}

func (dc *dualCheck) add(term float64) {
	dc.dualObj += term
	dc.scale += math.Abs(term)
}
