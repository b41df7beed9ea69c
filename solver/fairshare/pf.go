package fairshare

import (
	"context"
	"errors"
	"math"
	"slices"

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
	vmax := make([]float64, N)
	phiSum := 0.0
	for n := range in.fws {
		if !m.inert[n] {
			phiSum += in.fws[n].phi
			vmax[n] = m.vmax(n)
		}
	}
	if phiSum == 0 {
		res.objective, res.bound = 0, 0
		return res, nil
	}
	// Each V_n is measured in units of v0_n = vmax_n·φ_n/Σφ (ν_n = V_n/v0_n)
	// so that every g_α(ν_n) is O(1) where the optimum usually lies: the
	// LP backends' absolute tolerances (≈1e-7) then resolve the objective to
	// ≈1e-7 relative whatever the instance's units. φ_n g_α(V_n) equals
	// w_n g_α(ν_n) (plus φ_n log v0_n when α = 1) with w_n = φ_n v0_n^{1−α}.
	v0 := make([]float64, N)
	w := make([]float64, N)
	offset := 0.0
	cuts := make([][]float64, N) // tangent points ν per framework
	for n := range in.fws {
		if m.inert[n] {
			continue
		}
		phi := in.fws[n].phi
		v0[n] = vmax[n] * phi / phiSum
		w[n] = phi
		if alpha == 1 {
			offset += phi * math.Log(v0[n])
		} else {
			w[n] = phi * math.Pow(v0[n], 1-alpha)
		}
		// Initial cuts: a geometric ladder 4^-4..4^4 around ν = 1, wide
		// enough to bound every s_n and to cover where the optimum usually
		// lies, and one at n's best alone.
		top := vmax[n] / v0[n]
		for k := -4; k <= 4; k++ {
			if v := math.Pow(4, float64(k)); v <= top {
				cuts[n] = append(cuts[n], v)
			}
		}
		cuts[n] = append(cuts[n], top)
	}
	fwCoef := func(k int) float64 { return m.vcoef[k] / v0[m.cols[k].n] }
	radius := 0.25
	for round := 0; round < pfMaxRounds; round++ {
		b := m.build(nil, fwCoef)
		b.lm.ObjOffset = offset
		nuVar := make([]int, N)
		sVar := make([]int, N)
		for n := range in.fws {
			if m.inert[n] {
				continue
			}
			// s_n is bounded below by the cut envelope's value at ν = 0:
			// every tangent has positive slope, so the envelope never
			// drops below it and the bound cuts nothing off, while
			// keeping every column bounded (friendlier to the simplex).
			cuts[n] = dedupe(cuts[n])
			lo := math.Inf(1)
			for _, v := range cuts[n] {
				g, dg := gAlpha(alpha, v)
				lo = math.Min(lo, g-dg*v)
			}
			nuVar[n] = b.lm.AddVar("", 0, lp.Inf, 0, false)
			sVar[n] = b.lm.AddVar("", lo, lp.Inf, w[n], false)
			m.addFwRow(b, n, []int{nuVar[n]}, []float64{-1}, 0, 0)
			for _, v := range cuts[n] {
				g, dg := gAlpha(alpha, v)
				// s_n ≤ g(v) + g'(v)(ν_n − v)  ⇔  s_n − g'(v)ν_n ≤ g(v) − g'(v)v
				b.lm.AddRow("", []int{sVar[n], nuVar[n]}, []float64{1, -dg}, -lp.Inf, g-dg*v)
			}
		}
		sol, err := solveLP(ctx, b.lm, backend)
		res.lps++
		if err != nil {
			if errors.Is(err, errBudget) {
				res.timeout = true
				break
			}
			return nil, err
		}
		res.backend = sol.Backend
		x := m.xOf(b, sol)
		m.repair(x)
		if f := m.pfValue(alpha, x); f > res.objective {
			res.objective = f
			copy(res.x, x)
		}
		if d := m.lagrangeBound(alpha, sol, b); d < res.bound {
			res.bound = d
		}
		priced := m.price(b, sol)
		if priced == 0 {
			// No column can improve the outer approximation: its optimum
			// over all columns is this LP's, an upper bound on eq. 8.
			res.bound = math.Min(res.bound, sol.Objective)
		}
		if gapOK(res.objective, res.bound, alpha, phiSum) {
			break
		}
		// Refine: a cut at each ν_n whose model overshoots, and at ν_n·(1±radius).
		added := 0
		for n := range in.fws {
			if m.inert[n] {
				continue
			}
			v := sol.X[nuVar[n]]
			if v <= 0 {
				// Below every cut: step down geometrically from the
				// smallest tangent point rather than to a tiny ν whose
				// slope would wreck the LP's conditioning.
				v = slices.Min(cuts[n]) / 4
			}
			g, _ := gAlpha(alpha, v)
			if sol.X[sVar[n]]-g <= cutTol*math.Max(1, math.Abs(g)) {
				continue
			}
			cuts[n] = append(cuts[n], v, v*(1+radius), v/(1+radius))
			// The dual-guided point: where g's slope equals the LP's
			// marginal value of ν_n (the dual of n's ν row), i.e. where
			// the LP would like the envelope to bend; it is the Newton-like
			// step of the dual cutting-plane method.
			if y := math.Abs(sol.RowDuals[b.fwRow[n]]); y > 0 {
				// Clamped to [ν/4, 4ν]: a near-zero dual would otherwise put
				// the point (and the cut's coefficients) off any scale.
				vh := math.Pow(w[n]/y, 1/alpha)
				cuts[n] = append(cuts[n], math.Min(math.Max(vh, v/4), 4*v))
			}
			added++
		}
		if added == 0 && priced == 0 {
			// The LP's model is exact at its own optimum to the backend's
			// tolerance: nothing left to cut.
			break
		}
		if added > 0 {
			radius = math.Max(radius/4, 1e-9)
		}
	}
	return res, nil
}

