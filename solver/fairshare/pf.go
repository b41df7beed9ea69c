package fairshare

import (
	"context"
	"errors"
	"math"

	"github.com/xflex/xflex/lp"
)

// The weighted α-fair optimum of eq. 8,
//
//	max Σ_n φ_n g_α(V_n),  V_n = Σ_i u_{n,i} x_{n,i}  s.t. (1),
//
// (V_n = x_n for the tasks criterion; g_1 = log) is found by outer
// approximation: each g_α is replaced by the minimum of tangent lines
// (cuts), which over-estimate the concave g_α, so the LP optimum is an upper
// bound and its x a feasible point whose true objective is a lower bound.
// Cuts are added at the LP's V_n (Kelley) and at a shrinking geometric
// neighbourhood of it until the two bounds meet.
//
// The upper bound is certified twice: by the LP value and by weak Lagrangian
// duality with the LP's capacity duals p ≥ 0 and cap duals q ≥ 0,
//
//	D(p, q) = Σ p·C + Σ q·cap + Σ_n sup_{V ≥ 0} [φ_n g_α(V) − π_n V],
//	π_n = min_g (Σ_r p_{g,r} d_{n,r} + q_n) / u_{n,g},
//
// which holds for any p, q ≥ 0 whatever the LP's tolerances; the smaller
// is reported.

// pfGapTarget is where the cutting-plane loop stops: a tenth of the 1e-6
// relative gap the service promises, leaving room for the round-off in
// evaluating Σ φ log V over a thousand terms (≈1e-13 relative).
const pfGapTarget = 1e-7

// pfMaxRounds bounds the cutting-plane rounds; each round at least halves
// the neighbourhood radius, so 60 rounds reach radius 1e-18, below double
// precision; the budget usually stops it long before.
const pfMaxRounds = 60

// gAlpha is g_α of eq. 8 and its derivative.
func gAlpha(alpha, v float64) (float64, float64) {
	if alpha == 1 {
		return math.Log(v), 1 / v
	}
	return math.Pow(v, 1-alpha) / (1 - alpha), math.Pow(v, -alpha)
}

// pfValue is Σ φ_n g_α(V_n) over the non-inert frameworks (-Inf when some
// V_n is 0 and α ≥ 1).
func (m *model) pfValue(alpha float64, x []float64) float64 {
	V := make([]float64, len(m.in.fws))
	for k, c := range m.cols {
		V[c.n] += m.vcoef[k] * x[k]
	}
	s := 0.0
	for n, v := range V {
		if m.inert[n] {
			continue
		}
		if v <= 0 {
			if alpha >= 1 {
				return math.Inf(-1)
			}
			continue
		}
		g, _ := gAlpha(alpha, v)
		s += m.in.fws[n].phi * g
	}
	return s
}

// vmax is the largest V_n framework n can reach alone.
func (m *model) vmax(n int) float64 {
	in := m.in
	best := 0.0
	for _, j := range m.byFw[n] {
		c := m.cols[j]
		g := &in.groups[c.g]
		t := in.fws[n].cap
		for r, d := range in.fws[n].d {
			if d > 0 {
				t = math.Min(t, float64(g.count)*g.cap[r]/d)
			}
		}
		best += m.vcoef[j] * t
	}
	return best
}

