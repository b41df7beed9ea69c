package flow

import (
	"container/heap"
	"fmt"
	"math"
)

// MinCost is a network for minimum-cost flow: float64 capacities, int64
// costs. It is solved by the primal-dual form of successive shortest paths:
// Dijkstra on reduced costs (costs plus node potentials, kept non-negative)
// finds the shortest-path distances, then a Dinic blocking flow saturates
// every shortest path at once (the arcs with zero reduced cost), and the
// two steps repeat until the requested amount is sent or no path is left.
//
// Costs are integers so reduced costs are exact and "zero reduced cost" is
// an exact test. Capacities that are integers (below 2^53) stay exact too,
// since flow is only ever added and subtracted.
type MinCost struct {
	net  *Network[float64]
	cost []int64 // per arc; reverse arcs carry the negated cost
	pot  []int64
	dist []int64
	// negative records whether any cost is negative (then the first
	// potentials come from Bellman-Ford instead of zero).
	negative bool
}

// NewMinCost returns an empty min-cost network on n nodes.
func NewMinCost(n int) *MinCost {
	return &MinCost{net: NewNetwork[float64](n)}
}

// AddNode appends a node and returns its index.
func (m *MinCost) AddNode() int { return m.net.AddNode() }

// AddEdge adds an arc u→v with capacity c ≥ 0 and cost per unit cost, and
// returns its edge id. The graph of arcs with positive capacity must not
// contain a negative-cost cycle.
func (m *MinCost) AddEdge(u, v int, c float64, cost int64) int {
	id := m.net.AddEdge(u, v, c)
	m.cost = append(m.cost, cost, -cost)
	if cost < 0 {
		m.negative = true
	}
	return id
}

// Flow is the flow on edge id.
func (m *MinCost) Flow(id int) float64 { return m.net.Flow(id) }

// Eps is the tolerance under which a residual capacity counts as zero.
func (m *MinCost) Eps() float64 { return m.net.Eps }

// Run sends up to limit units from s to t at minimum total cost and returns
// the amount sent and its cost. Sending less than limit means limit exceeds
// the maximum flow. Run may be called once per network.
func (m *MinCost) Run(s, t int, limit float64) (sent float64, cost float64, err error) {
	g := m.net
	n := g.n
	m.pot = make([]int64, n)
	m.dist = make([]int64, n)
	if m.negative {
		if err := m.bellmanFord(s); err != nil {
			return 0, 0, err
		}
	}
	g.level = make([]int32, n)
	g.iter = make([]int32, n)
	g.index()
	for sent < limit-g.Eps {
		m.dijkstra(s)
		if m.dist[t] == unreachable {
			break
		}
		for v := 0; v < n; v++ {
			if m.dist[v] != unreachable {
				m.pot[v] += m.dist[v]
			}
		}
		// Blocking flows on the admissible (zero reduced cost) subgraph.
		for sent < limit-g.Eps && m.admissibleBFS(s, t) {
			copy(g.iter, g.start[:n])
			for sent < limit-g.Eps {
				f := m.admissibleDFS(s, t, limit-sent)
				if f <= g.Eps {
					break
				}
				sent += f
			}
		}
	}
	for id := 0; id < g.Edges(); id++ {
		if f := g.Flow(id); f > 0 {
			cost += f * float64(m.cost[2*id])
		}
	}
	return sent, cost, nil
}

const unreachable = math.MaxInt64

func (m *MinCost) reduced(a int32) int64 {
	g := m.net
	return m.cost[a] + m.pot[g.to[a^1]] - m.pot[g.to[a]]
}

// bellmanFord sets potentials to shortest distances from s over arcs with
// positive residual capacity (needed when some costs are negative).
func (m *MinCost) bellmanFord(s int) error {
	g := m.net
	d := make([]int64, g.n)
	for i := range d {
		d[i] = unreachable
	}
	d[s] = 0
	for iter := 0; iter < g.n; iter++ {
		changed := false
		for a := range g.to {
			u := g.to[a^1]
			if d[u] == unreachable || g.cap[a] <= g.Eps {
				continue
			}
			if nd := d[u] + m.cost[a]; nd < d[g.to[a]] {
				d[g.to[a]] = nd
				changed = true
			}
		}
		if !changed {
			for v := range d {
				if d[v] != unreachable {
					m.pot[v] = d[v]
				}
			}
			return nil
		}
	}
	return fmt.Errorf("flow: negative-cost cycle in min-cost network")
}

type pqItem struct {
	node int32
	d    int64
}
type pq []pqItem

func (p pq) Len() int { return len(p) }
func (p pq) Less(i, j int) bool {
	if p[i].d != p[j].d {
		return p[i].d < p[j].d
	}
	return p[i].node < p[j].node
}
func (p pq) Swap(i, j int) { p[i], p[j] = p[j], p[i] }
func (p *pq) Push(x any)   { *p = append(*p, x.(pqItem)) }
func (p *pq) Pop() any {
	old := *p
	x := old[len(old)-1]
	*p = old[:len(old)-1]
	return x
}

// dijkstra computes reduced-cost distances from s over residual arcs.
// Nodes unreachable now stay unreachable for the rest of the run (flow only
// creates reverse arcs between reachable nodes), so their stale potentials
// never matter.
func (m *MinCost) dijkstra(s int) {
	g := m.net
	for i := range m.dist {
		m.dist[i] = unreachable
	}
	m.dist[s] = 0
	h := &pq{{node: int32(s)}}
	for h.Len() > 0 {
		it := heap.Pop(h).(pqItem)
		if it.d != m.dist[it.node] {
			continue
		}
		for _, a := range g.adj[g.start[it.node]:g.start[it.node+1]] {
			if g.cap[a] <= g.Eps {
				continue
			}
			v := g.to[a]
			nd := it.d + m.reduced(a)
			if nd < m.dist[v] {
				m.dist[v] = nd
				heap.Push(h, pqItem{node: v, d: nd})
			}
		}
	}
}

func (m *MinCost) admissible(a int32) bool {
	g := m.net
	if g.cap[a] <= g.Eps {
		return false
	}
	return m.reduced(a) == 0
}

func (m *MinCost) admissibleBFS(s, t int) bool {
	g := m.net
	for i := range g.level {
		g.level[i] = -1
	}
	g.level[s] = 0
	q := []int32{int32(s)}
	for h := 0; h < len(q); h++ {
		u := q[h]
		for _, a := range g.adj[g.start[u]:g.start[u+1]] {
			v := g.to[a]
			if g.level[v] < 0 && m.admissible(a) {
				g.level[v] = g.level[u] + 1
				q = append(q, v)
			}
		}
	}
	return g.level[t] >= 0
}

func (m *MinCost) admissibleDFS(s, t int, f float64) float64 {
	return m.net.dfs(s, t, f, m.admissible)
}
