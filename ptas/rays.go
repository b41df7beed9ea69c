package ptas

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sort"
)

// chain is the family of candidates on one ray clipped to one node type
// (node −1: no node types): its members are the requests with a finite
// level on the ray that fit the node, sorted by level (ties by index), and
// every candidate of the chain serves a prefix of them. Coverage along a
// chain is nested, which is what the exact DP and the fast bounds use.
type chain struct {
	ray, node int
	order     []int32   // members by level
	level     []float64 // level of order[i]
	rank      []int32   // rank[j] = position of request j, or len(U) if not a member
}

// cand is one ray candidate: the cheapest point of chain c's ray dominating
// its first p members, clipped to the chain's node.
type cand struct {
	chain int32
	p     int32
	cost  float64
}

// rayProblem is the ray-restricted problem: choose at most K candidates so
// every request is covered, minimizing Σ w_j·(cost of the cheapest chosen
// candidate covering j).
type rayProblem struct {
	in     *Instance
	dirs   *Directions
	chains []chain
	cands  []cand
	// byChain lists candidate indices of each chain by increasing p.
	byChain [][]int32
	// full[n] is a candidate covering every request that fits node n
	// (n = 0 when there are no node types).
	full []int
	// points, when set, gives each chain's single candidate explicitly
	// (the grid-join problem); otherwise points lie on the chain's ray.
	points [][]float64
	// lagShare, when positive, replaces lagShare as the part of the
	// remaining budget the level's Lagrangian search may use.
	lagShare float64
}

func (rp *rayProblem) members(c int) []int32 {
	cd := rp.cands[c]
	return rp.chains[cd.chain].order[:cd.p]
}

// coverCount is Σ over candidates of the number of requests they cover:
// the size of the p-median MIP and the work of one local-search pass.
func (rp *rayProblem) coverCount() int {
	n := 0
	for _, c := range rp.cands {
		n += int(c.p)
	}
	return n
}

// splitmix64 gives fixed pseudo-random keys for the coverage hashes; it is
// a pure function of the index, so hashing is deterministic.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// buildRayProblem lays out one candidate per (distinct request, ray, node
// type holding the request): the request's level on the ray, clipped to the
// node. Candidates with identical coverage are merged, keeping the cheapest
// (ties: the one built first, i.e. lowest ray, then node, then level).
// Coverage sets are identified by their size and two independent 64-bit
// sums of fixed pseudo-random keys of their members (order-independent, so
// a prefix's key is updated in O(1) as the prefix grows). Two different
// sets of the same size collide with probability 2^-128 per pair, below
// 10^-25 for the 10^6 candidates of the largest level Solve builds. A
// collision would drop a candidate: the answer would stay valid and only
// the level's bound could be wrong, with that probability.
// It returns nil when ctx ends first.
func buildRayProblem(ctx context.Context, in *Instance, dirs *Directions, cost func([]float64) float64) *rayProblem {
	b := newRayBuilder(in, dirs, cost)
	byLevel := make([]levelRef, 0, len(in.U))
	for r, v := range dirs.Vecs {
		if ctx.Err() != nil {
			return nil
		}
		byLevel = sortByLevel(in, v, byLevel[:0])
		for a := range b.nodes {
			b.addChain(r, a, byLevel)
		}
	}
	b.rp.compact()
	return b.rp
}

// rayBuilder is buildRayProblem's state: the node types (-1: none), which
// requests fit each, the coverage keys and the candidates seen by coverage.
type rayBuilder struct {
	rp          *rayProblem
	cost        func([]float64) float64
	nodes       []int
	fit         [][]bool // per node type, per request
	fitCount    []int    // per node type: the requests that fit it
	keys, keys2 []uint64 // the two pseudo-random keys of each request
	byHash      map[coverKey]int
	fullCost    []float64 // per node type: the cost of rp.full
	scratch     []float64
}

// coverKey identifies a coverage set: its two key sums and its size.
type coverKey struct {
	h1, h2 uint64
	p      int32
}

// levelRef is request j at level l on a ray.
type levelRef struct {
	l float64
	j int32
}

func newRayBuilder(in *Instance, dirs *Directions, cost func([]float64) float64) *rayBuilder {
	n := len(in.U)
	b := &rayBuilder{rp: &rayProblem{in: in, dirs: dirs}, cost: cost, nodes: []int{-1},
		keys: make([]uint64, n), keys2: make([]uint64, n), byHash: map[coverKey]int{}, scratch: make([]float64, in.Dim())}
	if len(in.Caps) > 0 {
		b.nodes = b.nodes[:0]
		for k := range in.Caps {
			b.nodes = append(b.nodes, k)
		}
	}
	b.fit, b.fitCount = make([][]bool, len(b.nodes)), make([]int, len(b.nodes))
	for a, nd := range b.nodes {
		b.fit[a] = make([]bool, n)
		for j, u := range in.U {
			b.fit[a][j] = nd < 0 || Fits(u, in.Caps[nd])
			if b.fit[a][j] {
				b.fitCount[a]++
			}
		}
	}
	for j := range b.keys {
		b.keys[j] = splitmix64(uint64(j) + 1)
		b.keys2[j] = splitmix64(uint64(j) + 1 + 1<<40)
	}
	b.rp.full, b.fullCost = make([]int, len(b.nodes)), make([]float64, len(b.nodes))
	for a := range b.rp.full {
		b.rp.full[a] = -1
		b.fullCost[a] = math.Inf(1)
	}
	return b
}

