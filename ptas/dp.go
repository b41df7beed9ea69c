package ptas

import (
	"context"
	"encoding/binary"
	"math"
	"sort"
)

// dpMaxStates caps the exact level DP: Solve runs it only when the state
// space bound dpStates is below it, and the DP gives up past it. Each
// transition costs O(coverage·chains), so 20k states keep the DP within
// milliseconds on the instances where it runs.
const dpMaxStates = 20000

// dpStates bounds the DP's state space: K times the product over chains of
// (candidates on the chain + 1), saturating at dpMaxStates+1.
func (rp *rayProblem) dpStates(K int) int {
	s := K
	for _, bc := range rp.byChain {
		s *= len(bc) + 1
		if s > dpMaxStates {
			return dpMaxStates + 1
		}
	}
	return s
}

type dpState struct {
	pos     []int32 // highest prefix chosen per chain (0 = none)
	k       int
	cost    float64
	covered int
	prev    *dpState
	cand    int
	// dead marks a record replaced by a cheaper one with the same key; its
	// descendants stay valid (each record is a real path) but it is no
	// longer extended.
	dead bool
}

// levelDP solves the ray-restricted problem exactly by the DP the issue
// describes: take the chosen candidates in order of cost; a request is
// served by the first (cheapest) chosen candidate covering it; and since
// coverage along a chain is nested, which requests are already served
// depends only on the highest prefix chosen on each chain. The state is
// that vector of prefixes plus the number of shapes used, so the state
// space is exponential in the number of chains; ok is false when it
// exceeds dpMaxStates or ctx ends.
func levelDP(ctx context.Context, rp *rayProblem, K int) (sel []int, value float64, ok bool) {
	n := len(rp.in.U)
	nch := len(rp.chains)
	order := make([]int, len(rp.cands))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rp.cands[order[a]].cost < rp.cands[order[b]].cost })
	key := func(pos []int32, k int) string {
		b := make([]byte, 4*len(pos)+4)
		for i, p := range pos {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(p))
		}
		binary.LittleEndian.PutUint32(b[4*len(pos):], uint32(k))
		return string(b)
	}
	root := &dpState{pos: make([]int32, nch)}
	states := map[string]*dpState{key(root.pos, 0): root}
	list := []*dpState{root}
	isCovered := func(s *dpState, j int) bool {
		for g, p := range s.pos {
			if p > 0 && rp.chains[g].rank[j] < p {
				return true
			}
		}
		return false
	}
	for _, c := range order {
		if ctx.Err() != nil {
			return nil, 0, false
		}
		cd := rp.cands[c]
		var added []*dpState
		for _, s := range list {
			if s.dead || s.k >= K || s.pos[cd.chain] >= cd.p || s.covered == n {
				continue
			}
			wNew, cNew := 0.0, 0
			for _, j := range rp.members(c) {
				if !isCovered(s, int(j)) {
					wNew += rp.in.W[j]
					cNew++
				}
			}
			if cNew == 0 {
				continue
			}
			pos := append([]int32(nil), s.pos...)
			pos[cd.chain] = cd.p
			ns := &dpState{pos: pos, k: s.k + 1, cost: s.cost + cd.cost*wNew, covered: s.covered + cNew, prev: s, cand: c}
			kk := key(pos, ns.k)
			if old, ok := states[kk]; ok {
				if ns.cost >= old.cost {
					continue
				}
				old.dead = true
			}
			states[kk] = ns
			added = append(added, ns)
		}
		list = append(list, added...)
		if len(list) > dpMaxStates {
			return nil, 0, false
		}
	}
	var best *dpState
	for _, s := range list {
		if !s.dead && s.covered == n && (best == nil || s.cost < best.cost) {
			best = s
		}
	}
	if best == nil {
		return nil, math.Inf(1), true
	}
	for s := best; s.prev != nil; s = s.prev {
		sel = append(sel, s.cand)
	}
	for i, j := 0, len(sel)-1; i < j; i, j = i+1, j-1 {
		sel[i], sel[j] = sel[j], sel[i]
	}
	return sel, best.cost, true
}
