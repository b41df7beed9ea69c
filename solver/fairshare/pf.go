package fairshare

import (
	"math"
	"slices"

	"github.com/xflex/xflex/lp"
	"github.com/xflex/xflex/solver"
)

// The weighted α-fair optimum of eq. 8,
//
//	max Σ_n φ_n g_α(V_n),  V_n = Σ_i u_{n,i} x_{n,i}  s.t. (1),
//
// (V_n = x_n for the tasks criterion; g_1 = log) is solved by inner
// approximation (solvePFInner in pfinner.go) and certified by weak
// Lagrangian duality with the LP's capacity duals p ≥ 0 and cap duals q ≥ 0,
//
//	D(p, q) = Σ p·C + Σ q·cap + Σ_n sup_{V ≥ 0} [φ_n g_α(V) − π_n V],
//	π_n = min_g (Σ_r p_{g,r} d_{n,r} + q_n) / u_{n,g},
//
// which bounds the optimum from above for any p, q ≥ 0 whatever the LP's
// tolerances, while the true objective of the (repaired, exactly feasible)
// LP allocation bounds it from below. An earlier outer approximation
// (tangent cuts as rows) certified the same gaps but at 1,000 frameworks ×
// 50 server types each of its LPs cost ≈10 s and 60 s left a 3.7e-3 gap;
// breakpoints as columns keep the LP at two rows per framework.

// pfMaxRounds bounds the PF rounds; each divides the refinement radius by
// 4, so 60 rounds reach the 1e-9 floor many times over; the gap target or
// the budget stops the loop long before.
const pfMaxRounds = 60

// pfUnits are the per-framework units both PF methods measure V_n in
// (ν_n = V_n/v0_n) and the objective weights that follow:
// Σ_n φ_n g_α(V_n) = exp(−logOsc)·Σ_n w_n g_α(ν_n) + offset, with the w_n
// normalised to sum to Σφ (offset = Σ φ_n log v0_n for α = 1, else 0).
type pfUnits struct {
	v0, w  []float64 // per framework (model index; 0 for inert ones)
	logOsc float64
	offset float64
	phiSum float64
}

// pfWeightSpread bounds the spread of log w_n (besides log φ_n): e^30 ≈
// 1e13 between the largest and smallest weight keeps every framework's
// term above the round-off of the others' sum.
const pfWeightSpread = 30

// pfUnits picks the units. Each framework's natural unit is
// v0_n = vmax_n·φ_n/Σφ (its ν is then O(1) at the optimum), but for α ≠ 1
// the weights φ_n v0_n^{1−α} then spread by |1−α|·(spread of log v0): at
// α = 50 with capacities of 1e9 they overflowed float64 and CLP aborted on
// the resulting objective. The log-units are therefore pulled toward their
// mean by the factor β ≤ 1 that keeps that spread within pfWeightSpread,
// and all weights are computed in logarithms.
func (m *model) pfUnits(alpha float64) pfUnits {
	in := m.in
	N := len(in.fws)
	u := pfUnits{v0: make([]float64, N), w: make([]float64, N)}
	L := make([]float64, N)
	lo, hi, mean, cnt := math.Inf(1), math.Inf(-1), 0.0, 0
	u.phiSum = m.phiSum()
	for n := range in.fws {
		if m.inert[n] {
			continue
		}
		L[n] = math.Log(m.vmax(n) * in.fws[n].phi / u.phiSum)
		lo, hi = math.Min(lo, L[n]), math.Max(hi, L[n])
		mean += L[n]
		cnt++
	}
	if cnt == 0 {
		return u
	}
	mean /= float64(cnt)
	beta := 1.0
	if sp := math.Abs(1-alpha) * (hi - lo); alpha != 1 && sp > pfWeightSpread {
		beta = pfWeightSpread / sp
	}
	lw := make([]float64, N)
	lmax := math.Inf(-1)
	for n := range in.fws {
		if m.inert[n] {
			continue
		}
		lv := mean + beta*(L[n]-mean)
		u.v0[n] = math.Exp(lv)
		lw[n] = math.Log(in.fws[n].phi) + (1-alpha)*lv
		if alpha == 1 {
			lw[n] = math.Log(in.fws[n].phi)
			u.offset += in.fws[n].phi * lv
		}
		lmax = math.Max(lmax, lw[n])
	}
	se := 0.0
	for n := range in.fws {
		if !m.inert[n] {
			se += math.Exp(lw[n] - lmax)
		}
	}
	lse := lmax + math.Log(se)
	for n := range in.fws {
		if !m.inert[n] {
			u.w[n] = u.phiSum * math.Exp(lw[n]-lse)
		}
	}
	u.logOsc = math.Log(u.phiSum) - lse
	return u
}

// original converts a value of Σ w_n g_α(ν_n) to eq. 8's units (it may
// underflow or overflow float64 at extreme α; the relative gap does not
// depend on the units for α ≠ 1).
func (u *pfUnits) original(scaled float64) float64 {
	if math.IsInf(scaled, 0) {
		return scaled
	}
	return scaled*math.Exp(-u.logOsc) + u.offset
}

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

// gapOK: the bound does not exceed the objective, or the relative gap
// (solver.RelGap) is below target, or, when the log objective itself is near
// zero (α = 1 with V_n near 1), the absolute gap is below target·Σφ: the
// weighted geometric mean of the V_n is then within a factor 1+1e-7 of the
// optimum's.
func gapOK(obj, bound, alpha, phiSum float64) bool {
	if math.IsInf(obj, 0) || math.IsInf(bound, 0) {
		return false
	}
	return obj >= bound || solver.RelGap(obj, bound) <= pfGapTarget || (alpha == 1 && bound-obj <= pfGapTarget*phiSum)
}

// lagrangeBound evaluates D(p, q) at the LP's capacity and cap duals.
// osc is the factor the LP's objective was scaled by (its duals are divided
// by it).
func (m *model) lagrangeBound(alpha float64, sol *lp.Solution, b *lpb, osc float64) float64 {
	in := m.in
	R := len(in.resources)
	if sol.RowDuals == nil {
		return math.Inf(1)
	}
	p := make([]float64, len(in.groups)*R)
	for _, c := range b.capRows {
		p[c.g*R+c.r] = math.Abs(sol.RowDuals[c.row]) / osc
	}
	q := make([]float64, len(in.fws))
	for n, row := range b.taskRow {
		if row >= 0 {
			q[n] = math.Abs(sol.RowDuals[row]) / osc
		}
	}
	return m.dualBound(alpha, p, q)
}

// dualBound is D(p, q) for capacity prices p (indexed g·R + r) and cap
// prices q (per framework), all ≥ 0; +Inf when some live framework's
// cheapest column costs nothing (the bound is then vacuous).
func (m *model) dualBound(alpha float64, p, q []float64) float64 {
	in := m.in
	R := len(in.resources)
	D := 0.0
	for g := range in.groups {
		for r := 0; r < R; r++ {
			if y := p[g*R+r]; y != 0 {
				D += y * float64(in.groups[g].count) * in.groups[g].cap[r]
			}
		}
	}
	for n := range in.fws {
		if q[n] != 0 {
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
