package ptas

import (
	"cmp"
	"context"
	"math"
	"math/bits"
	"slices"
	"sort"
)

// lagrange holds the Lagrangian relaxation of the ray-restricted p-median
// in which each request's "served exactly once" constraint is priced by
// λ_j. For fixed λ the relaxation opens the (at most K) candidates with the
// most negative V_c = Σ_{j ∈ cov(c)} min(0, w_j·cost_c − λ_j), so
// L(λ) = Σ λ_j + Σ_{K most negative} V_c ≤ OPT_rays for every λ.
type lagrange struct {
	rp     *rayProblem
	K      int
	lambda []float64
	v      []float64 // V_c at lambda
	open   []int     // the opened candidates
	value  float64   // L(lambda), already reduced by lbSafety
	// direct selects per-candidate sums over the Fenwick sweep of chains.
	direct bool
	// byReq, for the grid-join problem only, lists per request the
	// candidates covering it by increasing cost (see evalByRequest).
	byReq [][]int32
	// scratch
	order []int
	a     []float64
	rank  []int
	fw    []float64
	fl    []float64
}

func newLagrange(rp *rayProblem, K int) *lagrange {
	n := len(rp.in.U)
	lg := &lagrange{rp: rp, K: K, lambda: make([]float64, n), v: make([]float64, len(rp.cands)),
		order: make([]int, n), a: make([]float64, n), rank: make([]int, n), fw: make([]float64, n+1), fl: make([]float64, n+1)}
	sweep := 0
	for _, ch := range rp.chains {
		sweep += len(ch.order) * (bits.Len(uint(n)) + 1)
	}
	lg.direct = rp.coverCount() <= sweep
	if rp.points != nil && lg.direct {
		lg.byReq = requestIndex(rp)
	}
	return lg
}

// requestIndex lists, per request, the candidates covering it by
// increasing cost (ties by index): candidates sorted once, then dealt out
// to their members in that order.
func requestIndex(rp *rayProblem) [][]int32 {
	order := make([]int32, len(rp.cands))
	for c := range order {
		order[c] = int32(c)
	}
	slices.SortFunc(order, func(x, y int32) int {
		return cmp.Or(cmp.Compare(rp.cands[x].cost, rp.cands[y].cost), cmp.Compare(x, y))
	})
	byReq := make([][]int32, len(rp.in.U))
	for _, c := range order {
		for _, j := range rp.members(int(c)) {
			byReq[j] = append(byReq[j], c)
		}
	}
	return byReq
}

// evalByRequest computes the V_c of the direct sum from the request side:
// request j contributes w_j·cost_c − λ_j exactly to the candidates
// cheaper than λ_j/w_j, a prefix of byReq[j], so only those pairs are
// visited (in 4D grids about a tenth of all). A join's members are in
// increasing request order, so every V_c adds the same terms in the same
// order as the direct sum and comes out bit-identical.
func (lg *lagrange) evalByRequest() {
	rp := lg.rp
	clear(lg.v)
	for j, cs := range lg.byReq {
		a, w, l := lg.a[j], rp.in.W[j], lg.lambda[j]
		for _, c := range cs {
			x := rp.cands[c].cost
			if x >= a {
				break
			}
			lg.v[c] += w*x - l
		}
	}
	for c, v := range lg.v {
		lg.v[c] = min(v, 0)
	}
	lg.finish()
}

// eval computes V_c for every candidate, the opened set and L(λ) in
// O(chains · n log n): along a chain coverage grows by one member at a time
// while the cost grows, so V at each prefix is cost·W − Λ over the members
// with λ_j/w_j > cost, read from Fenwick trees indexed by the rank of λ_j/w_j.
//
// When the candidates (after merging identical coverage) are few, summing
// each candidate's coverage directly is cheaper; both give the same V.
func (lg *lagrange) eval() {
	rp := lg.rp
	n := len(rp.in.U)
	for j := range lg.order {
		lg.order[j] = j
		lg.a[j] = lg.lambda[j] / rp.in.W[j]
	}
	if lg.byReq != nil {
		lg.evalByRequest()
		return
	}
	if lg.direct {
		for c := range rp.cands {
			x := rp.cands[c].cost
			v := 0.0
			for _, j := range rp.members(c) {
				if lg.a[j] > x {
					v += rp.in.W[j]*x - lg.lambda[j]
				}
			}
			lg.v[c] = min(v, 0)
		}
		lg.finish()
		return
	}
	sort.Slice(lg.order, func(x, y int) bool {
		ax, ay := lg.a[lg.order[x]], lg.a[lg.order[y]]
		if ax != ay {
			return ax < ay
		}
		return lg.order[x] < lg.order[y]
	})
	sortedA := make([]float64, n)
	for r, j := range lg.order {
		lg.rank[j] = r
		sortedA[r] = lg.a[j]
	}
	for g, ch := range rp.chains {
		clear(lg.fw)
		clear(lg.fl)
		tw, tl := 0.0, 0.0
		cs := rp.byChain[g]
		k := 0
		for i, j32 := range ch.order {
			j := int(j32)
			w, l := rp.in.W[j], lg.lambda[j]
			for x := lg.rank[j] + 1; x <= n; x += x & -x {
				lg.fw[x] += w
				lg.fl[x] += l
			}
			tw += w
			tl += l
			for k < len(cs) && int(rp.cands[cs[k]].p) == i+1 {
				c := cs[k]
				x := rp.cands[c].cost
				// members with a > x are ranks ≥ idx
				idx := sort.Search(n, func(r int) bool { return sortedA[r] > x })
				pw, pl := 0.0, 0.0
				for y := idx; y > 0; y -= y & -y {
					pw += lg.fw[y]
					pl += lg.fl[y]
				}
				v := x*(tw-pw) - (tl - pl)
				if v > 0 {
					v = 0 // only round-off can make it positive
				}
				lg.v[c] = v
				k++
			}
		}
	}
	lg.finish()
}

