package flex

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/xflex/xflex/internal/progress"
)

// This file holds the searches over priority orderings: a first-improvement
// local search with swap and insert moves, and the exact branch and bound
// over orderings for small instances.

func better(a, b float64) bool { return a < b-improveTol*math.Max(1, math.Abs(b)) }

// evaluator runs MPS for many orderings of one instance.
type evaluator struct {
	in    *Instance
	w     *mpsWork
	comp  []float64
	evals int
}

func newEvaluator(in *Instance) *evaluator {
	return &evaluator{in: in, w: newMPSWork(len(in.Jobs)), comp: make([]float64, len(in.Jobs))}
}

func (e *evaluator) eval(prio []int) float64 {
	e.evals++
	e.in.mps(prio, false, e.w, e.comp, nil)
	return e.in.Objective(e.comp)
}

// LocalSearchExhaustiveMaxJobs: up to this many jobs the local search scans
// the whole swap+insert neighbourhood (in a seeded random order) and stops
// at a local optimum; above it, it samples moves at random.
const LocalSearchExhaustiveMaxJobs = 60

// localSearch improves prio by swap and insert moves (first improvement)
// until a local optimum, maxEvals MPS evaluations, or ctx's deadline. It
// returns the best ordering, its objective and whether ctx stopped it.
func (e *evaluator) localSearch(ctx context.Context, prio []int, obj float64, maxEvals int, rng *rand.Rand) ([]int, float64, bool) {
	n := len(prio)
	cur := append([]int(nil), prio...)
	cand := make([]int, n)
	if n < 2 {
		return cur, obj, false
	}
	start := e.evals
	// apply writes move (kind, i, k) of cur into cand: kind 0 swaps
	// positions i and k, kind 1 moves the job at i to position k.
	apply := func(kind, i, k int) {
		copy(cand, cur)
		if kind == 0 {
			cand[i], cand[k] = cand[k], cand[i]
			return
		}
		v := cand[i]
		if i < k {
			copy(cand[i:k], cand[i+1:k+1])
		} else {
			copy(cand[k+1:i+1], cand[k:i])
		}
		cand[k] = v
	}
	try := func(kind, i, k int) bool {
		apply(kind, i, k)
		v := e.eval(cand)
		if better(v, obj) {
			obj = v
			cur, cand = cand, cur
			return true
		}
		return false
	}
	if n <= LocalSearchExhaustiveMaxJobs {
		moves := make([][3]int, 0, n*n)
		for i := 0; i < n; i++ {
			for k := 0; k < n; k++ {
				if i < k {
					moves = append(moves, [3]int{0, i, k})
				}
				if i != k && k != i-1 { // insert i→i−1 equals the adjacent swap
					moves = append(moves, [3]int{1, i, k})
				}
			}
		}
		for {
			rng.Shuffle(len(moves), func(a, b int) { moves[a], moves[b] = moves[b], moves[a] })
			improved := false
			for _, mv := range moves {
				if e.evals-start >= maxEvals {
					return cur, obj, false
				}
				if (e.evals-start)%64 == 0 && ctx.Err() != nil {
					return cur, obj, true
				}
				if try(mv[0], mv[1], mv[2]) {
					improved = true
				}
			}
			if !improved {
				return cur, obj, false
			}
		}
	}
	for e.evals-start < maxEvals {
		// Above LocalSearchExhaustiveMaxJobs an evaluation is an MPS run
		// over many jobs (about 0.1 s at 10⁵), so the deadline is checked
		// before each one.
		if ctx.Err() != nil {
			return cur, obj, true
		}
		i, k := rng.IntN(n), rng.IntN(n-1)
		if k >= i {
			k++
		}
		kind := rng.IntN(2)
		if kind == 0 && i > k {
			i, k = k, i
		}
		try(kind, i, k)
	}
	return cur, obj, false
}

// ilsPatience stops the iterated local search after this many perturbation
// rounds in a row without improvement (small instances converge long
// before the evaluation budget; on the simulation study's 10-job instances
// no improvement was found after 40 stale rounds).
const ilsPatience = 100

