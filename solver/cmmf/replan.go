package cmmf

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/xflex/xflex/flow"
)

// Replan stability: among CMMF-optimal allocations, return one that moves
// the fewest machines away from their current user.
//
// Which allocations are optimal. Divisible: the totals are unique (the
// leximin vector minimises the strictly convex Σ x_i²/w_i), so every flow
// with these totals is optimal. Whole machines: the optimal totals are the
// minimisers of an M-convex function, so they form an M-convex set and any
// two optima are linked by single exchanges (one user −1, another +1) that
// stay optimal. An exchange keeps the sorted share vector only between
// users of equal weight whose totals differ by one, so all optima have, per
// weight, the same multiset of totals. Conversely every feasible
// allocation with those multisets has the optimal sorted vector. So the
// optimal allocations are exactly the feasible ones that redistribute each
// weight's multiset of totals among that weight's users.
//
// That set is a flow polytope. For a weight whose totals range over
// q..q+m with N_j users at or above q+j, each user gets q from the source
// and at most one unit from each "level" node j (source → level j carries
// N_j). Any feasible way of doing this gives a total vector majorised by
// the optimal one; a strictly more balanced vector would be strictly
// leximin-better, which optimality rules out, so every feasible flow is an
// optimal allocation and every optimal allocation is such a flow. A user
// only links to levels within its demand.
//
// The min-cost flow then routes user → type with an arc holding the
// current amount at cost 0 and a parallel arc at cost 1; types → sink with
// the machine counts. The source arcs add up to exactly the flow sent, so
// they all fill, and the cost is the number of machines that change user.

// Replan rewrites a's per-type amounts (and, for trading groups, totals)
// to the optimal allocation closest to in.Current.
func Replan(ctx context.Context, in *Instance, a *Allocation) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	n := len(in.Users)
	// Node layout: 0 source, 1 sink, users, types, groups.
	mc := flow.NewMinCost(2 + n + len(in.Types))
	const s, t = 0, 1
	userNode := func(i int) int { return 2 + i }
	typeNode := func(tt int) int { return 2 + n + tt }
	totalFlow := 0.0
	mandatory := make([]float64, n)
	copy(mandatory, a.Total)
	if !in.Divisible {
		for _, lv := range levelGroups(in, a) {
			// The run's levels fill with lv.n units each, at most one per
			// user per level: a flow giving each user at most lv.levels
			// of the run's lv.n·lv.levels splits into such levels
			// (hand the units out cyclically over the levels).
			g := mc.AddNode()
			mc.AddEdge(s, g, float64(lv.n*lv.levels), 0)
			for _, i := range lv.users {
				mc.AddEdge(g, userNode(i), float64(lv.levels), 0)
			}
		}
		for i, q := range baseOf(in, a) {
			mandatory[i] = float64(q)
		}
	}
	for i := range in.Users {
		totalFlow += a.Total[i]
		if mandatory[i] > 0 {
			mc.AddEdge(s, userNode(i), mandatory[i], 0)
		}
	}
	type arc struct{ i, k, keep, move int }
	var arcs []arc
	for i, u := range in.Users {
		for k, tt := range u.Allowed {
			cur := 0.0
			if in.Current[i] != nil {
				cur = in.Current[i][tt]
			}
			ar := arc{i: i, k: k, keep: -1}
			if cur > 0 {
				ar.keep = mc.AddEdge(userNode(i), typeNode(tt), math.Min(cur, float64(in.Types[tt].Cap)), 0)
			}
			ar.move = mc.AddEdge(userNode(i), typeNode(tt), float64(in.Types[tt].Cap), 1)
			arcs = append(arcs, ar)
		}
	}
	for tt, ty := range in.Types {
		if ty.Cap > 0 {
			mc.AddEdge(typeNode(tt), t, float64(ty.Cap), 0)
		}
	}
	sent, _, err := mc.Run(s, t, totalFlow)
	if err != nil {
		return fmt.Errorf("cmmf: replan: %w", err)
	}
	if sent < totalFlow-replanTol*math.Max(1, totalFlow) {
		return fmt.Errorf("cmmf: replan sent %v of %v", sent, totalFlow)
	}
	for i := range a.Amount {
		for k := range a.Amount[i] {
			a.Amount[i][k] = 0
		}
	}
	for _, ar := range arcs {
		f := mc.Flow(ar.move)
		if ar.keep >= 0 {
			f += mc.Flow(ar.keep)
		}
		a.Amount[ar.i][ar.k] = f
	}
	for i := range a.Amount {
		s := 0.0
		for _, v := range a.Amount[i] {
			s += v
		}
		a.Total[i] = s
	}
	return nil
}

// levelGroup is a run of levels of one weight, q+from .. q+from+levels−1,
// that agree on everything the flow sees: n users hold at least each of
// them in the optimum, and the same users may take each level's unit.
type levelGroup struct {
	n      int64
	levels int64
	users  []int
}

// baseOf returns each user's base q: the smallest total among users of
// its weight.
func baseOf(in *Instance, a *Allocation) []int64 {
	low := map[float64]int64{}
	for i, u := range in.Users {
		x := int64(math.Round(a.Total[i]))
		if q, ok := low[u.Weight]; !ok || x < q {
			low[u.Weight] = x
		}
	}
	out := make([]int64, len(in.Users))
	for i, u := range in.Users {
		out[i] = low[u.Weight]
	}
	return out
}

func levelGroups(in *Instance, a *Allocation) []levelGroup {
	base := baseOf(in, a)
	byWeight := map[float64][]int{}
	var weights []float64
	for i, u := range in.Users {
		if _, ok := byWeight[u.Weight]; !ok {
			weights = append(weights, u.Weight)
		}
		byWeight[u.Weight] = append(byWeight[u.Weight], i)
	}
	sort.Float64s(weights)
	var out []levelGroup
	for _, w := range weights {
		users := byWeight[w]
		q := base[users[0]]
		var top int64
		for _, i := range users {
			top = max(top, int64(math.Round(a.Total[i])))
		}
		// A level's group changes only where a user's total, demand or
		// reach stops covering it, so levels come in runs with equal
		// groups. One node per run (not per level) keeps the flow network
		// linear in the users: with a billion machines a node per level
		// ran out of memory.
		cuts := []int64{q + 1, top + 1}
		for _, i := range users {
			ends := []int64{int64(math.Round(a.Total[i])), reachOf(in, i)}
			if d := in.Users[i].Demand; d < float64(top) {
				ends = append(ends, int64(math.Floor(d)))
			}
			for _, e := range ends {
				if e+1 > q+1 && e+1 <= top {
					cuts = append(cuts, e+1)
				}
			}
		}
		slices.Sort(cuts)
		cuts = slices.Compact(cuts)
		for k := 0; k+1 < len(cuts); k++ {
			lvl := cuts[k]
			g := levelGroup{levels: cuts[k+1] - lvl}
			for _, i := range users {
				if int64(math.Round(a.Total[i])) >= lvl {
					g.n++
				}
				if float64(lvl) <= in.Users[i].Demand && reachOf(in, i) >= lvl {
					g.users = append(g.users, i)
				}
			}
			out = append(out, g)
		}
	}
	return out
}
