package xselect

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/vecpack"
)

// maxContainers caps Σ_g ⌈λ·c_g⌉ in the search: the response lists every
// container, and a million of them is already tens of megabytes of JSON,
// six times the largest benchmark cluster. The bound is still reported
// uncapped, so a capped answer shows its gap.
const maxContainers = 1_000_000

// maxShapeRatio bounds a cluster total over a positive shape size. The
// bounds are computed from total/size (and an LP with sizes next to
// capacities): sizes of 5e-324 made the upper bound +Inf and the response
// unencodable, and any ratio past maxContainers is capped in the search
// anyway, so 1e12 refuses nothing a response could list.
const maxShapeRatio = 1e12

// group is the containers of one shape owned by one application with a
// positive required count c.
type group struct {
	app, shape int
	c          int64
}

// model is a validated request in index form.
type model struct {
	req   *Request
	R, N  int
	caps  [][]float64 // usable capacity per node (capacity - reserved)
	total []float64   // Σ capacity per resource (the share normaliser)
	scale []float64   // 1 / max node capacity per resource
	// scoreScale is scale weighted by each resource's load (see
	// bottleneckScale): the units the greedy scores see.
	scoreScale []float64
	groups     []group
	gidx       map[[2]int]int // (app, shape) -> group
	allowed    [][]bool       // [group][node]
	// appNodes[a][n]: node n satisfies app a's predicate.
	appNodes [][]bool
	// conflicts between vecpack classes: class g is group g, class G+a is app a.
	conflicts [][2]int
	// coloc holds each colocate pair's two sides as group lists.
	coloc [][2][]int
	// exloc holds each exlocate pair's two sides as group lists.
	exloc    [][2][]int
	nodeIdx  map[string]int
	shapeIdx map[string]int
	appIdx   map[string]int
	hasGarbo bool
	lp       *lpGuide    // LP solution from upperBound (nil if the LP failed)
	lpBound  float64     // the plain LP relaxation's λ (before rounding counts)
	classCap [][]float64 // per group and node class, containers that fit (LP column bounds)
	// shapeFit[s][n] is how many containers of shape s fit node n by
	// capacity alone (nil until groupNodes first needs shape s).
	shapeFit  [][]float64
	changeMax int // ⌊f·N⌋ for incremental replans, N otherwise
}

// build validates req semantically and returns the model. Invalid input
// returns a KindInvalid error; contradictory constraints return
// KindInfeasible with the names involved.
func build(req *Request) (*model, error) {
	var vs solver.Violations
	m := &model{req: req, R: len(req.Resources), N: len(req.Nodes)}
	m.indexNames(&vs)
	m.nodeCapacities(&vs)
	m.checkShapes(&vs)
	m.makeGroups(&vs)
	if len(vs) > 0 {
		return nil, vs.Err()
	}
	if len(m.groups) == 0 {
		return nil, solver.Invalid("/apps", "no application requires any container (every mix count is 0)")
	}
	m.scale = make([]float64, m.R)
	for r := range m.scale {
		mx := 0.0
		for _, c := range m.caps {
			mx = math.Max(mx, c[r])
		}
		if mx > 0 {
			m.scale[r] = 1 / mx
		}
	}
	m.scoreScale = m.bottleneckScale()
	m.resolvePairs(&vs)
	if req.ChangeFraction != nil && req.Current == nil {
		vs.Add("/change_fraction", "change_fraction needs current")
	}
	if len(vs) > 0 {
		return nil, vs.Err()
	}
	m.changeMax = m.N
	if req.ChangeFraction != nil {
		m.changeMax = int(math.Floor(*req.ChangeFraction*float64(m.N) + countTol))
	}
	if err := m.placement(); err != nil {
		return nil, err
	}
	return m, nil
}