// iteratedLocalSearch spends up to maxEvals MPS evaluations on local
// searches: first from each starting candidate in order of objective (ties:
// candidate order), then from random perturbations (2 to 4 random swaps)
// of the best ordering found, until ilsPatience rounds fail in a row. It
// returns the best ordering, its objective and whether ctx stopped it.
func (e *evaluator) iteratedLocalSearch(ctx context.Context, starts []*candidate, maxEvals int, rng *rand.Rand) ([]int, float64, bool) {
	order := append([]*candidate(nil), starts...)
	sort.SliceStable(order, func(a, b int) bool { return order[a].obj < order[b].obj })
	best, bestObj := order[0].prio, order[0].obj
	begin := e.evals
	n := len(best)
	stale := 0
	for round := 0; e.evals-begin < maxEvals && stale < ilsPatience; round++ {
		var cur []int
		var curObj float64
		if round < len(order) {
			cur, curObj = order[round].prio, order[round].obj
		} else {
			if n < 2 {
				break
			}
			if ctx.Err() != nil {
				return best, bestObj, true
			}
			cur = append([]int(nil), best...)
			for k := 0; k < 2+round%3; k++ {
				a, b := rng.IntN(n), rng.IntN(n)
				cur[a], cur[b] = cur[b], cur[a]
			}
			curObj = e.eval(cur)
		}
		before := e.evals
		p, v, stopped := e.localSearch(ctx, cur, curObj, maxEvals-(e.evals-begin), rng)
		if better(v, bestObj) {
			best, bestObj = p, v
			stale = 0
			// Anytime: a job polling this solve sees each improvement.
			progress.Report(ctx, progress.Progress{
				Phase:     "local search",
				Fraction:  progress.F(math.Min(1, float64(e.evals-begin)/float64(maxEvals))),
				Objective: progress.F(bestObj),
			})
		} else if round >= len(order) {
			stale++
		}
		if stopped {
			return best, bestObj, true
		}
		if e.evals == before && round >= len(order) {
			break // nothing left to try (one job)
		}
	}
	return best, bestObj, false
}

// lowerBound is a bound on the objective of any malleable schedule of the
// jobs still active at time t with remaining work rem, on top of the
// penalties already fixed (doneSum, doneMax). It combines three valid
// bounds: each job finishes no earlier than t + rem_j/M_j; under the sum of
// linear penalties, the fluid single machine of speed S sequenced by
// Smith's rule; under the maximum, the last job finishes no earlier than
// t + Σ rem/S.
func (in *Instance) lowerBound(t float64, rem []float64, active []bool, doneSum, doneMax float64, scratch []int) float64 {
	n := len(in.Jobs)
	if in.Agg == Max {
		v := doneMax
		tot := 0.0
		last := math.Inf(1)
		any := false
		for j := 0; j < n; j++ {
			if active[j] {
				any = true
				tot += rem[j]
				v = math.Max(v, in.Penalty(j, t+rem[j]/float64(in.Jobs[j].Max)))
			}
		}
		if any {
			end := t + tot/float64(in.S)
			for j := 0; j < n; j++ {
				if active[j] {
					last = math.Min(last, in.Penalty(j, end))
				}
			}
			v = math.Max(v, last)
		}
		return v
	}
	perJob := 0.0
	allLinear := true
	list := scratch[:0]
	for j := 0; j < n; j++ {
		if active[j] {
			perJob += in.Penalty(j, t+rem[j]/float64(in.Jobs[j].Max))
			if _, _, ok := in.linear(j); !ok {
				allLinear = false
			}
			list = append(list, j)
		}
	}
	best := perJob
	if len(list) > 1 && len(list) <= AssignBoundMaxJobs {
		best = math.Max(best, in.assignmentBound(t, rem, list))
	}
	if allLinear && len(list) > 1 {
		// Smith's rule on rem_j / a_j, ties by index (called on small sets
		// in the exact search, once on the full set otherwise).
		key := func(j int) float64 {
			a, _, _ := in.linear(j)
			if a <= 0 {
				return math.Inf(1)
			}
			return rem[j] / a
		}
		sortInts(list, key)
		c := t
		fluid := 0.0
		for _, j := range list {
			c += rem[j] / float64(in.S)
			a, b, _ := in.linear(j)
			fluid += a*c + b
		}
		best = math.Max(best, fluid)
	}
	return doneSum + best
}

