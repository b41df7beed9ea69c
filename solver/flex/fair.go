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

// levelTol: a job whose maximum is within this relative distance of the
// level counts as at its maximum (λ is a quotient of integers, exact to
// ~1e-16 relative).
const levelTol = 1e-12

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

func (in *Instance) fairFast() ([]float64, []int) {
	n := len(in.Jobs)
	rank := make([]int, n)
	for k, j := range in.arrivalOrder() {
		rank[j] = k
	}
	comp := make([]float64, n)
	order := make([]int, 0, n)
	state := make([]int, n)
	rem := make([]float64, n)
	tl := make([]float64, n)
	rate := make([]float64, n)
	P := make([]float64, n)
	low, byM, byP, fixed := newHeap(n), newHeap(n), newHeap(n), newHeap(n)
	t, Lam, lambda := in.T0, 0.0, 0.0
	A, L := 0.0, 0 // A: slots held by jobs at their minimum or maximum
	S := float64(in.S)
	for j := 0; j < n; j++ {
		jb := in.Jobs[j]
		rem[j], tl[j], rate[j] = jb.Work, t, float64(jb.Min)
		A += rate[j]
		low.add(j, float64(jb.Min), rank[j])
		if jb.Min > 0 {
			fixed.add(j, t+jb.Work/rate[j], rank[j])
		}
	}
	low.heapify()
	fixed.heapify()
	toLevel := func(j int) {
		rem[j] -= rate[j] * (t - tl[j])
		low.remove(j)
		fixed.remove(j)
		A -= rate[j]
		L++
		state[j] = fsLevel
		P[j] = Lam + rem[j]
		byM.set(j, float64(in.Jobs[j].Max), rank[j])
		byP.set(j, P[j], rank[j])
	}
	toHigh := func(j int) {
		rem[j] = P[j] - Lam
		byM.remove(j)
		byP.remove(j)
		L--
		state[j] = fsHigh
		rate[j], tl[j] = float64(in.Jobs[j].Max), t
		A += rate[j]
		fixed.set(j, t+rem[j]/rate[j], rank[j])
	}
	rebalance := func() {
		for {
			if L == 0 {
				j, ok := low.top()
				if !ok || S-A <= 0 {
					return
				}
				toLevel(j)
				continue
			}
			lambda = (S - A) / float64(L)
			// Join first (it lowers λ), then leave at the maximum (it
			// raises λ only once no minimum lies below it).
			if j, ok := low.top(); ok && float64(in.Jobs[j].Min) < lambda {
				toLevel(j)
				continue
			}
			if j, ok := byM.top(); ok && float64(in.Jobs[j].Max) <= lambda*(1+levelTol) {
				toHigh(j)
				continue
			}
			return
		}
	}
	rebalance()
	for len(order) < n {
		best, bt := -1, math.Inf(1)
		if j, ok := fixed.top(); ok {
			best, bt = j, fixed.keyOf(j)
		}
		if j, ok := byP.top(); ok && lambda > 0 {
			ft := t + (P[j]-Lam)/lambda
			if ft < bt || (ft == bt && rank[j] < rank[best]) {
				best, bt = j, ft
			}
		}
		if best < 0 {
			for j := 0; j < n; j++ {
				if state[j] != fsDone {
					comp[j] = math.Inf(1)
				}
			}
			return comp, order
		}
		if bt < t {
			bt = t
		}
		if L > 0 {
			Lam += lambda * (bt - t)
		}
		t = bt
		switch state[best] {
		case fsLevel:
			byM.remove(best)
			byP.remove(best)
			L--
		default:
			fixed.remove(best)
			low.remove(best)
			A -= rate[best]
		}
		state[best] = fsDone
		comp[best] = t
		order = append(order, best)
		rebalance()
	}
	return comp, order
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
