package ptas

import (
	"context"
	"math"
	"slices"
)

// FamilyJoins names the level whose candidates are the grid joins
// themselves (ρ = 1).
const FamilyJoins Family = "joins"

// joinGridLimit bounds the grid Π_i |distinct values of resource i| that
// GridJoins enumerates, and joinWorkLimit the grid size × requests it may
// scan: about 0.1 s of one core at the limit.
const (
	joinGridLimit = 200_000
	joinWorkLimit = 30_000_000
)

// GridJoins returns the points of the grid of request coordinates that are
// joins (componentwise maxima) of the requests they dominate and fit a node
// type, with the requests each dominates; nil when the grid exceeds the
// limits. By the argument of Exact, some optimal solution uses only such
// points, so the p-median over them is the exact problem (ρ = 1). Real
// request profiles sit on a few values per resource (cores in powers of
// two, memory in GB steps), so their grids are small even at 10^5
// requests. Points are in lexicographic order of grid index.
func GridJoins(ctx context.Context, in *Instance) (joins [][]float64, covers [][]int32) {
	d, n := in.Dim(), len(in.U)
	vals := make([][]float64, d)
	size := 1
	for i := 0; i < d; i++ {
		for _, u := range in.U {
			vals[i] = append(vals[i], u[i])
		}
		slices.Sort(vals[i])
		vals[i] = slices.Compact(vals[i])
		size *= len(vals[i])
		if size > joinGridLimit || size*n > joinWorkLimit {
			return nil, nil
		}
	}
	all := make([]int32, n)
	for j := range all {
		all[j] = int32(j)
	}
	g := &gridWalk{ctx: ctx, in: in, vals: vals, s: make([]float64, d), sets: make([][]int32, d)}
	if !g.walk(d-1, all) {
		return nil, nil
	}
	return g.joins, g.covers
}

// gridWalk enumerates the grid depth first, the last resource outermost
// (so points come in lexicographic order of grid index, resource 0 fastest),
// narrowing the dominated requests one resource at a time: a subtree is cut
// as soon as no request left has the point's value in the resource just
// fixed, since then no point below it is a join. The work is the size of
// those narrowed sets rather than grid × requests.
type gridWalk struct {
	ctx    context.Context
	in     *Instance
	vals   [][]float64
	s      []float64
	sets   [][]int32 // scratch per depth
	steps  int
	joins  [][]float64
	covers [][]int32
}

// walk fixes resource i to each grid value over the requests set (those
// dominated in resources above i) and recurses; false when ctx ended.
func (g *gridWalk) walk(i int, set []int32) bool {
	for _, v := range g.vals[i] {
		if g.steps++; g.steps&1023 == 0 && g.ctx.Err() != nil {
			return false
		}
		sub, hit := g.sets[i][:0], false
		for _, j := range set {
			if x := g.in.U[j][i]; x <= v {
				sub = append(sub, j)
				hit = hit || x == v
			}
		}
		g.sets[i] = sub
		if !hit {
			continue // covers only grow with v, but none has v here yet
		}
		g.s[i] = v
		if i > 0 {
			if !g.walk(i-1, sub) {
				return false
			}
			continue
		}
		if g.isJoin(sub) && g.fitsNode() {
			g.joins = append(g.joins, append([]float64(nil), g.s...))
			g.covers = append(g.covers, append([]int32(nil), sub...))
		}
	}
	return true
}

// isJoin reports whether the current point is the join of set, the
// requests it dominates: the cut in walk checks each resource only against
// the requests left at its depth, and finer resources may drop them.
func (g *gridWalk) isJoin(set []int32) bool {
	for i, v := range g.s {
		hit := false
		for _, j := range set {
			if g.in.U[j][i] == v {
				hit = true
				break
			}
		}
		if !hit {
			return false
		}
	}
	return true
}

// fitsNode reports whether the current point fits some node type (always
// when there are none).
func (g *gridWalk) fitsNode() bool {
	if len(g.in.Caps) == 0 {
		return true
	}
	for _, c := range g.in.Caps {
		if Fits(g.s, c) {
			return true
		}
	}
	return false
}

// buildJoinProblem makes the candidate problem over the grid joins: one
// single-candidate chain per join, covering the requests it dominates.
// The join problem's optimum is OPT itself, so its Lagrangian bound and
// MIP bound bound OPT directly.
func buildJoinProblem(in *Instance, joins [][]float64, covers [][]int32, cost func([]float64) float64) *rayProblem {
	n := len(in.U)
	rp := &rayProblem{in: in, points: joins,
		dirs: &Directions{Family: FamilyJoins, Dim: in.Dim(), Param: len(joins), Rho: 1}}
	index := map[string]int{}
	for g, s := range joins {
		ch := chain{ray: g, node: -1, order: covers[g]}
		ch.level = make([]float64, len(ch.order))
		ch.rank = make([]int32, n)
		for j := range ch.rank {
			ch.rank[j] = int32(n)
		}
		for i, j := range ch.order {
			ch.rank[j] = int32(i)
		}
		rp.chains = append(rp.chains, ch)
		rp.cands = append(rp.cands, cand{chain: int32(g), p: int32(len(ch.order)), cost: cost(s)})
		rp.byChain = append(rp.byChain, []int32{int32(g)})
		index[vecKey(s)] = g
	}
	// full[a]: the join of the requests fitting node a, a grid join itself
	nodes := max(len(in.Caps), 1)
	rp.full = make([]int, nodes)
	for a := 0; a < nodes; a++ {
		var fit []int
		for j, u := range in.U {
			if len(in.Caps) == 0 || Fits(u, in.Caps[a]) {
				fit = append(fit, j)
			}
		}
		rp.full[a] = -1
		if len(fit) > 0 {
			if g, ok := index[vecKey(Join(in.U, fit))]; ok {
				rp.full[a] = g
			}
		}
	}
	return rp
}

func vecKey(s []float64) string {
	b := make([]byte, 0, 8*len(s))
	for _, x := range s {
		u := math.Float64bits(x)
		for k := 0; k < 8; k++ {
			b = append(b, byte(u>>(8*k)))
		}
	}
	return string(b)
}
