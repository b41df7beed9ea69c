package xselect

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/xflex/xflex/lp"
	"github.com/xflex/xflex/vecpack"
)

// lpGuide is the LP relaxation's solution, used to guide the greedy: how
// many containers of each group the LP puts on each node class.
type lpGuide struct {
	classOf   []int       // node -> class
	classSize []float64   // nodes per class
	x         [][]float64 // [group][class]
	tot       []float64   // Σ_k x[g][k]
	// cfg is the configuration LP (nil when its column generation did not
	// finish or the instance is beyond its caps): the packer then starts
	// from its configurations.
	cfg *configLP
	// seed seeds the configuration packer's repair search (opts.Seed).
	seed uint64
}

// quota returns the greedy quota for spec sp: bin b's share of type t is
// x_gk/|k| scaled from the LP's total for g to the type's count, where g
// is the type's first member group and k the bin's class.
func (l *lpGuide) quota(sp *spec) func(b int, q []float64) {
	return func(b int, q []float64) {
		k := l.classOf[sp.bins[b]]
		for t, ms := range sp.members {
			g := ms[0]
			if l.tot[g] > 0 {
				q[t] = l.x[g][k] / l.classSize[k] * float64(sp.in.Types[t].Count) / l.tot[g]
			}
		}
	}
}

// nodeClass is a set of nodes with one type and one allowed-group
// signature, aggregated for the LP bound.
type nodeClass struct {
	nodes []int
	cap   []float64 // Σ usable capacity
}

// classes groups nodes by (type, allowed signature). Order: first node.
// It returns ctx's error when the budget runs out first: the signatures
// cost nodes × groups.
func (m *model) classes(ctx context.Context) ([]nodeClass, error) {
	idx := map[string]int{}
	var out []nodeClass
	var key []byte
	rows := m.allowedRows()
	for n := 0; n < m.N; n++ {
		if n%boundCheckEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		key = append(key[:0], m.req.Nodes[n].Type...)
		key = append(key, 0)
		for _, row := range rows {
			if row[n] {
				key = append(key, '1')
			} else {
				key = append(key, '0')
			}
		}
		i, ok := idx[string(key)]
		if !ok {
			i = len(out)
			idx[string(key)] = i
			out = append(out, nodeClass{cap: make([]float64, m.R)})
		}
		out[i].nodes = append(out[i].nodes, n)
		for r, x := range m.caps[n] {
			out[i].cap[r] += x
		}
	}
	return out, nil
}

// allowedRows is the distinct rows of m.allowed, each once in group
// order: groups sharing a row (those of one shape without a predicate)
// give a node the same bit, so a node's signature over these rows tells
// the same classes as over every group, at nodes × rows instead of nodes ×
// groups (20,000 nodes × 2,000 groups built 40 MB of keys per pass).
func (m *model) allowedRows() [][]bool {
	var rows [][]bool
	seen := map[*bool]bool{}
	for _, row := range m.allowed {
		if len(row) == 0 || seen[&row[0]] {
			continue
		}
		seen[&row[0]] = true
		rows = append(rows, row)
	}
	return rows
}

// boundCheckEvery is how many nodes (or groups) the bound's linear passes
// handle between checks of the budget.
const boundCheckEvery = 256

// groupNodes is how many containers of group g fit the nodes in ns (all
// nodes when ns is nil) one node at a time: by capacity, and at most one
// a node when the group is exlocated from itself. The capacity count
// depends on the shape only and is computed once per shape.
func (m *model) groupNodes(g int, ns []int) float64 {
	fit, allowed := m.fitsOf(m.groups[g].shape), m.allowed[g]
	limit := math.Inf(1)
	if m.conflictClasses(g, g) {
		limit = 1
	}
	tot := 0.0
	add := func(n int) {
		if allowed[n] {
			tot += math.Min(fit[n], limit)
		}
	}
	if ns == nil {
		for n := range allowed {
			add(n)
		}
	}
	for _, n := range ns {
		add(n)
	}
	return tot
}

// fitsOf returns shape s's per-node capacity counts ⌊cap/size⌋.
func (m *model) fitsOf(s int) []float64 {
	if m.shapeFit == nil {
		m.shapeFit = make([][]float64, len(m.req.Shapes))
	}
	if m.shapeFit[s] == nil {
		size := m.req.Shapes[s].Size
		row := make([]float64, m.N)
		for n := range row {
			k := math.Inf(1)
			for r, x := range size {
				if x > 0 {
					k = math.Min(k, math.Floor(m.caps[n][r]/x*(1+boundFitTol)))
				}
			}
			row[n] = k
		}
		m.shapeFit[s] = row
	}
	return m.shapeFit[s]
}

// resourceBound is a valid bound without an LP, linear in nodes plus
// groups: per resource, total usable capacity over the mix's total demand.
func (m *model) resourceBound() float64 {
	ub := math.Inf(1)
	for r := 0; r < m.R; r++ {
		capSum, dem := 0.0, 0.0
		for n := range m.caps {
			capSum += m.caps[n][r]
		}
		for _, gr := range m.groups {
			dem += float64(gr.c) * m.req.Shapes[gr.shape].Size[r]
		}
		if dem > 0 {
			ub = math.Min(ub, capSum/dem)
		}
	}
	return ub
}

