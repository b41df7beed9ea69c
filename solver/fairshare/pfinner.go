package fairshare

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/xflex/xflex/internal/progress"
	"github.com/xflex/xflex/lp"
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
	res := &exactResult{x: make([]float64, len(m.cols)), objective: math.Inf(-1), bound: math.Inf(1)}
	un := m.pfUnits(alpha)
	if un.phiSum == 0 {
		res.objective, res.bound = 0, 0
		return res, nil
	}
	// The LP objective is Σ w g(ν) (weights summing to Σφ, see pfUnits);
	// its duals are converted with osc before they enter the Lagrangian
	// bound in eq. 8's units.
	s := &pfInner{m: m, alpha: alpha, res: res, v0: un.v0, w: un.w, osc: math.Exp(un.logOsc)}
	s.bps = s.ladders()
	// The LP is built once; each round only adds columns (new breakpoints
	// and newly priced allocation columns) and re-solves from the previous
	// basis (lp.Incremental).
	s.b, s.fwRow, s.convRow = m.buildPFInner(s.fwCoef)
	s.b.lm.ObjOffset = un.offset * s.osc
	inc, err := lp.NewIncremental(s.b.lm, lp.Options{Backend: backend})
	if err != nil {
		return nil, fmt.Errorf("fairshare: lp: %w", err)
	}
	defer inc.Close()
	s.inc = inc
	s.inLP = make([][]float64, len(m.in.fws))
	s.addBreakpoints()
	radius := 0.25
	for round := 0; round < pfMaxRounds; round++ {
		sol, x, err := s.solveRound(ctx)
		if errors.Is(err, errBudget) {
			res.timeout = true
			break
		}
		if err != nil {
			return nil, err
		}
		// Anytime: a job polling this solve sees the best PF value and the
		// certified upper bound after every LP.
		progress.Report(ctx, progress.Progress{
			Phase:     fmt.Sprintf("pf round %d", round+1),
			Objective: progress.F(res.objective),
			Bound:     progress.F(res.bound),
		})
		if gapOK(res.objective, res.bound, alpha, un.phiSum) {
			break
		}
		priced := m.price(s.b, sol)
		if s.priceBreakpoints(sol, x, radius) == 0 && priced == 0 {
			break
		}
		// Newly priced allocation columns, with their capacity, cap and
		// framework-row entries (every such row exists from the start).
		m.addPriced(inc, s.b)
		s.addBreakpoints()
		radius = math.Max(radius/4, minRadius)
	}
	return res, nil
}

// pfInner is solvePFInner's state: the model in its units (v0, w, osc; see
// pfUnits), the LP with each framework's ν and convexity rows, the
// breakpoints waiting to enter it and those in it, and the result so far.
type pfInner struct {
	m     *model
	alpha float64
	res   *exactResult
	v0, w []float64
	osc   float64

	b              *lpb
	inc            *lp.Incremental
	fwRow, convRow []int
	// bps[n] are framework n's breakpoints waiting to enter the LP,
	// inLP[n] those in it, sorted.
	bps, inLP [][]float64
}

// fwCoef is column k's coefficient in its framework's ν row.
func (s *pfInner) fwCoef(k int) float64 { return s.m.vcoef[k] / s.v0[s.m.cols[k].n] }

// ladders are each live framework's first breakpoints: a ladder
// 4^-8..4^4 (the smallest point keeps every framework's ν row satisfiable
// when it can get almost nothing), without the points whose objective
// coefficient would be out of the LP's range (α ≫ 1: g_α(b) ≈ −b^{1−α}),
// and the most it can get.
func (s *pfInner) ladders() [][]float64 {
	bps := make([][]float64, len(s.m.in.fws))
	for n := range s.m.in.fws {
		if s.m.inert[n] {
			continue
		}
		top := s.m.vmax(n) / s.v0[n]
		for k := -8; k <= 4; k++ {
			if v := math.Pow(4, float64(k)); v <= top && s.w[n]*math.Abs(gv(s.alpha, v)) <= pfMaxCoef {
				bps[n] = append(bps[n], v)
			}
		}
		bps[n] = append(bps[n], top)
	}
	return bps
}

// addBreakpoints adds the waiting breakpoints to the LP as λ columns, but
// those near one already in it or with an objective coefficient out of
// range.
func (s *pfInner) addBreakpoints() {
	for n := range s.m.in.fws {
		if s.m.inert[n] {
			continue
		}
		for _, v := range dedupe(s.bps[n]) {
			if hasNear(s.inLP[n], v) {
				continue
			}
			g, _ := gAlpha(s.alpha, v)
			if math.Abs(s.w[n]*g) > pfMaxCoef {
				continue
			}
			s.inc.AddCol("", 0, lp.Inf, s.w[n]*g, []int{s.fwRow[n], s.convRow[n]}, []float64{-v, 1})
			s.inLP[n] = insertSorted(s.inLP[n], v)
		}
		s.bps[n] = s.bps[n][:0]
	}
}

