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
	n := len(in.U)
	rp := &rayProblem{in: in, dirs: dirs}
	nodes := []int{-1}
	if len(in.Caps) > 0 {
		nodes = nodes[:0]
		for k := range in.Caps {
			nodes = append(nodes, k)
		}
	}
	fit := make([][]bool, len(nodes))
	for a, nd := range nodes {
		fit[a] = make([]bool, n)
		for j, u := range in.U {
			fit[a][j] = nd < 0 || Fits(u, in.Caps[nd])
		}
	}
	keys := make([]uint64, n)
	keys2 := make([]uint64, n)
	for j := range keys {
		keys[j] = splitmix64(uint64(j) + 1)
		keys2[j] = splitmix64(uint64(j) + 1 + 1<<40)
	}
	type hkey struct {
		h1, h2 uint64
		p      int32
	}
	byHash := map[hkey]int{}
	rp.full = make([]int, len(nodes))
	fullCost := make([]float64, len(nodes))
	for a := range rp.full {
		rp.full[a] = -1
		fullCost[a] = math.Inf(1)
	}
	fitCount := make([]int, len(nodes))
	for a := range nodes {
		for j := 0; j < n; j++ {
			if fit[a][j] {
				fitCount[a]++
			}
		}
	}
	type lj struct {
		l float64
		j int32
	}
	byLevel := make([]lj, 0, n)
	scratch := make([]float64, in.Dim())
	for r, v := range dirs.Vecs {
		if ctx.Err() != nil {
			return nil
		}
		// one sort per ray (by level, ties by index); chains filter it
		byLevel = byLevel[:0]
		for j, u := range in.U {
			if l := Level(u, v); !math.IsInf(l, 1) {
				byLevel = append(byLevel, lj{l, int32(j)})
			}
		}
		slices.SortFunc(byLevel, func(a, b lj) int {
			if c := cmp.Compare(a.l, b.l); c != 0 {
				return c
			}
			return cmp.Compare(a.j, b.j)
		})
		for a, nd := range nodes {
			var ch chain
			ch.ray, ch.node = r, nd
			for _, e := range byLevel {
				if fit[a][e.j] {
					ch.order = append(ch.order, e.j)
					ch.level = append(ch.level, e.l)
				}
			}
			if len(ch.order) == 0 {
				continue
			}
			g := int32(len(rp.chains))
			rp.chains = append(rp.chains, ch)
			rp.byChain = append(rp.byChain, nil)
			used := false
			var h1, h2 uint64
			for i := range ch.order {
				h1 += keys[ch.order[i]]
				h2 += keys2[ch.order[i]]
				if i+1 < len(ch.order) && ch.level[i+1] == ch.level[i] {
					continue // a candidate's prefix ends at a level boundary
				}
				c := cand{chain: g, p: int32(i + 1)}
				c.cost = cost(rp.pointAt(&ch, ch.level[i], scratch))
				key := hkey{h1, h2, c.p}
				idx, seen := byHash[key]
				if !seen {
					idx = len(rp.cands)
					rp.cands = append(rp.cands, c)
					byHash[key] = idx
					used = true
				} else if c.cost < rp.cands[idx].cost {
					rp.cands[idx] = c
					used = true
				}
				if i+1 == len(ch.order) && len(ch.order) == fitCount[a] && rp.cands[idx].cost < fullCost[a] {
					rp.full[a], fullCost[a] = idx, rp.cands[idx].cost
				}
			}
			if !used {
				// every prefix duplicates an existing candidate: drop the
				// chain so memory grows with candidates, not with rays
				rp.chains = rp.chains[:g]
				rp.byChain = rp.byChain[:g]
				continue
			}
			rank := make([]int32, n)
			for j := range rank {
				rank[j] = int32(n)
			}
			for i, j := range ch.order {
				rank[j] = int32(i)
			}
			rp.chains[g].rank = rank
		}
	}
	// Drop chains whose candidates were all replaced by cheaper ones with
	// the same coverage, renumbering the rest.
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
	return rp
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