// classCapacity fills m.classCap (how many of each group fit each class's
// nodes one at a time, the LP's column bounds) and returns the per-group
// bound they give: no group can place more than fits its allowed nodes.
// It returns ctx's error when the budget runs out first.
func (m *model) classCapacity(ctx context.Context, cls []nodeClass) (float64, error) {
	m.classCap = make([][]float64, len(m.groups))
	ub := math.Inf(1)
	for g, gr := range m.groups {
		if g%boundCheckEvery == 0 && ctx.Err() != nil {
			m.classCap = nil
			return 0, ctx.Err()
		}
		m.classCap[g] = make([]float64, len(cls))
		tot := 0.0
		for k, cl := range cls {
			if m.allowed[g][cl.nodes[0]] {
				m.classCap[g][k] = m.groupNodes(g, cl.nodes)
				tot += m.classCap[g][k]
			}
		}
		ub = math.Min(ub, tot/float64(gr.c))
	}
	return ub, nil
}

// relaxation builds the LP relaxation aggregated per node class (node type
// × allowed-group signature): x_gk ≥ 0 containers of group g on class k,
// capped by what fits the class's nodes one at a time, and per class and
// resource Σ_g size_g·x_gk ≤ capacity. Colocation, exlocation and Garbo
// are relaxed away (a relaxation stays a valid bound).
//
// With fixed == nil it maximises λ subject to Σ_k x_gk ≥ λ·c_g and lam is
// λ's column. Otherwise it maximises Σ_g y_g with 0 ≤ y_g ≤ fixed[g] and
// y_g ≤ Σ_k x_gk: the counts fit the relaxation iff the optimum is
// Σ fixed (the model is always feasible, so no infeasibility proof is
// needed from the LP engine). m.classCap must be filled (classCapacity).
func (m *model) relaxation(cls []nodeClass, fixed []int64) (lpm *lp.Model, xv [][]int, lam int) {
	lpm = lp.NewModel()
	lpm.Maximize = true
	lam = -1
	G := len(m.groups)
	demand := make([][]int, G)
	demandCoef := make([][]float64, G)
	if fixed == nil {
		lam = lpm.AddVar("lambda", 0, lp.Inf, 1, false)
		for g := range demand {
			demand[g] = []int{lam}
			demandCoef[g] = []float64{-float64(m.groups[g].c)}
		}
	} else {
		for g := range demand {
			y := lpm.AddVar("y_"+strconv.Itoa(g), 0, float64(fixed[g]), 1, false)
			demand[g] = []int{y}
			demandCoef[g] = []float64{-1}
		}
	}
	xv = make([][]int, G) // LP column of x_gk, -1 if none
	for g := range xv {
		xv[g] = make([]int, len(cls))
		for k := range xv[g] {
			xv[g][k] = -1
		}
	}
	for k, cl := range cls {
		idx := make([][]int, m.R)
		coef := make([][]float64, m.R)
		for g, gr := range m.groups {
			if !m.allowed[g][cl.nodes[0]] {
				continue
			}
			ubx := m.classCap[g][k]
			x := lpm.AddVar("x_"+strconv.Itoa(g)+"_"+strconv.Itoa(k), 0, ubx, 0, false)
			xv[g][k] = x
			demand[g] = append(demand[g], x)
			demandCoef[g] = append(demandCoef[g], 1)
			for r, s := range m.req.Shapes[gr.shape].Size {
				if s > 0 {
					idx[r] = append(idx[r], x)
					coef[r] = append(coef[r], s*m.scale[r])
				}
			}
		}
		for r := 0; r < m.R; r++ {
			if len(idx[r]) > 0 {
				lpm.AddRow(fmt.Sprintf("cap_%d_%d", k, r), idx[r], coef[r], math.Inf(-1), cl.cap[r]*m.scale[r])
			}
		}
	}
	for g := range demand {
		lpm.AddRow("demand_"+strconv.Itoa(g), demand[g], demandCoef[g], 0, lp.Inf)
	}
	return lpm, xv, lam
}

// roundedBoundShare: the rounded-count tightening of the bound may use
// 1/roundedBoundShare of the remaining budget.
const roundedBoundShare = 10

