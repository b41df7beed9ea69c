package cmmf

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Integer CMMF: among allocations of whole machines, the one whose
// ascending vector of x_i/w_i is lexicographically largest.
//
// Why greedy is exact. Let every possible share value v_1 < v_2 < ... get
// a cost B^{L-r} (r its rank, B larger than the number of users). Then an
// allocation is leximin-optimal iff it minimises Σ_i φ_i(x_i) with
// φ_i(k) = B^{L-rank(k/w_i)}, and each φ_i is convex in k. The feasible
// totals (integer points of a transversal polymatroid cut down by
// demands) form an integral polymatroid, and for a separable convex
// objective on a polymatroid the greedy algorithm is optimal (Federgruen
// and Groenevelt, 1986): repeatedly give one machine to the user with the
// largest marginal gain whose increment stays feasible. Here the marginal
// gain of user i's k-th unit (from k to k+1 machines) ranks by the key
//
//	(k/w_i ascending, then w_i ascending, then i ascending)
//
// The first part gives the machine to the lowest weighted share; the
// second breaks equal shares towards the user whose share rises most
// (so weights (1, 2) and 4 machines end at (2, 2), not (1, 3)); the last is
// the documented tie-break between users whose units are interchangeable.
// The key of a unit does not depend on the state, so the greedy processes
// all units in one global key order and accepts a unit iff it still fits.
//
// Batched. Processing 10^5 units one augmenting path at a time would be
// slow, so rounds do it in bulk. D_i(K) is the number of user i's units
// with key ≤ K. A round finds the largest K such that every active user can
// have D_i(K) at once (Newton from above on min cuts, exactly as in the
// divisible solver but over keys), so the greedy accepted every unit up to
// K; the next unit fails, so its class is in a tight set; every class that
// cannot reach the sink in the residual network is tight, freezes, and
// leaves with its types. Certify (certify.go) then re-proves the answer
// optimal by the exchange criterion, independently of this search.

// unitKey identifies user u's k-th unit (0-based): the step from k to k+1
// machines. A key with inf set is +∞; k = -1 sorts before every unit.
type unitKey struct {
	k   int64
	u   int
	inf bool
}

type intSolver struct {
	in *Instance
	// lim[i] bounds user i's units: ⌊demand⌋ and the machines it can
	// reach, whichever is smaller.
	lim []int64
	// byDemand[i] reports that lim[i] comes from the demand.
	byDemand []bool
}

// cmpKey orders unit keys: +∞ last, then by share and weight
// (cmpShareWeight), then by user index.
func (s *intSolver) cmpKey(a, b unitKey) int {
	switch {
	case a.inf && b.inf:
		return 0
	case a.inf:
		return 1
	case b.inf:
		return -1
	}
	if c := s.cmpShareWeight(a, b); c != 0 {
		return c
	}
	return cmp.Compare(a.u, b.u)
}

// count is D_i(U): user i's units with key strictly below U.
func (s *intSolver) count(i int, U unitKey) int64 {
	if U.inf {
		return s.lim[i]
	}
	if s.lim[i] == 0 || U.k < 0 {
		return 0
	}
	wi, wu := s.in.Users[i].Weight, s.in.Users[U.u].Weight
	q := floorRatio(U.k, wu, wi, s.lim[i]) // units 0..q have k/w_i ≤ U's share
	if q < 0 {
		return 0
	}
	n := q + 1
	if cmpFrac(q, wi, U.k, wu) == 0 && s.cmpKey(unitKey{k: q, u: i}, U) >= 0 {
		n = q // unit q ties U's share but does not sort before U
	}
	return min(n, s.lim[i])
}

