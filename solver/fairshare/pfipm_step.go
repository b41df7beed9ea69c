package fairshare

import (
	"context"
	"math"
)

// Step control of the PF interior-point method (pfipm.go): step lengths to
// the boundary, the wide neighbourhood and its centring fallback, and
// Mehrotra's predictor–corrector step.

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
// lengths; ok is false when Newton's system cannot be factorised. It
// returns ctx's error, with the iterate unchanged, when ctx ends before
// the step is taken (checked between the factorisation's frameworks and
// between its phases).
func (s *pfIPM) step(ctx context.Context) (ap, ad float64, ok bool, err error) {
	s.prepareObjective()
	ok, err = s.factor(ctx)
	if err != nil || !ok {
		return 0, 0, false, err
	}
	mu := s.mu()
	zero := func(int) float64 { return 0 }
	// Predictor (affine scaling): targets 0.
	s.direction(zero, zero, zero)
	if err := ctx.Err(); err != nil {
		return 0, 0, false, err
	}
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
	if err := ctx.Err(); err != nil {
		return 0, 0, false, err
	}
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
	return ap, ad, true, nil
}
