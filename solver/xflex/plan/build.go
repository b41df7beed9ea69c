package plan

import (
	"fmt"
	"math"
	"slices"

	"github.com/xflex/xflex/ptas"
	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/xselect"
)

// Defaults of the settings.
const (
	// DefaultK is X-Size's number of shapes when xsize.k is absent.
	DefaultK = 8
	// DefaultEpsilon is X-Size's guarantee when xsize.epsilon is absent:
	// the plan asks for a target so that X-Size stops when it is met (a
	// plan without one would spend X-Size's whole share refining shapes
	// that the later stages barely notice) and its answer does not depend
	// on the clock.
	DefaultEpsilon = 0.1
	// DefaultMaxRequests caps a generated trace: xschedule/simulate's
	// schema accepts at most 100,000 requests.
	DefaultMaxRequests = 100000
)

// checked is a request Build has checked: the nodes the node types expand to, the
// union of the forecasts, and where each came from (for error pointers).
type checked struct {
	req   *Request
	nodes []xselect.Node
	// nodePtr is the pointer of node i's origin: a node type or an
	// explicit node.
	nodePtr []string
	// items is the union of the forecasts, application by application;
	// itemApp and itemIdx locate item j in the request.
	items   []Forecast
	itemApp []int
	itemIdx []int
	appIdx  map[string]int
	k       int
	// count is the number of nodes the cluster expands to.
	count int
}

// MaxNodes is the most nodes a plan may expand to: X-Select's limit.
const MaxNodes = 200000

// itemPtr is the pointer of union item j.
func (p *checked) itemPtr(j int, rest ...any) string {
	return solver.Ptr(append([]any{"apps", p.itemApp[j], "forecast", p.itemIdx[j]}, rest...)...)
}

// build checks what the schema cannot: the plan's Build. It stays
// linear in the body (the node types' counts are expanded in Solve, once
// the memory estimate is granted). Every refusal names the stage whose
// input it would have broken.
func build(req *Request) (*checked, error) {
	p := &checked{req: req, appIdx: map[string]int{}, k: DefaultK}
	if req.XSize != nil && req.XSize.K > 0 {
		p.k = req.XSize.K
	}
	var vs solver.Violations
	p.countNodes(&vs)
	p.readApps(&vs)
	if len(vs) > 0 {
		return nil, vs.Err()
	}
	p.checkTrace(&vs)
	if len(vs) > 0 {
		return nil, vs.Err()
	}
	return p, nil
}

// countNodes counts the nodes the cluster expands to, refusing more than
// MaxNodes and none.
func (p *checked) countNodes(vs *solver.Violations) {
	p.count = len(p.req.Cluster.Nodes)
	for _, nt := range p.req.Cluster.NodeTypes {
		p.count += nt.Count
	}
	switch {
	case p.count > MaxNodes:
		vs.Add("/cluster", "xselect: the cluster has %d nodes; at most %d are accepted", p.count, MaxNodes)
	case p.count == 0:
		vs.Add("/cluster", "cluster: no nodes (node types with a positive count or explicit nodes are required)")
	}
}

// prepare expands the cluster and checks what needs its nodes: Solve's
// first step.
func (p *checked) prepare() error {
	var vs solver.Violations
	p.expandCluster(&vs)
	if len(vs) == 0 {
		p.checkUsable(&vs)
	}
	return vs.Err()
}

// expandCluster makes the node list: each node type's Count nodes, then
// the explicit nodes, checking vector lengths and unique names.
func (p *checked) expandCluster(vs *solver.Violations) {
	d := len(p.req.Resources)
	seen := make(map[string]string, p.count)
	p.nodes, p.nodePtr = make([]xselect.Node, 0, p.count), make([]string, 0, p.count)
	add := func(n xselect.Node, ptr string) {
		if prev, dup := seen[n.Name]; dup {
			vs.Add(ptr, "cluster: node name %q is used twice (also %s)", n.Name, prev)
			return
		}
		seen[n.Name] = ptr
		p.nodes = append(p.nodes, n)
		p.nodePtr = append(p.nodePtr, ptr)
	}
	for t, nt := range p.req.Cluster.NodeTypes {
		ptr := solver.Ptr("cluster", "node_types", t)
		if !checkLen(vs, nt.Capacity, d, ptr+"/capacity") || (nt.Reserved != nil && !checkLen(vs, nt.Reserved, d, ptr+"/reserved")) {
			continue
		}
		for i := 0; i < nt.Count; i++ {
			n := xselect.Node{Name: fmt.Sprintf("%s-%d", nt.Name, i+1), Type: nt.Name, Capacity: nt.Capacity, Reserved: nt.Reserved, Labels: nt.Labels}
			if len(nt.Racks) > 0 {
				n.Rack = nt.Racks[i%len(nt.Racks)]
			}
			add(n, ptr)
		}
	}
	for i, n := range p.req.Cluster.Nodes {
		ptr := solver.Ptr("cluster", "nodes", i)
		if checkLen(vs, n.Capacity, d, ptr+"/capacity") && (n.Reserved == nil || checkLen(vs, n.Reserved, d, ptr+"/reserved")) {
			add(n, ptr)
		}
	}
}