// sortByLevel lists the requests with a finite level on ray v by level,
// ties by index (one sort per ray; the chains filter it).
func sortByLevel(in *Instance, v []float64, byLevel []levelRef) []levelRef {
	for j, u := range in.U {
		if l := Level(u, v); !math.IsInf(l, 1) {
			byLevel = append(byLevel, levelRef{l, int32(j)})
		}
	}
	slices.SortFunc(byLevel, func(a, b levelRef) int {
		if c := cmp.Compare(a.l, b.l); c != 0 {
			return c
		}
		return cmp.Compare(a.j, b.j)
	})
	return byLevel
}

// addChain adds the chain of ray r on node type a (the requests that fit
// it, by level) and its candidates, one per prefix ending at a level
// boundary. A chain all of whose prefixes duplicate existing candidates is
// dropped, so memory grows with candidates, not with rays.
func (b *rayBuilder) addChain(r, a int, byLevel []levelRef) {
	rp := b.rp
	ch := chain{ray: r, node: b.nodes[a]}
	for _, e := range byLevel {
		if b.fit[a][e.j] {
			ch.order = append(ch.order, e.j)
			ch.level = append(ch.level, e.l)
		}
	}
	if len(ch.order) == 0 {
		return
	}
	g := int32(len(rp.chains))
	rp.chains = append(rp.chains, ch)
	rp.byChain = append(rp.byChain, nil)
	used := false
	var h1, h2 uint64
	for i := range ch.order {
		h1 += b.keys[ch.order[i]]
		h2 += b.keys2[ch.order[i]]
		if i+1 < len(ch.order) && ch.level[i+1] == ch.level[i] {
			continue // a candidate's prefix ends at a level boundary
		}
		c := cand{chain: g, p: int32(i + 1)}
		c.cost = b.cost(rp.pointAt(&ch, ch.level[i], b.scratch))
		idx, kept := b.keep(coverKey{h1, h2, c.p}, c)
		used = used || kept
		if i+1 == len(ch.order) && len(ch.order) == b.fitCount[a] && rp.cands[idx].cost < b.fullCost[a] {
			rp.full[a], b.fullCost[a] = idx, rp.cands[idx].cost
		}
	}
	if !used {
		rp.chains = rp.chains[:g]
		rp.byChain = rp.byChain[:g]
		return
	}
	n := len(b.rp.in.U)
	rank := make([]int32, n)
	for j := range rank {
		rank[j] = int32(n)
	}
	for i, j := range ch.order {
		rank[j] = int32(i)
	}
	rp.chains[g].rank = rank
}

// keep adds candidate c with coverage key, or lets it replace the
// candidate of the same coverage when it is cheaper. It returns the
// candidate's index and whether c was kept.
func (b *rayBuilder) keep(key coverKey, c cand) (int, bool) {
	rp := b.rp
	idx, seen := b.byHash[key]
	if !seen {
		idx = len(rp.cands)
		rp.cands = append(rp.cands, c)
		b.byHash[key] = idx
		return idx, true
	}
	if c.cost < rp.cands[idx].cost {
		rp.cands[idx] = c
		return idx, true
	}
	return idx, false
}

// compact drops chains whose candidates were all replaced by cheaper ones
// with the same coverage, renumbering the rest, and lists each chain's
// candidates by prefix length.
func (rp *rayProblem) compact() {
	ref := make([]bool, len(rp.chains))
	for _, c := range rp.cands {
		ref[c.chain] = true
	}
	newIdx := make([]int32, len(rp.chains))
	kept := 0
	for g := range rp.chains {
		if ref[g] {
			newIdx[g] = int32(kept)
			rp.chains[kept] = rp.chains[g]
			kept++
		}
	}
	rp.chains = rp.chains[:kept]
	rp.byChain = rp.byChain[:kept]
	for c := range rp.cands {
		rp.cands[c].chain = newIdx[rp.cands[c].chain]
	}
	for c, cd := range rp.cands {
		rp.byChain[cd.chain] = append(rp.byChain[cd.chain], int32(c))
	}
	for g := range rp.byChain {
		bc := rp.byChain[g]
		sort.Slice(bc, func(x, y int) bool { return rp.cands[bc[x]].p < rp.cands[bc[y]].p })
	}
}

// pointAt writes chain ch's point at level t (clipped to its node) into buf.
func (rp *rayProblem) pointAt(ch *chain, t float64, buf []float64) []float64 {
	v := rp.dirs.Vecs[ch.ray]
	for i := range v {
		buf[i] = t * v[i]
		if ch.node >= 0 {
			buf[i] = math.Min(buf[i], rp.in.Caps[ch.node][i])
		}
	}
	return buf
}
