package cmmf

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/xflex/xflex/flow"
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

func (s *intSolver) cmpKey(a, b unitKey) int {
	switch {
	case a.inf && b.inf:
		return 0
	case a.inf:
		return 1
	case b.inf:
		return -1
	}
	wa, wb := s.in.Users[a.u].Weight, s.in.Users[b.u].Weight
	if c := cmpFrac(a.k, wa, b.k, wb); c != 0 {
		return c
	}
	switch {
	case wa < wb:
		return -1
	case wa > wb:
		return 1
	case a.u < b.u:
		return -1
	case a.u > b.u:
		return 1
	}
	return 0
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
func (s *intSolver) selectKey(members []int, R int64) unitKey {
	if R <= 0 {
		return unitKey{k: -1, u: members[0]}
	}
	isMember := make(map[int]bool, len(members))
	for _, i := range members {
		isMember[i] = true
	}
	total := func(K unitKey) int64 { // units of members with key ≤ K
		var n int64
		for _, i := range members {
			n += s.count(i, K)
		}
		if isMember[K.u] && K.k >= 0 && K.k < s.lim[K.u] {
			n++
		}
		return n
	}
	// Float bisection on the share level finds the neighbourhood of the
	// answer; exact counting over nearby candidate units then pins it.
	cntF := func(v float64) float64 {
		n := 0.0
		for _, i := range members {
			n += math.Min(float64(s.lim[i]), math.Floor(v*s.in.Users[i].Weight)+1)
		}
		return n
	}
	lo, hi := -1.0, 0.0
	for _, i := range members {
		hi = math.Max(hi, float64(s.lim[i])/s.in.Users[i].Weight)
	}
	for it := 0; it < 200 && hi-lo > 1e-15*math.Max(1, hi); it++ {
		mid := lo + (hi-lo)/2
		if cntF(mid) >= float64(R) {
			hi = mid
		} else {
			lo = mid
		}
	}
	var cands []unitKey
	const rel = 1e-9
	ok := true
	for _, i := range members {
		if s.lim[i] == 0 {
			continue
		}
		w := s.in.Users[i].Weight
		// Both ends stay in [0, lim−1] as floats before the conversion:
		// share levels times weights reach 1e21 (1e9 machines, weights
		// 1e-6 and 1e6), past int64, where the conversion wrapped k0 to
		// −2^63 and the loop below appended until memory ran out.
		top := float64(s.lim[i] - 1)
		k0f := math.Min(top, math.Max(0, math.Floor(math.Max(lo, 0)*w*(1-rel))-1))
		k1f := math.Min(top, math.Floor(hi*w*(1+rel))+1)
		if k1f-k0f > 16 {
			ok = false
			break
		}
		k0, k1 := int64(k0f), int64(k1f)
		for k := k0; k <= k1; k++ {
			cands = append(cands, unitKey{k: k, u: i})
		}
	}
	if ok && len(cands) > 0 {
		sort.Slice(cands, func(x, y int) bool { return s.cmpKey(cands[x], cands[y]) < 0 })
		j := sort.Search(len(cands), func(j int) bool { return total(cands[j]) >= R })
		if j < len(cands) && total(cands[j]) == R {
			return cands[j]
		}
	}
	return s.selectByHeap(members, R)
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
	a := newAllocation(in)
	rp := newRoundProgress(ctx, len(in.Users))
	s := newIntSolver(in)
	cs := buildClasses(in)
	alive := make([]bool, len(in.Types))
	var unbounded int64 = 1
	for t := range alive {
		alive[t] = true
		unbounded += in.Types[t].Cap
	}
	const (
		active = iota
		fixed
		done
	)
	state := make([]int, len(cs))
	x := make([]int64, len(in.Users)) // amounts of users that left

	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var inNet []int
		for c := range cs {
			if state[c] != done {
				inNet = append(inNet, c)
			}
		}
		if len(inNet) == 0 {
			break
		}
		g := flow.NewNetwork[int64](2)
		const src, snk = 0, 1
		classNode := map[int]int{}
		srcEdge := map[int]int{}
		for _, c := range inNet {
			classNode[c] = g.AddNode()
			srcEdge[c] = g.AddEdge(src, classNode[c], 0)
		}
		typeNode := map[int]int{}
		var typesUsed []int
		type mid struct{ c, t, e int }
		var mids []mid
		for _, c := range inNet {
			for _, t := range cs[c].types {
				if !alive[t] || in.Types[t].Cap == 0 {
					continue
				}
				v, ok := typeNode[t]
				if !ok {
					v = g.AddNode()
					typeNode[t] = v
					typesUsed = append(typesUsed, t)
				}
				// Unbounded middle arcs keep min cuts of the form
				// (classes X, the types X reaches).
				mids = append(mids, mid{c, t, g.AddEdge(classNode[c], v, unbounded)})
			}
		}
		for _, t := range typesUsed {
			g.AddEdge(typeNode[t], snk, in.Types[t].Cap)
		}
		want := func(c int, K unitKey) int64 {
			var w int64
			for _, i := range cs[c].members {
				if state[c] == fixed {
					w += s.lim[i]
				} else {
					w += s.count(i, K)
				}
			}
			return w
		}

		K := unitKey{inf: true}
		for step := 0; ; step++ {
			var total int64
			for _, c := range inNet {
				w := want(c, K)
				g.SetCap(srcEdge[c], w)
				total += w
			}
			g.ClearFlow()
			f := g.MaxFlow(src, snk)
			a.Flows++
			if f == total {
				break
			}
			if step >= maxNewton {
				return nil, fmt.Errorf("cmmf: integer Newton search did not converge in %d steps", maxNewton)
			}
			side := g.ReachableFrom(src)
			var R int64
			for _, t := range typesUsed {
				if side[typeNode[t]] {
					R += in.Types[t].Cap
				}
			}
			var members []int
			for _, c := range inNet {
				if !side[classNode[c]] {
					continue
				}
				if state[c] == fixed {
					R -= want(c, K)
				} else {
					members = append(members, cs[c].members...)
				}
			}
			if len(members) == 0 {
				return nil, fmt.Errorf("cmmf: integer cut without active classes")
			}
			// The members can have R units: everything below their
			// (R+1)-th unit. (They have more than R, or the cut would
			// not be violated.)
			K = s.selectKey(members, R+1)
		}

		reach := g.CanReach(snk)
		isFrozen := map[int]bool{}
		var frozen []int
		for _, c := range inNet {
			if !reach[classNode[c]] || K.inf {
				isFrozen[c] = true
				frozen = append(frozen, c)
			}
		}
		if len(frozen) == 0 {
			return nil, fmt.Errorf("cmmf: integer round froze nobody")
		}
		// The round's level: the share of the first unit that no longer
		// fits (the smallest next unit among frozen users).
		var next *unitKey
		for _, c := range frozen {
			if state[c] == fixed {
				continue
			}
			for _, i := range cs[c].members {
				xi := s.count(i, K)
				if xi < s.lim[i] {
					k := unitKey{k: xi, u: i}
					if next == nil || s.cmpKey(k, *next) < 0 {
						next = &k
					}
				}
			}
		}
		for _, c := range frozen {
			for _, i := range cs[c].members {
				if state[c] == fixed {
					x[i] = s.lim[i]
				} else {
					x[i] = s.count(i, K)
				}
				u := in.Users[i]
				switch {
				case x[i] == s.lim[i]:
					// Every unit it could want is placed: stopped by its
					// demand or by the machines it can use at all.
					a.Capped[i] = s.byDemand[i]
					a.Level[i] = float64(x[i]) / u.Weight
				case next != nil:
					a.Level[i] = float64(next.k) / in.Users[next.u].Weight
				default:
					a.Level[i] = float64(x[i]) / u.Weight
				}
				rp.freeze(a, i)
			}
		}
		flows := map[int][]mid{}
		for _, m := range mids {
			if isFrozen[m.c] {
				flows[m.c] = append(flows[m.c], m)
			}
		}
		for _, c := range frozen {
			need := make([]int64, len(cs[c].members))
			for k, i := range cs[c].members {
				need[k] = x[i]
			}
			k := 0
			for _, m := range flows[c] {
				f := g.Flow(m.e)
				for f > 0 && k < len(need) {
					take := min(f, need[k])
					if take > 0 {
						i := cs[c].members[k]
						a.set(in, i, m.t, float64(take))
					}
					f -= take
					need[k] -= take
					if need[k] == 0 {
						k++
					}
				}
			}
			state[c] = done
			for _, t := range cs[c].types {
				alive[t] = false
			}
		}
		for _, c := range inNet {
			if state[c] != active {
				continue
			}
			full := true
			for _, i := range cs[c].members {
				if s.count(i, K) < s.lim[i] {
					full = false
				}
			}
			if full {
				state[c] = fixed
			}
		}
		rp.report()
	}
	a.finishRounds()
	return a, nil
}