// upperBound returns an upper bound on λ and a note. First the LP
// relaxation's max λ; then, since any packing at λ holds ⌈λ·c_g⌉ (not
// λ·c_g) containers, a bisection over the breakpoints below it with the
// counting relaxation as the oracle finds the largest breakpoint whose
// rounded-up counts still fit the relaxation — a valid and often much
// tighter bound when counts are small. When the LP cannot be solved it
// falls back to the per-resource and per-group bounds and says so.
func (m *model) upperBound(ctx context.Context) (float64, string) {
	simple := m.resourceBound()
	cls, err := m.classes(ctx)
	if err != nil {
		return simple, "bound: the budget ran out before the LP bound, per-resource bound used"
	}
	perGroup, err := m.classCapacity(ctx, cls)
	if err != nil {
		return simple, "bound: the budget ran out before the LP bound, per-resource bound used"
	}
	simple = math.Min(simple, perGroup)
	lpm, xv, _ := m.relaxation(cls, nil)
	G := len(m.groups)
	sol, err := lp.Solve(ctx, lpm, lp.Options{})
	if err != nil {
		return simple, "bound: LP failed (" + err.Error() + "), per-resource bound used"
	}
	if sol.Status != lp.Optimal {
		return simple, "bound: LP " + sol.Status.String() + ", per-resource bound used"
	}
	ub := sol.Objective
	if math.IsNaN(ub) || ub < 0 {
		return simple, "bound: LP returned no usable value, per-resource bound used"
	}
	m.lp = &lpGuide{classOf: make([]int, m.N), classSize: make([]float64, len(cls)), x: make([][]float64, G), tot: make([]float64, G)}
	for k, cl := range cls {
		m.lp.classSize[k] = float64(len(cl.nodes))
		for _, n := range cl.nodes {
			m.lp.classOf[n] = k
		}
	}
	for g := range xv {
		m.lp.x[g] = make([]float64, len(cls))
		for k, j := range xv[g] {
			if j >= 0 {
				v := math.Max(0, sol.X[j])
				m.lp.x[g][k] = v
				m.lp.tot[g] += v
			}
		}
	}
	ub = math.Min(ub, simple)
	m.lpBound = ub
	note := fmt.Sprintf("bound: LP relaxation over %d node classes (%s)", len(cls), sol.Backend)
	c := m.required()
	fits := func(ctx context.Context, n []int64) (bool, []int64, error) {
		lpn, _, _ := m.relaxation(cls, n)
		sol, err := lp.Solve(ctx, lpn, lp.Options{})
		if err != nil {
			return false, nil, err
		}
		if sol.Status != lp.Optimal {
			return false, nil, lpStopped("counting LP", sol.Status)
		}
		total := 0.0
		for _, k := range n {
			total += float64(k)
		}
		return sol.Objective >= total-fitTotalTol*math.Max(1, total), nil, nil
	}
	// The tightening gets at most a tenth of what is left of the budget:
	// the packing search needs the rest more.
	rctx := ctx
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(ctx, time.Until(dl)/roundedBoundShare)
		defer cancel()
	}
	res, err := vecpack.MaxLambda(rctx, c, vecpack.Lambda{}, nil, ub, fits)
	if err == nil && res.Complete {
		ub = math.Min(ub, res.Best.Float())
		note += fmt.Sprintf("; rounded-count LP bound %s (%d LPs)", res.Best, res.Calls)
	}
	return m.configBound(ctx, ub, note)
}

// cfgBoundShare: the configuration LP's bound may use 1/cfgBoundShare of
// what is left of the search budget. It took 0.1 s at 10,000 nodes and 4
// resources but 0.27 s on a 1,000-node instance with 9 node classes and
// 22 kinds, which a quarter of the budget missed under load; the packer
// depends on it (its column pool makes every later oracle call cheap), so
// it gets half.
const cfgBoundShare = 2

// configBound tightens ub with the configuration LP (config.go): first its
// max λ, then a bisection over the breakpoints below it with the
// configuration LP's counting form (rounded-up counts per kind), under
// the same budget as the rounded-count tightening. Every step that does
// not finish with proof leaves the bound where it was. The configuration
// LP is also kept to guide the packer (its configurations respect
// exlocation and Garbo; configPack leaves colocated bundles to the fill).
func (m *model) configBound(ctx context.Context, ub float64, note string) (float64, string) {
	cfg := m.newConfigLP()
	if len(cfg.classes) > cfgMaxClasses || cfg.branchKinds() > cfgMaxKinds {
		return ub, note
	}
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Until(dl)/cfgBoundShare)
		defer cancel()
	}
	creq := make([]float64, len(cfg.kinds))
	for g, gr := range m.groups {
		creq[cfg.kindOf[g]] += float64(gr.c)
	}
	sol, err := cfg.solve(ctx, creq, nil)
	if err != nil {
		return ub, note
	}
	if m.lp != nil {
		m.lp.cfg = cfg
	}
	if sol.obj >= ub {
		return ub, note
	}
	ub = sol.obj
	note += fmt.Sprintf("; configuration LP over %d node classes, %d configurations", len(cfg.classes), len(cfg.pool))
	fits := func(ctx context.Context, n []int64) (bool, []int64, error) {
		ok, _, err := cfg.fits(ctx, n)
		return ok, nil, err
	}
	res, err := vecpack.MaxLambda(ctx, m.required(), vecpack.Lambda{}, nil, ub, fits)
	if err != nil || !res.Complete {
		return ub, note
	}
	return math.Min(ub, res.Best.Float()), note + fmt.Sprintf("; rounded-count configuration bound %s (%d LPs)", res.Best, res.Calls)
}
