package fairshare

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/xflex/xflex/internal/progress"
)

// solvePF dispatches the PF solve: the interior-point method unless the
// request asks for the inner approximation, and the inner approximation
// after it when the interior-point method stops without certifying the gap
// (numerical breakdown or its step cap) while budget remains; the better
// primal allocation and the smaller bound of the two are kept.
func solvePF(ctx context.Context, m *model, alpha float64, method, backend string) (*exactResult, error) {
	if method == PFInnerLP {
		r, err := solvePFInner(ctx, m, alpha, backend)
		if err == nil {
			r.certified = gapOK(r.objective, r.bound, alpha, m.phiSum())
		}
		return r, err
	}
	res, err := solvePFIPM(ctx, m, alpha)
	if err != nil || res.timeout || res.certified {
		return res, err
	}
	lpRes, err := solvePFInner(ctx, m, alpha, backend)
	if err != nil {
		// The fallback could not run (e.g. an LP out of range at extreme
		// α): the interior-point answer stands, uncertified.
		return res, nil
	}
	lpRes.steps = res.steps
	if res.objective > lpRes.objective {
		lpRes.objective = res.objective
		copy(lpRes.x, res.x)
	}
	lpRes.bound = math.Min(lpRes.bound, res.bound)
	lpRes.certified = gapOK(lpRes.objective, lpRes.bound, alpha, m.phiSum())
	lpRes.backend = "ipm+" + lpRes.backend
	return lpRes, nil
}

// phiSum is Σφ over the frameworks that can get anything.
func (m *model) phiSum() float64 {
	t := 0.0
	for n := range m.in.fws {
		if !m.inert[n] {
			t += m.in.fws[n].phi
		}
	}
	return t
}

// solvePFIPM solves eq. 8 by a primal-dual interior-point method on the
// convex program itself,
//
//	min F(X) = −Σ_n w_n g_α(ν_n),  ν_n = Σ_k e_k X_k
//	s.t. A X + s = 1 (capacity rows), B X + s' = 1 (cap rows), X, s, s' ≥ 0,
//
// with every column and row scaled to O(1): X_k = x_k/t_k where t_k is the
// most tasks column k could take alone, each capacity row is divided by its
// pooled capacity C and each cap row by the cap, and ν_n = V_n/v0_n as in
// the inner approximation.
//
// Structure makes a step cheap. The objective couples a framework's
// columns only through ν_n and its cap row only through Σ x: per framework
// the Newton matrix is a diagonal plus two rank-one terms, and only the
// ≈G·R capacity rows couple frameworks. A step factorises one G·R × G·R
// Schur complement W⁻¹ + A P⁻¹ A^T (P the block-diagonal part; a 100 × 100
// matrix and a rank-2,000 update at 1,000 frameworks × 50 server types ×
// 2 resources) and otherwise does O(columns·R) work.
//
// Numerics, each found necessary on random instances (TestPFIPMMatchesInnerLP):
//   - the objective is treated primal–dual, with the price π_n of ν_n as an
//     iterate and its optimality condition linearised in logarithms
//     (prepareObjective);
//   - P⁻¹ is applied through a product-form factorisation, not Woodbury
//     (pinv, factorBlock), and the Woodbury core is kept only for the
//     scalar quantities it gets right;
//   - directions are computed dual first, slacks from complementarity, with
//     iterative refinement of the capacity-row step (direction);
//   - Mehrotra's predictor–corrector steps are kept in the wide
//     neighbourhood N₋∞(10⁻³), with a centring step when that would make
//     them short (backtrack).
//
// Convergence is not taken on trust: after every step the iterate is
// turned into an exactly feasible allocation (repair) whose PF value is the
// lower bound, and the duals y, z into capacity and cap prices p, q ≥ 0
// whose Lagrangian dual value D(p, q) (dualBound) is the upper bound. The
// loop stops when the two certify pfGapTarget, then purify replaces the
// interior allocation, spread over the whole optimal face, by a sparse one
// with the same V. If the method stops without a certificate (numerical
// breakdown, the step cap), solvePF continues with the inner approximation.
func solvePFIPM(ctx context.Context, m *model, alpha float64) (*exactResult, error) {
	res := &exactResult{x: make([]float64, len(m.cols)), objective: math.Inf(-1), bound: math.Inf(1), backend: "ipm"}
	s := newPFIPM(ctx, m, alpha)
	if s == nil {
		res.timeout = true // the budget ran out while the problem was set up
		return res, nil
	}
	if s.nf == 0 {
		res.objective, res.bound, res.certified = 0, 0, true
		return res, nil
	}
	s.lo, s.up = math.Inf(-1), math.Inf(1)
	stall := 0
	for it := 0; it < ipmMaxIter; it++ {
		if err := ctx.Err(); err != nil {
			res.timeout = true
			break
		}
		s.certify(res)
		res.steps = it + 1
		progress.Report(ctx, progress.Progress{
			Phase:     fmt.Sprintf("pf interior-point step %d", it+1),
			Objective: progress.F(res.objective),
			Bound:     progress.F(res.bound),
		})
		if s.ok(s.lo, s.up) {
			res.certified = true
			// A sparse allocation with the same V (purify), kept when
			// it still certifies the target after repair.
			x := append([]float64(nil), res.x...)
			m.purify(x)
			m.repair(x)
			if v := s.value(x); s.ok(v, s.up) {
				res.objective = s.un.original(v)
				res.x = x
			}
			return res, nil
		}
		if ctx.Err() != nil {
			res.timeout = true // certify used the rest of the budget
			break
		}
		ap, ad, ok, err := s.step(ctx)
		if err != nil {
			res.timeout = true // cut midway: the iterate is the last one certified
			break
		}
		if !ok {
			break
		}
		if ap < ipmTinyStep && ad < ipmTinyStep {
			stall++
			if stall >= ipmStallSteps {
				break
			}
		} else {
			stall = 0
		}
	}
	return res, nil
}

