package xselect

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/xflex/xflex/lp"
	"github.com/xflex/xflex/vecpack"
)

// The configuration LP (Gilmore–Gomory) of X-Select.
//
// The class LP of bound.go lets a node class hold any fractional mix whose
// summed size fits the class's summed capacity, so it does not see that
// every node packs whole containers: a 96-core node and 5-core containers
// strand a core on every node. The configuration LP does: its columns are
// configurations (a vector of container counts that fits ONE node of a
// class), y_p ≥ 0 says how many nodes of the class use configuration p,
// Σ_p y_p ≤ |class| per class, and every container kind is covered. It is
// solved by column generation, the pricing problem being an integer
// knapsack per node class solved exactly by branch and bound.
//
// Containers are aggregated into kinds (same shape, same allowed node
// classes, same conflict partners; configurations respect the
// conflicts); colocation is relaxed away, so the optimum is a valid upper
// bound on λ whenever the pricing was exact. The same solution guides the
// packer: nodes receive whole configurations (rounded), and the greedy
// fills what is left (with colocation, the colocated bundles too).

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

// cfgMaxClasses caps the node classes (distinct capacity × allowed
// signature) for which the configuration LP is built: every round prices
// each class, so a cluster of thousands of distinct nodes would spend its
// budget there; the class LP's bound and guide are used instead.
const cfgMaxClasses = 256

// cfgMaxKinds caps the kinds the pricing branches on in one node class
// (branchKinds: kinds in a conflict, and one per size among the rest):
// beyond a few dozen its cost grows past what a budget share can pay; the
// class LP is used instead.
const cfgMaxKinds = 64

// cfgMaxRounds caps the column-generation rounds of one solve; on the
// benchmark instances the warm pool converges in 2–30 rounds.
const cfgMaxRounds = 300

// cfgPriceEps is the reduced cost a configuration must exceed to enter:
// the LP's duals are accurate to about 1e-9 (relative), and a reduced cost
// that small cannot change the bound beyond its own tolerance.
const cfgPriceEps = 1e-7

// errCfgInexact reports that column generation stopped without proof.
// lpStopped is the error for an LP that ended without an optimum. The
// backend's time limit is derived from the context's deadline, so it can
// fire a moment before the context reports it: that is the budget running
// out (context.DeadlineExceeded, which the λ search answers with its best
// so far), not an internal error.
func lpStopped(what string, st lp.Status) error {
	if st == lp.TimeLimit {
		return fmt.Errorf("%s: %s: %w", what, st, context.DeadlineExceeded)
	}
	return fmt.Errorf("%s: %s", what, st)
}

var errCfgInexact = errors.New("configuration LP: column generation stopped without proof of optimality")

// cfgClass is a set of nodes with one exact capacity vector and one
// allowed signature.
type cfgClass struct {
	nodes []int
	cap   []float64
}

// cfgKind is the containers of one shape allowed on the same classes.
type cfgKind struct {
	groups  []int
	size    []float64
	allowed []bool // per cfgClass
	// conflict lists the kinds that may not share a node with this one
	// (itself included when two of its containers may not share one).
	conflict []int
	self     bool // two containers of this kind may not share a node
}

// cfgPattern is one configuration of one class.
type cfgPattern struct {
	class int
	a     []int // per kind
}

// configLP holds the classes, kinds and the column pool (shared by every
// solve, so later solves start warm).
type configLP struct {
	classes []cfgClass
	kinds   []cfgKind
	kindOf  []int // group -> kind
	pool    []cfgPattern
	seen    map[string]bool
}

// newConfigLP groups nodes into classes and groups into kinds.
func (m *model) newConfigLP() *configLP {
	c := &configLP{seen: map[string]bool{}}
	c.nodeClasses(m)
	gc := newGroupConflicts(m)
	c.groupKinds(m, gc)
	c.kindConflicts(gc)
	c.seedPool()
	return c
}

