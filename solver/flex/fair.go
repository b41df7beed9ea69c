package flex

import (
	"math"
	"sort"
)

// This file is the Fair baseline (the Hadoop Fair Scheduler's allocation
// layer): every active job gets its minimum, the slack is water-filled up
// to the maxima, and the allocation is recomputed at each completion.
//
// The water level λ solves Σ_j clamp(λ, m_j, M_j) = S over the active jobs
// (every job at its maximum when Σ M_j ≤ S). λ is real: the fair share of
// HFS is fractional, and each interval's fractional rates are laid out in
// integer slots by McNaughton's wrap-around (see mcnaughton), which keeps
// every job within ⌊rate⌋..⌈rate⌉ ⊆ [m_j, M_j] and its completion time
// unchanged. Jobs finishing at the same time leave one at a time in
// arrival order.
//
// fairFast runs in O(J log J): λ only rises as jobs leave, each job moves
// at most once from "at minimum" to "at the level" to "at maximum", and the
// jobs at the level all run at rate λ, so their order of completion is that
// of P_j = Λ(t_join) + rem_j(t_join) on the level clock Λ(t) = ∫ λ dt.
// fairReference recomputes everything at each completion (O(J² log J)) and
// lists the intervals; tests check the two agree.

// arrivalOrder is the FIFO order: by arrival time, ties by request index.
func (in *Instance) arrivalOrder() []int {
	k := make([]float64, len(in.Jobs))
	for j := range k {
		k[j] = in.Jobs[j].Arrival
	}
	return orderByKeys(k, nil)
}

// fair returns Fair's completion times, its completion order and, when
// limit != 0, its first limit intervals (limit < 0: all).
func (in *Instance) fair(limit int) (comp []float64, order []int, ivs []Interval) {
	comp, order = in.fairFast()
	if limit != 0 {
		_, _, ivs = in.fairReference(limit)
	}
	return comp, order, ivs
}

// Job states in fairFast.
const (
	fsLow   = iota // rate m_j (level below m_j)
	fsLevel        // rate λ
	fsHigh         // rate M_j
	fsDone
)

// fairFast simulates Fair event by event: at each step the next job to
// finish, at its fixed rate (minimum or maximum) or at the water level λ,
// completes, and the jobs are rebalanced between the three states.
func (in *Instance) fairFast() ([]float64, []int) {
	s := newFairSim(in)
	s.rebalance()
	for len(s.order) < s.n {
		best, bt := s.next()
		if best < 0 {
			for j := 0; j < s.n; j++ {
				if s.state[j] != fsDone {
					s.comp[j] = math.Inf(1)
				}
			}
			return s.comp, s.order
		}
		s.complete(best, bt)
		s.rebalance()
	}
	return s.comp, s.order
}

// fairSim is fairFast's state. A job at its minimum or maximum runs at a
// fixed rate and is in fixed by its finishing time (low also holds the
// jobs still below the level, by minimum); a job at the level λ is in byM
// by maximum and byP by its finishing point P on the cumulative level Lam.
type fairSim struct {
	in    *Instance
	n     int
	rank  []int // position in arrival order, for ties
	comp  []float64
	order []int
	state []int
	rem   []float64 // work left at time tl
	tl    []float64
	rate  []float64
	P     []float64

	low, byM, byP, fixed heap

	t, Lam, lambda float64
	A              float64 // slots held by jobs at their minimum or maximum
	L              int     // jobs at the level
	S              float64
}

// newFairSim starts every job at its minimum at T0.
func newFairSim(in *Instance) *fairSim {
	n := len(in.Jobs)
	s := &fairSim{in: in, n: n, rank: make([]int, n), comp: make([]float64, n), order: make([]int, 0, n),
		state: make([]int, n), rem: make([]float64, n), tl: make([]float64, n), rate: make([]float64, n), P: make([]float64, n),
		low: newHeap(n), byM: newHeap(n), byP: newHeap(n), fixed: newHeap(n), t: in.T0, S: float64(in.S)}
	for k, j := range in.arrivalOrder() {
		s.rank[j] = k
	}
	for j := 0; j < n; j++ {
		jb := in.Jobs[j]
		s.rem[j], s.tl[j], s.rate[j] = jb.Work, s.t, float64(jb.Min)
		s.A += s.rate[j]
		s.low.add(j, float64(jb.Min), s.rank[j])
		if jb.Min > 0 {
			s.fixed.add(j, s.t+jb.Work/s.rate[j], s.rank[j])
		}
	}
	s.low.heapify()
	s.fixed.heapify()
	return s
}

// toLevel moves job j from its minimum to the level.
func (s *fairSim) toLevel(j int) {
	s.rem[j] -= s.rate[j] * (s.t - s.tl[j])
	s.low.remove(j)
	s.fixed.remove(j)
	s.A -= s.rate[j]
	s.L++
	s.state[j] = fsLevel
	s.P[j] = s.Lam + s.rem[j]
	s.byM.set(j, float64(s.in.Jobs[j].Max), s.rank[j])
	s.byP.set(j, s.P[j], s.rank[j])
}

// toHigh moves job j from the level to its maximum.
func (s *fairSim) toHigh(j int) {
	s.rem[j] = s.P[j] - s.Lam
	s.byM.remove(j)
	s.byP.remove(j)
	s.L--
	s.state[j] = fsHigh
	s.rate[j], s.tl[j] = float64(s.in.Jobs[j].Max), s.t
	s.A += s.rate[j]
	s.fixed.set(j, s.t+s.rem[j]/s.rate[j], s.rank[j])
}

