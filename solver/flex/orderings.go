package flex

import (
	"cmp"
	"math"
	"slices"
)

// This file holds the metric-specific priority orderings fed to MPS. Each
// rule is a classical single-machine rule applied to the fluid relaxation
// in which the whole cluster (S slots) works on one job at a time, so job j
// takes p_j = W_j/S. All sorts are stable on the request index.

// ordering is a named priority list.
type ordering struct {
	name string
	prio []int
}

// slope is the rate at which job j's penalty grows with completion time
// (the weight of Smith's rule): the linear slope, the weight for tardiness
// and tardy jobs, and the largest step for SLAs.
func (in *Instance) slope(j int) float64 {
	if a, _, ok := in.linear(j); ok {
		return a
	}
	jb := in.Jobs[j]
	if jb.Metric == SLA {
		if len(jb.Steps) == 0 {
			return 0
		}
		return jb.Steps[len(jb.Steps)-1].Penalty
	}
	return jb.Weight
}

// dueDate is the deadline rules use: the deadline, or an SLA's first
// pseudo-deadline, or +Inf for metrics without one.
func (in *Instance) dueDate(j int) float64 {
	jb := in.Jobs[j]
	switch jb.Metric {
	case Tardy, Tardiness, Lateness:
		return jb.Deadline
	case SLA:
		if len(jb.Steps) > 0 {
			return jb.Steps[0].Deadline
		}
	}
	return math.Inf(1)
}

func (in *Instance) hasDeadlines() bool {
	for j := range in.Jobs {
		if !math.IsInf(in.dueDate(j), 1) {
			return true
		}
	}
	return false
}

// sortedBy orders the jobs by key, ties by index. Keys are computed once.
func sortedBy(n int, key func(j int) float64) []int {
	k := make([]float64, n)
	for j := range k {
		k[j] = key(j)
	}
	return orderByKeys(k, nil)
}

// orderByKeys returns 0..n-1 sorted by keys, then by keys2 (if not nil),
// then by index: a total order, so the result is deterministic. The keys
// are copied next to their indices so the sort reads one array.
func orderByKeys(keys, keys2 []float64) []int {
	ord := make([]int, len(keys))
	if keys2 == nil {
		ks := make([]keyed, len(keys))
		for j, k := range keys {
			ks[j] = keyed{k: k, j: j}
		}
		sortKeyed(ks)
		for i, x := range ks {
			ord[i] = x.j
		}
		return ord
	}
	ks := make([]keyed2, len(keys))
	for j, k := range keys {
		ks[j] = keyed2{k: k, k2: keys2[j], j: j}
	}
	slices.SortFunc(ks, func(a, b keyed2) int {
		if c := cmp.Compare(a.k, b.k); c != 0 {
			return c
		}
		if c := cmp.Compare(a.k2, b.k2); c != 0 {
			return c
		}
		return a.j - b.j
	})
	for i, x := range ks {
		ord[i] = x.j
	}
	return ord
}

// sortKeyed sorts ks by key, then by index (cmp.Compare order: NaN first,
// −0 == +0).
func sortKeyed(ks []keyed) {
	nan := false
	for _, x := range ks {
		nan = nan || math.IsNaN(x.k)
	}
	if nan {
		slices.SortFunc(ks, func(a, b keyed) int {
			if c := cmp.Compare(a.k, b.k); c != 0 {
				return c
			}
			return a.j - b.j
		})
		return
	}
	// Without NaNs cmp.Compare is plain < and >.
	slices.SortFunc(ks, func(a, b keyed) int {
		if a.k < b.k {
			return -1
		}
		if a.k > b.k {
			return 1
		}
		return a.j - b.j
	})
}

// keyed and keyed2 are an index with its sort key(s), for orderByKeys.
type keyed struct {
	k float64
	j int
}

type keyed2 struct {
	k, k2 float64
	j     int
}

// smithKey is W_j / slope_j (Smith's ratio rule; no slope sorts last).
func (in *Instance) smithKey(j int) float64 {
	a := in.slope(j)
	if a <= 0 {
		return math.Inf(1)
	}
	return in.Jobs[j].Work / a
}

