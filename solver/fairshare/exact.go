package fairshare

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/xflex/xflex/lp"
)

// The divisible problems (eq. 1 constraints with real x) are solved on
// coalesced server groups: column (n, g) is the number of n's tasks on the
// copies of group g, whose pooled capacity is count_g·c_g. Any feasible
// pooled allocation splits evenly into a feasible per-copy one with the
// same criteria, so group solutions are exact.

// col is one LP column: framework n on group g.
type col struct {
	n, g int
}

// model is the shared LP skeleton of the divisible problems.
type model struct {
	in   *instance
	cols []col
	// byFw[n] lists n's column indices.
	byFw [][]int
	// coef[k] is the criterion coefficient of column k: U_n = Σ coef·x.
	coef []float64
	// vcoef[k] is coef without 1/φ (the argument of g_α in eq. 8).
	vcoef []float64
	// inert[n]: n can get nothing (no usable server or a zero cap).
	inert []bool
}

// criterionCoef returns u_{n,g}/φ_n for the criterion (eq. 2): tasks 1,
// drf max_r d/Σc (eq. 3), psdsf Σ_i max_r d/c_i (eq. 4 summed over the
// servers n may use), generic the request's utility.
func (in *instance) criterionCoef(crit string, n, j int) float64 {
	f := &in.fws[n]
	switch crit {
	case CriterionDRF:
		dom := 0.0
		for r, d := range f.d {
			if d > 0 {
				dom = math.Max(dom, d/in.total[r])
			}
		}
		return dom / f.phi
	case CriterionPSDSF:
		s := 0.0
		for k, sv := range in.servers {
			if !in.usable(n, k) {
				continue
			}
			m := 0.0
			for r, d := range f.d {
				if d > 0 {
					m = math.Max(m, d/sv.cap[r])
				}
			}
			s += float64(sv.count) * m
		}
		return s / f.phi
	case CriterionGeneric:
		return f.util[j] / f.phi
	default:
		return 1 / f.phi
	}
}

func newModel(in *instance, crit string) *model {
	m := &model{in: in, byFw: make([][]int, len(in.fws)), inert: make([]bool, len(in.fws))}
	psdsf := make([]float64, len(in.fws))
	if crit == CriterionPSDSF || crit == CriterionDRF {
		for n := range in.fws {
			psdsf[n] = in.criterionCoef(crit, n, 0)
		}
	}
	for n := range in.fws {
		f := &in.fws[n]
		if f.cap <= 0 {
			m.inert[n] = true
			continue
		}
		for g, gr := range in.groups {
			j := gr.members[0]
			if !in.usable(n, j) {
				continue
			}
			c := psdsf[n]
			if crit != CriterionPSDSF && crit != CriterionDRF {
				c = in.criterionCoef(crit, n, j)
			}
			m.byFw[n] = append(m.byFw[n], len(m.cols))
			m.cols = append(m.cols, col{n, g})
			m.coef = append(m.coef, c)
			m.vcoef = append(m.vcoef, c*f.phi)
		}
		if len(m.byFw[n]) == 0 {
			m.inert[n] = true
		}
	}
	return m
}

// base builds an LP with the x columns, capacity rows (one per group and
// resource some column uses) and task-cap rows. It returns the model and
// the indices of the capacity rows (with their (g, r)) and cap rows.
func (m *model) base() (*lp.Model, []capRow, []int) {
	in := m.in
	R := len(in.resources)
	lm := lp.NewModel()
	for _, c := range m.cols {
		lm.AddVar("", 0, lp.Inf, 0, false)
		_ = c
	}
	// Capacity rows: Σ_n d_{n,r} x_{n,g} ≤ count_g·c_{g,r}.
	idx := make([][]int, len(in.groups)*R)
	val := make([][]float64, len(in.groups)*R)
	for k, c := range m.cols {
		for r, d := range in.fws[c.n].d {
			if d > 0 {
				q := c.g*R + r
				idx[q] = append(idx[q], k)
				val[q] = append(val[q], d)
			}
		}
	}
	var caps []capRow
	for q := range idx {
		if len(idx[q]) == 0 {
			continue
		}
		g, r := q/R, q%R
		C := float64(in.groups[g].count) * in.groups[g].cap[r]
		row := lm.AddRow("", idx[q], val[q], -lp.Inf, C)
		caps = append(caps, capRow{row: row, g: g, r: r, C: C})
	}
	taskRows := make([]int, len(in.fws))
	for n := range in.fws {
		taskRows[n] = -1
		f := &in.fws[n]
		if m.inert[n] || math.IsInf(f.cap, 1) {
			continue
		}
		ones := make([]float64, len(m.byFw[n]))
		for k := range ones {
			ones[k] = 1
		}
		taskRows[n] = lm.AddRow("", m.byFw[n], ones, -lp.Inf, f.cap)
	}
	return lm, caps, taskRows
}