// indexNames indexes the nodes, shapes and applications by name, refusing
// duplicates and duplicate resources.
func (m *model) indexNames(vs *solver.Violations) {
	req := m.req
	dup := func(kind string, names []string) map[string]int {
		idx := make(map[string]int, len(names))
		for i, n := range names {
			if j, ok := idx[n]; ok {
				vs.Add(solver.Ptr(kind, i, "name"), "duplicate name %q (also at /%s/%d)", n, kind, j)
				continue
			}
			idx[n] = i
		}
		return idx
	}
	resIdx := map[string]int{}
	for i, r := range req.Resources {
		if _, ok := resIdx[r]; ok {
			vs.Add(solver.Ptr("resources", i), "duplicate resource %q", r)
		}
		resIdx[r] = i
	}
	m.nodeIdx = dup("nodes", names(req.Nodes, func(n Node) string { return n.Name }))
	m.shapeIdx = dup("shapes", names(req.Shapes, func(s Shape) string { return s.Name }))
	m.appIdx = dup("apps", names(req.Apps, func(a App) string { return a.Name }))
}

// nodeCapacities sets each node's usable capacity (capacity less
// reserved) and the cluster total.
func (m *model) nodeCapacities(vs *solver.Violations) {
	m.caps = make([][]float64, m.N)
	m.total = make([]float64, m.R)
	for i, n := range m.req.Nodes {
		if len(n.Capacity) != m.R {
			vs.Add(solver.Ptr("nodes", i, "capacity"), "has %d entries for %d resources", len(n.Capacity), m.R)
			continue
		}
		if n.Reserved != nil && len(n.Reserved) != m.R {
			vs.Add(solver.Ptr("nodes", i, "reserved"), "has %d entries for %d resources", len(n.Reserved), m.R)
			continue
		}
		c := slices.Clone(n.Capacity)
		for r := range c {
			m.total[r] += n.Capacity[r]
			if n.Reserved != nil {
				if n.Reserved[r] > n.Capacity[r] {
					vs.Add(solver.Ptr("nodes", i, "reserved", r), "reserved %g exceeds capacity %g", n.Reserved[r], n.Capacity[r])
				}
				c[r] = math.Max(0, c[r]-n.Reserved[r])
			}
		}
		m.caps[i] = c
	}
}

// checkShapes checks each shape's size (one positive entry at least, none
// below 1/maxShapeRatio of the cluster total) and the nodes its predicate
// names.
func (m *model) checkShapes(vs *solver.Violations) {
	req := m.req
	for i, s := range req.Shapes {
		if len(s.Size) != m.R {
			vs.Add(solver.Ptr("shapes", i, "size"), "has %d entries for %d resources", len(s.Size), m.R)
		} else if vecpack.SizeSum(s.Size) <= 0 {
			vs.Add(solver.Ptr("shapes", i, "size"), "shape %q has no positive component", s.Name)
		} else {
			for r, x := range s.Size {
				if x > 0 && m.total[r]/x > maxShapeRatio {
					vs.Add(solver.Ptr("shapes", i, "size", r), "size %g of %q is below 1/%g of the cluster's total %g: at most %g containers of a shape may fit the cluster in any resource", x, req.Resources[r], maxShapeRatio, m.total[r], maxShapeRatio)
				}
			}
		}
	}
	for i, s := range req.Shapes {
		m.checkPredicate(vs, s.Require, "shapes", i, "require")
	}
}

// checkPredicate refuses the unknown nodes predicate p names.
func (m *model) checkPredicate(vs *solver.Violations, p *Predicate, ptr ...any) {
	if p == nil {
		return
	}
	for k, n := range p.Nodes {
		if _, ok := m.nodeIdx[n]; !ok {
			vs.Add(solver.Ptr(append(ptr, "nodes", k)...), "unknown node %q", n)
		}
	}
}

