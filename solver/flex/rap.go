package flex

import (
	"math"
)

// This file holds the separable resource allocation problems (RAP) behind
// the generic ordering. The moldable relaxation gives job j a fixed number
// of slots s_j for its whole run, so it completes at T0 + W_j/s_j with
// penalty F_j(s_j) = f_j(T0 + W_j/s_j). The RAP is
//
//	minimise Σ_j F_j(s_j)   (minisum)   or   max_j F_j(s_j)   (minimax)
//	subject to Σ_j s_j ≤ S,  l_j ≤ s_j ≤ u_j, s_j integer.
//
// Every F_j is non-increasing in s. F_j(0) = +Inf (a job with no slot never
// completes), which keeps the convex cases convex.
//
// Convexity: for weighted response time, stretch, makespan, lateness and
// tardiness, f_j is convex and non-decreasing in C and C = T0 + W/s is
// convex in s, so F_j = f_j∘C is convex (composition rule). Tardiness is
// therefore convex too, although the paper lists it with the non-convex
// metrics; tardy jobs and SLA steps are step functions and are not.

// rapProblem is one RAP instance.
type rapProblem struct {
	lo, hi []int
	budget int
	f      func(j, s int) float64
	// gain, when set, holds c_j with F_j(s) − F_j(s+1) = c_j/(s(s+1))
	// (linear penalties: c_j = slope·work), for the warm start.
	gain []float64
}

// rapFromInstance builds the moldable RAP of an instance. The lower bound
// of a job with minimum 0 is 0 (F = +Inf there).
func (in *Instance) rapProblem() *rapProblem {
	n := len(in.Jobs)
	r := &rapProblem{lo: make([]int, n), hi: make([]int, n), budget: in.S}
	for j, jb := range in.Jobs {
		r.lo[j] = jb.Min
		r.hi[j] = jb.Max
	}
	r.f = func(j, s int) float64 {
		if s <= 0 {
			return math.Inf(1)
		}
		return in.Penalty(j, in.T0+in.Jobs[j].Work/float64(s))
	}
	r.gain = make([]float64, n)
	for j := range in.Jobs {
		a, _, ok := in.linear(j)
		if !ok {
			r.gain = nil
			break
		}
		r.gain[j] = a * in.Jobs[j].Work
	}
	return r
}

// rapConvex reports whether every job's F_j is convex (by metric, see the
// file comment).
func (in *Instance) rapConvex() bool {
	for _, j := range in.Jobs {
		if j.Metric == Tardy || j.Metric == SLA {
			return false
		}
	}
	return true
}

// rapConvexSum solves a minisum RAP with convex F_j exactly by greedy
// marginal allocation (Fox 1966): repeatedly give one slot to the job whose
// penalty drops most, ties to the lower index, stopping when no slot
// helps. For separable convex objectives under one budget constraint the
// greedy is exact. O(J + B log J) for B = the slots handed out.
func rapConvexSum(r *rapProblem) []int {
	n := len(r.lo)
	s := append([]int(nil), r.lo...)
	left := r.budget
	for _, v := range s {
		left -= v
	}
	if left > 2*n {
		// A job with no slot has F = +Inf, so the greedy's first steps give
		// each such job one slot in index order; do them in one go.
		zero := 0
		for _, v := range s {
			if v <= 0 {
				zero++
			}
		}
		if zero > 0 && zero <= left {
			for j, v := range s {
				if v <= 0 && r.hi[j] >= 1 {
					s[j] = 1
					left--
				}
			}
		}
		if left > 2*n {
			left -= warmStart(r, s, left)
		}
	}
	return greedyFrom(r, s, left)
}

// warmStart hands out, in one go, every increment whose gain is at least a
// threshold θ > 0 chosen by bisection so that they fit in left: the greedy
// takes exactly those increments first (gains are non-increasing per job by
// convexity), so continuing the greedy from there gives the same
// allocation in O(J log S) per bisection step instead of O(log J) per slot.
// It returns the slots handed out (0 when some lower bound is 0: F = +Inf
// there and the plain greedy handles it).
func warmStart(r *rapProblem, s []int, left int) int {
	w := warm{r: r, s: s, n: len(r.lo), left: left}
	gmax, ok := w.maxFirstGain()
	if !ok {
		return 0
	}
	hi := w.threshold(gmax)
	ks := make([]int, w.n)
	used := 0
	for j := 0; j < w.n; j++ {
		ks[j] = w.count(j, hi)
		used += ks[j]
	}
	if excess := used - left; excess > 0 {
		if excess > w.n {
			return 0 // the closed form misjudged θ; the plain greedy is exact
		}
		used -= w.giveBack(ks, excess)
	}
	for j := 0; j < w.n; j++ {
		s[j] += ks[j]
	}
	return used
}