// specificOrderings returns the metric-specific orderings, in a fixed
// order: Smith's rule, shortest time alone at maximum, arrival order,
// earliest due date and Moore-Hodgson when jobs have deadlines, and
// Lawler's backward rule for the minimax aggregate.
func (in *Instance) specificOrderings() []ordering {
	n := len(in.Jobs)
	out := []ordering{
		{"smith", sortedBy(n, in.smithKey)},
		{"shortest_alone", sortedBy(n, func(j int) float64 { return in.Jobs[j].Work / float64(in.Jobs[j].Max) })},
		{"arrival", in.arrivalOrder()},
	}
	if in.hasDeadlines() {
		due, smith := make([]float64, n), make([]float64, n)
		for j := 0; j < n; j++ {
			due[j], smith[j] = in.dueDate(j), in.smithKey(j)
		}
		edd := orderByKeys(due, smith)
		out = append(out, ordering{"edd", edd})
		out = append(out, ordering{"moore_hodgson", in.mooreHodgson(edd)})
	}
	if in.Agg == Max && n <= LawlerMaxJobs {
		out = append(out, ordering{"lawler", in.lawler()})
	}
	return out
}

// LawlerMaxJobs bounds Lawler's O(J²) rule; above it the rule is skipped.
const LawlerMaxJobs = 2000

// mooreHodgson is the Moore-Hodgson rule on the fluid single machine,
// weighted variant: walk jobs in EDD order and, whenever the current one is
// late, drop the kept job with the largest p_j/w_j (ties: the later one).
// Kept jobs come first in EDD order, dropped jobs after them by Smith's
// rule. For unit weights it minimises the number of late jobs on that
// machine.
func (in *Instance) mooreHodgson(edd []int) []int {
	S := float64(in.S)
	n := len(in.Jobs)
	keptPos := make([]bool, n)
	h := newHeap(n) // kept jobs, largest p/w first, ties the later one
	var dropped []int
	t := in.T0
	for k, j := range edd {
		keptPos[j] = true
		v := math.Inf(1)
		if w := in.slope(j); w > 0 {
			v = in.Jobs[j].Work / w
		}
		key := -v
		if math.IsInf(v, 1) {
			key = -math.MaxFloat64
		}
		h.set(j, key, -k)
		t += in.Jobs[j].Work / S
		if math.IsInf(in.dueDate(j), 1) || !late(t, in.dueDate(j)) {
			continue
		}
		i, _, _ := h.pop()
		keptPos[i] = false
		t -= in.Jobs[i].Work / S
		dropped = append(dropped, i)
	}
	out := make([]int, 0, n)
	for _, j := range edd {
		if keptPos[j] {
			out = append(out, j)
		}
	}
	sk := make([]float64, len(dropped))
	for i, j := range dropped {
		sk[i] = in.smithKey(j)
	}
	for _, i := range orderByKeys(sk, nil) {
		out = append(out, dropped[i])
	}
	return out
}

// lawler is Lawler's backward rule for minimax objectives on the fluid
// single machine: the job to finish last among the remaining ones is the
// one whose penalty at the remaining jobs' fluid end time is smallest
// (ties: the higher index goes last).
func (in *Instance) lawler() []int {
	n := len(in.Jobs)
	S := float64(in.S)
	end := in.T0
	for _, jb := range in.Jobs {
		end += jb.Work / S
	}
	left := make([]bool, n)
	for j := range left {
		left[j] = true
	}
	rev := make([]int, 0, n)
	for k := 0; k < n; k++ {
		best, bv := -1, math.Inf(1)
		for j := n - 1; j >= 0; j-- {
			if left[j] {
				if v := in.Penalty(j, end); v < bv || best < 0 {
					best, bv = j, v
				}
			}
		}
		left[best] = false
		rev = append(rev, best)
		end -= in.Jobs[best].Work / S
	}
	for i, k := 0, len(rev)-1; i < k; i, k = i+1, k-1 {
		rev[i], rev[k] = rev[k], rev[i]
	}
	return rev
}
