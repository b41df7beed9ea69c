package xselect

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
)

// The pricing problem of the configuration LP: per node class, an integer
// knapsack over the container kinds (values the LP's duals, weights the
// kinds' sizes, one node's capacity, conflicting kinds exclusive) solved
// exactly by depth-first branch and bound with a fractional bound.

// cfgPriceNodes caps the branch-and-bound nodes of one pricing call; when
// it is hit the pricing is not exact, so the LP optimum is not a proven
// bound and the configuration bound is not used (the class LP's stays).
// A tiny 4-resource instance with exlocation and a Garbo application
// needed between 200,000 and 1,000,000 nodes for its last (proof) round;
// the pricing checks ctx, so the cap bounds work, not the deadline.
const cfgPriceNodes = 1_000_000

// cfgCtxEvery is how many branch-and-bound nodes the pricing visits
// between context checks (a node costs well under a microsecond).
const cfgCtxEvery = 4096

// price looks for the configuration of class k with the largest value
// Σ_s w_s·a_s above floor (a_s integer, Σ_s a_s·size_s ≤ cap, a_s ≤
// demand[s] when demand is given) by depth-first branch and bound, pruning
// every branch that cannot beat the best value so far (initially floor).
// found says a configuration above floor was found; exact is false when
// the node cap was hit (then a better one may exist, and without found
// it is not proven that none beats floor).
//
// A first pass stops after cfgQuickNodes nodes: when it finds an
// improving configuration that one enters (column generation needs an
// improving column, not the best); only when it finds none does the full
// search run, so the round that ends column generation is still proven.
//
// Besides the best it returns the incumbents it superseded (up to
// cfgPriceCols in all, best first): each also has a reduced cost above
// floor, and entering them together saves column-generation rounds.
func (c *configLP) price(ctx context.Context, k int, w []float64, demand []float64, floor float64) (cols [][]int, found, exact bool) {
	pr := newPricer(ctx, c, k, w, demand, floor)
	pr.limit = cfgQuickNodes
	pr.dfs(0, 0)
	if !pr.found {
		pr = newPricer(ctx, c, k, w, demand, floor)
		pr.dfs(0, 0)
	}
	if !pr.found {
		return nil, false, pr.exact
	}
	cols = append(cols, pr.best)
	for i := len(pr.prev) - 1; i >= 0 && len(cols) < cfgPriceCols; i-- {
		cols = append(cols, pr.prev[i])
	}
	return cols, true, pr.exact
}

// cfgQuickNodes caps price's first pass. On the 10,000-node cluster with
// 30 node classes and 140 kinds (RESULTS.md) the configuration LP took 16
// rounds and 68 million branch-and-bound nodes with the full search only;
// with a first pass of 1,000 / 3,000 / 10,000 / 100,000 nodes it took
// 20 / 12 / 13 / 11 rounds and 8.3 / 1.2 / 5.6 / 18 million nodes.
const cfgQuickNodes = 3000

// cfgPriceCols is how many improving configurations one pricing call may
// enter (the best and the last incumbents it beat).
const cfgPriceCols = 4

// pricer is one pricing's depth-first branch and bound over the kinds
// items, in branching order.
type pricer struct {
	ctx    context.Context
	c      *configLP
	w      []float64
	demand []float64
	cap    []float64
	items  []int
	// also lists, per item, the other kinds it stands for (mergeItems).
	also map[int][]int
	// best is the best configuration so far, of value bestVal; cur the one
	// being built, rem the capacity it leaves.
	best, cur []int
	bestVal   float64
	prev      [][]int // the incumbents best superseded, in order
	rem       []float64
	forbid    []int // chosen kinds each kind conflicts with
	forbidden int   // Σ forbid
	// suf[i][r] is the best value per unit of r in items[i:]; suf[i][R]
	// the best density. scratch is bound's table when kinds are forbidden.
	suf     [][]float64
	scratch []float64
	nodes   int
	limit   int
	found   bool
	exact   bool
}

