package lp

import (
	"context"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"
)

// The native LP engine is a bounded-variable revised primal simplex with a
// dense explicit basis inverse, written for this package because gonum's
// optimize/convex/lp.Simplex does not fit: it needs the standard form
// min c·x, Ax = b, x ≥ 0 with A of full row rank (redundant equality rows
// make it fail with ErrSingular), re-factorises densely at every iteration,
// and returns no duals.
//
// Layout. With n structural columns and m rows the engine works on
//
//	A·x − r + S·a = 0,   lo ≤ (x, r, a) ≤ up,
//
// where r are the row activities ("logicals", bounded by the row bounds) and
// a are artificials (S diagonal ±1) used only by phase 1. The starting basis
// is all logicals/artificials, so it is diagonal; phase 1 minimises the sum
// of artificials, phase 2 the (minimisation-sense) cost.
//
// Pricing is Dantzig's largest reduced cost; after degenerateStreak
// consecutive degenerate pivots the engine switches to Bland's smallest
// index rule for both entering and leaving variables, which cannot cycle,
// and switches back after the next non-degenerate pivot. The ratio test
// breaks ties (within tieTol) by the largest pivot magnitude for stability
// (by the smallest variable index in Bland mode). The inverse is rebuilt
// with an LU-based dense inverse every refactorEvery pivots, and always
// before optimality is declared, after which primal values are recomputed
// from scratch.

const (
	// feasTol is the primal feasibility tolerance on variable and row
	// bounds (absolute, scaled by 1+|bound|). It matches CLP's default
	// primal tolerance so that both backends classify problems alike.
	feasTol = 1e-9
	// optTol is the reduced-cost optimality tolerance (CLP's default dual
	// tolerance is 1e-7; tighter here because the problems are small and
	// dense arithmetic is exact enough).
	optTol = 1e-9
	// pivTol: entries of the entering column below this magnitude are
	// treated as zero in the ratio test, avoiding near-singular pivots.
	pivTol = 1e-9
	// tieTol is the step-length slack within which ratio-test candidates
	// count as tied.
	tieTol = 1e-12
	// phase1Tol: a phase-1 optimum (sum of artificials, which measures the
	// total row violation) above this proves infeasibility.
	phase1Tol = 1e-7
	// refactorEvery bounds the number of product-form updates of the
	// inverse before it is rebuilt from the basis columns.
	refactorEvery = 100
	// nativeMaxRows caps the rows the dense engine accepts: its explicit
	// basis inverse takes 8·rows² bytes (128 MB at 4,000 rows) and O(rows²)
	// work per pivot. Larger models get Status Failed; use the coin backend.
	nativeMaxRows = 4000
	// degenerateStreak is the number of consecutive zero-length pivots
	// after which Bland's rule takes over.
	degenerateStreak = 30
)

// lpProblem is the data the native engine needs, in minimisation sense.
type lpProblem struct {
	m, n         int
	a            csc
	cost         []float64 // minimisation-sense costs
	rowLo, rowUp []float64
}

func newLPProblem(m *Model) *lpProblem {
	p := &lpProblem{m: len(m.Rows), n: len(m.Vars), a: buildCSC(m)}
	p.cost = make([]float64, p.n)
	for j, v := range m.Vars {
		p.cost[j] = v.Cost
		if m.Maximize {
			p.cost[j] = -v.Cost
		}
	}
	p.rowLo = make([]float64, p.m)
	p.rowUp = make([]float64, p.m)
	for i, r := range m.Rows {
		p.rowLo[i], p.rowUp[i] = r.Lower, r.Upper
	}
	return p
}

// lpResult is one native LP solve in minimisation sense.
type lpResult struct {
	status Status
	obj    float64   // c·x (minimisation sense, no offset)
	x      []float64 // structural values
	y      []float64 // row duals, minimisation sense
	d      []float64 // reduced costs, minimisation sense
	iters  int
	warm   *warmStart // the optimal basis, for warm starts
}

type simplex struct {
	p      *lpProblem
	m, n   int // rows, structural columns
	nt     int // n + 2m variables
	lo, up []float64
	c      []float64
	x      []float64
	basis  []int // basis[i] = variable basic in position i
	pos    []int // pos[j] = position of j in the basis or -1
	sign   []float64
	binv   []float64 // m×m row-major explicit inverse of the basis
	y      []float64
	alpha  []float64
	work   []float64
	bland  bool
	// priceStart is where the next partial-pricing scan begins.
	priceStart int
	degen      int
	since      int // pivots since the last refactorisation
	iters      int
	maxIt      int
	ctx        context.Context
	dl         time.Time
}