// warm is warmStart's problem: allocation s of n jobs and left slots to
// hand out.
type warm struct {
	r    *rapProblem
	s    []int
	n    int
	left int
}

// gain is job j's gain from its k-th increment over s[j].
func (w *warm) gain(j, k int) float64 {
	v := w.s[j] + k - 1
	return w.r.f(j, v) - w.r.f(j, v+1)
}

// maxFirstGain is the largest first-increment gain; false when some job's
// allocation is 0 or the gain is not positive and finite.
func (w *warm) maxFirstGain() (float64, bool) {
	gmax := 0.0
	for j := 0; j < w.n; j++ {
		if w.s[j] <= 0 {
			return 0, false
		}
		if w.s[j] < w.r.hi[j] {
			gmax = math.Max(gmax, w.gain(j, 1))
		}
	}
	return gmax, gmax > 0 && !math.IsInf(gmax, 0)
}

// exactCount is the largest k ≤ hi−s with gain ≥ θ for all increments up
// to k, by bisection on f.
func (w *warm) exactCount(j int, theta float64) int {
	a, b := 0, w.r.hi[j]-w.s[j]
	for a < b {
		m := (a + b + 1) / 2
		if w.gain(j, m) >= theta {
			a = m
		} else {
			b = m - 1
		}
	}
	return a
}

// approxCount is exactCount, or for linear penalties its closed form:
// gain(s) = c_j/(s(s+1)), so the increments with gain ≥ θ are those with
// s(s+1) ≤ c_j/θ. It is used to locate θ.
func (w *warm) approxCount(j int, theta float64) int {
	if w.r.gain == nil {
		return w.exactCount(j, theta)
	}
	c := w.r.gain[j] / theta
	top := math.Floor((-1 + math.Sqrt(1+4*c)) / 2)
	k := int(math.Min(top, float64(w.r.hi[j]))) - w.s[j] + 1
	return max(0, min(k, w.r.hi[j]-w.s[j]))
}

// count is exactCount; for linear penalties, the closed form re-checked
// against f, with bisection when the gains are not monotone there.
func (w *warm) count(j int, theta float64) int {
	if w.r.gain == nil {
		return w.exactCount(j, theta)
	}
	k := w.approxCount(j, theta)
	room := w.r.hi[j] - w.s[j]
	for k < room && w.gain(j, k+1) >= theta {
		k++
	}
	for k > 0 && w.gain(j, k) < theta {
		k--
	}
	if k > 0 && k < room && w.gain(j, k) < theta {
		return w.exactCount(j, theta)
	}
	return k
}

// total is how many increments have gain ≥ θ (by approxCount), stopping
// once past left.
func (w *warm) total(theta float64) int {
	c := 0
	for j := 0; j < w.n; j++ {
		c += w.approxCount(j, theta)
		if c > w.left {
			return c
		}
	}
	return c
}

// threshold is θ: bracketed between the smallest last-increment gain
// (everything is handed out) and twice the largest first gain gmax
// (nothing is), then bisected geometrically (gains span many orders of
// magnitude) until the increments above it fit in left with at most n
// greedy steps to go.
func (w *warm) threshold(gmax float64) float64 {
	gmin := math.Inf(1)
	for j := 0; j < w.n; j++ {
		if w.s[j] < w.r.hi[j] {
			if g := w.r.f(j, w.r.hi[j]-1) - w.r.f(j, w.r.hi[j]); g > 0 {
				gmin = math.Min(gmin, g)
			}
		}
	}
	lo, hi := gmin/2, gmax*2 // total(hi) = 0 ≤ left
	if !(lo > 0) || math.IsInf(lo, 0) || w.total(lo) <= w.left {
		lo = 0
	}
	for it := 0; it < 200; it++ {
		mid := (lo + hi) / 2
		if lo > 0 {
			mid = math.Sqrt(lo) * math.Sqrt(hi)
		}
		if mid <= lo || mid >= hi {
			break
		}
		c := w.total(mid)
		if c <= w.left {
			hi = mid
			if c >= w.left-w.n {
				break // at most n greedy steps remain
			}
		} else {
			lo = mid
		}
	}
	return hi
}