func newPricer(ctx context.Context, c *configLP, k int, w, demand []float64, floor float64) *pricer {
	cap := c.classes[k].cap
	pr := &pricer{ctx: ctx, c: c, w: w, demand: demand, cap: cap, bestVal: floor, exact: true, limit: cfgPriceNodes,
		best: make([]int, len(c.kinds)), cur: make([]int, len(c.kinds)), forbid: make([]int, len(c.kinds)),
		rem: slices.Clone(cap), scratch: make([]float64, len(cap)+1)}
	pr.mergeItems(k)
	pr.sortItems()
	pr.suffixes()
	return pr
}

// mergeItems picks the kinds the pricing branches on. Kinds in no
// conflict that have the same size are interchangeable in a
// configuration, so one item stands for all of them: its kind of largest
// dual (ties by index) first, the others in pr.also by decreasing dual.
// Without demand a configuration using the others is never better, so
// they are dropped; with demand a count a fills the kinds in that order up
// to their demands. The optimum is unchanged (exchanging a container for
// one of the same size and no smaller dual keeps it feasible and no
// worse), but on clusters whose predicates split one shape into many
// kinds the branching shrinks from kinds to shapes.
func (pr *pricer) mergeItems(k int) {
	c := pr.c
	pr.also = map[int][]int{}
	head := map[string]int{}
	for s, kd := range c.kinds {
		if !kd.allowed[k] || pr.w[s] <= 0 || c.kindFit(s, pr.cap) == 0 || (pr.demand != nil && pr.demand[s] < 1) {
			continue
		}
		if len(kd.conflict) > 0 || kd.self {
			pr.items = append(pr.items, s)
			continue
		}
		key := fmt.Sprint(kd.size)
		h, ok := head[key]
		if !ok {
			head[key] = s
			pr.items = append(pr.items, s)
			continue
		}
		if pr.w[s] > pr.w[h] {
			pr.also[s] = append([]int{h}, pr.also[h]...)
			delete(pr.also, h)
			head[key] = s
			pr.items[slices.Index(pr.items, h)] = s
		} else {
			pr.also[h] = append(pr.also[h], s)
		}
	}
	for h, rest := range pr.also {
		slices.SortStableFunc(rest, func(a, b int) int { return cmp.Compare(pr.w[b], pr.w[a]) })
		if pr.demand == nil {
			delete(pr.also, h)
		}
	}
}

// itemDemand is how many containers item s (with its merged kinds) may
// still take.
func (pr *pricer) itemDemand(s int) float64 {
	d := pr.demand[s]
	for _, u := range pr.also[s] {
		d += pr.demand[u]
	}
	return d
}

// density is kind s's value per unit of normalised size.
func (pr *pricer) density(s int) float64 {
	d := 0.0
	for r, x := range pr.c.kinds[s].size {
		if pr.cap[r] > 0 {
			d += x / pr.cap[r]
		}
	}
	return pr.w[s] / d
}

// sortItems puts kinds in a conflict first (they branch into few choices
// and forbid others early), then the rest; each part by most value per
// unit of normalised size (ties by kind index).
func (pr *pricer) sortItems() {
	confl := func(s int) bool { return len(pr.c.kinds[s].conflict) > 0 }
	slices.SortStableFunc(pr.items, func(a, b int) int {
		if ca, cb := confl(a), confl(b); ca != cb {
			if ca {
				return -1
			}
			return 1
		}
		da, db := pr.density(a), pr.density(b)
		switch {
		case da > db:
			return -1
		case da < db:
			return 1
		}
		return 0
	})
}

// suffixes builds the suffix tables suf of the bound.
func (pr *pricer) suffixes() {
	R, items := len(pr.cap), pr.items
	pr.suf = make([][]float64, len(items)+1)
	pr.suf[len(items)] = make([]float64, R+1)
	for i := len(items) - 1; i >= 0; i-- {
		pr.suf[i] = slices.Clone(pr.suf[i+1])
		pr.best1(pr.suf[i], items[i])
	}
}

// best1 raises the table mx by kind s: its value per unit of each resource
// (+Inf for a resource it does not use) and its density.
func (pr *pricer) best1(mx []float64, s int) {
	for r, x := range pr.c.kinds[s].size {
		if x <= 0 {
			mx[r] = math.Inf(1)
		} else {
			mx[r] = math.Max(mx[r], pr.w[s]/x)
		}
	}
	R := len(pr.cap)
	mx[R] = math.Max(mx[R], pr.density(s))
}

