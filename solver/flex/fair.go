package flex

import (
	"math"
	"sort"
)

// This file is the Fair baseline (the Hadoop Fair Scheduler's allocation
// layer): every active job gets its minimum, the slack is water-filled up
// to the maxima, and the allocation is recomputed at each completion.
//
// With integer slots the water level λ is the largest integer with
// Σ_j clamp(λ, m_j, M_j) ≤ S; the r < (number of jobs at the level that can
// still grow) slots left over go one each to those jobs in arrival order.
// Jobs finishing at the same time leave one per interval in arrival order.

// arrivalOrder is the FIFO order: by arrival time, ties by request index.
func (in *Instance) arrivalOrder() []int {
	ord := identity(len(in.Jobs))
	sort.SliceStable(ord, func(a, b int) bool { return in.Jobs[ord[a]].Arrival < in.Jobs[ord[b]].Arrival })
	return ord
}

// fair simulates the Fair baseline and returns completion times, the
// completion order and, when limit != 0, up to limit intervals (limit < 0:
// all). O(J²): each completion rescans the active jobs.
func (in *Instance) fair(limit int) (comp []float64, order []int, ivs []Interval) {
	n := len(in.Jobs)
	arr := in.arrivalOrder()
	comp = make([]float64, n)
	rem := make([]float64, n)
	rate := make([]int, n)
	active := make([]bool, n)
	for j := range rem {
		rem[j] = in.Jobs[j].Work
		active[j] = true
	}
	t := in.T0
	lambda := 0
	act := append([]int(nil), arr...) // active jobs in arrival order
	for left := n; left > 0; left-- {
		// Raise the level as far as the slots allow (λ never falls: jobs
		// only leave).
		for {
			f, c, nb := 0, 0, math.MaxInt
			for _, j := range act {
				m, M := in.Jobs[j].Min, in.Jobs[j].Max
				f += max(m, min(lambda, M))
				if m <= lambda && lambda < M {
					c++
				}
				if m > lambda && m < nb {
					nb = m
				}
				if M > lambda && M < nb {
					nb = M
				}
			}
			if c > 0 && f+c <= in.S {
				step := (in.S - f) / c
				if nb != math.MaxInt && nb-lambda < step {
					step = nb - lambda
				}
				lambda += step
				continue
			}
			if c == 0 && nb != math.MaxInt && f <= in.S {
				// Flat until the next breakpoint: a job whose minimum is
				// above the level joins it there.
				lambda = nb
				if lambda > in.S {
					lambda = in.S
					break
				}
				continue
			}
			// Hand the r leftover slots to level jobs in arrival order.
			r := in.S - f
			for _, j := range act {
				m, M := in.Jobs[j].Min, in.Jobs[j].Max
				rate[j] = max(m, min(lambda, M))
				if r > 0 && m <= lambda && lambda < M {
					rate[j]++
					r--
				}
			}
			break
		}
		// Next completion: smallest finish time, ties in arrival order.
		best, bt := -1, math.Inf(1)
		for _, j := range act {
			if rate[j] > 0 {
				if ft := t + rem[j]/float64(rate[j]); ft < bt {
					best, bt = j, ft
				}
			}
		}
		if best < 0 {
			for j := 0; j < n; j++ {
				if active[j] {
					comp[j] = math.Inf(1)
				}
			}
			return comp, order, ivs
		}
		if bt < t {
			bt = t
		}
		if limit != 0 && (limit < 0 || len(ivs) < limit) && bt-t > TimeTol*math.Max(1, math.Abs(bt)) {
			iv := Interval{Start: t, End: bt}
			for _, j := range act {
				if rate[j] > 0 {
					iv.Jobs = append(iv.Jobs, j)
					iv.Slots = append(iv.Slots, rate[j])
				}
			}
			ivs = append(ivs, iv)
		}
		dt := bt - t
		k := 0
		for _, j := range act {
			rem[j] -= float64(rate[j]) * dt
			if j != best {
				act[k] = j
				k++
			}
		}
		act = act[:k]
		t = bt
		comp[best] = t
		active[best] = false
		order = append(order, best)
	}
	return comp, order, ivs
}