func sortInts(a []int, key func(int) float64) {
	ks := make([]keyed, len(a))
	for i, j := range a {
		ks[i] = keyed{k: key(j), j: j}
	}
	sortKeyed(ks)
	for i, x := range ks {
		a[i] = x.j
	}
}

// AssignBoundMaxJobs: the assignment bound (an O(k³) Hungarian solve on
// k active jobs) is used at search nodes with at most this many jobs.
const AssignBoundMaxJobs = 16

// assignmentBound is a lower bound on Σ f_j(C_j) over the active jobs: in
// any schedule the k-th job to complete finishes no earlier than
// τ_k = t + (sum of the k smallest remaining works)/S, and job j no earlier
// than t + rem_j/M_j; penalties are non-decreasing, so the cheapest
// assignment of jobs to completion ranks with cost
// f_j(max(τ_k, t + rem_j/M_j)) is a valid bound.
func (in *Instance) assignmentBound(t float64, rem []float64, list []int) float64 {
	k := len(list)
	rs := make([]float64, k)
	for i, j := range list {
		rs[i] = rem[j]
	}
	slices.Sort(rs)
	tau := make([]float64, k)
	acc := 0.0
	for i, r := range rs {
		acc += r
		tau[i] = t + acc/float64(in.S)
	}
	cost := make([][]float64, k)
	for i, j := range list {
		solo := t + rem[j]/float64(in.Jobs[j].Max)
		cost[i] = make([]float64, k)
		for r := 0; r < k; r++ {
			cost[i][r] = in.Penalty(j, math.Max(tau[r], solo))
		}
	}
	return hungarian(cost)
}

// hungarian returns the minimum-cost perfect assignment value of a square
// cost matrix (Kuhn-Munkres with potentials, O(n³)).
func hungarian(a [][]float64) float64 {
	n := len(a)
	inf := math.Inf(1)
	u := make([]float64, n+1)
	v := make([]float64, n+1)
	p := make([]int, n+1)
	way := make([]int, n+1)
	minv := make([]float64, n+1)
	used := make([]bool, n+1)
	for i := 1; i <= n; i++ {
		p[0] = i
		j0 := 0
		for j := range minv {
			minv[j] = inf
			used[j] = false
		}
		for {
			used[j0] = true
			i0, delta, j1 := p[j0], inf, 0
			for j := 1; j <= n; j++ {
				if !used[j] {
					cur := a[i0-1][j-1] - u[i0] - v[j]
					if cur < minv[j] {
						minv[j], way[j] = cur, j0
					}
					if minv[j] < delta {
						delta, j1 = minv[j], j
					}
				}
			}
			for j := 0; j <= n; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if p[j0] == 0 {
				break
			}
		}
		for {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
			if j0 == 0 {
				break
			}
		}
	}
	total := 0.0
	for j := 1; j <= n; j++ {
		total += a[p[j]-1][j-1]
	}
	return total
}

// rootBound is lowerBound at the epoch start with nothing done.
func (in *Instance) rootBound() float64 {
	n := len(in.Jobs)
	rem := make([]float64, n)
	active := make([]bool, n)
	for j := range rem {
		rem[j] = in.Jobs[j].Work
		active[j] = true
	}
	return in.lowerBound(in.T0, rem, active, 0, math.Inf(-1), make([]int, 0, n))
}

// bnbState is the MPS state of a prefix of the priority list, simulated
// until the slack spills past the fixed jobs (from then on the rest of the
// ordering matters) or every job is done.
type bnbState struct {
	t       float64
	rem     []float64
	active  []bool
	comp    []float64
	fixed   []bool
	prefix  []int
	doneSum float64
	doneMax float64
}

func (s *bnbState) clone() *bnbState {
	return &bnbState{
		t: s.t, rem: append([]float64(nil), s.rem...), active: append([]bool(nil), s.active...),
		comp: append([]float64(nil), s.comp...), fixed: append([]bool(nil), s.fixed...),
		prefix: append([]int(nil), s.prefix...), doneSum: s.doneSum, doneMax: s.doneMax,
	}
}