type capRow struct {
	row  int
	g, r int
	C    float64
}

// repair scales each group's columns down so every capacity and cap row
// holds exactly: LP solutions are feasible only to the backend's tolerance
// (≈1e-9 relative), and results must be feasible as reported.
func (m *model) repair(x []float64) {
	in := m.in
	R := len(in.resources)
	use := make([]float64, len(in.groups)*R)
	for k, c := range m.cols {
		if x[k] < 0 {
			x[k] = 0
		}
		for r, d := range in.fws[c.n].d {
			use[c.g*R+r] += d * x[k]
		}
	}
	scale := make([]float64, len(in.groups))
	for g := range in.groups {
		scale[g] = 1
		for r := 0; r < R; r++ {
			C := float64(in.groups[g].count) * in.groups[g].cap[r]
			if u := use[g*R+r]; u > C {
				scale[g] = math.Min(scale[g], C/u)
			}
		}
	}
	for k, c := range m.cols {
		x[k] *= scale[c.g]
	}
	for n, ks := range m.byFw {
		t := 0.0
		for _, k := range ks {
			t += x[k]
		}
		if cp := in.fws[n].cap; t > cp {
			for _, k := range ks {
				x[k] *= cp / t
			}
		}
	}
}

// shares returns U_n for every framework under column values x.
func (m *model) shares(x []float64) []float64 {
	u := make([]float64, len(m.in.fws))
	for k, c := range m.cols {
		u[c.n] += m.coef[k] * x[k]
	}
	return u
}

func solveLP(ctx context.Context, lm *lp.Model, backend string) (*lp.Solution, error) {
	sol, err := lp.Solve(ctx, lm, lp.Options{Backend: backend})
	if err != nil {
		return nil, fmt.Errorf("fairshare: lp: %w", err)
	}
	switch sol.Status {
	case lp.Optimal:
		return sol, nil
	case lp.TimeLimit, lp.Feasible:
		return nil, errBudget
	default:
		return nil, fmt.Errorf("fairshare: lp returned %s on a model that is feasible by construction", sol.Status)
	}
}

// errBudget reports that the budget ran out inside an LP.
var errBudget = errors.New("fairshare: budget exhausted")

// exactResult is a divisible optimum on groups.
type exactResult struct {
	x         []float64 // per column
	objective float64
	bound     float64
	lps       int
	levels    int
	backend   string
	timeout   bool
}

// dualTol: a level row whose dual exceeds this is binding in the LP's
// optimal dual, which proves (Goldman–Tucker) that its framework cannot
// exceed the level: duals sum to 1 over the level rows, so true positives
// are ≥ 1/N ≫ 1e-9, while backends report degenerate zeros as |y| ≲ 1e-12.
const dualTol = 1e-9

// levelSlack relaxes a frozen framework's level row by this relative
// amount, so that round-off in the level (≈1e-9 from the LP tolerance) can
// never make the next LP infeasible.
const levelSlack = 1e-9