// giveBack takes excess increments back from the counts ks and returns how
// many. The counts come from penalty differences: near θ their float noise
// (about ulp(F)/gain, 1e-8 relative for F ≈ 10 and a gain of 1e-7) can
// admit an increment or two per job beyond the budget. It gives back the
// increments with the smallest last gain, the greedy's order reversed
// (equal gains: the higher index first), so the counts stay a greedy
// prefix. Giving up here instead left the greedy a billion single steps
// for S = 1e9.
func (w *warm) giveBack(ks []int, excess int) int {
	n := w.n
	h := newHeap(n)
	for j := 0; j < n; j++ {
		if ks[j] > 0 {
			h.set(j, w.gain(j, ks[j]), n-j)
		}
	}
	for k := 0; k < excess; k++ {
		j, _, _ := h.pop()
		ks[j]--
		if ks[j] > 0 {
			h.set(j, w.gain(j, ks[j]), n-j)
		}
	}
	return excess
}

// greedyFrom continues the marginal greedy from allocation s with left
// slots to hand out.
func greedyFrom(r *rapProblem, s []int, left int) []int {
	return heapFill(r, s, left, func(j int) (float64, bool) {
		g := r.f(j, s[j]) - r.f(j, s[j]+1)
		return g, g > 0
	})
}

// heapFill hands out left slots one at a time to the job with the largest
// priority (ties to the lower index), recomputing that job's priority after
// each slot. priority(j) reports whether job j may take another slot at all;
// jobs at their maximum are never offered one.
func heapFill(r *rapProblem, s []int, left int, priority func(j int) (float64, bool)) []int {
	n := len(r.lo)
	h := newHeap(n)
	push := func(j int) {
		if s[j] < r.hi[j] {
			if v, ok := priority(j); ok {
				h.set(j, -v, j)
			}
		}
	}
	for j := 0; j < n; j++ {
		push(j)
	}
	for left > 0 {
		j, _, ok := h.pop()
		if !ok {
			break
		}
		s[j]++
		left--
		push(j)
	}
	return s
}

// rapMinimax solves a minimax RAP with non-increasing F_j exactly: it
// repeatedly gives one slot to the job with the largest current penalty
// that can still grow (ties to the lower index). Reducing the maximum
// needs a slot for the job attaining it, so the greedy's value is optimal;
// slots left once the maximum is stuck go on to the next-largest penalties,
// which never hurts. (The paper's transform to the minisum of
// G_j(s) = Σ_{i≤s} F_j(i) does not work: with F_j non-increasing, G_j is
// concave; see TestPaperMinimaxTransform.)
func rapMinimax(r *rapProblem) []int {
	n := len(r.lo)
	s := append([]int(nil), r.lo...)
	left := r.budget
	for _, v := range s {
		left -= v
	}
	if left > minimaxGreedyFactor*n {
		left = minimaxWarmStart(r, s, left)
		left = min(left, minimaxGreedyFactor*n)
	}
	return heapFill(r, s, left, func(j int) (float64, bool) {
		v := r.f(j, s[j])
		if math.IsInf(v, 1) {
			v = math.MaxFloat64
		}
		return v, true
	})
}

// minimaxGreedyFactor: with more than this many spare slots per job the
// minimax greedy first jumps to the optimal value by bisection
// (minimaxWarmStart) and then hands out at most this many slots per job
// one by one; slots beyond that stay unassigned, which changes no penalty
// that matters for the minimax value and keeps huge S cheap.
const minimaxGreedyFactor = 64