// advance runs MPS from s with its prefix fixed. It returns true when every
// job is done, false when the allocation now depends on unfixed jobs.
func (in *Instance) advance(s *bnbState, rate []int) bool {
	n := len(in.Jobs)
	for {
		left := 0
		slack := in.S
		for j := 0; j < n; j++ {
			rate[j] = 0
			if s.active[j] {
				left++
				rate[j] = in.Jobs[j].Min
				slack -= rate[j]
			}
		}
		if left == 0 {
			return true
		}
		for _, j := range s.prefix {
			if s.active[j] && slack > 0 {
				g := min(slack, in.Jobs[j].Max-in.Jobs[j].Min)
				rate[j] += g
				slack -= g
			}
		}
		if slack > 0 {
			for j := 0; j < n; j++ {
				if s.active[j] && !s.fixed[j] && in.Jobs[j].Max > in.Jobs[j].Min {
					return false
				}
			}
		}
		// The first job to finish; ties to the earlier prefix position,
		// then the lower index (unfixed jobs finishing together leave at
		// the same time, so their tie order does not matter).
		best, bt := -1, math.Inf(1)
		for _, j := range s.prefix {
			if s.active[j] && rate[j] > 0 {
				if ft := s.rem[j] / float64(rate[j]); ft < bt {
					best, bt = j, ft
				}
			}
		}
		for j := 0; j < n; j++ {
			if s.active[j] && !s.fixed[j] && rate[j] > 0 {
				if ft := s.rem[j] / float64(rate[j]); ft < bt {
					best, bt = j, ft
				}
			}
		}
		if best < 0 {
			return false
		}
		for j := 0; j < n; j++ {
			if s.active[j] {
				s.rem[j] -= float64(rate[j]) * bt
			}
		}
		s.t += bt
		s.active[best] = false
		s.comp[best] = s.t
		p := in.Penalty(best, s.t)
		s.doneSum += p
		s.doneMax = math.Max(s.doneMax, p)
	}
}

// exactMPS searches all priority orderings by depth-first branch and bound
// and returns the best ordering and objective found, starting from the
// incumbent (inc, incObj), and whether the search completed (proving the
// result is the best MPS ordering). Children are tried in the incumbent's
// order so good orderings are found first.
func (in *Instance) exactMPS(ctx context.Context, inc []int, incObj float64) ([]int, float64, bool) {
	n := len(in.Jobs)
	bestObj := incObj
	best := append([]int(nil), inc...)
	root := &bnbState{t: in.T0, rem: make([]float64, n), active: make([]bool, n), comp: make([]float64, n), fixed: make([]bool, n), doneMax: math.Inf(-1)}
	for j := 0; j < n; j++ {
		root.rem[j] = in.Jobs[j].Work
		root.active[j] = true
	}
	rate := make([]int, n)
	scratch := make([]int, 0, n)
	nodes := 0
	stopped := false
	objOf := func(s *bnbState) float64 {
		if in.Agg == Max {
			return s.doneMax
		}
		return s.doneSum
	}
	finish := func(s *bnbState) {
		if v := objOf(s); better(v, bestObj) {
			bestObj = v
			best = append(best[:0], s.prefix...)
			for _, j := range inc {
				if !s.fixed[j] {
					best = append(best, j)
				}
			}
		}
	}
	var dfs func(s *bnbState)
	dfs = func(s *bnbState) {
		if stopped {
			return
		}
		nodes++
		if nodes%1024 == 0 && ctx.Err() != nil {
			stopped = true
			return
		}
		if in.advance(s, rate) {
			finish(s)
			return
		}
		lb := in.lowerBound(s.t, s.rem, s.active, s.doneSum, s.doneMax, scratch)
		if !better(lb, bestObj) {
			return
		}
		var kids []int
		for _, j := range inc {
			if s.active[j] && !s.fixed[j] && in.Jobs[j].Max > in.Jobs[j].Min {
				kids = append(kids, j)
			}
		}
		for _, j := range kids {
			c := s.clone()
			c.fixed[j] = true
			c.prefix = append(c.prefix, j)
			dfs(c)
			if stopped {
				return
			}
		}
	}
	dfs(root)
	return best, bestObj, !stopped
}