// nodeClasses groups the nodes by capacity and allowed groups.
func (c *configLP) nodeClasses(m *model) {
	idx := map[string]int{}
	var sb strings.Builder
	for n := 0; n < m.N; n++ {
		sb.Reset()
		for _, x := range m.caps[n] {
			sb.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
			sb.WriteByte(',')
		}
		for g := range m.groups {
			if m.allowed[g][n] {
				sb.WriteByte('1')
			} else {
				sb.WriteByte('0')
			}
		}
		k := sb.String()
		i, ok := idx[k]
		if !ok {
			i = len(c.classes)
			idx[k] = i
			c.classes = append(c.classes, cfgClass{cap: m.caps[n]})
		}
		c.classes[i].nodes = append(c.classes[i].nodes, n)
	}
}

// groupConflicts are the conflicts between groups (exlocation, Garbo),
// between the groups themselves or their applications (G + app).
type groupConflicts struct {
	m    *model
	pair map[[2]int]bool
	// in lists the groups in some conflict, in order; has marks them.
	in  []int
	has []bool
}

func newGroupConflicts(m *model) *groupConflicts {
	gc := &groupConflicts{m: m, pair: map[[2]int]bool{}, has: make([]bool, len(m.groups))}
	for _, pc := range m.conflicts {
		gc.pair[[2]int{pc[0], pc[1]}] = true
		gc.pair[[2]int{pc[1], pc[0]}] = true
	}
	if len(gc.pair) == 0 {
		return gc
	}
	for g := range m.groups {
		for h := range m.groups {
			if gc.conflict(g, h) {
				gc.has[g] = true
				gc.in = append(gc.in, g)
				break
			}
		}
	}
	return gc
}

// conflict reports whether groups g and h may not share a node.
func (gc *groupConflicts) conflict(g, h int) bool {
	G := len(gc.m.groups)
	for _, x := range [2]int{g, G + gc.m.groups[g].app} {
		for _, y := range [2]int{h, G + gc.m.groups[h].app} {
			if gc.pair[[2]int{x, y}] {
				return true
			}
		}
	}
	return false
}

// writePartners writes the part of group g's kind key its conflicts
// decide: nothing for a group in none; its own index for a group in
// conflict with itself; otherwise the groups it conflicts with. Groups
// with the same partners (as every non-Garbo group beside Garbo
// applications) may share a node with each other and conflict with the
// same kinds, so they can be one kind.
func (gc *groupConflicts) writePartners(sb *strings.Builder, g int) {
	if !gc.has[g] {
		return
	}
	if gc.conflict(g, g) {
		sb.WriteString("g" + strconv.Itoa(g) + ":")
		return
	}
	sb.WriteString("p")
	for _, h := range gc.in {
		if gc.conflict(g, h) {
			sb.WriteString(strconv.Itoa(h) + ",")
		}
	}
	sb.WriteString(":")
}

// groupKinds aggregates the groups into kinds by shape, allowed signature
// and conflict partners (writePartners), so that configurations can
// respect the conflicts.
func (c *configLP) groupKinds(m *model, gc *groupConflicts) {
	var sb strings.Builder
	kidx := map[string]int{}
	c.kindOf = make([]int, len(m.groups))
	for g, gr := range m.groups {
		sb.Reset()
		gc.writePartners(&sb, g)
		sb.WriteString(strconv.Itoa(gr.shape))
		sb.WriteByte(':')
		al := make([]bool, len(c.classes))
		for k, cl := range c.classes {
			al[k] = m.allowed[g][cl.nodes[0]]
			if al[k] {
				sb.WriteByte('1')
			} else {
				sb.WriteByte('0')
			}
		}
		key := sb.String()
		i, ok := kidx[key]
		if !ok {
			i = len(c.kinds)
			kidx[key] = i
			c.kinds = append(c.kinds, cfgKind{size: m.req.Shapes[gr.shape].Size, allowed: al})
		}
		c.kinds[i].groups = append(c.kinds[i].groups, g)
		c.kindOf[g] = i
	}
}