// bound is an upper bound on the value items[i:] can add in rem (the
// forbidden ones excluded): the least of, per resource, rem_r times the
// best value per unit of r (an item with no demand in r leaves that
// resource unbounding), and the fractional relaxation of the sum of
// normalised sizes (free normalised room times the best density). Without
// forbidden kinds the maxima come from the suffix tables.
func (pr *pricer) bound(i int) float64 {
	mx := pr.suf[i]
	if pr.forbidden > 0 {
		clear(pr.scratch)
		for _, s := range pr.items[i:] {
			if pr.forbid[s] == 0 {
				pr.best1(pr.scratch, s)
			}
		}
		mx = pr.scratch
	}
	// Plain comparisons: this is the pricing's innermost loop, and every
	// operand is finite and non-negative here.
	norm := 0.0
	for r, x := range pr.rem {
		if x > 0 && pr.cap[r] > 0 {
			norm += x / pr.cap[r]
		}
	}
	ub := norm * mx[len(pr.cap)]
	for r, x := range pr.rem {
		if mx[r] <= math.MaxFloat64 {
			if x <= 0 {
				return 0
			}
			if v := x * mx[r]; v < ub {
				ub = v
			}
		}
	}
	return ub
}

// dfs branches on the count of items[i], largest first, with the
// configuration so far worth val. It stops (exact false) at the node cap
// or when ctx ends.
func (pr *pricer) dfs(i int, val float64) {
	if !pr.exact {
		return
	}
	pr.nodes++
	if pr.nodes > pr.limit || (pr.nodes%cfgCtxEvery == 0 && pr.ctx.Err() != nil) {
		pr.exact = false
		return
	}
	if val > pr.bestVal {
		if pr.found {
			pr.prev = append(pr.prev, slices.Clone(pr.best))
		}
		pr.bestVal = val
		copy(pr.best, pr.cur)
		pr.found = true
	}
	if i == len(pr.items) || val+pr.bound(i) <= pr.bestVal+pricePruneTol {
		return
	}
	s := pr.items[i]
	n := pr.c.kindFit(s, pr.rem)
	if pr.demand != nil {
		n = min(n, int(pr.itemDemand(s)+countTol))
	}
	if pr.forbid[s] > 0 {
		n = 0
	}
	for a := n; a >= 0 && pr.exact; a-- {
		v := pr.choose(s, a)
		pr.dfs(i+1, val+v)
		pr.unchoose(s, a)
	}
}

// spread puts a containers of item s on its kinds in order (s, then
// pr.also[s]), each up to its demand, and returns their value.
func (pr *pricer) spread(s, a int) float64 {
	if len(pr.also[s]) == 0 {
		pr.cur[s] = a
		return pr.w[s] * float64(a)
	}
	v := 0.0
	for _, u := range append([]int{s}, pr.also[s]...) {
		take := min(a, int(pr.demand[u]+countTol))
		pr.cur[u] = take
		v += pr.w[u] * float64(take)
		a -= take
	}
	return v
}

// choose takes a items of item s: their room, and the kinds they forbid;
// it returns their value.
func (pr *pricer) choose(s, a int) float64 {
	for r, x := range pr.c.kinds[s].size {
		pr.rem[r] -= x * float64(a)
	}
	if a > 0 {
		for _, u := range pr.c.kinds[s].conflict {
			pr.forbid[u]++
			pr.forbidden++
		}
	}
	return pr.spread(s, a)
}

// unchoose undoes choose.
func (pr *pricer) unchoose(s, a int) {
	pr.cur[s] = 0
	for _, u := range pr.also[s] {
		pr.cur[u] = 0
	}
	if a > 0 {
		for _, u := range pr.c.kinds[s].conflict {
			pr.forbid[u]--
			pr.forbidden--
		}
	}
	for r, x := range pr.c.kinds[s].size {
		pr.rem[r] += x * float64(a)
	}
}
