package flow

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/xflex/xflex/lp"
)

type edge struct {
	u, v int
	c    int64
	cost int64
}

func randomGraph(r *rand.Rand, n int) []edge {
	var es []edge
	m := r.IntN(3*n) + 1
	for k := 0; k < m; k++ {
		u, v := r.IntN(n), r.IntN(n)
		if u == v {
			continue
		}
		es = append(es, edge{u, v, int64(r.IntN(10)), int64(r.IntN(5))})
	}
	return es
}

// bruteMinCut enumerates every s-t cut of a small graph.
func bruteMinCut(n, s, t int, es []edge) int64 {
	best := int64(math.MaxInt64)
	for mask := 0; mask < 1<<n; mask++ {
		if mask&(1<<s) == 0 || mask&(1<<t) != 0 {
			continue
		}
		var c int64
		for _, e := range es {
			if mask&(1<<e.u) != 0 && mask&(1<<e.v) == 0 {
				c += e.c
			}
		}
		best = min(best, c)
	}
	return best
}

// TestMaxFlowEqualsBruteMinCut checks max-flow = min-cut (by enumeration)
// for int64 and float64 networks, that the residual source side is a
// minimum cut, and flow conservation and capacity bounds.
func TestMaxFlowEqualsBruteMinCut(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for it := 0; it < 600; it++ {
		n := 2 + r.IntN(7)
		es := randomGraph(r, n)
		s, tt := 0, n-1
		want := bruteMinCut(n, s, tt, es)

		gi := NewNetwork[int64](n)
		gf := NewNetwork[float64](n)
		for _, e := range es {
			gi.AddEdge(e.u, e.v, e.c)
			gf.AddEdge(e.u, e.v, float64(e.c)/3)
		}
		if got := gi.MaxFlow(s, tt); got != want {
			t.Fatalf("instance %d: int max flow %d, brute min cut %d (%v)", it, got, want, es)
		}
		if got := gf.MaxFlow(s, tt); math.Abs(got-float64(want)/3) > 1e-9 {
			t.Fatalf("instance %d: float max flow %v, want %v", it, got, float64(want)/3)
		}
		side := gi.ReachableFrom(s)
		if side[tt] {
			t.Fatalf("instance %d: sink reachable after max flow", it)
		}
		var cut int64
		for _, e := range es {
			if side[e.u] && !side[e.v] {
				cut += e.c
			}
		}
		if cut != want {
			t.Fatalf("instance %d: residual cut %d, want %d", it, cut, want)
		}
		// Conservation and bounds.
		bal := make([]int64, n)
		for id := 0; id < gi.Edges(); id++ {
			f := gi.Flow(id)
			if f < 0 || f > gi.Cap(id) {
				t.Fatalf("instance %d: edge %d flow %d outside [0,%d]", it, id, f, gi.Cap(id))
			}
			u, v := gi.Endpoints(id)
			bal[u] -= f
			bal[v] += f
		}
		for v := 0; v < n; v++ {
			if v != s && v != tt && bal[v] != 0 {
				t.Fatalf("instance %d: node %d unbalanced by %d", it, v, bal[v])
			}
		}
		// CanReach agrees with a per-node max-flow test: a node v can reach
		// t in the residual network iff an extra source arc into v would
		// carry more flow.
		reach := gi.CanReach(tt)
		for v := 0; v < n; v++ {
			if v == tt {
				continue
			}
			h := NewNetwork[int64](n + 1)
			for _, e := range es {
				h.AddEdge(e.u, e.v, e.c)
			}
			h.AddEdge(n, s, want)
			h.AddEdge(n, v, 1)
			extra := h.MaxFlow(n, tt) > want
			if extra != reach[v] && v != s {
				t.Fatalf("instance %d: node %d CanReach=%v but extra flow possible=%v", it, v, reach[v], extra)
			}
		}
	}
}