// selectKey returns the R-th smallest unit key (1-based) among the units
// of members. R must be between 1 and the members' unit total.
//
// A float bisection on the share level finds a narrow window around the
// answer; the units in the window, sorted by key, are the candidates. A
// candidate K is the answer iff exactly R units have keys ≤ K (total, an
// exact count), so whichever way a candidate is guessed, the answer is
// exact: first by position (the candidates usually hold every unit
// between the first of them and the answer, so the answer sits at R minus
// the first one's count), then by binary search over the candidates, and
// last by merging the members' unit sequences (selectByHeap).
func (s *intSolver) selectKey(members []int, R int64) unitKey {
	if R <= 0 {
		return unitKey{k: -1, u: members[0]}
	}
	total := func(K unitKey) int64 { // units of members with key ≤ K, K one of them
		n := int64(1)
		for _, i := range members {
			n += s.count(i, K)
		}
		return n
	}
	cands, ok := s.candidates(members, R)
	if !ok || len(cands) == 0 {
		return s.selectByHeap(members, R)
	}
	slices.SortFunc(cands, s.cmpKey)
	if j := R - total(cands[0]); j >= 0 && j < int64(len(cands)) && total(cands[j]) == R {
		return cands[j]
	}
	j := sort.Search(len(cands), func(j int) bool { return total(cands[j]) >= R })
	if j < len(cands) && total(cands[j]) == R {
		return cands[j]
	}
	return s.selectByHeap(members, R)
}

// candidates returns the members' units whose shares lie in a window
// around the share of the R-th smallest unit, found by float bisection on
// the share level. The bisection stops once the window is narrower than
// the smallest gap between two units of one member (1/max weight), when
// each member has at most a unit or two in it, or at float resolution. It
// reports false when the window holds more than 16 units of one member
// (the float search cannot separate them).
func (s *intSolver) candidates(members []int, R int64) ([]unitKey, bool) {
	w := make([]float64, len(members))
	lim := make([]float64, len(members))
	lo, hi, wMax := -1.0, 0.0, 0.0
	for x, i := range members {
		w[x], lim[x] = s.in.Users[i].Weight, float64(s.lim[i])
		hi = math.Max(hi, lim[x]/w[x])
		wMax = math.Max(wMax, w[x])
	}
	cntF := func(v float64) float64 { // units with share ≤ v
		n := 0.0
		for x := range w {
			n += math.Min(lim[x], math.Floor(v*w[x])+1)
		}
		return n
	}
	for it := 0; it < 200 && hi-lo > bisectRel*math.Max(1, hi) && (hi-lo)*wMax >= 1; it++ {
		mid := lo + (hi-lo)/2
		if cntF(mid) >= float64(R) {
			hi = mid
		} else {
			lo = mid
		}
	}
	// The window widens [lo, hi] by rel on each side, far more than the
	// rounding of v·w (2^-52 relative).
	const rel = 1e-9
	cands := make([]unitKey, 0, len(members))
	for x, i := range members {
		if lim[x] == 0 {
			continue
		}
		// A member whose units all lie below the window has none in it.
		// The ends are compared as floats before the conversion: share
		// levels times weights reach 1e21 (1e9 machines, weights 1e-6
		// and 1e6), past int64, where the conversion wrapped k0 to −2^63
		// and the loop below appended until memory ran out.
		k0f := math.Ceil(math.Max(lo, 0) * w[x] * (1 - rel))
		k1f := math.Min(lim[x]-1, math.Floor(hi*w[x]*(1+rel)))
		if k0f > k1f {
			continue
		}
		if k1f-k0f > 16 {
			return nil, false
		}
		for k := int64(k0f); k <= int64(k1f); k++ {
			cands = append(cands, unitKey{k: k, u: i})
		}
	}
	return cands, true
}

// selectByHeap is the exact fallback: merge the members' unit sequences.
func (s *intSolver) selectByHeap(members []int, R int64) unitKey {
	h := &keyHeap{s: s}
	for _, i := range members {
		if s.lim[i] > 0 {
			h.keys = append(h.keys, unitKey{k: 0, u: i})
		}
	}
	heap.Init(h)
	for {
		top := heap.Pop(h).(unitKey)
		R--
		if R == 0 {
			return top
		}
		if top.k+1 < s.lim[top.u] {
			heap.Push(h, unitKey{k: top.k + 1, u: top.u})
		}
	}
}