// minimaxWarmStart sets s to the fewest slots that bring every job's
// penalty down to z, for the smallest z (found by bisection on the value)
// whose allocation fits; it returns the slots still left. That z is the
// minimax optimum: no allocation within the budget has a smaller maximum.
func minimaxWarmStart(r *rapProblem, s []int, left int) int {
	n := len(r.lo)
	need := func(j int, z float64) int {
		// Smallest v in [s_j, hi_j] with F_j(v) ≤ z (F non-increasing), or
		// hi_j when none.
		a, b := s[j], r.hi[j]
		for a < b {
			m := (a + b) / 2
			if r.f(j, m) <= z {
				b = m
			} else {
				a = m + 1
			}
		}
		return a
	}
	fits := func(z float64) bool {
		c := 0
		for j := 0; j < n; j++ {
			c += need(j, z) - s[j]
			if c > left {
				return false
			}
		}
		return true
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for j := 0; j < n; j++ {
		lo = math.Min(lo, r.f(j, r.hi[j]))
		if v := r.f(j, s[j]); !math.IsInf(v, 1) {
			hi = math.Max(hi, v)
		} else {
			hi = math.Max(hi, r.f(j, max(1, s[j])))
		}
	}
	if !fits(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return left
	}
	for it := 0; it < 100 && lo < hi; it++ {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if fits(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	for j := 0; j < n; j++ {
		v := need(j, hi)
		left -= v - s[j]
		s[j] = v
	}
	return left
}

// DPMaxCells caps the minisum DP table (jobs × spare slots) so a huge
// non-convex instance falls back to the greedy instead of exhausting
// memory: 4e6 int32 cells are 16 MB and a few tens of milliseconds.
const DPMaxCells = 4_000_000

// rapDPSum solves a minisum RAP with arbitrary non-increasing F_j exactly
// by dynamic programming over the spare slots (the paper's O(J·S²) DP; only
// the slot counts where F_j drops are tried, which makes step penalties
// O(J·S·steps)). ok is false when the table would exceed DPMaxCells.
func rapDPSum(r *rapProblem) (s []int, ok bool) {
	n := len(r.lo)
	spare := r.budget
	for _, v := range r.lo {
		spare -= v
	}
	if spare < 0 {
		return nil, false
	}
	if int64(n)*int64(spare+1) > DPMaxCells {
		return nil, false
	}
	cands := make([][]int, n)
	for j := 0; j < n; j++ {
		c := []int{r.lo[j]}
		prev := r.f(j, r.lo[j])
		top := min(r.hi[j], r.lo[j]+spare)
		for v := r.lo[j] + 1; v <= top; v++ {
			fv := r.f(j, v)
			if fv < prev {
				c = append(c, v)
				prev = fv
			}
		}
		cands[j] = c
	}
	inf := math.Inf(1)
	cur := make([]float64, spare+1)
	nxt := make([]float64, spare+1)
	for b := range cur {
		cur[b] = inf
	}
	cur[0] = 0
	choice := make([]int32, n*(spare+1))
	for j := 0; j < n; j++ {
		for b := range nxt {
			nxt[b] = inf
		}
		row := choice[j*(spare+1) : (j+1)*(spare+1)]
		for b := 0; b <= spare; b++ {
			if math.IsInf(cur[b], 1) {
				continue
			}
			for _, v := range cands[j] {
				e := v - r.lo[j]
				if b+e > spare {
					break
				}
				val := cur[b] + finiteCost(r.f(j, v))
				// Strict improvement keeps the smallest previous budget
				// and the fewest slots: a deterministic tie-break.
				if val < nxt[b+e] {
					nxt[b+e] = val
					row[b+e] = int32(v)
				}
			}
		}
		cur, nxt = nxt, cur
	}
	best := 0
	for b := 1; b <= spare; b++ {
		if cur[b] < cur[best] {
			best = b
		}
	}
	s = make([]int, n)
	b := best
	for j := n - 1; j >= 0; j-- {
		v := int(choice[j*(spare+1)+b])
		if v < r.lo[j] {
			v = r.lo[j]
		}
		s[j] = v
		b -= v - r.lo[j]
	}
	return s, true
}

// neverCost stands in for +Inf (a job with no slot) inside the DP so sums
// stay ordered: 1e250 times at most 1e5 jobs is still finite.
const neverCost = 1e250

func finiteCost(v float64) float64 { return math.Min(v, neverCost) }

// rapValue is the RAP objective of allocation s.
func rapValue(r *rapProblem, s []int, agg Aggregate) float64 {
	v := 0.0
	if agg == Max {
		v = math.Inf(-1)
	}
	for j := range s {
		f := r.f(j, s[j])
		if agg == Max {
			v = math.Max(v, f)
		} else {
			v += f
		}
	}
	return v
}

// rapSolve picks the solver for the instance and returns the allocation
// and the method's name ("greedy", "dp", "minimax", or "greedy-fallback"
// when the DP would be too large; only the last is not exact).
func (in *Instance) rapSolve() ([]int, string) {
	r := in.rapProblem()
	if in.Agg == Max {
		return rapMinimax(r), "minimax"
	}
	if in.rapConvex() {
		return rapConvexSum(r), "greedy"
	}
	if s, ok := rapDPSum(r); ok {
		return s, "dp"
	}
	return rapConvexSum(r), "greedy-fallback"
}

// rapOrdering orders jobs by their moldable completion time T0 + W_j/s_j
// under the RAP allocation (ties: lower index; jobs with no slot last).
func (in *Instance) rapOrdering(s []int) []int {
	n := len(in.Jobs)
	c := make([]float64, n)
	for j := range c {
		if s[j] <= 0 {
			c[j] = math.Inf(1)
		} else {
			c[j] = in.Jobs[j].Work / float64(s[j])
		}
	}
	return orderByKeys(c, nil)
}

func identity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}