// checkLen refuses a vector whose length is not one per resource.
func checkLen(vs *solver.Violations, v []float64, d int, ptr string) bool {
	if len(v) != d {
		vs.Add(ptr, "has %d entries, want one per resource (%d)", len(v), d)
		return false
	}
	return true
}

// readApps checks the applications' names, peers and forecasts and makes
// the union of the forecasts.
func (p *checked) readApps(vs *solver.Violations) {
	d := len(p.req.Resources)
	for a, app := range p.req.Apps {
		if prev, dup := p.appIdx[app.Name]; dup {
			vs.Add(solver.Ptr("apps", a, "name"), "duplicate application name %q (also /apps/%d)", app.Name, prev)
			continue
		}
		p.appIdx[app.Name] = a
	}
	for a, app := range p.req.Apps {
		for _, peer := range sortedKeys(app.SharingBounds) {
			if _, ok := p.appIdx[peer]; !ok {
				vs.Add(solver.Ptr("apps", a, "sharing_bounds", peer), "xschedule/simulate: unknown application %q", peer)
			}
		}
		for f, it := range app.Forecast {
			if !checkLen(vs, it.Size, d, solver.Ptr("apps", a, "forecast", f, "size")) {
				continue
			}
			p.items = append(p.items, it)
			p.itemApp = append(p.itemApp, a)
			p.itemIdx = append(p.itemIdx, f)
		}
	}
}

// effective is a node's capacity less its reserve.
func effective(n *xselect.Node) []float64 {
	out := slices.Clone(n.Capacity)
	for i := range n.Reserved {
		out[i] = math.Max(0, out[i]-n.Reserved[i])
	}
	return out
}

// checkUsable refuses an application no node may take (X-Select's
// predicate matches none) and a forecast request that fits no node the
// application may use (no shape X-Size may choose could cover it there).
func (p *checked) checkUsable(vs *solver.Violations) {
	caps := make([][]float64, len(p.nodes))
	for i := range p.nodes {
		caps[i] = effective(&p.nodes[i])
	}
	for a, app := range p.req.Apps {
		var usable []int
		for i := range p.nodes {
			if app.Require.Matches(&p.nodes[i]) {
				usable = append(usable, i)
			}
		}
		if len(usable) == 0 {
			vs.Add(solver.Ptr("apps", a, "require"), "xselect: application %q may use no node of the cluster", app.Name)
			continue
		}
		for f, it := range app.Forecast {
			if len(it.Size) != len(p.req.Resources) {
				continue
			}
			if !slices.ContainsFunc(usable, func(i int) bool { return ptas.Fits(it.Size, caps[i]) }) {
				vs.Add(solver.Ptr("apps", a, "forecast", f, "size"), "xsize: request %v of %q fits no node the application may use (capacity less reserved)", it.Size, app.Name)
			}
		}
	}
}

// checkTrace refuses a given trace that names unknown applications, and
// a generated one without a horizon.
func (p *checked) checkTrace(vs *solver.Violations) {
	tr := p.req.Trace
	if len(tr.Requests) == 0 {
		if tr.Horizon == nil {
			vs.Add("/trace", "trace: give requests, or a horizon to generate them from the forecasts")
			return
		}
		if mean, limit := p.expectedRequests(), p.maxRequests(); mean > 2*float64(limit) {
			vs.Add("/trace/horizon", "trace: the forecasts' rates over horizon %g make about %.3g requests, more than %d; shorten the horizon or lower the rates", *tr.Horizon, mean, limit)
		}
		return
	}
	for i, r := range tr.Requests {
		if _, ok := p.appIdx[r.App]; !ok {
			vs.Add(solver.Ptr("trace", "requests", i, "app"), "trace: unknown application %q", r.App)
		}
	}
}

// expectedRequests is the mean size of the generated trace: Σ rates ×
// horizon.
func (p *checked) expectedRequests() float64 {
	var rate float64
	for _, it := range p.items {
		if it.Rate != nil {
			rate += *it.Rate
		}
	}
	return rate * *p.req.Trace.Horizon
}

// maxRequests is the most requests a generated trace may have.
func (p *checked) maxRequests() int {
	if m := p.req.Trace.MaxRequests; m != nil {
		return *m
	}
	return DefaultMaxRequests
}

// checkBaselines refuses a baseline xschedule/simulate does not offer
// (Solve's check: the list is read from the stage's schemas).
func (p *checked) checkBaselines(r *solver.Runner) error {
	var vs solver.Violations
	offered := simulateBaselines(r)
	for i, b := range p.req.Baselines {
		if !slices.Contains(offered, b) {
			vs.Add(solver.Ptr("baselines", i), "xschedule/simulate: no baseline %q (it offers %v)", b, offered)
		}
	}
	return vs.Err()
}

// sortedKeys are m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
