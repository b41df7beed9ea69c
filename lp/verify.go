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
	if len(s.X) != len(m.Vars) {
		return fmt.Errorf("lp: verify: %d values for %d columns", len(s.X), len(m.Vars))
	}
	viol := func(v, lo, up float64, scale float64) bool {
		return v < lo-tol*(scale+math.Abs(lo)) || v > up+tol*(scale+math.Abs(up))
	}
	for j, v := range m.Vars {
		x := s.X[j]
		if math.IsNaN(x) || viol(x, v.Lower, v.Upper, 1) {
			return fmt.Errorf("lp: verify: column %d (%s) = %g outside [%g, %g]", j, v.Name, x, v.Lower, v.Upper)
		}
		if v.Integer && math.Abs(x-math.Round(x)) > tol {
			return fmt.Errorf("lp: verify: integer column %d (%s) = %g", j, v.Name, x)
		}
	}
	act := make([]float64, len(m.Rows))
	for i, r := range m.Rows {
		scale := 1.0
		for k, j := range r.Index {
			act[i] += r.Coef[k] * s.X[j]
			scale += math.Abs(r.Coef[k] * s.X[j])
		}
		if viol(act[i], r.Lower, r.Upper, scale) {
			return fmt.Errorf("lp: verify: row %d (%s) activity %g outside [%g, %g]", i, r.Name, act[i], r.Lower, r.Upper)
		}
	}
	if obj := objective(m, s.X); math.Abs(obj-s.Objective) > tol*(1+math.Abs(obj)) {
		return fmt.Errorf("lp: verify: objective %g but c·x gives %g", s.Objective, obj)
	}
	if s.Status != Optimal || m.IsMIP() || s.RowDuals == nil {
		return nil
	}
	if len(s.RowDuals) != len(m.Rows) || len(s.ReducedCosts) != len(m.Vars) {
		return fmt.Errorf("lp: verify: %d duals and %d reduced costs for %d rows and %d columns",
			len(s.RowDuals), len(s.ReducedCosts), len(m.Rows), len(m.Vars))
	}
	sense := 1.0
	if m.Maximize {
		sense = -1
	}
	rc := make([]float64, len(m.Vars))
	for j, v := range m.Vars {
		rc[j] = v.Cost
	}
	for i, r := range m.Rows {
		for k, j := range r.Index {
			rc[j] -= r.Coef[k] * s.RowDuals[i]
		}
	}
	dualObj, scale := 0.0, 1.0
	for j, v := range m.Vars {
		scale += math.Abs(v.Cost * s.X[j])
	}
	for j := range rc {
		if math.Abs(rc[j]-s.ReducedCosts[j]) > tol*(1+math.Abs(rc[j])) {
			return fmt.Errorf("lp: verify: reduced cost of column %d is %g, c−Aᵀy gives %g", j, s.ReducedCosts[j], rc[j])
		}
	}
	check := func(kind string, idx int, dual, val, lo, up float64) error {
		d := sense * dual
		near := func(b float64) bool { return math.Abs(val-b) <= tol*(1+math.Abs(b)) }
		switch {
		case d > tol:
			if !near(lo) {
				return fmt.Errorf("lp: verify: %s %d has dual %g but %g is not at its lower bound %g", kind, idx, dual, val, lo)
			}
			dualObj += d * lo
			scale += math.Abs(d * lo)
		case d < -tol:
			if !near(up) {
				return fmt.Errorf("lp: verify: %s %d has dual %g but %g is not at its upper bound %g", kind, idx, dual, val, up)
			}
			dualObj += d * up
			scale += math.Abs(d * up)
		default:
			dualObj += d * val
			scale += math.Abs(d * val)
		}
		return nil
	}
	for i, r := range m.Rows {
		if err := check("row", i, s.RowDuals[i], act[i], r.Lower, r.Upper); err != nil {
			return err
		}
	}
	for j, v := range m.Vars {
		if err := check("column", j, s.ReducedCosts[j], s.X[j], v.Lower, v.Upper); err != nil {
			return err
		}
	}
	if primal := sense * (s.Objective - m.ObjOffset); math.Abs(dualObj-primal) > tol*scale {
		return fmt.Errorf("lp: verify: dual objective %g differs from primal %g", dualObj, primal)
	}
	return nil
}
