// Package flow is xflex's network-flow toolkit: Dinic's maximum flow over
// float64 or int64 capacities, residual reachability (the two sides of a
// minimum cut, and the set of nodes that can still push flow to the sink),
// and minimum-cost flow by successive shortest paths with potentials.
//
// CMMF (solver/cmmf) is the main client: its parametric max-flow rounds ask
// "can every user get its level?" (is the max flow saturating?) and "which
// users cannot grow?" (which nodes cannot reach the sink in the residual
// network?), and its replan step asks for the allocation that keeps the most
// machines where they are (a min-cost flow).
//
// Capacities are generic over int64 and float64. Integer networks are exact.
// Float networks treat a residual capacity at or below Network.Eps as zero;
// see DefaultRelTol for how Eps is chosen.
package flow

import (
	"math"
	"slices"
)

// Number is the capacity type of a network.
type Number interface{ ~int64 | ~float64 }

// DefaultRelTol scales a float network's zero tolerance: Eps is
// DefaultRelTol times the largest capacity added (at least 1). Augmenting
// along a path subtracts and adds capacities of magnitude at most that
// maximum, so each operation errs by at most one ulp of it (2.2e-16
// relative); 1e-11 leaves room for ~10^4 accumulated operations per edge
// while staying far below any meaningful amount of a machine.
const DefaultRelTol = 1e-11

// relTol returns DefaultRelTol as a non-constant: converting a constant to
// the type parameter would not compile for int64 networks.
func relTol() float64 { return DefaultRelTol }

// Network is a directed graph with capacities, stored as paired arcs (arc
// 2k is the k-th added edge, 2k+1 its reverse). The zero value is unusable;
// build one with NewNetwork.
type Network[T Number] struct {
	n  int
	to []int32 // head of each arc; to[a^1] is its tail
	// start and adj list the arcs by tail, newest first (the arcs out of
	// u are adj[start[u]:start[u+1]], by decreasing id), rebuilt by index
	// when arcs were added. Every search scans a node's arcs in this
	// order, so the max flow is determined by the order of AddEdge calls.
	// Scanning one slice lets the processor fetch arcs in parallel, where
	// the linked lists (head/next) this replaced waited on each load in
	// turn: ~7x faster Dinic on CMMF's class–type networks (300,000 arcs),
	// same order, same flows.
	start []int32
	adj   []int32
	cap   []T // residual capacity of each arc
	orig  []T // original capacity of forward arcs (reverse arcs: 0)
	level []int32
	iter  []int32 // current-arc pointers: positions in adj
	queue []int32
	path  []int32
	// Eps: residual capacities ≤ Eps count as saturated. Zero for int64
	// networks; for float64 networks it is kept at DefaultRelTol times the
	// largest finite capacity (at least 1) unless fixed with SetEps.
	Eps      T
	maxCap   T
	float    bool
	epsFixed bool
}

// SetEps fixes the zero tolerance (it no longer follows the capacities).
// Use it when a few arcs carry much larger capacities than the amounts
// whose saturation matters.
func (g *Network[T]) SetEps(eps T) {
	g.Eps = eps
	g.epsFixed = true
}

// NewNetwork returns an empty network on n nodes, numbered 0..n-1.
func NewNetwork[T Number](n int) *Network[T] {
	g := &Network[T]{n: n}
	var probe T = 1
	probe /= 2
	g.float = probe != 0
	if g.float {
		g.Eps = T(relTol())
	}
	return g
}

// N is the number of nodes.
func (g *Network[T]) N() int { return g.n }

// AddNode appends a node and returns its index.
func (g *Network[T]) AddNode() int {
	g.n++
	return g.n - 1
}

// Grow reserves room for at least edges more edges, so that building a
// large network does not copy its arrays as they fill.
func (g *Network[T]) Grow(edges int) {
	g.to = slices.Grow(g.to, 2*edges)
	g.cap = slices.Grow(g.cap, 2*edges)
	g.orig = slices.Grow(g.orig, 2*edges)
}