// ipmMaxIter caps the interior-point steps. Predictor–corrector steps
// reach a 1e-7 certified gap in 20–40 steps on every instance we have
// measured; 150 leaves room for badly scaled instances before the inner
// approximation takes over.
const ipmMaxIter = 150

// ipmTinyStep and ipmStallSteps detect a breakdown: steps shorter than
// 1e-10 of the Newton direction in both spaces, three times running, mean
// the direction is wrong (round-off in the Schur complement), not slow.
const (
	ipmTinyStep   = 1e-10
	ipmStallSteps = 3
)

// ipmEta is the fraction of the distance to the boundary a step may go
// (the customary 0.99–0.995: closer steps lose centrality, shorter ones
// waste iterations).
const ipmEta = 0.995

// ipmDropRatio: when the certificate is computed, a column whose scaled
// value is below its scaled reduced cost λ_k times this ratio is treated
// as zero (complementarity X_k·λ_k = μ makes such a column ≈ μ/λ_k, the
// interior point's residue of a zero), so the reported allocation has the
// sparse support of the optimum instead of 50,000 tiny positive entries.
// The certificate is computed after dropping, so a wrong guess can only
// weaken the certified gap, never misstate it; the undropped iterate is
// certified as well and the better of the two is kept.
const ipmDropRatio = 1

// pfIPM holds the scaled problem and the current iterate.
type pfIPM struct {
	m     *model
	alpha float64
	R     int
	nf    int   // frameworks in the problem (not inert)
	fw    []int // model framework index per problem framework
	// Columns are grouped by framework: problem framework f owns columns
	// start[f]..start[f+1]-1; col[k] is the model column.
	start []int
	col   []int
	t     []float64 // column scale: x_k = t_k X_k
	e     []float64 // ν coefficient of X_k
	b     []float64 // cap-row coefficient of X_k (0 when uncapped)
	// Capacity entries: column k has an entry in rows arow[k*R+j] with
	// value aval[k*R+j] for j < nr[f] (the framework's demanded resources).
	nr     []int
	arow   []int
	aval   []float64
	mrow   int
	rowG   []int // per row: group
	rowR   []int // per row: resource
	rowC   []float64
	capped []bool    // per problem framework
	w      []float64 // objective weight per problem framework
	v0     []float64 // ν unit per problem framework
	un     pfUnits
	phiSum float64
	// lo and up are the best certified values so far in the scaled
	// objective Σ w g_α(ν) (see pfUnits).
	lo, up float64

	// Iterate.
	X, lam []float64 // per column
	sl, y  []float64 // capacity rows: slack, dual
	sq, z  []float64 // cap rows (per framework; unused when uncapped)

	// Scratch.
	nu, c, om       []float64 // per framework: ν, curvature, cap-row weight
	e11             []float64 // per framework: E's first entry
	bp              []float64 // per column: b − ρe (see factor)
	l11, l21, l22   []float64 // its Cholesky factor
	D               []float64 // per column: λ/X
	kmat            blas64.Symmetric
	chol            blas64.Triangular // Cholesky factor of kmat
	gall            blas64.General
	rhs, u          []float64
	dX, dL          []float64
	ds, dy, dsq, dz []float64
	ax, av          []float64
	rp, rq, beta2   []float64
	beta1, rhoB     []float64
	pi, dpi, rho    []float64 // per framework: price of ν, its step, log residual
	pfD, pfB        []float64 // per column: product-form factors (factorBlock)
	pfP, pfG        []float64
	kr, kt          []float64 // refinement scratch (rows, columns)
}