// kindConflicts carries the groups' conflicts to their kinds.
func (c *configLP) kindConflicts(gc *groupConflicts) {
	for _, g := range gc.in {
		s := c.kindOf[g]
		for _, h := range gc.in {
			if !gc.conflict(g, h) {
				continue
			}
			if u := c.kindOf[h]; u == s {
				c.kinds[s].self = true
			} else if !slices.Contains(c.kinds[s].conflict, u) {
				c.kinds[s].conflict = append(c.kinds[s].conflict, u)
			}
		}
	}
}

// branchKinds is the most kinds one class's pricing branches on: the
// allowed kinds in a conflict plus one per distinct size among the other
// allowed kinds (mergeItems).
func (c *configLP) branchKinds() int {
	most := 0
	for k := range c.classes {
		n := 0
		sizes := map[string]bool{}
		for _, kd := range c.kinds {
			switch {
			case !kd.allowed[k]:
			case len(kd.conflict) > 0 || kd.self:
				n++
			default:
				sizes[fmt.Sprint(kd.size)] = true
			}
		}
		most = max(most, n+len(sizes))
	}
	return most
}

// seedPool seeds the pool with the single-kind configurations.
func (c *configLP) seedPool() {
	for k := range c.classes {
		for s, kd := range c.kinds {
			if !kd.allowed[k] {
				continue
			}
			a := make([]int, len(c.kinds))
			a[s] = c.kindFit(s, c.classes[k].cap)
			if a[s] > 0 {
				c.add(cfgPattern{class: k, a: a})
			}
		}
	}
}

// kindFit is how many containers of kind s fit in cap on their own.
func (c *configLP) kindFit(s int, cap []float64) int {
	n := fitCount(c.kinds[s].size, cap)
	if c.kinds[s].self {
		n = min(n, 1)
	}
	return n
}

// fitCount is ⌊cap/size⌋ over the positive coordinates (with FitTol).
func fitCount(size, cap []float64) int {
	k := math.MaxInt32
	for r, x := range size {
		if x > 0 {
			k = min(k, int(math.Floor((cap[r]+vecpack.FitTol*math.Max(1, cap[r]))/x)))
		}
	}
	return max(k, 0)
}

func (c *configLP) add(p cfgPattern) bool {
	var sb strings.Builder
	sb.WriteString(strconv.Itoa(p.class))
	for _, x := range p.a {
		sb.WriteByte(',')
		sb.WriteString(strconv.Itoa(x))
	}
	key := sb.String()
	if c.seen[key] {
		return false
	}
	c.seen[key] = true
	c.pool = append(c.pool, p)
	return true
}

// cfgSolution is a solved configuration LP: the objective and the value
// of every pool column.
type cfgSolution struct {
	obj float64
	y   []float64 // per pool pattern (pool at solve time)
}

// solve runs column generation. With demand == nil it maximises λ subject
// to covering λ·C_s containers of every kind (C_s = Σ c_g over its
// groups); otherwise it maximises the number of covered containers, at
// most demand[s] of kind s (the demand fits iff the optimum is Σ demand).
func (c *configLP) solve(ctx context.Context, creq []float64, demand []float64) (*cfgSolution, error) {
	return c.solveOn(ctx, creq, demand, nil)
}