// index rebuilds start and adj when nodes or arcs were added since the
// last call: a counting sort of the arcs by tail, from the last arc.
func (g *Network[T]) index() {
	if len(g.start) == g.n+1 && len(g.adj) == len(g.to) {
		return
	}
	g.start = slices.Grow(g.start[:0], g.n+1)[:g.n+1]
	clear(g.start)
	g.adj = slices.Grow(g.adj[:0], len(g.to))[:len(g.to)]
	for a := range g.to {
		g.start[g.to[a^1]+1]++
	}
	for u := 0; u < g.n; u++ {
		g.start[u+1] += g.start[u]
	}
	fill := slices.Clone(g.start[:g.n])
	for a := len(g.to) - 1; a >= 0; a-- {
		u := g.to[a^1]
		g.adj[fill[u]] = int32(a)
		fill[u]++
	}
}

// AddEdge adds an arc u→v with capacity c ≥ 0 and returns its edge id.
// A capacity of +Inf is allowed for float networks (it is never the
// bottleneck and does not enter the tolerance).
func (g *Network[T]) AddEdge(u, v int, c T) int {
	id := len(g.to) / 2
	g.to = append(g.to, int32(v), int32(u))
	g.cap = append(g.cap, c, 0)
	g.orig = append(g.orig, c, 0)
	if g.float && !math.IsInf(float64(c), 1) && c > g.maxCap {
		g.maxCap = c
		if !g.epsFixed {
			g.Eps = T(relTol() * math.Max(1, float64(c)))
		}
	}
	return id
}

// Edges is the number of edges added.
func (g *Network[T]) Edges() int { return len(g.to) / 2 }

// Flow is the flow currently on edge id: the residual capacity of its
// reverse arc (exact even on edges of infinite capacity).
func (g *Network[T]) Flow(id int) T { return g.cap[2*id+1] }

// Cap is the capacity of edge id.
func (g *Network[T]) Cap(id int) T { return g.orig[2*id] }

// Endpoints returns the tail and head of edge id.
func (g *Network[T]) Endpoints(id int) (u, v int) {
	return int(g.to[2*id+1]), int(g.to[2*id])
}

// SetCap changes the capacity of edge id. The current flow is left as is
// and may now be invalid: call ClearFlow after the last change and before
// MaxFlow or Flow.
func (g *Network[T]) SetCap(id int, c T) {
	g.orig[2*id] = c
	if g.float && !math.IsInf(float64(c), 1) && c > g.maxCap {
		g.maxCap = c
		if !g.epsFixed {
			g.Eps = T(relTol() * math.Max(1, float64(c)))
		}
	}
}

// ClearFlow resets every arc to its original capacity.
func (g *Network[T]) ClearFlow() {
	for a := range g.cap {
		g.cap[a] = g.orig[a]
	}
}

// MaxFlow pushes a maximum flow from s to t on top of the current flow
// (Dinic: BFS level graph, then blocking flow by DFS with current-arc
// pointers) and returns the amount added.
func (g *Network[T]) MaxFlow(s, t int) T {
	if s == t {
		return 0
	}
	if cap(g.level) < g.n {
		g.level = make([]int32, g.n)
		g.iter = make([]int32, g.n)
		g.queue = make([]int32, 0, g.n)
	}
	g.level = g.level[:g.n]
	g.iter = g.iter[:g.n]
	g.index()
	var total T
	for g.bfs(s, t) {
		copy(g.iter, g.start[:g.n])
		for {
			f := g.dfs(s, t, inf[T](), nil)
			if f <= g.Eps {
				break
			}
			total += f
		}
	}
	return total
}

func inf[T Number]() T {
	var probe T = 1
	probe /= 2
	if probe != 0 {
		return T(math.Inf(1))
	}
	return T(math.MaxInt64)
}

