package xselect

import (
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

// nodeClasses groups the nodes by capacity and allowed groups (keyed on
// the distinct allowed rows, which tell the same classes: allowedRows).
func (c *configLP) nodeClasses(m *model) {
	idx := map[string]int{}
	var sb strings.Builder
	rows := m.allowedRows()
	for n := 0; n < m.N; n++ {
		sb.Reset()
		for _, x := range m.caps[n] {
			sb.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
			sb.WriteByte(',')
		}
		for _, row := range rows {
			if row[n] {
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