// rebalance moves jobs between their minimum, the level and their maximum
// until λ = (S − A)/L is consistent with every job's state.
func (s *fairSim) rebalance() {
	for {
		if s.L == 0 {
			j, ok := s.low.top()
			if !ok || s.S-s.A <= 0 {
				return
			}
			s.toLevel(j)
			continue
		}
		s.lambda = (s.S - s.A) / float64(s.L)
		// Join first (it lowers λ), then leave at the maximum (it
		// raises λ only once no minimum lies below it).
		if j, ok := s.low.top(); ok && float64(s.in.Jobs[j].Min) < s.lambda {
			s.toLevel(j)
			continue
		}
		if j, ok := s.byM.top(); ok && float64(s.in.Jobs[j].Max) <= s.lambda*(1+levelTol) {
			s.toHigh(j)
			continue
		}
		return
	}
}

// next is the job that finishes first and when (ties by arrival rank), or
// −1 when none can finish.
func (s *fairSim) next() (int, float64) {
	best, bt := -1, math.Inf(1)
	if j, ok := s.fixed.top(); ok {
		best, bt = j, s.fixed.keyOf(j)
	}
	if j, ok := s.byP.top(); ok && s.lambda > 0 {
		ft := s.t + (s.P[j]-s.Lam)/s.lambda
		if ft < bt || (ft == bt && s.rank[j] < s.rank[best]) {
			best, bt = j, ft
		}
	}
	return best, bt
}

// complete advances the clock to bt (not back) and completes job best.
func (s *fairSim) complete(best int, bt float64) {
	if bt < s.t {
		bt = s.t
	}
	if s.L > 0 {
		s.Lam += s.lambda * (bt - s.t)
	}
	s.t = bt
	switch s.state[best] {
	case fsLevel:
		s.byM.remove(best)
		s.byP.remove(best)
		s.L--
	default:
		s.fixed.remove(best)
		s.low.remove(best)
		s.A -= s.rate[best]
	}
	s.state[best] = fsDone
	s.comp[best] = s.t
	s.order = append(s.order, best)
}

// waterLevel solves Σ clamp(λ, m_j, M_j) = S for the given jobs by a sweep
// over the sorted breakpoints; +Inf when every job fits at its maximum.
func (in *Instance) waterLevel(jobs []int) float64 {
	type ev struct {
		p float64
		d int
	}
	var evs []ev
	g, sumMax := 0.0, 0.0
	for _, j := range jobs {
		m, M := float64(in.Jobs[j].Min), float64(in.Jobs[j].Max)
		g += m
		sumMax += M
		if m < M {
			evs = append(evs, ev{m, +1}, ev{M, -1})
		}
	}
	S := float64(in.S)
	if sumMax <= S {
		return math.Inf(1)
	}
	sort.Slice(evs, func(a, b int) bool { return evs[a].p < evs[b].p })
	cur, c := 0.0, 0
	for _, e := range evs {
		if c > 0 && g+float64(c)*(e.p-cur) >= S {
			return cur + (S-g)/float64(c)
		}
		g += float64(c) * (e.p - cur)
		cur = e.p
		c += e.d
	}
	return cur
}

// fairReference simulates Fair directly and lists up to limit intervals
// (limit < 0: all; the simulation stops after them when limit ≥ 0).
func (in *Instance) fairReference(limit int) (comp []float64, order []int, ivs []Interval) {
	n := len(in.Jobs)
	comp = make([]float64, n)
	rem := make([]float64, n)
	for j := range rem {
		rem[j] = in.Jobs[j].Work
		comp[j] = math.Inf(1)
	}
	act := in.arrivalOrder()
	x := make([]float64, n)
	t := in.T0
	for len(act) > 0 {
		lam := in.waterLevel(act)
		for _, j := range act {
			jb := in.Jobs[j]
			r := math.Max(float64(jb.Min), math.Min(lam, float64(jb.Max)))
			if float64(jb.Max) <= lam*(1+levelTol) {
				r = float64(jb.Max)
			}
			x[j] = r
		}
		best, bt := -1, math.Inf(1)
		for _, j := range act {
			if x[j] > 0 {
				if ft := t + rem[j]/x[j]; ft < bt {
					best, bt = j, ft
				}
			}
		}
		if best < 0 {
			return comp, order, ivs
		}
		if limit >= 0 && len(ivs) >= limit {
			return comp, order, ivs
		}
		if bt-t > TimeTol*math.Max(1, math.Abs(bt)) {
			rates := make([]float64, len(act))
			jobs := make([]int, len(act))
			for i, j := range act {
				jobs[i], rates[i] = j, x[j]
			}
			ivs = append(ivs, mcnaughton(t, bt, jobs, rates, in.S)...)
			if limit >= 0 && len(ivs) > limit {
				ivs = ivs[:limit]
			}
		}
		k := 0
		for _, j := range act {
			rem[j] -= x[j] * (bt - t)
			if j != best {
				act[k] = j
				k++
			}
		}
		act = act[:k]
		t = bt
		comp[best] = t
		order = append(order, best)
	}
	return comp, order, ivs
}