// warmStart is an optimal basis of the same problem under other column
// bounds: the basic variable of each position, the artificial signs, and
// which nonbasic variables sat at their upper bound.
type warmStart struct {
	basis   []int
	sign    []float64
	atUpper []bool
}

// solveLP solves p with structural bounds colLo/colUp. A zero deadline
// means none; ctx cancellation is polled every few pivots. With warm (the
// optimal basis of a parent branch-and-bound node) it first tries to start
// from that basis; when that is not possible it starts cold.
func solveLP(ctx context.Context, p *lpProblem, colLo, colUp []float64, deadline time.Time, warm *warmStart) lpResult {
	if p.m > nativeMaxRows {
		return lpResult{status: Failed}
	}
	if warm != nil {
		if res, ok := newSimplex(ctx, p, colLo, colUp, deadline).solveWarm(warm); ok {
			return res
		}
	}
	return newSimplex(ctx, p, colLo, colUp, deadline).solveCold()
}

func newSimplex(ctx context.Context, p *lpProblem, colLo, colUp []float64, deadline time.Time) *simplex {
	s := &simplex{p: p, m: p.m, n: p.n, nt: p.n + 2*p.m, ctx: ctx, dl: deadline}
	s.maxIt = 50*(s.m+s.n) + 10000
	s.lo = make([]float64, s.nt)
	s.up = make([]float64, s.nt)
	s.c = make([]float64, s.nt)
	s.x = make([]float64, s.nt)
	s.pos = make([]int, s.nt)
	s.basis = make([]int, s.m)
	s.sign = make([]float64, s.m)
	s.binv = make([]float64, s.m*s.m)
	s.y = make([]float64, s.m)
	s.alpha = make([]float64, s.m)
	s.work = make([]float64, s.m)
	copy(s.lo, colLo)
	copy(s.up, colUp)
	copy(s.lo[s.n:], p.rowLo)
	copy(s.up[s.n:], p.rowUp)
	return s
}

// solveWarm starts from a parent's optimal basis. Branching leaves exactly
// one basic variable outside its new bounds; its violated bound is relaxed
// to its current value and phase 1 drives it back to the bound (along the
// segment to any feasible point the variable passes the bound while every
// other constraint holds, so reaching the bound decides feasibility). With
// more than one violation, or a singular basis, ok is false and the caller
// starts cold.
func (s *simplex) solveWarm(w *warmStart) (res lpResult, ok bool) {
	copy(s.basis, w.basis)
	copy(s.sign, w.sign)
	for j := range s.pos {
		s.pos[j] = -1
	}
	for i, j := range s.basis {
		s.pos[j] = i
	}
	for j := 0; j < s.nt; j++ {
		if s.pos[j] >= 0 {
			continue
		}
		switch {
		case w.atUpper[j] && !math.IsInf(s.up[j], 1):
			s.x[j] = s.up[j]
		case !math.IsInf(s.lo[j], -1):
			s.x[j] = s.lo[j]
		case !math.IsInf(s.up[j], 1):
			s.x[j] = s.up[j]
		}
	}
	if !s.refactor() {
		return res, false
	}
	viol, target, origLo, origUp := -1, 0.0, 0.0, 0.0
	for _, j := range s.basis {
		v := s.x[j]
		below := v < s.lo[j]-feasTol*(1+math.Abs(s.lo[j]))
		above := v > s.up[j]+feasTol*(1+math.Abs(s.up[j]))
		if !below && !above {
			continue
		}
		if viol >= 0 {
			return res, false
		}
		viol, origLo, origUp = j, s.lo[j], s.up[j]
		if below {
			target = s.lo[j]
			s.lo[j], s.up[j], s.c[j] = v, target, -1
		} else {
			target = s.up[j]
			s.lo[j], s.up[j], s.c[j] = target, v, 1
		}
	}
	if viol >= 0 {
		if st := s.run(true); st != Optimal {
			if st == TimeLimit {
				return lpResult{status: st, iters: s.iters}, true
			}
			return res, false
		}
		if math.Abs(s.x[viol]-target) > feasTol*(1+math.Abs(target)) {
			return lpResult{status: Infeasible, iters: s.iters}, true
		}
		s.x[viol] = target
		s.lo[viol], s.up[viol], s.c[viol] = origLo, origUp, 0
	}
	return s.phase2(), true
}

