package fairshare

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/xflex/xflex/lp"
	"github.com/xflex/xflex/solver/progress"
)

// solvePFInner solves eq. 8 by inner approximation (generalised LP,
// Dantzig–Wolfe on the separable objective): ν_n is bounded by a convex
// combination Σ_k b_k λ_k of breakpoints and the objective by
// Σ_k g_α(b_k) λ_k ≤ g_α(ν_n), so the LP value is a lower bound and its x a
// feasible point. Breakpoints are columns (the LP keeps ≈2 rows per
// framework however many are added); each round prices in, per framework,
// the breakpoint with the best reduced cost, b* = (w_n/σ_n)^{1/α} with σ_n
// the marginal value of ν_n, plus ν_n·(1±radius) around the current value.
// The upper bound is the Lagrangian bound D(p, q) at the LP's capacity and
// cap duals (valid for any duals).
//
// Each V_n is measured in units of v0_n = vmax_n·φ_n/Σφ (ν_n = V_n/v0_n)
// so that every g_α(ν_n) is O(1) where the optimum usually lies: the LP
// backends' absolute tolerances (≈1e-7) then resolve the objective to
// ≈1e-7 relative whatever the instance's units. φ_n g_α(V_n) equals
// w_n g_α(ν_n) (plus φ_n log v0_n when α = 1) with w_n = φ_n v0_n^{1−α}.
func solvePFInner(ctx context.Context, m *model, alpha float64, backend string) (*exactResult, error) {
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
	v0 := make([]float64, N)
	w := make([]float64, N)
	offset := 0.0
	bps := make([][]float64, N)
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
		// A ladder 4^-8..4^4 (the smallest point keeps every framework's
		// ν row satisfiable when it can get almost nothing).
		top := vmax[n] / v0[n]
		for k := -8; k <= 4; k++ {
			if v := math.Pow(4, float64(k)); v <= top {
				bps[n] = append(bps[n], v)
			}
		}
		bps[n] = append(bps[n], top)
	}
	// Scale the LP objective so its coefficients sum to Σφ: for α ≠ 1 the
	// w_n can be tiny (large v0_n), and the backends' absolute dual
	// tolerance would then be a large relative error. Duals are divided by
	// osc again before they enter the Lagrangian bound.
	wsum := 0.0
	for n := range in.fws {
		wsum += w[n]
	}
	osc := phiSum / wsum
	for n := range w {
		w[n] *= osc
	}
	offset *= osc
	fwCoef := func(k int) float64 { return m.vcoef[k] / v0[m.cols[k].n] }
	radius := 0.25
	for round := 0; round < pfMaxRounds; round++ {
		b := m.build(nil, fwCoef)
		b.lm.ObjOffset = offset
		convRow := make([]int, N)
		for n := range in.fws {
			if m.inert[n] {
				continue
			}
			bps[n] = dedupe(bps[n])
			var ix []int
			var neg, ones []float64
			for _, v := range bps[n] {
				g, _ := gAlpha(alpha, v)
				ix = append(ix, b.lm.AddVar("", 0, lp.Inf, w[n]*g, false))
				neg = append(neg, -v)
				ones = append(ones, 1)
			}
			m.addFwRow(b, n, ix, neg, 0, lp.Inf)
			convRow[n] = b.lm.AddRow("", ix, ones, 1, 1)
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
		sol.Objective /= osc
		x := m.xOf(b, sol)
		m.repair(x)
		if f := m.pfValue(alpha, x); f > res.objective {
			res.objective = f
			copy(res.x, x)
		}
		if d := m.lagrangeBound(alpha, sol, b, osc); d < res.bound {
			res.bound = d
		}
		// Anytime: a job polling this solve sees the best PF value and the
		// certified upper bound after every LP.
		progress.Report(ctx, progress.Progress{
			Phase:     fmt.Sprintf("pf round %d", round+1),
			Objective: progress.F(res.objective),
			Bound:     progress.F(res.bound),
		})
		if gapOK(res.objective, res.bound, alpha, phiSum) {
			break
		}
		priced := m.price(b, sol)
		added := 0
		for n := range in.fws {
			if m.inert[n] {
				continue
			}
			v := 0.0
			for _, k := range m.byFw[n] {
				v += fwCoef(k) * x[k]
			}
			sigma := math.Abs(sol.RowDuals[b.fwRow[n]])
			yc := sol.RowDuals[convRow[n]]
			if sigma > 0 {
				bs := math.Pow(w[n]/sigma, 1/alpha)
				g, _ := gAlpha(alpha, bs)
				if w[n]*g-sigma*bs-yc > rcTol*math.Max(1, math.Abs(yc)) {
					bps[n] = append(bps[n], bs)
					added++
				}
			}
			if v > 0 {
				bps[n] = append(bps[n], v, v*(1+radius), v/(1+radius))
			}
		}
		if added == 0 && priced == 0 {
			break
		}
		radius = math.Max(radius/4, 1e-9)
	}
	return res, nil
}
