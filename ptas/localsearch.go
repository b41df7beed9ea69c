package ptas

import (
	"context"
	"math"
	"sort"
)

// lsState is a selection of candidates and, per request, the cost of its
// cheapest (d1) and second cheapest (d2) selected covering candidate, and
// the selection position b1 of the cheapest. +Inf marks "none".
type lsState struct {
	rp    *rayProblem
	sel   []int
	d1    []float64
	d2    []float64
	b1    []int
	total float64
}

func newState(rp *rayProblem, sel []int) *lsState {
	n := len(rp.in.U)
	st := &lsState{rp: rp, sel: append([]int(nil), sel...), d1: make([]float64, n), d2: make([]float64, n), b1: make([]int, n)}
	st.recompute()
	return st
}

// recompute refreshes d1, d2, b1 and the total in O(n·|sel|). Ties between
// equally cheap candidates go to the earlier selection position.
func (st *lsState) recompute() {
	rp := st.rp
	st.total = 0
	for j := range st.d1 {
		st.d1[j], st.d2[j], st.b1[j] = math.Inf(1), math.Inf(1), -1
	}
	for s, c := range st.sel {
		x := rp.cands[c].cost
		for _, j := range rp.members(c) {
			switch {
			case x < st.d1[j]:
				st.d2[j] = st.d1[j]
				st.d1[j], st.b1[j] = x, s
			case x < st.d2[j]:
				st.d2[j] = x
			}
		}
	}
	for j, w := range rp.in.W {
		st.total += w * st.d1[j]
	}
}

// localSearch starts from init (which must cover every request), adds
// candidates greedily while fewer than K are selected, then applies the
// best interchange move (add one candidate, drop one) until none improves
// the cost by more than improveTol. Each pass costs O(Σ coverage + C·K)
// using the d1/d2 bookkeeping of fast p-median interchange. Ties between
// equal moves go to the lowest candidate index, then selection position.
// It stops early, keeping its best, when ctx is done.
//
// pool restricts the candidates tried (nil: all of them); see lsPool.
func localSearch(ctx context.Context, rp *rayProblem, init []int, K int, pool []int) *lsState {
	st := newState(rp, init)
	nc := len(rp.cands)
	if pool == nil {
		pool = make([]int, nc)
		for c := range pool {
			pool[c] = c
		}
	}
	inSel := make([]bool, nc)
	for _, c := range st.sel {
		inSel[c] = true
	}
	lfin := make([]float64, K)
	infCnt := make([]int, K)
	m := make([]float64, K)
	infCov := make([]int, K)
	maxPasses := 50 * (K + 1)
	for pass := 0; pass < maxPasses; pass++ {
		if ctx.Err() != nil {
			break
		}
		for s := range lfin {
			lfin[s], infCnt[s] = 0, 0
		}
		for j, w := range rp.in.W {
			s := st.b1[j]
			if math.IsInf(st.d2[j], 1) {
				infCnt[s]++
			} else {
				lfin[s] += w * (st.d2[j] - st.d1[j])
			}
		}
		bestDelta, bestC, bestS := -improveTol*math.Max(st.total, 1), -1, -1
		aborted := false
		for k, c := range pool {
			if k&255 == 255 && ctx.Err() != nil {
				aborted = true // keep the current (valid) selection
				break
			}
			if inSel[c] {
				continue
			}
			x := rp.cands[c].cost
			g := 0.0
			for s := range st.sel {
				m[s], infCov[s] = 0, 0
			}
			for _, j32 := range rp.members(c) {
				j := int(j32)
				w := rp.in.W[j]
				d1, d2 := st.d1[j], st.d2[j]
				gain := 0.0
				if x < d1 {
					gain = d1 - x
					g += w * gain
				}
				s := st.b1[j]
				if math.IsInf(d2, 1) {
					m[s] += w * (gain + x - d1)
					infCov[s]++
				} else if x < d2 {
					m[s] += w * (gain + x - d2)
				}
			}
			if len(st.sel) < K {
				if -g < bestDelta {
					bestDelta, bestC, bestS = -g, c, -1
				}
				continue
			}
			for s := range st.sel {
				if infCov[s] != infCnt[s] {
					continue
				}
				if delta := lfin[s] - g + m[s]; delta < bestDelta {
					bestDelta, bestC, bestS = delta, c, s
				}
			}
		}
		if bestC < 0 || aborted {
			break
		}
		if bestS < 0 {
			st.sel = append(st.sel, bestC)
		} else {
			inSel[st.sel[bestS]] = false
			st.sel[bestS] = bestC
		}
		inSel[bestC] = true
		st.recompute()
	}
	return st
}

// lsMaxCover bounds the coverage one local-search pass walks: about 20 ms
// of one core. Past it the search tries a stride sample of each chain.
const lsMaxCover = 2_000_000

// lsPool returns nil (try every candidate) when one pass over all of them
// stays under lsMaxCover; otherwise every step-th candidate of each chain
// (counting from the chain's last, which serves the whole chain) plus the
// starting candidates, with step chosen so a pass walks about lsMaxCover
// coverage entries. The bound side is unaffected: the Lagrangian bound and
// the MIP always see every candidate.
func lsPool(rp *rayProblem, init []int) []int {
	total := rp.coverCount()
	if total <= lsMaxCover {
		return nil
	}
	step := (total + lsMaxCover - 1) / lsMaxCover
	in := make([]bool, len(rp.cands))
	var pool []int
	add := func(c int) {
		if !in[c] {
			in[c] = true
			pool = append(pool, c)
		}
	}
	for _, c := range init {
		add(c)
	}
	for _, bc := range rp.byChain {
		for i := len(bc) - 1; i >= 0; i -= step {
			add(int(bc[i]))
		}
	}
	sort.Ints(pool)
	return pool
}