// cutTol: a framework's model overshoot s_n − g(ν_n) below this (relative
// to |g|, with g = O(1) after scaling) is within the LP backends' own
// feasibility tolerance (1e-7 absolute in CLP), so a cut there would not
// move the LP's solution.
const cutTol = 1e-9

// gapOK: the relative gap (solver.RelGap) is below target, or, when the
// log objective itself is near zero (α = 1 with V_n near 1), the absolute gap
// is below target·Σφ: the weighted geometric mean of the V_n is then
// within a factor 1+1e-7 of the optimum's.
func gapOK(obj, bound, alpha, phiSum float64) bool {
	if math.IsInf(obj, 0) || math.IsInf(bound, 0) {
		return false
	}
	d := bound - obj
	den := math.Max(math.Max(math.Abs(obj), math.Abs(bound)), 1e-9)
	return d/den <= pfGapTarget || (alpha == 1 && d <= pfGapTarget*phiSum)
}

// lagrangeBound evaluates D(p, q) at the LP's capacity and cap duals.
func (m *model) lagrangeBound(alpha float64, sol *lp.Solution, b *lpb) float64 {
	in := m.in
	R := len(in.resources)
	if sol.RowDuals == nil {
		return math.Inf(1)
	}
	p := make([]float64, len(in.groups)*R)
	D := 0.0
	for _, c := range b.capRows {
		y := math.Abs(sol.RowDuals[c.row])
		p[c.g*R+c.r] = y
		D += y * c.C
	}
	q := make([]float64, len(in.fws))
	for n, row := range b.taskRow {
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

// dupRel: tangent points closer than this (relative) give cuts that are
// numerically the same row; duplicates only make the basis degenerate.
const dupRel = 1e-12

// dedupe sorts tangent points and drops near-duplicates.
func dedupe(v []float64) []float64 {
	slices.Sort(v)
	out := v[:0]
	for _, x := range v {
		if len(out) > 0 && x-out[len(out)-1] <= dupRel*x {
			continue
		}
		out = append(out, x)
	}
	return out
}