// ipmCheckEvery is how many frameworks the interior-point method sets up
// or factorises between deadline checks: at 100,000 frameworks × 50
// server types setting up took 1.2–3.3 s and one step 1.5 s (load 5), all
// unchecked, which ran pf's 2 s budget to 3 s (issue 28); 4,096
// frameworks are a few tens of milliseconds of either.
const ipmCheckEvery = 4096

// newPFIPM sets up the scaled problem and its start; it returns nil when
// ctx ends first.
func newPFIPM(ctx context.Context, m *model, alpha float64) *pfIPM {
	in := m.in
	R := len(in.resources)
	s := &pfIPM{m: m, alpha: alpha, R: R}
	rowOf := make([]int, len(in.groups)*R)
	for i := range rowOf {
		rowOf[i] = -1
	}
	s.un = m.pfUnits(alpha)
	s.phiSum = s.un.phiSum
	s.start = append(s.start, 0)
	for n := range in.fws {
		if n%ipmCheckEvery == 0 && ctx.Err() != nil {
			return nil
		}
		if m.inert[n] {
			continue
		}
		f := &in.fws[n]
		s.fw = append(s.fw, n)
		var rs []int
		for r, d := range f.d {
			if d > 0 {
				rs = append(rs, r)
			}
		}
		s.nr = append(s.nr, len(rs))
		capped := !math.IsInf(f.cap, 1)
		s.capped = append(s.capped, capped)
		first := len(s.col)
		for _, k := range m.byFw[n] {
			g := &in.groups[m.cols[k].g]
			t := f.cap
			for _, r := range rs {
				t = math.Min(t, float64(g.count)*g.cap[r]/f.d[r])
			}
			s.col = append(s.col, k)
			s.t = append(s.t, t)
			for j := 0; j < R; j++ {
				if j >= len(rs) {
					s.arow = append(s.arow, -1)
					s.aval = append(s.aval, 0)
					continue
				}
				r := rs[j]
				q := m.cols[k].g*R + r
				if rowOf[q] < 0 {
					rowOf[q] = s.mrow
					s.mrow++
					C := float64(g.count) * g.cap[r]
					s.rowG, s.rowR, s.rowC = append(s.rowG, m.cols[k].g), append(s.rowR, r), append(s.rowC, C)
				}
				s.arow = append(s.arow, rowOf[q])
				s.aval = append(s.aval, f.d[r]*t/s.rowC[rowOf[q]])
			}
			bk := 0.0
			if capped {
				bk = t / f.cap
			}
			s.b = append(s.b, bk)
		}
		v0 := s.un.v0[n]
		s.v0 = append(s.v0, v0)
		s.w = append(s.w, s.un.w[n])
		for kk := first; kk < len(s.col); kk++ {
			s.e = append(s.e, m.vcoef[s.col[kk]]*s.t[kk]/v0)
		}
		s.start = append(s.start, len(s.col))
	}
	s.nf = len(s.fw)
	if s.nf == 0 {
		return s
	}
	if ctx.Err() != nil {
		return nil // before the Schur-complement buffers (160 MB at 100,000 frameworks)
	}
	K := len(s.col)
	s.X, s.lam, s.D = make([]float64, K), make([]float64, K), make([]float64, K)
	s.rhs, s.u, s.dX, s.dL = make([]float64, K), make([]float64, K), make([]float64, K), make([]float64, K)
	s.rp, s.rq, s.beta2 = make([]float64, s.mrow), make([]float64, len(s.fw)), make([]float64, len(s.fw))
	s.beta1, s.rhoB = make([]float64, len(s.fw)), make([]float64, len(s.fw))
	s.pfD, s.pfB, s.pfP, s.pfG = make([]float64, K), make([]float64, K), make([]float64, K), make([]float64, K)
	s.kr, s.kt = make([]float64, s.mrow), make([]float64, K)
	s.pi, s.dpi, s.rho = make([]float64, len(s.fw)), make([]float64, len(s.fw)), make([]float64, len(s.fw))
	s.sl, s.y, s.ds, s.dy, s.ax, s.av = make([]float64, s.mrow), make([]float64, s.mrow), make([]float64, s.mrow), make([]float64, s.mrow), make([]float64, s.mrow), make([]float64, s.mrow)
	nf := s.nf
	s.sq, s.z, s.dsq, s.dz = make([]float64, nf), make([]float64, nf), make([]float64, nf), make([]float64, nf)
	s.nu, s.c, s.om = make([]float64, nf), make([]float64, nf), make([]float64, nf)
	s.e11, s.bp = make([]float64, nf), make([]float64, K)
	s.l11, s.l21, s.l22 = make([]float64, nf), make([]float64, nf), make([]float64, nf)
	s.kmat = blas64.Symmetric{N: s.mrow, Stride: max(s.mrow, 1), Uplo: blas.Lower, Data: make([]float64, s.mrow*s.mrow)}
	s.gall = blas64.General{Rows: s.mrow, Cols: 2 * nf, Stride: 2 * nf, Data: make([]float64, s.mrow*2*nf)}
	s.start0()
	return s
}