// TestMaxFlowAfterAddingArcs grows a network between max flows (a node and
// half of the arcs added after the first MaxFlow, ReachableFrom and
// CanReach): the second MaxFlow must see the new arcs and finish at the
// min cut of the whole graph.
func TestMaxFlowAfterAddingArcs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for it := 0; it < 300; it++ {
		n := 3 + r.IntN(6)
		es := randomGraph(r, n)
		s, tt := 0, n-1
		g := NewNetwork[int64](n - 1) // the sink comes later
		half := len(es) / 2
		for _, e := range es[:half] {
			if e.u != tt && e.v != tt {
				g.AddEdge(e.u, e.v, e.c)
			}
		}
		early := g.MaxFlow(s, 1)
		g.ReachableFrom(s)
		g.CanReach(1)
		g.ClearFlow()
		g.AddNode()
		for _, e := range es {
			if e.u == tt || e.v == tt {
				g.AddEdge(e.u, e.v, e.c)
			}
		}
		for _, e := range es[half:] {
			if e.u != tt && e.v != tt {
				g.AddEdge(e.u, e.v, e.c)
			}
		}
		want := bruteMinCut(n, s, tt, es)
		if got := g.MaxFlow(s, tt); got != want {
			t.Fatalf("instance %d: max flow %d after growth (first %d), brute min cut %d (%v)", it, got, early, want, es)
		}
		if g.ReachableFrom(s)[tt] || !g.CanReach(tt)[tt] {
			t.Fatalf("instance %d: residual sides wrong after growth", it)
		}
	}
}

// TestMaxFlowTriesNewestArcFirst pins the order in which MaxFlow tries a
// node's arcs (newest first): CMMF's answers depend on which of several
// maximum flows is returned, so the order must not change.
func TestMaxFlowTriesNewestArcFirst(t *testing.T) {
	g := NewNetwork[int64](3)
	g.AddEdge(0, 1, 1)
	older := g.AddEdge(1, 2, 1)
	newer := g.AddEdge(1, 2, 1)
	if f := g.MaxFlow(0, 2); f != 1 || g.Flow(newer) != 1 || g.Flow(older) != 0 {
		t.Fatalf("flow %d, newer arc %d, older arc %d; want 1 on the newer arc", f, g.Flow(newer), g.Flow(older))
	}
}

// TestMinCostAgainstLP compares min-cost flow with the LP formulation
// solved by lp.Solve.
func TestMinCostAgainstLP(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for it := 0; it < 150; it++ {
		n := 2 + r.IntN(6)
		es := randomGraph(r, n)
		s, tt := 0, n-1
		mc := NewMinCost(n)
		for _, e := range es {
			mc.AddEdge(e.u, e.v, float64(e.c), e.cost)
		}
		maxf := bruteMinCut(n, s, tt, es)
		limit := float64(maxf) * (0.3 + 0.7*r.Float64())
		sent, cost, err := mc.Run(s, tt, limit)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(sent-limit) > 1e-9 {
			t.Fatalf("instance %d: sent %v of %v (max flow %d)", it, sent, limit, maxf)
		}
		m := lp.NewModel()
		for _, e := range es {
			m.AddVar("", 0, float64(e.c), float64(e.cost), false)
		}
		for v := 0; v < n; v++ {
			var idx []int
			var coef []float64
			for k, e := range es {
				if e.u == v {
					idx, coef = append(idx, k), append(coef, -1)
				}
				if e.v == v {
					idx, coef = append(idx, k), append(coef, 1)
				}
			}
			rhs := 0.0
			if v == s {
				rhs = -limit
			} else if v == tt {
				rhs = limit
			}
			m.AddRow("", idx, coef, rhs, rhs)
		}
		sol, err := lp.Solve(context.Background(), m, lp.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if sol.Status != lp.Optimal {
			t.Fatalf("instance %d: LP status %v", it, sol.Status)
		}
		if math.Abs(sol.Objective-cost) > 1e-6*math.Max(1, math.Abs(cost)) {
			t.Fatalf("instance %d: min-cost flow cost %v, LP %v", it, cost, sol.Objective)
		}
	}
}

// TestMinCostNegativeCosts exercises the Bellman-Ford start on a DAG with
// negative costs: the cheapest way must use the negative arc.
func TestMinCostNegativeCosts(t *testing.T) {
	mc := NewMinCost(4)
	a := mc.AddEdge(0, 1, 2, -5)
	mc.AddEdge(0, 2, 2, 0)
	mc.AddEdge(1, 3, 2, 0)
	mc.AddEdge(2, 3, 2, 0)
	sent, cost, err := mc.Run(0, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	if sent != 2 || cost != -10 || mc.Flow(a) != 2 {
		t.Fatalf("sent %v cost %v flow %v, want 2, -10, 2", sent, cost, mc.Flow(a))
	}
}