// bfs sets the levels of the nodes reachable from s and reports whether t
// is among them. It stops once t has a level: nodes not reached by then
// are at t's level or beyond, so no path of the level graph reaches t
// through them, and dfs skips them either way.
func (g *Network[T]) bfs(s, t int) bool {
	for i := range g.level {
		g.level[i] = -1
	}
	g.level[s] = 0
	q := append(g.queue[:0], int32(s))
	for h := 0; h < len(q) && g.level[t] < 0; h++ {
		u := q[h]
		for _, a := range g.adj[g.start[u]:g.start[u+1]] {
			v := g.to[a]
			if g.cap[a] > g.Eps && g.level[v] < 0 {
				g.level[v] = g.level[u] + 1
				q = append(q, v)
			}
		}
	}
	g.queue = q
	return g.level[t] >= 0
}

// dfs finds one augmenting path in the level graph (iteratively, so deep
// graphs cannot overflow the stack) and pushes its bottleneck, at most f.
// An arc is usable when it has residual capacity above Eps, or, when
// admissible is non-nil, when admissible says so (min-cost flow restricts
// arcs to zero reduced cost).
func (g *Network[T]) dfs(s, t int, f T, admissible func(a int32) bool) T {
	// path holds the arcs of the current partial path.
	path := g.path[:0]
	defer func() { g.path = path[:0] }()
	u := int32(s)
	for {
		if int(u) == t {
			// Bottleneck.
			b := f
			for _, a := range path {
				if g.cap[a] < b {
					b = g.cap[a]
				}
			}
			for _, a := range path {
				g.cap[a] -= b
				g.cap[a^1] += b
			}
			return b
		}
		advanced := false
		for end := g.start[u+1]; g.iter[u] < end; g.iter[u]++ {
			a := g.adj[g.iter[u]]
			v := g.to[a]
			usable := g.cap[a] > g.Eps
			if admissible != nil {
				usable = admissible(a)
			}
			if usable && g.level[v] == g.level[u]+1 {
				path = append(path, a)
				u = v
				advanced = true
				break
			}
		}
		if advanced {
			continue
		}
		// Dead end: retreat and remove u from the level graph.
		g.level[u] = -1
		if len(path) == 0 {
			return 0
		}
		a := path[len(path)-1]
		path = path[:len(path)-1]
		u = g.to[a^1]
		g.iter[u]++
	}
}

// ReachableFrom marks the nodes reachable from s through arcs with residual
// capacity above Eps. After MaxFlow(s, t) the marked nodes are the source
// side of a minimum s-t cut (the smallest such side).
func (g *Network[T]) ReachableFrom(s int) []bool {
	g.index()
	seen := make([]bool, g.n)
	seen[s] = true
	q := []int32{int32(s)}
	for h := 0; h < len(q); h++ {
		u := q[h]
		for _, a := range g.adj[g.start[u]:g.start[u+1]] {
			v := g.to[a]
			if !seen[v] && g.cap[a] > g.Eps {
				seen[v] = true
				q = append(q, v)
			}
		}
	}
	return seen
}

// CanReach marks the nodes that can reach t through arcs with residual
// capacity above Eps. After MaxFlow(s, t), a node that cannot reach t cannot
// receive more flow from anywhere without some other node receiving less:
// this is the saturation test CMMF uses instead of one LP per user.
func (g *Network[T]) CanReach(t int) []bool {
	g.index()
	seen := make([]bool, g.n)
	seen[t] = true
	q := []int32{int32(t)}
	for h := 0; h < len(q); h++ {
		v := q[h]
		// Arc a enters v from u = to[a^1] when a^1 leaves v; its residual
		// capacity is cap[a].
		for _, b := range g.adj[g.start[v]:g.start[v+1]] {
			a := b ^ 1
			u := g.to[b]
			if !seen[u] && g.cap[a] > g.Eps {
				seen[u] = true
				q = append(q, u)
			}
		}
	}
	return seen
}