// start0 sets a strictly feasible, well-centred start. Every framework
// starts at the same ν: X_k = κ/Σ_{k∈f} e_k with κ the largest value that
// leaves every row at most half full. The units are then rescaled by κ
// (v0 ← κ·v0, e ← e/κ, which leaves the weights' ratios unchanged), so the
// start is ν_f = 1 and π_f = w_f for every framework. A uniform X instead
// gave ν from 0.17 to 2.1 on small instances and, at α = 100, prices
// from 1e-27 to 1e40 that stalled the first step. The duals make every
// complementarity product equal to μ0 = Σw/K (the size of a column's share
// of the objective).
func (s *pfIPM) start0() {
	R := s.R
	rowSum := make([]float64, s.mrow)
	capSum := make([]float64, s.nf)
	for f := 0; f < s.nf; f++ {
		se := 0.0
		for k := s.start[f]; k < s.start[f+1]; k++ {
			se += s.e[k]
		}
		for k := s.start[f]; k < s.start[f+1]; k++ {
			s.X[k] = 1 / se
			for j := 0; j < s.nr[f]; j++ {
				rowSum[s.arow[k*R+j]] += s.aval[k*R+j] * s.X[k]
			}
			capSum[f] += s.b[k] * s.X[k]
		}
	}
	mx := 0.0
	for _, v := range rowSum {
		mx = math.Max(mx, v)
	}
	for _, v := range capSum {
		mx = math.Max(mx, v)
	}
	kappa := 0.5 / mx
	for k := range s.X {
		s.X[k] *= kappa
	}
	// New units: ν_f = 1 at the start.
	for f, n := range s.fw {
		for k := s.start[f]; k < s.start[f+1]; k++ {
			s.e[k] /= kappa
		}
		s.v0[f] *= kappa
		s.un.v0[n] = s.v0[f]
		if s.alpha == 1 {
			s.un.offset += s.m.in.fws[n].phi * math.Log(kappa)
		}
	}
	if s.alpha != 1 {
		s.un.logOsc -= (1 - s.alpha) * math.Log(kappa)
	}
	s.rowProducts(s.X, s.ax)
	wsum := 0.0
	for _, w := range s.w {
		wsum += w
	}
	mu0 := wsum / float64(len(s.X))
	for i := range s.sl {
		s.sl[i] = 1 - s.ax[i]
		s.y[i] = mu0 / s.sl[i]
	}
	for f := 0; f < s.nf; f++ {
		if s.capped[f] {
			s.sq[f] = 1 - capSum[f]*kappa
			s.z[f] = mu0 / s.sq[f]
		}
		s.pi[f] = s.w[f]
	}
	for k := range s.X {
		s.lam[k] = mu0 / s.X[k]
	}
}

// rowProducts sets out = A v over the capacity rows.
func (s *pfIPM) rowProducts(v, out []float64) {
	R := s.R
	clear(out)
	for f := 0; f < s.nf; f++ {
		nr := s.nr[f]
		for k := s.start[f]; k < s.start[f+1]; k++ {
			for j := 0; j < nr; j++ {
				out[s.arow[k*R+j]] += s.aval[k*R+j] * v[k]
			}
		}
	}
}

