package fairshare

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/xflex/xflex/solver/progress"
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
	s := newPFIPM(m, alpha)
	res := &exactResult{x: make([]float64, len(m.cols)), objective: math.Inf(-1), bound: math.Inf(1), backend: "ipm"}
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
		ap, ad, ok := s.step()
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

func newPFIPM(m *model, alpha float64) *pfIPM {
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

// factor builds and factorises the Schur complement of Newton's system at
// the current iterate. It reports false when the factorisation fails even
// with regularisation.
func (s *pfIPM) factor() bool {
	R := s.R
	for k := range s.X {
		s.D[k] = s.lam[k] / s.X[k]
	}
	kd := s.kmat.Data
	n := s.mrow
	clear(kd)
	for i := 0; i < n; i++ {
		kd[i*n+i] = s.sl[i] / s.y[i]
	}
	clear(s.gall.Data)
	gs := s.gall.Stride
	for f := 0; f < s.nf; f++ {
		s.om[f] = 0
		if s.capped[f] {
			s.om[f] = s.z[f] / s.sq[f]
		}
		s.factorBlock(f)
		// The Woodbury core in the basis [e, b'] with b' = b − ρe made
		// D⁻¹-orthogonal to e: for the tasks, DRF and PS-DSF criteria b is
		// parallel to e (the cap row bounds ν), and the naive core
		// [[1/c + e'D⁻¹e, e'D⁻¹b], [·, 1/ω + b'D⁻¹b]] then has a Schur
		// complement computed as the difference of two numbers of size
		// 1/D ≈ 1/μ, which loses every digit near the optimum. In the new
		// basis the core is [[1/c + S_e, −ρ/c], [−ρ/c, 1/ω + ρ²/c + S_b']]
		// and its Cholesky factor is a sum of positive terms.
		se, tb := 0.0, 0.0
		nr := s.nr[f]
		for k := s.start[f]; k < s.start[f+1]; k++ {
			id := 1 / s.D[k]
			se += s.e[k] * s.e[k] * id
			if s.capped[f] {
				tb += s.e[k] * s.b[k] * id
			}
			// Σ_k A_k A_k^T / D_k (lower triangle).
			for j := 0; j < nr; j++ {
				rj, vj := s.arow[k*R+j], s.aval[k*R+j]*id
				for l := 0; l < nr; l++ {
					if rl := s.arow[k*R+l]; rl <= rj {
						kd[rj*n+rl] += vj * s.aval[k*R+l]
					}
				}
			}
		}
		e11 := 1/s.c[f] + se
		l11 := math.Sqrt(e11)
		s.e11[f], s.l11[f] = e11, l11
		if s.capped[f] {
			rho := tb / se
			sb := 0.0
			for k := s.start[f]; k < s.start[f+1]; k++ {
				s.bp[k] = s.b[k] - rho*s.e[k]
				sb += s.bp[k] * s.bp[k] / s.D[k]
			}
			d := 1/s.om[f] + sb + rho*rho*se/(1+s.c[f]*se)
			if !(d > 0) || math.IsInf(d, 0) {
				return false
			}
			s.l21[f], s.l22[f] = -rho/(s.c[f]*l11), math.Sqrt(d)
			s.rhoB[f] = rho
		}
		// H = G L^{-T}, G = A D^{-1} [e b]: columns 2f and 2f+1 of gall.
		for k := s.start[f]; k < s.start[f+1]; k++ {
			id := 1 / s.D[k]
			for j := 0; j < nr; j++ {
				row := s.arow[k*R+j]
				a := s.aval[k*R+j] * id
				s.gall.Data[row*gs+2*f] += a * s.e[k]
				if s.capped[f] {
					s.gall.Data[row*gs+2*f+1] += a * s.bp[k]
				}
			}
		}
		for i := 0; i < n; i++ {
			g1 := s.gall.Data[i*gs+2*f]
			if g1 == 0 && (!s.capped[f] || s.gall.Data[i*gs+2*f+1] == 0) {
				continue
			}
			h1 := g1 / l11
			s.gall.Data[i*gs+2*f] = h1
			if s.capped[f] {
				s.gall.Data[i*gs+2*f+1] = (s.gall.Data[i*gs+2*f+1] - h1*s.l21[f]) / s.l22[f]
			}
		}
	}
	blas64.Syrk(blas.NoTrans, -1, s.gall, 1, s.kmat)
	// Regularise only if the factorisation fails: round-off in the
	// difference above can leave a numerically singular matrix when rows
	// are (nearly) proportional.
	save := append([]float64(nil), kd...)
	reg := 0.0
	for attempt := 0; attempt < 8; attempt++ {
		if t, ok := lapack64.Potrf(s.kmat); ok {
			s.chol = t
			return true
		}
		copy(kd, save)
		maxd := 0.0
		for i := 0; i < n; i++ {
			maxd = math.Max(maxd, math.Abs(kd[i*n+i]))
		}
		if reg == 0 {
			reg = ipmRegRel * math.Max(maxd, 1)
		} else {
			reg *= 100
		}
		for i := 0; i < n; i++ {
			kd[i*n+i] += reg
		}
	}
	return false
}

// ipmRegRel is the first diagonal shift tried when the Schur complement
// is numerically indefinite: 1e-14 relative is a few ulps of its largest
// entry, enough to restore definiteness lost to round-off and far too small
// to change the direction measurably.
const ipmRegRel = 1e-14

// pinv applies P⁻¹ (the block-diagonal part) to v in place, block by
// block. The vector comes from the product-form factorisation of
// D + c e e^T + ω b b^T (factorBlock): the Woodbury form
// D⁻¹(v − Uβ) subtracts two vectors of size 1/D ≈ 1/μ that nearly cancel
// on the columns in use and lost up to half the digits near the optimum.
// The Woodbury core is still solved for β, whose components are accurate
// (dot products, no cancellation): beta2[f] = ω_f b·P⁻¹v and
// beta1[f] − rhoB[f]·beta2[f] = c_f e·P⁻¹v, the quantities the cap and
// price steps need.
func (s *pfIPM) pinv(v []float64) {
	for f := 0; f < s.nf; f++ {
		a1, a2 := 0.0, 0.0
		for k := s.start[f]; k < s.start[f+1]; k++ {
			x := v[k] / s.D[k]
			a1 += s.e[k] * x
			if s.capped[f] {
				a2 += s.bp[k] * x
			}
		}
		if s.capped[f] {
			// Solve E β = a by its Cholesky factor.
			y1 := a1 / s.l11[f]
			y2 := (a2 - s.l21[f]*y1) / s.l22[f]
			b2 := y2 / s.l22[f]
			s.beta1[f], s.beta2[f] = (y1-s.l21[f]*b2)/s.l11[f], b2
		} else {
			s.beta1[f] = a1 / s.e11[f]
		}
		s.blockSolve(f, v)
	}
}

// factorBlock computes the product-form factorisation of framework f's
// block P_f = D + c e e^T (+ ω b b^T when capped) = L₁L₂ D₂ L₂^T L₁^T, with
// L₁ = I + strict_lower(e β₁^T) and L₂ = I + strict_lower(p γ^T),
// p = L₁⁻¹b, by the rank-one update recurrence of Gill, Golub, Murray and
// Saunders (1974, method C1): all quantities stay positive, so nothing
// cancels however small D is.
func (s *pfIPM) factorBlock(f int) {
	t := s.c[f]
	for k := s.start[f]; k < s.start[f+1]; k++ {
		d := s.D[k] + t*s.e[k]*s.e[k]
		s.pfB[k] = t * s.e[k] / d
		t *= s.D[k] / d
		s.pfD[k] = d
	}
	if !s.capped[f] {
		return
	}
	acc := 0.0
	for k := s.start[f]; k < s.start[f+1]; k++ {
		s.pfP[k] = s.b[k] - s.e[k]*acc
		acc += s.pfB[k] * s.pfP[k]
	}
	t = s.om[f]
	for k := s.start[f]; k < s.start[f+1]; k++ {
		d1 := s.pfD[k]
		d := d1 + t*s.pfP[k]*s.pfP[k]
		s.pfG[k] = t * s.pfP[k] / d
		t *= d1 / d
		s.pfD[k] = d
	}
}

// blockSolve solves P_f x = v in place over f's columns with the
// product-form factors.
func (s *pfIPM) blockSolve(f int, v []float64) {
	lo, hi := s.start[f], s.start[f+1]
	acc := 0.0
	for k := lo; k < hi; k++ {
		v[k] -= s.e[k] * acc
		acc += s.pfB[k] * v[k]
	}
	if s.capped[f] {
		acc = 0
		for k := lo; k < hi; k++ {
			v[k] -= s.pfP[k] * acc
			acc += s.pfG[k] * v[k]
		}
	}
	for k := lo; k < hi; k++ {
		v[k] /= s.pfD[k]
	}
	if s.capped[f] {
		acc = 0
		for k := hi - 1; k >= lo; k-- {
			v[k] -= s.pfG[k] * acc
			acc += s.pfP[k] * v[k]
		}
	}
	acc = 0
	for k := hi - 1; k >= lo; k-- {
		v[k] -= s.pfB[k] * acc
		acc += s.e[k] * v[k]
	}
}

// direction computes the Newton direction for complementarity targets
// X_k λ_k → tx(k), s_i y_i → ts(i), s'_f z_f → tq(f), dual first, as LP
// interior-point codes do with their normal equations: the capacity-row
// step dy from the Schur complement K dy = A P⁻¹ r̃ − r2, then
// dX = P⁻¹(r̃ − A^T dy), and the slack steps from the linearised
// complementarity, not from A dX. Near the optimum the allocation is often
// not unique (many x give the same V), P⁻¹ is ≈ 1/μ along that optimal face
// and dX carries round-off there; slacks derived from it would inherit the
// error magnified by the huge W = y/s of the binding rows and block every
// step. Derived from dy instead, they are accurate, and the small primal
// residual A dX + ds + r_p that remains is what the next step corrects
// (r_p and r_q are part of the right-hand side). The cap step dz comes out
// of the Woodbury core (β₂ = ω b·dX, see pinv) for the same reason.
func (s *pfIPM) direction(tx func(k int) float64, ts func(i int) float64, tq func(f int) float64) {
	R := s.R
	// Primal residuals r_p = AX + s − 1, r_q = BX + s' − 1.
	s.rowProducts(s.X, s.ax)
	for i := range s.rp {
		s.rp[i] = s.ax[i] + s.sl[i] - 1
	}
	for f := 0; f < s.nf; f++ {
		s.rq[f] = 0
		if s.capped[f] {
			bx := 0.0
			for k := s.start[f]; k < s.start[f+1]; k++ {
				bx += s.b[k] * s.X[k]
			}
			s.rq[f] = bx + s.sq[f] - 1
		}
	}
	// r̃ = π(1+ρ) e − A^T y + tx/X − b (z/s' r_q + tq/s').
	for f := 0; f < s.nf; f++ {
		gw := s.pi[f] * (1 + s.rho[f])
		capT := 0.0
		if s.capped[f] {
			capT = s.z[f]/s.sq[f]*s.rq[f] + tq(f)/s.sq[f]
		}
		for k := s.start[f]; k < s.start[f+1]; k++ {
			v := gw*s.e[k] + tx(k)/s.X[k] - s.b[k]*capT
			for j := 0; j < s.nr[f]; j++ {
				v -= s.aval[k*R+j] * s.y[s.arow[k*R+j]]
			}
			s.rhs[k] = v
		}
	}
	// K dy = A P⁻¹ r̃ − r2, r2 = −r_p − ts/y + s.
	copy(s.u, s.rhs)
	s.pinv(s.u)
	s.rowProducts(s.u, s.av)
	for i := range s.av {
		s.av[i] -= -s.rp[i] - ts(i)/s.y[i] + s.sl[i]
	}
	copy(s.kr, s.av)
	lapack64.Potrs(s.chol, blas64.General{Rows: s.mrow, Cols: 1, Stride: 1, Data: s.av})
	copy(s.dy, s.av)
	// Iterative refinement of dy against K applied exactly (W⁻¹dy +
	// A P⁻¹ A^T dy through the product form): the factorised K is built
	// by Woodbury and inherits its cancellation; a residual left in dy
	// becomes primal infeasibility A dX + ds + r_p of the same size.
	for it := 0; it < ipmRefine; it++ {
		s.applyK(s.dy, s.av)
		for i := range s.av {
			s.av[i] = s.kr[i] - s.av[i]
		}
		lapack64.Potrs(s.chol, blas64.General{Rows: s.mrow, Cols: 1, Stride: 1, Data: s.av})
		for i := range s.dy {
			s.dy[i] += s.av[i]
		}
	}
	// dX = P⁻¹(r̃ − A^T dy).
	for f := 0; f < s.nf; f++ {
		for k := s.start[f]; k < s.start[f+1]; k++ {
			t := s.rhs[k]
			for j := 0; j < s.nr[f]; j++ {
				t -= s.aval[k*R+j] * s.dy[s.arow[k*R+j]]
			}
			s.dX[k] = t
		}
	}
	s.pinv(s.dX)
	for i := range s.ds {
		s.ds[i] = (ts(i) - s.sl[i]*s.y[i] - s.sl[i]*s.dy[i]) / s.y[i]
	}
	for f := 0; f < s.nf; f++ {
		if !s.capped[f] {
			s.dsq[f], s.dz[f] = 0, 0
			continue
		}
		s.dz[f] = s.beta2[f] + s.z[f]/s.sq[f]*s.rq[f] + tq(f)/s.sq[f] - s.z[f]
		s.dsq[f] = (tq(f) - s.sq[f]*s.z[f] - s.sq[f]*s.dz[f]) / s.z[f]
	}
	for k := range s.dL {
		s.dL[k] = tx(k)/s.X[k] - s.lam[k] - s.lam[k]/s.X[k]*s.dX[k]
	}
	// dπ = πρ − c (e·dX), with c (e·dX) = β₁ − ρ'β₂ from the core.
	for f := 0; f < s.nf; f++ {
		s.dpi[f] = s.pi[f]*s.rho[f] - (s.beta1[f] - s.rhoB[f]*s.beta2[f])
	}
}

// ipmRefine is the number of refinement steps per direction: each costs a
// pass over the columns and a triangular solve with the factor, a few per
// cent of a step; the first removes most of the residual, the second
// makes the last steps before the certificate reliable.
const ipmRefine = 2

// applyK sets out = K v = W⁻¹v + A P⁻¹ A^T v.
func (s *pfIPM) applyK(v, out []float64) {
	R := s.R
	for f := 0; f < s.nf; f++ {
		for k := s.start[f]; k < s.start[f+1]; k++ {
			t := 0.0
			for j := 0; j < s.nr[f]; j++ {
				t += s.aval[k*R+j] * v[s.arow[k*R+j]]
			}
			s.kt[k] = t
		}
		s.blockSolve(f, s.kt)
	}
	s.rowProducts(s.kt, out)
	for i := range out {
		out[i] += s.sl[i] / s.y[i] * v[i]
	}
}

// maxStep is the largest a ≤ 1 keeping v + a·dv ≥ 0, times ipmEta when the
// boundary is hit.
func maxStep(a float64, v, dv []float64, skip func(i int) bool) float64 {
	for i, d := range dv {
		if d < 0 && (skip == nil || !skip(i)) {
			if t := -ipmEta * v[i] / d; t < a {
				a = t
			}
		}
	}
	return a
}

// stepLengths returns the primal and dual step lengths of the current
// direction.
func (s *pfIPM) stepLengths() (ap, ad float64) {
	uncapped := func(f int) bool { return !s.capped[f] }
	ap = maxStep(1, s.X, s.dX, nil)
	ap = maxStep(ap, s.sl, s.ds, nil)
	ap = maxStep(ap, s.sq, s.dsq, uncapped)
	ad = maxStep(1, s.lam, s.dL, nil)
	ad = maxStep(ad, s.y, s.dy, nil)
	ad = maxStep(ad, s.z, s.dz, uncapped)
	ad = maxStep(ad, s.pi, s.dpi, nil)
	return ap, ad
}

// ipmGamma, ipmShrink, ipmBacktracks: the neighbourhood N₋∞(γ) that steps
// keep (products ≥ γ·mean; 1e-3 is the customary width, loose enough not to
// slow the long steps of Mehrotra's method), the factor a step shrinks by
// while it leaves it, and how often it may shrink (0.8^40 ≈ 1e-4).
const (
	ipmGamma      = 1e-3
	ipmShrink     = 0.8
	ipmBacktracks = 40
)

// ipmCentre is σ of the fallback centring step (0.5: halfway between
// pure centring and Mehrotra's affine target), and ipmMinStep the step
// length below which the corrector's direction is given up for it.
const (
	ipmCentre  = 0.5
	ipmMinStep = 0.1
)

// backtrack shrinks (ap, ad) until the step is centred; it reports whether
// the result is centred with both lengths at least ipmMinStep (or the
// unshrunk lengths, when they were shorter to begin with).
func (s *pfIPM) backtrack(ap, ad *float64) bool {
	ap0, ad0 := *ap, *ad
	for try := 0; try < ipmBacktracks; try++ {
		if s.centred(*ap, *ad) {
			return *ap >= math.Min(ipmMinStep, ap0) && *ad >= math.Min(ipmMinStep, ad0)
		}
		*ap *= ipmShrink
		*ad *= ipmShrink
	}
	return false
}

// centred reports whether the step (ap, ad) along the current direction
// lands in the neighbourhood N₋∞(ipmGamma).
func (s *pfIPM) centred(ap, ad float64) bool {
	lo, sum, n := math.Inf(1), 0.0, 0
	add := func(v, dv, w, dw float64) {
		p := (v + ap*dv) * (w + ad*dw)
		lo = math.Min(lo, p)
		sum += p
		n++
	}
	for k := range s.X {
		add(s.X[k], s.dX[k], s.lam[k], s.dL[k])
	}
	for i := range s.sl {
		add(s.sl[i], s.ds[i], s.y[i], s.dy[i])
	}
	for f := range s.sq {
		if s.capped[f] {
			add(s.sq[f], s.dsq[f], s.z[f], s.dz[f])
		}
	}
	return lo >= ipmGamma*sum/float64(n)
}

// mu is the average complementarity product.
func (s *pfIPM) mu() float64 {
	t, n := 0.0, 0
	for k := range s.X {
		t += s.X[k] * s.lam[k]
	}
	n += len(s.X)
	for i := range s.sl {
		t += s.sl[i] * s.y[i]
	}
	n += len(s.sl)
	for f := range s.sq {
		if s.capped[f] {
			t += s.sq[f] * s.z[f]
			n++
		}
	}
	return t / float64(n)
}

// step takes one predictor–corrector step and returns its primal and dual
// lengths; ok is false when Newton's system cannot be factorised.
func (s *pfIPM) step() (ap, ad float64, ok bool) {
	s.prepareObjective()
	if !s.factor() {
		return 0, 0, false
	}
	mu := s.mu()
	zero := func(int) float64 { return 0 }
	// Predictor (affine scaling): targets 0.
	s.direction(zero, zero, zero)
	pap, pad := s.stepLengths()
	muAff, cnt := 0.0, 0
	for k := range s.X {
		muAff += (s.X[k] + pap*s.dX[k]) * (s.lam[k] + pad*s.dL[k])
	}
	cnt += len(s.X)
	for i := range s.sl {
		muAff += (s.sl[i] + pap*s.ds[i]) * (s.y[i] + pad*s.dy[i])
	}
	cnt += len(s.sl)
	for f := range s.sq {
		if s.capped[f] {
			muAff += (s.sq[f] + pap*s.dsq[f]) * (s.z[f] + pad*s.dz[f])
			cnt++
		}
	}
	muAff /= float64(cnt)
	sigma := math.Pow(muAff/mu, 3)
	sigma = math.Min(sigma, 1)
	sm := sigma * mu
	// Corrector: second-order terms of the predictor.
	cx := make([]float64, len(s.X))
	for k := range cx {
		cx[k] = sm - s.dX[k]*s.dL[k]
	}
	cs := make([]float64, len(s.sl))
	for i := range cs {
		cs[i] = sm - s.ds[i]*s.dy[i]
	}
	cq := make([]float64, s.nf)
	for f := range cq {
		cq[f] = sm - s.dsq[f]*s.dz[f]
	}
	s.direction(func(k int) float64 { return cx[k] }, func(i int) float64 { return cs[i] }, func(f int) float64 { return cq[f] })
	ap, ad = s.stepLengths()
	// Stay in the wide neighbourhood: every complementarity product at
	// least ipmGamma times their mean. Mehrotra's steps aim at μ → 0 along
	// a linearisation of a nonlinear objective; without this a column can
	// be thrown against its bound in one step and then crawl back by a
	// constant factor per step (observed: 10+ extra steps on α = 2).
	if !s.backtrack(&ap, &ad) {
		// The corrector cannot stay centred with a useful step: take a
		// pure centring step toward σμ instead (σ = ipmCentre, no
		// second-order terms), which restores the neighbourhood.
		t := ipmCentre * mu
		target := func(int) float64 { return t }
		s.direction(target, target, target)
		ap, ad = s.stepLengths()
		s.backtrack(&ap, &ad)
	}
	for k := range s.X {
		s.X[k] += ap * s.dX[k]
		s.lam[k] += ad * s.dL[k]
	}
	for i := range s.sl {
		s.sl[i] += ap * s.ds[i]
		s.y[i] += ad * s.dy[i]
	}
	for f := range s.sq {
		if s.capped[f] {
			s.sq[f] += ap * s.dsq[f]
			s.z[f] += ad * s.dz[f]
		}
		s.pi[f] += ad * s.dpi[f]
	}
	return ap, ad, true
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
