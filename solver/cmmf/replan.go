package cmmf

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/xflex/xflex/flow"
)

// Replan stability: among CMMF-optimal allocations, return one that moves
// the fewest machines away from their current user.
//
// Which allocations are optimal. Divisible: the totals are unique (the
// leximin vector is the minimiser of the strictly convex Σ x_i²/w_i), so
// every flow with these totals is optimal. Whole machines: the optimal
// totals form an M-convex set, so any two optima are linked by single
// exchanges (one user −1, another +1) that keep optimality; such an
// exchange keeps the sorted share vector only between users of equal
// weight whose totals differ by one. Hence all optima share, per weight,
// the multiset of totals. Replan lets users of one weight whose totals are
// q or q+1 (with neither q−1 nor q+2 present at that weight) trade the
// extra machine freely — the common case — and keeps other users' totals
// fixed; within that family the result is exact.
//
// The min-cost flow: source → user (its total; for a trading group, q per
// user plus one group arc carrying the group's number of q+1 users, shared
// out one per member) → type (an arc with the current amount at cost 0, a
// parallel arc at cost 1) → sink (the type's machines). The source arcs
// add up to exactly the flow sent, so all of them fill, and the cost of
// the flow is the number of machines that change user.

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
		for _, grp := range tradingGroups(in, a) {
			q := grp.q
			g := mc.AddNode()
			mc.AddEdge(s, g, float64(grp.high), 0)
			for _, i := range grp.users {
				mandatory[i] = float64(q)
				mc.AddEdge(g, userNode(i), 1, 0)
			}
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

// replanTol: the divisible totals come from a float max-flow and may exceed
// what the min-cost flow can route by round-off; 1e-9 relative is far
// above that error and far below a meaningful fraction of a machine.
const replanTol = 1e-9

// tradingGroup is a set of equal-weight users whose totals are q or q+1;
// high of them hold q+1.
type tradingGroup struct {
	q     int64
	high  int64
	users []int
}

func tradingGroups(in *Instance, a *Allocation) []tradingGroup {
	byWeight := map[float64][]int{}
	var weights []float64
	for i, u := range in.Users {
		if _, ok := byWeight[u.Weight]; !ok {
			weights = append(weights, u.Weight)
		}
		byWeight[u.Weight] = append(byWeight[u.Weight], i)
	}
	sort.Float64s(weights)
	var out []tradingGroup
	for _, w := range weights {
		users := byWeight[w]
		has := map[int64]bool{}
		for _, i := range users {
			has[int64(a.Total[i])] = true
		}
		var qs []int64
		for v := range has {
			if has[v+1] && !has[v-1] && !has[v+2] {
				qs = append(qs, v)
			}
		}
		sort.Slice(qs, func(x, y int) bool { return qs[x] < qs[y] })
		for _, q := range qs {
			g := tradingGroup{q: q}
			for _, i := range users {
				switch int64(a.Total[i]) {
				case q:
					// A user whose demand stops at q keeps q.
					if float64(q+1) <= in.Users[i].Demand {
						g.users = append(g.users, i)
					}
				case q + 1:
					g.users = append(g.users, i)
					g.high++
				}
			}
			if g.high > 0 && int64(len(g.users)) > g.high {
				out = append(out, g)
			}
		}
	}
	return out
}