type keyHeap struct {
	s    *intSolver
	keys []unitKey
}

func (h *keyHeap) Len() int           { return len(h.keys) }
func (h *keyHeap) Less(i, j int) bool { return h.s.cmpKey(h.keys[i], h.keys[j]) < 0 }
func (h *keyHeap) Swap(i, j int)      { h.keys[i], h.keys[j] = h.keys[j], h.keys[i] }
func (h *keyHeap) Push(x any)         { h.keys = append(h.keys, x.(unitKey)) }
func (h *keyHeap) Pop() any {
	x := h.keys[len(h.keys)-1]
	h.keys = h.keys[:len(h.keys)-1]
	return x
}

// newIntSolver sets each user's unit limit: ⌊demand⌋ or the machines it
// can reach, whichever is smaller.
func newIntSolver(in *Instance) *intSolver {
	s := &intSolver{in: in, lim: make([]int64, len(in.Users)), byDemand: make([]bool, len(in.Users))}
	for i, u := range in.Users {
		reach := reachOf(in, i)
		s.lim[i] = reach
		if u.Demand < float64(reach) {
			s.lim[i] = int64(u.Demand)
			s.byDemand[i] = true
		}
	}
	return s
}

func solveIntegerFlow(ctx context.Context, in *Instance) (*Allocation, error) {
	f := newIntFlow(ctx, in)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		_, inNet := f.play()
		if len(inNet) == 0 {
			break
		}
		// Unbounded middle arcs keep min cuts of the form (classes X, the
		// types X reaches).
		net := newClassNet(f.rounds, inNet, f.unbounded)
		K, err := f.level(net)
		if err != nil {
			return nil, err
		}
		frozen := net.stuck()
		if K.inf {
			frozen = inNet // every unit fits: the last round
		}
		if len(frozen) == 0 {
			return nil, fmt.Errorf("cmmf: integer round froze nobody")
		}
		f.freeze(net, frozen, K)
		f.fixFull(inNet, K)
		f.rp.report()
	}
	f.a.finishRounds()
	return f.a, nil
}

// intFlow is the whole-machine flow method's state across rounds.
type intFlow struct {
	*rounds
	s  *intSolver
	a  *Allocation
	rp *roundProgress
	// x holds the amounts of the users that left.
	x []int64
	// unbounded exceeds every type's machines: the middle arcs' capacity.
	unbounded int64
}

func newIntFlow(ctx context.Context, in *Instance) *intFlow {
	f := &intFlow{rounds: newRounds(in), s: newIntSolver(in), a: newAllocation(in),
		rp: newRoundProgress(ctx, len(in.Users)), x: make([]int64, len(in.Users)), unbounded: 1}
	for _, t := range in.Types {
		f.unbounded += t.Cap
	}
	return f
}

// want is class c's units below key K: all of them when it is fixed.
func (f *intFlow) want(c int, K unitKey) int64 {
	var w int64
	for _, i := range f.cs[c].members {
		if f.state[c] == classFixed {
			w += f.s.lim[i]
		} else {
			w += f.s.count(i, K)
		}
	}
	return w
}

// level finds the round's key by Newton's method from above: the largest K
// such that every class in the network can have its units below K at once.
func (f *intFlow) level(net *classNet[int64]) (unitKey, error) {
	K := unitKey{inf: true}
	for step := 0; ; step++ {
		got, total := net.maxFlow(func(c int) int64 { return f.want(c, K) })
		f.a.Flows++
		if got == total {
			return K, nil
		}
		if step >= maxNewton {
			return K, fmt.Errorf("cmmf: integer Newton search did not converge in %d steps", maxNewton)
		}
		side, R := net.cut(f.in)
		var members []int
		for _, c := range side {
			if f.state[c] == classFixed {
				R -= f.want(c, K)
			} else {
				members = append(members, f.cs[c].members...)
			}
		}
		if len(members) == 0 {
			return K, fmt.Errorf("cmmf: integer cut without active classes")
		}
		// The members can have R units: everything below their (R+1)-th
		// unit. (They have more than R, or the cut would not be violated.)
		K = f.s.selectKey(members, R+1)
	}
}