// solveCold starts from the all-logical basis with artificials where the
// starting point violates a row, and runs phase 1 on them.
func (s *simplex) solveCold() lpResult {
	p := s.p
	for j := 0; j < s.n; j++ {
		s.pos[j] = -1
		switch {
		case !math.IsInf(s.lo[j], -1):
			s.x[j] = s.lo[j]
		case !math.IsInf(s.up[j], 1):
			s.x[j] = s.up[j]
		}
	}
	// Row activities at the starting point.
	w := make([]float64, s.m)
	for j := 0; j < s.n; j++ {
		if s.x[j] != 0 {
			for k := p.a.start[j]; k < p.a.start[j+1]; k++ {
				w[p.a.index[k]] += p.a.value[k] * s.x[j]
			}
		}
	}
	needPhase1 := false
	for i := 0; i < s.m; i++ {
		r, a := s.n+i, s.n+s.m+i
		s.sign[i] = 1
		lo, up := s.lo[r], s.up[r]
		if w[i] >= lo-feasTol*(1+math.Abs(lo)) && w[i] <= up+feasTol*(1+math.Abs(up)) {
			s.basis[i], s.pos[r], s.pos[a] = r, i, -1
			s.x[r] = w[i]
			s.binv[i*s.m+i] = -1
			continue
		}
		v := lo
		if w[i] > up {
			v = up
		}
		s.x[r], s.pos[r] = v, -1
		if v < w[i] {
			s.sign[i] = -1
		}
		s.basis[i], s.pos[a] = a, i
		s.x[a] = math.Abs(v - w[i])
		s.up[a] = Inf
		s.c[a] = 1
		s.binv[i*s.m+i] = s.sign[i]
		needPhase1 = true
	}
	if needPhase1 {
		if st := s.run(true); st != Optimal {
			return lpResult{status: st, iters: s.iters}
		}
		sum := 0.0
		for i := 0; i < s.m; i++ {
			sum += s.x[s.n+s.m+i]
		}
		if sum > phase1Tol {
			return lpResult{status: Infeasible, iters: s.iters}
		}
	}
	for i := 0; i < s.m; i++ {
		a := s.n + s.m + i
		s.up[a], s.c[a] = 0, 0
	}
	return s.phase2()
}

// phase2 optimises the real cost from a primal feasible basis and packs the
// result, including the basis for warm starts.
func (s *simplex) phase2() lpResult {
	clear(s.c)
	copy(s.c, s.p.cost)
	if st := s.run(false); st != Optimal {
		return lpResult{status: st, iters: s.iters}
	}
	res := lpResult{status: Optimal, iters: s.iters}
	res.x = append([]float64(nil), s.x[:s.n]...)
	res.y = append([]float64(nil), s.y...)
	res.d = make([]float64, s.n)
	for j := 0; j < s.n; j++ {
		res.d[j] = s.c[j] - s.colDot(s.y, j)
		res.obj += s.c[j] * s.x[j]
	}
	res.warm = &warmStart{basis: append([]int(nil), s.basis...), sign: append([]float64(nil), s.sign...), atUpper: make([]bool, s.nt)}
	for j := 0; j < s.nt; j++ {
		res.warm.atUpper[j] = s.pos[j] < 0 && !math.IsInf(s.up[j], 1) && s.x[j] == s.up[j] && s.lo[j] != s.up[j]
	}
	return res
}

// colDot returns v·a_j for variable j's column.
func (s *simplex) colDot(v []float64, j int) float64 {
	switch {
	case j < s.n:
		t := 0.0
		for k := s.p.a.start[j]; k < s.p.a.start[j+1]; k++ {
			t += v[s.p.a.index[k]] * s.p.a.value[k]
		}
		return t
	case j < s.n+s.m:
		return -v[j-s.n]
	default:
		i := j - s.n - s.m
		return s.sign[i] * v[i]
	}
}