func solvePF(ctx context.Context, m *model, alpha float64, backend string) (*exactResult, error) {
	in := m.in
	N := len(in.fws)
	res := &exactResult{x: make([]float64, len(m.cols)), objective: math.Inf(-1), bound: math.Inf(1)}
	lm, caps, taskRows := m.base()
	lm.Maximize = true
	vVar := make([]int, N)
	sVar := make([]int, N)
	vmax := make([]float64, N)
	phiSum := 0.0
	for n := range in.fws {
		vVar[n], sVar[n] = -1, -1
		if m.inert[n] {
			continue
		}
		phiSum += in.fws[n].phi
		vmax[n] = m.vmax(n)
		vVar[n] = lm.AddVar("", 0, lp.Inf, 0, false)
		sVar[n] = lm.AddVar("", -lp.Inf, lp.Inf, in.fws[n].phi, false)
		idx := append([]int(nil), m.byFw[n]...)
		val := make([]float64, len(idx))
		for k, j := range idx {
			val[k] = m.vcoef[j]
		}
		idx = append(idx, vVar[n])
		val = append(val, -1)
		lm.AddRow("", idx, val, 0, 0)
	}
	if phiSum == 0 {
		res.objective, res.bound = 0, 0
		return res, nil
	}
	addCut := func(n int, v float64) {
		if v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return
		}
		g, dg := gAlpha(alpha, v)
		// s_n ≤ g(v) + g'(v)(V_n − v)  ⇔  s_n − g'(v)V_n ≤ g(v) − g'(v)v
		lm.AddRow("", []int{sVar[n], vVar[n]}, []float64{1, -dg}, -lp.Inf, g-dg*v)
	}
	// Initial cuts: a geometric ladder around the share φ_n/Σφ of n's best
	// alone, wide enough (4^±4) to bound every s_n and to cover where the
	// optimum usually lies.
	for n := range in.fws {
		if m.inert[n] {
			continue
		}
		v0 := vmax[n] * in.fws[n].phi / phiSum
		for k := -4; k <= 4; k++ {
			if v := v0 * math.Pow(4, float64(k)); v <= vmax[n] {
				addCut(n, v)
			}
		}
		addCut(n, vmax[n])
	}
	radius := 0.25
	for round := 0; round < pfMaxRounds; round++ {
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
		res.bound = math.Min(res.bound, sol.Objective)
		x := append([]float64(nil), sol.X[:len(m.cols)]...)
		m.repair(x)
		if f := m.pfValue(alpha, x); f > res.objective {
			res.objective = f
			copy(res.x, x)
		}
		if d := m.lagrangeBound(alpha, sol, caps, taskRows); d < res.bound {
			res.bound = d
		}
		if gapOK(res.objective, res.bound, phiSum) {
			break
		}
		// Refine: a cut at each V_n whose model overshoots, and at V_n·(1±radius).
		for n := range in.fws {
			if m.inert[n] {
				continue
			}
			v := sol.X[vVar[n]]
			if v <= 0 {
				v = vmax[n] * 1e-12
			}
			g, _ := gAlpha(alpha, v)
			over := sol.X[sVar[n]] - g
			if over <= pfGapTarget*1e-3*math.Max(1, math.Abs(g)) {
				continue
			}
			addCut(n, v)
			addCut(n, v*(1+radius))
			addCut(n, v/(1+radius))
		}
		radius = math.Max(radius/4, 1e-9)
	}
	return res, nil
}

// gapOK: the relative gap (solver.RelGap) is below target, or the absolute
// gap is below target·Σφ when the objective itself is near zero.
func gapOK(obj, bound, phiSum float64) bool {
	if math.IsInf(obj, 0) || math.IsInf(bound, 0) {
		return false
	}
	d := bound - obj
	den := math.Max(math.Max(math.Abs(obj), math.Abs(bound)), 1e-9)
	return d/den <= pfGapTarget || d <= pfGapTarget*1e-3*phiSum
}

// lagrangeBound evaluates D(p, q) at the LP's capacity and cap duals.
func (m *model) lagrangeBound(alpha float64, sol *lp.Solution, caps []capRow, taskRows []int) float64 {
	in := m.in
	R := len(in.resources)
	if sol.RowDuals == nil {
		return math.Inf(1)
	}
	p := make([]float64, len(in.groups)*R)
	D := 0.0
	for _, c := range caps {
		y := math.Abs(sol.RowDuals[c.row])
		p[c.g*R+c.r] = y
		D += y * c.C
	}
	q := make([]float64, len(in.fws))
	for n, row := range taskRows {
		if row >= 0 {
			q[n] = math.Abs(sol.RowDuals[row])
			D += q[n] * in.fws[n].cap
		}
	}
	for n := range in.fws {
		if m.inert[n] {
			continue
		}
		pi := math.Inf(1)
		for _, k := range m.byFw[n] {
			g := m.cols[k].g
			cost := q[n]
			for r, d := range in.fws[n].d {
				cost += p[g*R+r] * d
			}
			pi = math.Min(pi, cost/m.vcoef[k])
		}
		if !(pi > 0) {
			return math.Inf(1)
		}
		phi := in.fws[n].phi
		v := math.Pow(phi/pi, 1/alpha)
		g, _ := gAlpha(alpha, v)
		D += phi*g - pi*v
	}
	return D
}