// solveMMF computes the U-max-min fair allocation (Definition 1) by
// water-filling: maximise the common level λ of the unfrozen frameworks
// subject to the frozen ones keeping their levels; every unfrozen framework
// whose level row has a positive dual is saturated (it cannot exceed λ in
// any solution that keeps the others at λ) and is frozen at λ. Each round
// freezes at least one framework (the level duals sum to 1), so at most N
// LPs are solved; frameworks whose duals vanish by degeneracy while they
// are in fact saturated are frozen in a later round at the same λ.
func solveMMF(ctx context.Context, m *model, backend string) (*exactResult, error) {
	N := len(m.in.fws)
	level := make([]float64, N)
	frozen := make([]bool, N)
	active := 0
	for n := range frozen {
		if m.inert[n] {
			frozen[n] = true
		} else {
			active++
		}
	}
	// Scale the criterion so levels are O(1) for the LP's absolute
	// tolerances: S is the geometric mean of each framework's best level
	// when alone.
	S := m.scale()
	res := &exactResult{x: make([]float64, len(m.cols))}
	var lastLevel float64
	for active > 0 {
		lm, _, _ := m.base()
		lam := lm.AddVar("lambda", 0, lp.Inf, 1, false)
		lm.Maximize = true
		rowOf := make([]int, N)
		for n := range rowOf {
			rowOf[n] = -1
			if m.inert[n] {
				continue
			}
			idx := append([]int(nil), m.byFw[n]...)
			val := make([]float64, len(idx))
			for k, j := range idx {
				val[k] = m.coef[j] / S
			}
			if frozen[n] {
				lm.AddRow("", idx, val, level[n]/S*(1-levelSlack), lp.Inf)
				continue
			}
			idx = append(idx, lam)
			val = append(val, -1)
			rowOf[n] = lm.AddRow("", idx, val, 0, lp.Inf)
		}
		sol, err := solveLP(ctx, lm, backend)
		res.lps++
		if err != nil {
			if errors.Is(err, errBudget) {
				res.timeout = true
				break
			}
			return nil, err
		}
		res.backend = sol.Backend
		copy(res.x, sol.X[:len(m.cols)])
		L := sol.X[lam] * S
		if res.levels == 0 || !tied(L, lastLevel) {
			res.levels++
		}
		lastLevel = L
		best, bestDual := -1, 0.0
		froze := 0
		for n := range frozen {
			if frozen[n] {
				continue
			}
			y := math.Abs(sol.RowDuals[rowOf[n]])
			if y > bestDual {
				best, bestDual = n, y
			}
			if y > dualTol {
				frozen[n], level[n] = true, L
				froze++
			}
		}
		if froze == 0 {
			// Numerically every dual vanished; the largest is still the
			// binding one.
			if best < 0 {
				for n := range frozen {
					if !frozen[n] {
						best = n
						break
					}
				}
			}
			frozen[best], level[best] = true, L
			froze = 1
		}
		active -= froze
	}
	m.repair(res.x)
	u := m.shares(res.x)
	res.objective = math.Inf(1)
	for n := range u {
		if !m.inert[n] {
			res.objective = math.Min(res.objective, u[n])
		}
	}
	if math.IsInf(res.objective, 1) {
		res.objective = 0
	}
	res.bound = res.objective
	return res, nil
}

// scale is the geometric mean of the frameworks' best criterion value when
// alone (capacity only), a unit that keeps LP levels near 1.
func (m *model) scale() float64 {
	in := m.in
	s, k := 0.0, 0
	for n, ks := range m.byFw {
		best := 0.0
		for _, j := range ks {
			c := m.cols[j]
			g := &in.groups[c.g]
			t := math.Inf(1)
			for r, d := range in.fws[n].d {
				if d > 0 {
					t = math.Min(t, float64(g.count)*g.cap[r]/d)
				}
			}
			best += m.coef[j] * t
		}
		if best > 0 && !math.IsInf(best, 0) {
			s += math.Log(best)
			k++
		}
	}
	if k == 0 {
		return 1
	}
	return math.Exp(s / float64(k))
}

// solveEfficiency maximises eq. 10, Σ_n φ_n x_n.
func solveEfficiency(ctx context.Context, m *model, backend string) (*exactResult, error) {
	lm, _, _ := m.base()
	lm.Maximize = true
	for k, c := range m.cols {
		lm.Vars[k].Cost = m.in.fws[c.n].phi
	}
	sol, err := solveLP(ctx, lm, backend)
	if err != nil {
		if errors.Is(err, errBudget) {
			return &exactResult{x: make([]float64, len(m.cols)), timeout: true, lps: 1}, nil
		}
		return nil, err
	}
	res := &exactResult{x: append([]float64(nil), sol.X[:len(m.cols)]...), lps: 1, backend: sol.Backend}
	m.repair(res.x)
	for k, c := range m.cols {
		res.objective += m.in.fws[c.n].phi * res.x[k]
	}
	res.bound = math.Max(sol.Objective, res.objective)
	return res, nil
}