// finish opens the K most negative candidates (ties to the lower index)
// and sets L(λ). The K smallest are kept by insertion into a sorted
// buffer: O(C·K) at worst, O(C) typically, instead of sorting all C.
func (lg *lagrange) finish() {
	lg.open = lg.open[:0]
	less := func(a, b int) bool {
		if lg.v[a] != lg.v[b] {
			return lg.v[a] < lg.v[b]
		}
		return a < b
	}
	for c, v := range lg.v {
		if v >= 0 {
			continue
		}
		if len(lg.open) == lg.K && !less(c, lg.open[lg.K-1]) {
			continue
		}
		if len(lg.open) < lg.K {
			lg.open = append(lg.open, c)
		} else {
			lg.open[lg.K-1] = c
		}
		for i := len(lg.open) - 1; i > 0 && less(lg.open[i], lg.open[i-1]); i-- {
			lg.open[i], lg.open[i-1] = lg.open[i-1], lg.open[i]
		}
	}
	s, abs := 0.0, 0.0
	for _, l := range lg.lambda {
		s += l
		abs += math.Abs(l)
	}
	for _, c := range lg.open {
		s += lg.v[c]
	}
	lg.value = s - lbSafety*math.Max(abs, 1)
}

// subgradient maximizes L(λ) by subgradient steps (Held–Karp step size
// θ·(UB − L)/‖g‖², θ halved after 10 steps without improvement), starting
// from λ_j = w_j·d1_j of the incumbent. It returns the best bound found and
// leaves lg at the λ that achieved it.
//
// It stops early once the bound reaches stopAt (pass +Inf to run to
// convergence).
func (lg *lagrange) subgradient(ctx context.Context, st *lsState, maxIter int, stopAt float64) float64 {
	rp := lg.rp
	for j, w := range rp.in.W {
		lg.lambda[j] = w * st.d1[j]
	}
	ub := st.total
	best := math.Inf(-1)
	bestLambda := make([]float64, len(lg.lambda))
	g := make([]float64, len(lg.lambda))
	theta, stall := 2.0, 0
	for it := 0; it < maxIter; it++ {
		if ctx.Err() != nil {
			break
		}
		lg.eval()
		if lg.value > best+optTol*math.Max(ub, 1)*improveShare {
			best = lg.value
			copy(bestLambda, lg.lambda)
			stall = 0
		} else if stall++; stall >= 10 {
			theta /= 2
			stall = 0
		}
		if best >= ub*(1-optTol) || best >= stopAt || theta < minStepFactor {
			break
		}
		for j := range g {
			g[j] = 1
		}
		for _, c := range lg.open {
			x := rp.cands[c].cost
			for _, j := range rp.members(c) {
				if lg.a[j] > x {
					g[j]--
				}
			}
		}
		norm := 0.0
		for _, x := range g {
			norm += x * x
		}
		if norm == 0 {
			break // λ is optimal for the relaxation
		}
		step := theta * (ub - lg.value) / norm
		for j := range lg.lambda {
			lg.lambda[j] += step * g[j]
		}
	}
	if !math.IsInf(best, -1) {
		copy(lg.lambda, bestLambda)
		lg.eval()
	}
	return best
}

// keep returns the candidates that can belong to a solution cheaper than
// ub: forcing c open gives the bound L − V_K + V_c (V_K the K-th opened
// value, or 0 when fewer than K are opened); when that exceeds ub, c is
// not needed. The incumbent's candidates are always kept.
func (lg *lagrange) keep(ub float64, incumbent []int) []int {
	vk := 0.0
	if len(lg.open) == lg.K {
		vk = lg.v[lg.open[lg.K-1]]
	}
	isOpen := make(map[int]bool, len(lg.open)+len(incumbent))
	for _, c := range lg.open {
		isOpen[c] = true
	}
	for _, c := range incumbent {
		isOpen[c] = true
	}
	slack := optTol * math.Max(ub, 1)
	var out []int
	for c := range lg.rp.cands {
		if isOpen[c] || lg.value-vk+lg.v[c] <= ub+slack {
			out = append(out, c)
		}
	}
	return out
}