// prepareObjective refreshes ν, the residual ρ_f = log w_f − α log ν_f −
// log π_f of the optimality condition w_f ν_f^{−α} = π_f, and the
// curvature c_f = α π_f/ν_f that its linearisation puts on e e^T.
//
// The objective is treated primal–dual: π_f, the price of ν_f, is an
// iterate of its own and the condition is linearised in logarithms,
// α dν/ν + dπ/π = ρ. Primal Newton on −w g_α(ν) instead grows a ν that is
// far below its optimum by only a factor 1 + 1/(α+1) per step (Newton on
// 1/ν from the left), which took dozens of steps on small instances; in
// log form the step can multiply ν by any factor.
func (s *pfIPM) prepareObjective() {
	for f := 0; f < s.nf; f++ {
		nu := 0.0
		for k := s.start[f]; k < s.start[f+1]; k++ {
			nu += s.e[k] * s.X[k]
		}
		s.nu[f] = nu
		s.c[f] = s.alpha * s.pi[f] / nu
		s.rho[f] = math.Log(s.w[f]) - s.alpha*math.Log(nu) - math.Log(s.pi[f])
	}
}

// certify turns the iterate into an exactly feasible allocation and a dual
// bound, and keeps them in res when they improve it.
func (s *pfIPM) certify(res *exactResult) {
	if d := s.dualBound(); d < s.up {
		s.up = d
	}
	m := s.m
	var vals [2]float64
	var xs [2][]float64
	for i, drop := range []bool{true, false} {
		x := make([]float64, len(m.cols))
		for k, mk := range s.col {
			if drop && s.X[k] < ipmDropRatio*s.lam[k] {
				continue
			}
			x[mk] = s.X[k] * s.t[k]
		}
		m.repair(x)
		vals[i], xs[i] = s.value(x), x
	}
	// The sparse allocation wins whenever it certifies the target.
	if s.ok(vals[0], s.up) {
		s.lo = vals[0]
		copy(res.x, xs[0])
	} else {
		for i := range vals {
			if vals[i] > s.lo {
				s.lo = vals[i]
				copy(res.x, xs[i])
			}
		}
	}
	res.objective, res.bound = s.un.original(s.lo), s.un.original(s.up)
}

// ok reports whether (lo, up) in scaled units certify pfGapTarget. The
// relative gap does not depend on the units for α ≠ 1; for α = 1 the test
// is made in eq. 8's units (scaled + offset), where gapOK's absolute
// criterion for a near-zero log objective applies.
func (s *pfIPM) ok(lo, up float64) bool {
	if s.alpha == 1 {
		return gapOK(lo+s.un.offset, up+s.un.offset, 1, s.phiSum)
	}
	return gapOK(lo, up, s.alpha, s.phiSum)
}

// value is Σ w_n g_α(ν_n) of an allocation x (per model column); −Inf
// when some framework gets nothing and α ≥ 1.
func (s *pfIPM) value(x []float64) float64 {
	m := s.m
	t := 0.0
	for f, n := range s.fw {
		v := 0.0
		for _, k := range m.byFw[n] {
			v += m.vcoef[k] * x[k]
		}
		nu := v / s.v0[f]
		if nu <= 0 {
			if s.alpha >= 1 {
				return math.Inf(-1)
			}
			continue
		}
		t += s.w[f] * gv(s.alpha, nu)
	}
	return t
}

// dualBound is the Lagrangian bound of the scaled problem at the current
// row and cap duals y, z ≥ 0: Σ y + Σ z + Σ_f sup_ν [w_f g_α(ν) − π_f ν]
// with π_f = min_k (A_k^T y + b_k z_f)/e_k, the cheapest price of a unit
// of ν_f (+Inf when some π_f is not positive). It is valid for any y,
// z ≥ 0 whatever the iterate, which is why it certifies.
func (s *pfIPM) dualBound() float64 {
	R := s.R
	D := 0.0
	for _, y := range s.y {
		D += y
	}
	for f := 0; f < s.nf; f++ {
		zf := 0.0
		if s.capped[f] {
			zf = s.z[f]
			D += zf
		}
		pi := math.Inf(1)
		for k := s.start[f]; k < s.start[f+1]; k++ {
			c := s.b[k] * zf
			for j := 0; j < s.nr[f]; j++ {
				c += s.aval[k*R+j] * s.y[s.arow[k*R+j]]
			}
			pi = math.Min(pi, c/s.e[k])
		}
		if !(pi > 0) {
			return math.Inf(1)
		}
		w := s.w[f]
		nu := math.Pow(w/pi, 1/s.alpha)
		D += w*gv(s.alpha, nu) - pi*nu
	}
	return D
}