// ftran sets s.alpha = B⁻¹·a_j.
func (s *simplex) ftran(j int) {
	m := s.m
	clear(s.alpha)
	add := func(row int, val float64) {
		for i := 0; i < m; i++ {
			s.alpha[i] += s.binv[i*m+row] * val
		}
	}
	switch {
	case j < s.n:
		for k := s.p.a.start[j]; k < s.p.a.start[j+1]; k++ {
			add(int(s.p.a.index[k]), s.p.a.value[k])
		}
	case j < s.n+s.m:
		add(j-s.n, -1)
	default:
		i := j - s.n - s.m
		add(i, s.sign[i])
	}
}

// computeDuals sets s.y = c_Bᵀ·B⁻¹.
func (s *simplex) computeDuals() {
	m := s.m
	clear(s.y)
	for r := 0; r < m; r++ {
		cb := s.c[s.basis[r]]
		if cb == 0 {
			continue
		}
		row := s.binv[r*m : (r+1)*m]
		for k, v := range row {
			s.y[k] += cb * v
		}
	}
}

// refactor rebuilds B⁻¹ from the basis columns and recomputes the basic
// values from the nonbasic ones. It reports false for a singular basis.
func (s *simplex) refactor() bool {
	m := s.m
	s.since = 0
	if m == 0 {
		return true
	}
	b := mat.NewDense(m, m, nil)
	for r, j := range s.basis {
		switch {
		case j < s.n:
			for k := s.p.a.start[j]; k < s.p.a.start[j+1]; k++ {
				b.Set(int(s.p.a.index[k]), r, s.p.a.value[k])
			}
		case j < s.n+s.m:
			b.Set(j-s.n, r, -1)
		default:
			i := j - s.n - s.m
			b.Set(i, r, s.sign[i])
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(b); err != nil {
		return false
	}
	copy(s.binv, inv.RawMatrix().Data)
	// x_B = −B⁻¹·Σ_{nonbasic} a_j x_j.
	clear(s.work)
	for j := 0; j < s.nt; j++ {
		if s.pos[j] >= 0 || s.x[j] == 0 {
			continue
		}
		switch {
		case j < s.n:
			for k := s.p.a.start[j]; k < s.p.a.start[j+1]; k++ {
				s.work[s.p.a.index[k]] += s.p.a.value[k] * s.x[j]
			}
		case j < s.n+s.m:
			s.work[j-s.n] -= s.x[j]
		default:
			i := j - s.n - s.m
			s.work[i] += s.sign[i] * s.x[j]
		}
	}
	for r := 0; r < m; r++ {
		t := 0.0
		row := s.binv[r*m : (r+1)*m]
		for k, v := range row {
			t += v * s.work[k]
		}
		s.x[s.basis[r]] = -t
	}
	return true
}

// pivot replaces the variable basic in position r by q (s.alpha = B⁻¹a_q).
func (s *simplex) pivot(r, q int) {
	m := s.m
	piv := s.alpha[r]
	rowR := s.binv[r*m : (r+1)*m]
	for k := range rowR {
		rowR[k] /= piv
	}
	for i := 0; i < m; i++ {
		if i == r || s.alpha[i] == 0 {
			continue
		}
		f := s.alpha[i]
		row := s.binv[i*m : (i+1)*m]
		for k, v := range rowR {
			row[k] -= f * v
		}
	}
	s.pos[s.basis[r]] = -1
	s.basis[r], s.pos[q] = q, r
	s.since++
}

// stopped reports whether the context or deadline ends the solve.
func (s *simplex) stopped() bool {
	if s.ctx.Err() != nil {
		return true
	}
	return !s.dl.IsZero() && time.Now().After(s.dl)
}

// run iterates the current phase to optimality. phase1 only changes which
// variables may enter (artificials that left stay out).
func (s *simplex) run(phase1 bool) Status {
	if !s.refactor() {
		return Failed
	}
	verified := false
	for {
		if s.iters >= s.maxIt {
			return Failed
		}
		if s.iters%32 == 0 && s.stopped() {
			return TimeLimit
		}
		if s.since >= refactorEvery && !s.refactor() {
			return Failed
		}
		s.computeDuals()
		q, dir := s.chooseEntering()
		if q < 0 {
			if verified || s.since == 0 {
				return Optimal
			}
			// Confirm optimality on a fresh factorisation.
			if !s.refactor() {
				return Failed
			}
			verified = true
			continue
		}
		verified = false
		s.ftran(q)
		r, theta, flip := s.ratioTest(q, dir)
		if math.IsInf(theta, 1) {
			if phase1 {
				// Cannot happen: the phase-1 objective is bounded below.
				return Failed
			}
			return Unbounded
		}
		s.iters++
		if theta <= tieTol {
			s.degen++
			if s.degen > degenerateStreak {
				s.bland = true
			}
		} else {
			s.degen, s.bland = 0, false
		}
		s.x[q] += dir * theta
		for i := 0; i < s.m; i++ {
			if s.alpha[i] != 0 {
				s.x[s.basis[i]] -= dir * s.alpha[i] * theta
			}
		}
		if flip {
			if dir > 0 {
				s.x[q] = s.up[q]
			} else {
				s.x[q] = s.lo[q]
			}
			continue
		}
		leave := s.basis[r]
		// Snap the leaving variable onto the bound it reached.
		if -dir*s.alpha[r] < 0 {
			s.x[leave] = s.lo[leave]
		} else {
			s.x[leave] = s.up[leave]
		}
		if phase1 && leave >= s.n+s.m {
			s.up[leave], s.x[leave] = 0, 0
		}
		s.pivot(r, q)
	}
}

// chooseEntering picks a nonbasic variable whose reduced cost improves the
// objective and that has room to move. dir is +1 to increase the variable,
// −1 to decrease it. Normally it uses partial Dantzig pricing: the
// variables are scanned in segments of priceSegment(), cyclically from where
// the last scan stopped, and the largest |d_j| of the first segment holding
// any candidate wins (ties to the smaller index). In Bland mode it returns
// the smallest eligible index. Optimality is declared only after a full
// cycle finds no candidate.
func (s *simplex) chooseEntering() (q int, dir float64) {
	eligible := func(j int) (float64, float64) {
		if s.pos[j] >= 0 || s.lo[j] == s.up[j] {
			return 0, 0
		}
		d := s.c[j] - s.colDot(s.y, j)
		switch {
		case d < -optTol && s.x[j] < s.up[j]:
			return 1, -d
		case d > optTol && s.x[j] > s.lo[j]:
			return -1, d
		}
		return 0, 0
	}
	if s.bland {
		for j := 0; j < s.nt; j++ {
			if dj, _ := eligible(j); dj != 0 {
				return j, dj
			}
		}
		return -1, 0
	}
	seg := s.priceSegment()
	q, best := -1, 0.0
	start := s.priceStart
	for scanned := 0; scanned < s.nt; {
		end := min(start+seg, s.nt)
		for j := start; j < end; j++ {
			if dj, score := eligible(j); dj != 0 && score > best {
				q, dir, best = j, dj, score
			}
		}
		scanned += end - start
		start = end % s.nt
		if q >= 0 {
			break
		}
	}
	s.priceStart = start
	return q, dir
}

// priceSegment is the partial-pricing segment length: all variables for
// small problems, an eighth of them (at least 1000) for large ones.
func (s *simplex) priceSegment() int {
	return max(1000, s.nt/8)
}

// ratioTest finds the step theta along direction dir of variable q and the
// blocking basis position r; flip reports that q reaches its own opposite
// bound first (no basis change). theta is +Inf when nothing blocks.
func (s *simplex) ratioTest(q int, dir float64) (r int, theta float64, flip bool) {
	r, theta = -1, math.Inf(1)
	bestPiv := 0.0
	for i := 0; i < s.m; i++ {
		a := s.alpha[i]
		if math.Abs(a) <= pivTol {
			continue
		}
		b := s.basis[i]
		rate := -dir * a
		var t float64
		if rate < 0 {
			if math.IsInf(s.lo[b], -1) {
				continue
			}
			t = (s.x[b] - s.lo[b]) / -rate
		} else {
			if math.IsInf(s.up[b], 1) {
				continue
			}
			t = (s.up[b] - s.x[b]) / rate
		}
		t = max(t, 0)
		switch {
		case r < 0 || t < theta-tieTol:
			r, theta, bestPiv = i, t, math.Abs(a)
		case t <= theta+tieTol:
			better := math.Abs(a) > bestPiv
			if s.bland {
				better = b < s.basis[r]
			}
			if better {
				r, theta, bestPiv = i, min(t, theta), math.Abs(a)
			}
		}
	}
	if span := s.up[q] - s.lo[q]; span <= theta {
		return -1, span, true
	}
	return r, theta, false
}