// solveOn is solve with nodes[k] nodes available in class k (nil: all).
func (c *configLP) solveOn(ctx context.Context, creq []float64, demand []float64, nodes []int) (*cfgSolution, error) {
	for round := 0; round < cfgMaxRounds; round++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		lpm := lp.NewModel()
		lpm.Maximize = true
		S := len(c.kinds)
		cover := make([][]int, S)
		coef := make([][]float64, S)
		if demand == nil {
			lam := lpm.AddVar("lambda", 0, lp.Inf, 1, false)
			for s := range cover {
				cover[s] = []int{lam}
				coef[s] = []float64{-creq[s]}
			}
		} else {
			for s := range cover {
				z := lpm.AddVar("z"+strconv.Itoa(s), 0, demand[s], 1, false)
				cover[s] = []int{z}
				coef[s] = []float64{-1}
			}
		}
		base := S
		if demand == nil {
			base = 1
		}
		clsIdx := make([][]int, len(c.classes))
		clsCoef := make([][]float64, len(c.classes))
		for j, p := range c.pool {
			v := lpm.AddVar("y"+strconv.Itoa(j), 0, lp.Inf, 0, false)
			clsIdx[p.class] = append(clsIdx[p.class], v)
			clsCoef[p.class] = append(clsCoef[p.class], 1)
			for s, a := range p.a {
				if a > 0 {
					cover[s] = append(cover[s], v)
					coef[s] = append(coef[s], float64(a))
				}
			}
		}
		for s := range cover {
			lpm.AddRow("cover"+strconv.Itoa(s), cover[s], coef[s], 0, lp.Inf)
		}
		for k, cl := range c.classes {
			avail := len(cl.nodes)
			if nodes != nil {
				avail = nodes[k]
			}
			lpm.AddRow("nodes"+strconv.Itoa(k), clsIdx[k], clsCoef[k], math.Inf(-1), float64(avail))
		}
		sol, err := lp.Solve(ctx, lpm, lp.Options{})
		if err != nil {
			return nil, err
		}
		if sol.Status != lp.Optimal || len(sol.RowDuals) != S+len(c.classes) {
			return nil, lpStopped("configuration LP", sol.Status)
		}
		w := make([]float64, S)
		for s := range w {
			w[s] = math.Abs(sol.RowDuals[s])
		}
		added := false
		for k := range c.classes {
			mu := math.Abs(sol.RowDuals[S+k])
			a, found, exact := c.price(ctx, k, w, demand, mu+cfgPriceEps*math.Max(1, mu))
			if found {
				for _, x := range a {
					if c.add(cfgPattern{class: k, a: x}) {
						added = true
					}
				}
				continue
			}
			if !exact {
				// No improving configuration found, but the search was
				// cut short: optimality is not proven.
				return nil, errCfgInexact
			}
		}
		if !added {
			y := make([]float64, len(c.pool))
			for j := range y {
				y[j] = math.Max(0, sol.X[base+j])
			}
			return &cfgSolution{obj: sol.Objective, y: y}, nil
		}
	}
	return nil, errCfgInexact
}

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
	if i == len(pr.items) || val+pr.bound(i) <= pr.bestVal+1e-12 {
		return
	}
	s := pr.items[i]
	n := pr.c.kindFit(s, pr.rem)
	if pr.demand != nil {
		n = min(n, int(pr.itemDemand(s)+1e-9))
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
		take := min(a, int(pr.demand[u]+1e-9))
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

// kindDemand sums per-group counts into per-kind counts.
func (c *configLP) kindDemand(n []int64) []float64 {
	d := make([]float64, len(c.kinds))
	for g, k := range n {
		d[c.kindOf[g]] += float64(k)
	}
	return d
}

// fits reports whether the counts n fit the configuration LP (a necessary
// condition for a packing), returning the solution for the packer.
func (c *configLP) fits(ctx context.Context, n []int64) (bool, *cfgSolution, error) {
	d := c.kindDemand(n)
	sol, err := c.solve(ctx, nil, d)
	if err != nil {
		return false, nil, err
	}
	total := 0.0
	for _, x := range d {
		total += x
	}
	return sol.obj >= total-fitTotalTol*math.Max(1, total), sol, nil
}

// cfgRepack is how many times pack re-solves the configuration LP on what
// is still unplaced and the nodes still empty, placing the whole part of
// each solution: every re-solve turns most of the previous fractional
// remainder into whole configurations; three rounds left at most a few
// containers for the greedy on the benchmark instances.
const cfgRepack = 3

// pack places configurations on the nodes of sp (which must be every
// node). Configurations place single containers only: where sol planned
// room for containers that are colocated (bundle items), that room is left
// for the final fill, which places the bundles whole. Per class it puts
// ⌊y_p⌋ nodes of each configuration of sol on empty nodes (in node
// order), then re-solves the configuration LP for the containers still
// unplaced on the nodes still empty (up to cfgRepack times) and places the
// whole part again; then one node per remaining fractional configuration
// (largest fraction first) while empty nodes remain. A configuration's
// containers of a kind are taken from the kind's group with the most still
// unplaced (ties by group index). Finally the rule fills what space is left.
func (c *configLP) pack(ctx context.Context, sp *spec, sol *cfgSolution, rule vecpack.Rule) (*vecpack.Packing, error) {
	p, err := vecpack.NewPacking(sp.in)
	if err != nil {
		return nil, err
	}
	nodeBin := make(map[int]int, len(sp.bins))
	for b, n := range sp.bins {
		nodeBin[n] = b
	}
	empty := make([][]int, len(c.classes)) // empty bins per class, in node order
	for k, cl := range c.classes {
		for _, n := range cl.nodes {
			if b, ok := nodeBin[n]; ok {
				empty[k] = append(empty[k], b)
			}
		}
	}
	placeWhole := func(sol *cfgSolution) int {
		placed := 0
		for j, y := range sol.y {
			k := c.pool[j].class
			for range int(math.Floor(y + 1e-9)) {
				if len(empty[k]) == 0 {
					break
				}
				c.placePattern(p, sp, empty[k][0], c.pool[j])
				empty[k] = empty[k][1:]
				placed++
			}
		}
		return placed
	}
	placeWhole(sol)
	for range cfgRepack {
		if ctx.Err() != nil {
			return p, ctx.Err()
		}
		demand := make([]float64, len(c.kinds))
		total := 0
		for g, t := range sp.single {
			if t >= 0 {
				demand[c.kindOf[g]] += float64(p.Left[t])
				total += p.Left[t]
			}
		}
		if total == 0 {
			break
		}
		avail := make([]int, len(c.classes))
		for k := range avail {
			avail[k] = len(empty[k])
		}
		next, err := c.solveOn(ctx, nil, demand, avail)
		if err != nil {
			break
		}
		sol = next
		if placeWhole(sol) == 0 {
			break
		}
	}
	// One node for each fractional remainder, largest first (ties by pool
	// index).
	var frac []int
	for j, y := range sol.y {
		if y-math.Floor(y+1e-9) > 1e-9 {
			frac = append(frac, j)
		}
	}
	slices.SortStableFunc(frac, func(a, b int) int {
		fa, fb := sol.y[a]-math.Floor(sol.y[a]+1e-9), sol.y[b]-math.Floor(sol.y[b]+1e-9)
		switch {
		case fa > fb:
			return -1
		case fa < fb:
			return 1
		}
		return 0
	})
	for _, j := range frac {
		k := c.pool[j].class
		if len(empty[k]) > 0 {
			c.placePattern(p, sp, empty[k][0], c.pool[j])
			empty[k] = empty[k][1:]
		}
	}
	return p, p.FillBins(ctx, rule, nil)
}

// placePattern puts configuration pt on the empty bin b, as far as items
// remain.
func (c *configLP) placePattern(p *vecpack.Packing, sp *spec, b int, pt cfgPattern) {
	for s, a := range pt.a {
		for a > 0 {
			t, left := -1, 0
			for _, g := range c.kinds[s].groups {
				if u := sp.single[g]; u >= 0 && p.Left[u] > left {
					t, left = u, p.Left[u]
				}
			}
			if t < 0 || !p.CanPlace(t, b) {
				break
			}
			p.Place(t, b, 1)
			a--
		}
	}
}