// solveRound solves the LP, keeps its repaired x when its PF value is the
// best yet and its Lagrangian bound when the lowest, and returns the
// solution and x.
func (s *pfInner) solveRound(ctx context.Context) (*lp.Solution, []float64, error) {
	m, res := s.m, s.res
	sol, err := solveIncremental(ctx, s.inc)
	res.lps++
	if err != nil {
		return nil, nil, err
	}
	res.backend = sol.Backend
	sol.Objective /= s.osc
	x := m.xOf(s.b, sol)
	m.repair(x)
	prevObj, prevBound := res.objective, res.bound
	if f := m.pfValue(s.alpha, x); f > res.objective {
		res.objective = f
		copy(res.x, x)
	}
	if d := m.lagrangeBound(s.alpha, sol, s.b, s.osc); d < res.bound {
		res.bound = d
	}
	if !math.IsInf(prevBound, 1) && res.bound >= prevBound &&
		res.objective-prevObj <= pfStallRel*math.Abs(res.objective) {
		// Neither side moved. The bound comes from the LP's duals,
		// which a degenerate optimum does not determine: new
		// breakpoints whose reduced costs are below the backend's
		// tolerance leave the kept basis, and so the duals,
		// unchanged round after round. A fresh solve picks new ones.
		s.inc.Reset()
	}
	return sol, x, nil
}

// priceBreakpoints queues, per live framework, the breakpoint with the
// best reduced cost, b* = (w_n/σ_n)^{1/α} with σ_n the dual of its ν row,
// when that cost is positive, and its current ν_n times 1 and 1±radius.
// It returns how many b* it queued.
func (s *pfInner) priceBreakpoints(sol *lp.Solution, x []float64, radius float64) int {
	added := 0
	for n := range s.m.in.fws {
		if s.m.inert[n] {
			continue
		}
		v := 0.0
		for _, k := range s.m.byFw[n] {
			v += s.fwCoef(k) * x[k]
		}
		sigma := math.Abs(sol.RowDuals[s.fwRow[n]])
		yc := sol.RowDuals[s.convRow[n]]
		if sigma > 0 {
			bs := math.Pow(s.w[n]/sigma, 1/s.alpha)
			g, _ := gAlpha(s.alpha, bs)
			if s.w[n]*g-sigma*bs-yc > rcTol*math.Max(1, math.Abs(yc)) {
				s.bps[n] = append(s.bps[n], bs)
				added++
			}
		}
		if v > 0 {
			s.bps[n] = append(s.bps[n], v, v*(1+radius), v/(1+radius))
		}
	}
	return added
}

// pfMaxCoef bounds breakpoint objective coefficients, far inside
// lp.MaxCoef: a breakpoint worth more is far from any optimum anyway.
const pfMaxCoef = 1e15

// gv is g_α(v).
func gv(alpha, v float64) float64 {
	g, _ := gAlpha(alpha, v)
	return g
}

// pfStallRel: a PF value that rises by less than this (relative) between
// rounds has not moved; evaluating Σ φ log V over thousands of terms
// carries round-off of ≈1e-13 relative, so a genuine rise is larger.
const pfStallRel = 1e-12

// buildPFInner builds the inner-approximation LP without breakpoint
// columns: the active allocation columns and every row a priced column
// could need (buildRows with allRows), and per live framework its ν row
// Σ fwCoef(k)·x_k − Σ b·λ ≥ 0 and its convexity row Σ λ = 1 (both start
// without breakpoints).
func (m *model) buildPFInner(fwCoef func(k int) float64) (b *lpb, fwRow, convRow []int) {
	b = m.buildRows(nil, fwCoef, true)
	N := len(m.in.fws)
	fwRow, convRow = make([]int, N), make([]int, N)
	for n := range m.in.fws {
		fwRow[n], convRow[n] = -1, -1
		if m.inert[n] {
			continue
		}
		fwRow[n] = m.addFwRow(b, n, nil, nil, 0, lp.Inf)
		convRow[n] = b.lm.AddRow("", nil, nil, 1, 1)
	}
	return b, fwRow, convRow
}

// solveIncremental re-solves a warm handle, its outcome mapped by checkLP.
func solveIncremental(ctx context.Context, inc *lp.Incremental) (*lp.Solution, error) {
	return checkLP(inc.Solve(ctx))
}

// hasNear reports whether the sorted breakpoints v hold one within dupRel
// (relative) of x, the tolerance dedupe merges at.
func hasNear(v []float64, x float64) bool {
	i, _ := slices.BinarySearch(v, x)
	return (i < len(v) && v[i]-x <= dupRel*v[i]) || (i > 0 && x-v[i-1] <= dupRel*x)
}

// insertSorted inserts x into the sorted slice v.
func insertSorted(v []float64, x float64) []float64 {
	i, _ := slices.BinarySearch(v, x)
	return slices.Insert(v, i, x)
}
