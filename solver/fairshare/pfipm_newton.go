package fairshare

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// Newton's system of the PF interior-point method (pfipm.go): the Schur
// complement on the capacity rows, the per-framework blocks in product
// form, and the dual-first direction with iterative refinement.

// factor builds and factorises the Schur complement of Newton's system at
// the current iterate. It reports false when the factorisation fails even
// with regularisation, and ctx's error when ctx ends first (checked every
// ipmCheckEvery frameworks and before the rank update, about a third of
// a step at 100,000 frameworks).
func (s *pfIPM) factor(ctx context.Context) (bool, error) {
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
	for f := 0; f < s.nf; f++ {
		if f%ipmCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return false, err
			}
		}
		s.om[f] = 0
		if s.capped[f] {
			s.om[f] = s.z[f] / s.sq[f]
		}
		s.factorBlock(f)
		if !s.factorCore(f) {
			return false, nil
		}
		s.woodburyColumns(f)
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	blas64.Syrk(blas.NoTrans, -1, s.gall, 1, s.kmat)
	return s.cholesky(), nil
}

// factorCore adds framework f's Σ_k A_k A_k^T / D_k to the Schur
// complement's lower triangle and factors its Woodbury core, in the basis
// [e, b'] with b' = b − ρe made D⁻¹-orthogonal to e: for the tasks, DRF and
// PS-DSF criteria b is parallel to e (the cap row bounds ν), and the naive
// core [[1/c + e'D⁻¹e, e'D⁻¹b], [·, 1/ω + b'D⁻¹b]] then has a Schur
// complement computed as the difference of two numbers of size 1/D ≈ 1/μ,
// which loses every digit near the optimum. In the new basis the core is
// [[1/c + S_e, −ρ/c], [−ρ/c, 1/ω + ρ²/c + S_b']] and its Cholesky factor is
// a sum of positive terms. It reports false when that factor is not
// finite and positive.
func (s *pfIPM) factorCore(f int) bool {
	R, n, kd := s.R, s.mrow, s.kmat.Data
	se, tb := 0.0, 0.0
	nr := s.nr[f]
	for k := s.start[f]; k < s.start[f+1]; k++ {
		id := 1 / s.D[k]
		se += s.e[k] * s.e[k] * id
		if s.capped[f] {
			tb += s.e[k] * s.b[k] * id
		}
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
	if !s.capped[f] {
		return true
	}
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
	return true
}

// woodburyColumns writes H = G L^{-T}, G = A D^{-1} [e b'], into columns 2f
// and 2f+1 of gall.
func (s *pfIPM) woodburyColumns(f int) {
	R, n, gs, nr := s.R, s.mrow, s.gall.Stride, s.nr[f]
	gd := s.gall.Data
	for k := s.start[f]; k < s.start[f+1]; k++ {
		id := 1 / s.D[k]
		for j := 0; j < nr; j++ {
			row := s.arow[k*R+j]
			a := s.aval[k*R+j] * id
			gd[row*gs+2*f] += a * s.e[k]
			if s.capped[f] {
				gd[row*gs+2*f+1] += a * s.bp[k]
			}
		}
	}
	for i := 0; i < n; i++ {
		g1 := gd[i*gs+2*f]
		if g1 == 0 && (!s.capped[f] || gd[i*gs+2*f+1] == 0) {
			continue
		}
		h1 := g1 / s.l11[f]
		gd[i*gs+2*f] = h1
		if s.capped[f] {
			gd[i*gs+2*f+1] = (gd[i*gs+2*f+1] - h1*s.l21[f]) / s.l22[f]
		}
	}
}

// cholesky factors the Schur complement into s.chol, regularising only if
// the factorisation fails: round-off in the difference that made it can
// leave a numerically singular matrix when rows are (nearly) proportional.
// It reports false when even the largest shift fails.
func (s *pfIPM) cholesky() bool {
	kd, n := s.kmat.Data, s.mrow
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