// freeze ends the round for the frozen classes: their members keep their
// units below K (all of them when fixed), get their levels, and take their
// machines from the class's flow; the classes retire with their types.
func (f *intFlow) freeze(net *classNet[int64], frozen []int, K unitKey) {
	for _, c := range frozen {
		for _, i := range f.cs[c].members {
			if f.state[c] == classFixed {
				f.x[i] = f.s.lim[i]
			} else {
				f.x[i] = f.s.count(i, K)
			}
		}
	}
	next := f.s.nextUnit(f.cs, frozen, f.x)
	for _, c := range frozen {
		for _, i := range f.cs[c].members {
			f.s.setLevel(f.a, i, f.x[i], next)
			f.rp.freeze(f.a, i)
		}
	}
	splits := map[int]*wholeSplit{}
	for _, c := range frozen {
		splits[c] = newWholeSplit(f.cs[c].members, f.x)
	}
	for _, m := range net.mids {
		if w := splits[m.c]; w != nil {
			w.give(f.in, f.a, m.t, net.g.Flow(m.e))
		}
	}
	for _, c := range frozen {
		f.retire(c)
	}
}

// fixFull fixes the active classes whose members have all their units
// below K: their wants no longer rise.
func (f *intFlow) fixFull(inNet []int, K unitKey) {
	for _, c := range inNet {
		if f.state[c] == classActive && f.full(c, K) {
			f.state[c] = classFixed
		}
	}
}

func (f *intFlow) full(c int, K unitKey) bool {
	for _, i := range f.cs[c].members {
		if f.s.count(i, K) < f.s.lim[i] {
			return false
		}
	}
	return true
}

// nextUnit returns the smallest unit, among the members of classes, beyond
// their amounts x: the first unit that no longer fits, whose share is the
// round's level. It is nil when they have every unit they could want.
func (s *intSolver) nextUnit(cs []class, classes []int, x []int64) *unitKey {
	var next *unitKey
	for _, c := range classes {
		for _, i := range cs[c].members {
			if x[i] < s.lim[i] {
				k := unitKey{k: x[i], u: i}
				if next == nil || s.cmpKey(k, *next) < 0 {
					next = &k
				}
			}
		}
	}
	return next
}

// setLevel records the level of user i leaving with xi units: its own
// share when it has every unit it could want (capped when its demand, not
// the machines it can use, stopped it), else the share of the round's
// next unit (its own share when there is none).
func (s *intSolver) setLevel(a *Allocation, i int, xi int64, next *unitKey) {
	u := s.in.Users[i]
	switch {
	case xi == s.lim[i]:
		a.Capped[i] = s.byDemand[i]
		a.Level[i] = float64(xi) / u.Weight
	case next != nil:
		a.Level[i] = float64(next.k) / s.in.Users[next.u].Weight
	default:
		a.Level[i] = float64(xi) / u.Weight
	}
}

// wholeSplit hands a class's machines, type by type, to its members in
// order, each up to its amount.
type wholeSplit struct {
	members []int
	need    []int64 // what each member still lacks
	k       int     // the member being served
}

func newWholeSplit(members []int, x []int64) *wholeSplit {
	w := &wholeSplit{members: members, need: make([]int64, len(members))}
	for k, i := range members {
		w.need[k] = x[i]
	}
	return w
}

// give hands out f machines of type t.
func (w *wholeSplit) give(in *Instance, a *Allocation, t int, f int64) {
	for f > 0 && w.k < len(w.need) {
		take := min(f, w.need[w.k])
		if take > 0 {
			a.set(in, w.members[w.k], t, float64(take))
		}
		f -= take
		w.need[w.k] -= take
		if w.need[w.k] == 0 {
			w.k++
		}
	}
}