// makeGroups makes a group of each (application, shape) with a positive
// count in the application's mix, ordered by application, then by shape
// index, checking the mixes' shapes and the applications' predicates.
func (m *model) makeGroups(vs *solver.Violations) {
	m.gidx = map[[2]int]int{}
	for a, app := range m.req.Apps {
		m.checkPredicate(vs, app.Require, "apps", a, "require")
		var gs []group
		for _, k := range slices.Sorted(maps.Keys(app.Mix)) {
			s, ok := m.shapeIdx[k]
			if !ok {
				vs.Add(solver.Ptr("apps", a, "mix", k), "unknown shape %q", k)
				continue
			}
			if app.Mix[k] > 0 {
				gs = append(gs, group{app: a, shape: s, c: app.Mix[k]})
			}
		}
		sort.Slice(gs, func(i, j int) bool { return gs[i].shape < gs[j].shape })
		for _, g := range gs {
			m.gidx[[2]int{g.app, g.shape}] = len(m.groups)
			m.groups = append(m.groups, g)
		}
		m.hasGarbo = m.hasGarbo || app.Garbo
	}
}

func names[T any](xs []T, f func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// matches reports whether node n satisfies predicate p.
func (m *model) matches(p *Predicate, n int) bool {
	return p.Matches(&m.req.Nodes[n])
}

// resolve turns a reference into its group list (sorted), recording a
// violation when it names nothing.
func (m *model) resolve(r Ref, vs *solver.Violations, ptr string) []int {
	app, shape := -1, -1
	switch {
	case r.Name != "":
		if a, ok := m.appIdx[r.Name]; ok {
			app = a
		} else if s, ok := m.shapeIdx[r.Name]; ok {
			shape = s
		} else {
			vs.Add(ptr, "%q names no application or shape", r.Name)
			return nil
		}
	default:
		if r.App != "" {
			a, ok := m.appIdx[r.App]
			if !ok {
				vs.Add(ptr+"/app", "unknown application %q", r.App)
				return nil
			}
			app = a
		}
		if r.Shape != "" {
			s, ok := m.shapeIdx[r.Shape]
			if !ok {
				vs.Add(ptr+"/shape", "unknown shape %q", r.Shape)
				return nil
			}
			shape = s
		}
	}
	var out []int
	for g, gr := range m.groups {
		if (app < 0 || gr.app == app) && (shape < 0 || gr.shape == shape) {
			out = append(out, g)
		}
	}
	if len(out) == 0 {
		vs.Add(ptr, "%s owns no required container", r)
	}
	return out
}

func (m *model) resolvePairs(vs *solver.Violations) {
	for i, p := range m.req.Colocate {
		x := m.resolve(p[0], vs, solver.Ptr("colocate", i, 0))
		y := m.resolve(p[1], vs, solver.Ptr("colocate", i, 1))
		if x == nil || y == nil {
			continue
		}
		for _, g := range x {
			if slices.Contains(y, g) {
				vs.Add(solver.Ptr("colocate", i), "%s and %s overlap: a container cannot be colocated with itself", p[0], p[1])
				break
			}
		}
		m.coloc = append(m.coloc, [2][]int{x, y})
	}
	for i, p := range m.req.Exlocate {
		x := m.resolve(p[0], vs, solver.Ptr("exlocate", i, 0))
		y := m.resolve(p[1], vs, solver.Ptr("exlocate", i, 1))
		if x == nil || y == nil {
			continue
		}
		m.exloc = append(m.exloc, [2][]int{x, y})
	}
}

// placement computes allowed nodes and conflicts and reports the
// contradictions of issue #6 as 422 infeasible with names.
func (m *model) placement() error {
	if vs := m.allowedNodes(); len(vs) > 0 {
		return m.infeasible(vs)
	}
	conf := m.buildConflicts()
	if vs := m.colocationViolations(conf); len(vs) > 0 {
		return m.infeasible(vs)
	}
	return nil
}

// violations collects placement contradictions.
type violations []solver.Violation

func (vs *violations) add(ptr, format string, args ...any) {
	*vs = append(*vs, solver.Violation{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

// allowedNodes fills m.appNodes and m.allowed (the nodes each application
// and each group may use) and lists shapes, applications and groups left
// with no node.
func (m *model) allowedNodes() violations {
	var vs violations
	req := m.req
	for s, sh := range req.Shapes {
		fits := false
		for n := range req.Nodes {
			if vecpack.Fits(sh.Size, m.caps[n]) {
				fits = true
				break
			}
		}
		if !fits {
			vs.add(solver.Ptr("shapes", s), "shape %q fits no node", sh.Name)
		}
	}
	// Applications without a predicate share one row of every node, and
	// their groups share their shape's row below: a bool per (application,
	// node) and per (group, node) was 0.3 GB and 0.8 s of a 50 ms budget
	// for 1,000 applications on 100,000 nodes. The rows are read-only.
	var everyNode []bool
	m.appNodes = make([][]bool, len(req.Apps))
	for a, app := range req.Apps {
		if app.Require == nil && everyNode != nil {
			m.appNodes[a] = everyNode
			continue
		}
		m.appNodes[a] = make([]bool, m.N)
		any := false
		for n := range req.Nodes {
			if m.matches(app.Require, n) {
				m.appNodes[a][n] = true
				any = true
			}
		}
		if !any {
			vs.add(solver.Ptr("apps", a, "require"), "application %q has no allowed node", app.Name)
		}
		if app.Require == nil {
			everyNode = m.appNodes[a]
		}
	}
	// A shape's predicate and size are tested once per node, not once per
	// (application, shape) group: with 1,000 applications of 100 shapes
	// on 20,000 nodes the per-group test took 0.5 s of a 50 ms budget.
	shapeNodes := make([][]bool, len(req.Shapes))
	for _, gr := range m.groups {
		if shapeNodes[gr.shape] != nil {
			continue
		}
		sh := &req.Shapes[gr.shape]
		row := make([]bool, m.N)
		for n := range req.Nodes {
			row[n] = m.matches(sh.Require, n) && vecpack.Fits(sh.Size, m.caps[n])
		}
		shapeNodes[gr.shape] = row
	}
	m.allowed = make([][]bool, len(m.groups))
	for g, gr := range m.groups {
		sh := &req.Shapes[gr.shape]
		row, any := m.allowedRow(shapeNodes[gr.shape], req.Apps[gr.app].Require == nil, m.appNodes[gr.app])
		m.allowed[g] = row
		if !any && slices.Contains(m.appNodes[gr.app], true) {
			vs.add(solver.Ptr("apps", gr.app, "mix", sh.Name), "application %q has no allowed node for shape %q", req.Apps[gr.app].Name, sh.Name)
		}
	}
	return vs
}

// buildConflicts sets m.conflicts, the sorted pairs that may not share a
// node (exlocation between groups, Garbo between applications, the
// latter offset by the group count), and returns them as a set.
func (m *model) buildConflicts() map[[2]int]bool {
	req := m.req
	// Conflicts: exlocation between groups, Garbo between applications.
	G := len(m.groups)
	conf := map[[2]int]bool{}
	for _, p := range m.exloc {
		for _, g := range p[0] {
			for _, h := range p[1] {
				conf[[2]int{min(g, h), max(g, h)}] = true
			}
		}
	}
	for a, app := range req.Apps {
		if !app.Garbo {
			continue
		}
		for b := range req.Apps {
			if b != a {
				conf[[2]int{G + min(a, b), G + max(a, b)}] = true
			}
		}
	}
	for k := range conf {
		m.conflicts = append(m.conflicts, k)
	}
	slices.SortFunc(m.conflicts, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	return conf
}

// colocationViolations lists colocated pairs that are also in conflict or
// that fit no node allowed to both.
func (m *model) colocationViolations(conf map[[2]int]bool) violations {
	var vs violations
	req := m.req
	// Colocated pairs: no conflict between the sides, and each pair of
	// groups that can be paired must fit some node allowed to both.
	for i, p := range m.coloc {
		for _, g := range p[0] {
			for _, h := range p[1] {
				gg, hh := m.groups[g], m.groups[h]
				an, bn := req.Apps[gg.app].Name, req.Apps[hh.app].Name
				sg, sh := req.Shapes[gg.shape], req.Shapes[hh.shape]
				if conf[[2]int{min(g, h), max(g, h)}] || (gg.app != hh.app && (req.Apps[gg.app].Garbo || req.Apps[hh.app].Garbo)) {
					vs.add(solver.Ptr("colocate", i), "colocated %s/%s and %s/%s are also exlocated (or one is a Garbo application)", an, sg.Name, bn, sh.Name)
					continue
				}
				sum := make([]float64, m.R)
				for r := range sum {
					sum[r] = sg.Size[r] + sh.Size[r]
				}
				ok := false
				for n := 0; n < m.N && !ok; n++ {
					ok = m.allowed[g][n] && m.allowed[h][n] && vecpack.Fits(sum, m.caps[n])
				}
				if !ok {
					vs.add(solver.Ptr("colocate", i), "colocated pair %s/%s and %s/%s fits no node together", an, sg.Name, bn, sh.Name)
				}
			}
		}
	}
	return vs
}

// allowedRow is the nodes both a shape's row and an application's row
// allow, and whether there is one: the shape's row itself when the
// application allows every node (shared, not copied).
func (m *model) allowedRow(shape []bool, everyNode bool, app []bool) ([]bool, bool) {
	if everyNode {
		return shape, slices.Contains(shape, true)
	}
	row := make([]bool, m.N)
	any := false
	for n, ok := range shape {
		if ok && app[n] {
			row[n] = true
			any = true
		}
	}
	return row, any
}

func (m *model) infeasible(vs []solver.Violation) error {
	msgs := make([]string, 0, 3)
	for i, v := range vs {
		if i == 3 {
			msgs = append(msgs, fmt.Sprintf("and %d more", len(vs)-3))
			break
		}
		msgs = append(msgs, v.Message)
	}
	return solver.Infeasible(strings.Join(msgs, "; "), vs...)
}

// required returns the c_g vector.
func (m *model) required() []int64 {
	c := make([]int64, len(m.groups))
	for g, gr := range m.groups {
		c[g] = gr.c
	}
	return c
}

// bottleneckExp sharpens the load weighting of bottleneckScale: with the
// plain load ratio (exponent 1) a resource at half the bottleneck's load
// still carries half the weight in the scores. On the 1,000-node,
// 4-resource benchmark instance exponents 1, 2, 4 and 8 gave gaps of 5.5%,
// 3.5%, 4.4% and 5.4% (6.8% unweighted), so 2.
const bottleneckExp = 2

// bottleneckScale weights each resource's score units by its load: the
// forecast mix's total demand over the cluster's capacity, relative to the
// most loaded resource, raised to bottleneckExp. The load ratios do not
// depend on λ (it scales every demand alike), so they say which resources
// will run out first; scores that add or multiply coordinates (FFD sums
// and products, alignment, L2) then favour packing the scarce resource
// tightly instead of treating a plentiful one as equally precious.
func (m *model) bottleneckScale() []float64 {
	load := make([]float64, m.R)
	maxLoad := 0.0
	for r := range load {
		capSum := 0.0
		for _, c := range m.caps {
			capSum += c[r]
		}
		dem := 0.0
		for _, g := range m.groups {
			dem += float64(g.c) * m.req.Shapes[g.shape].Size[r]
		}
		if capSum > 0 {
			load[r] = dem / capSum
		}
		maxLoad = math.Max(maxLoad, load[r])
	}
	out := make([]float64, m.R)
	for r := range out {
		w := 1.0
		if maxLoad > 0 {
			w = math.Pow(load[r]/maxLoad, bottleneckExp)
		}
		out[r] = m.scale[r] * w
	}
	return out
}
