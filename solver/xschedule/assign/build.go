package assign

import (
	"fmt"
	"math"
	"slices"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/vecpack"
)

// cluster is the request's containers before use is applied, from either
// the explicit lists or the placement.
type cluster struct {
	resources []string
	nodeList  []Node
	conts     []Container
	// ptr is the JSON pointer of container i's field (for errors);
	// nodes is the pointer of the node list.
	ptr   func(i int, field string) string
	nodes string
}

// Build checks what the schema cannot and builds the round's model.
func Build(req *Request) (*Model, error) {
	var vs solver.Violations
	m := &Model{now: req.Now, settings: readSettings(req.Settings), pairs: map[[2]int]*pairCtx{}}
	cl := readCluster(req, &vs)
	appIdx := m.readApps(req.Apps, &vs)
	if len(vs) > 0 {
		return nil, vs.Err()
	}
	nodeIdx, totals := m.readNodes(cl, &vs)
	if len(req.Prices) > 0 && len(req.Prices) != len(cl.resources) {
		vs.Add("/prices", "%d prices for %d resources", len(req.Prices), len(cl.resources))
	}
	if len(vs) > 0 {
		return nil, vs.Err()
	}
	m.index = index{apps: appIdx, nodes: nodeIdx, totals: totals, racks: map[string]bool{}}
	for _, n := range m.nodes {
		m.index.racks[n.rack] = true
	}
	m.readContainers(cl, nodeIdx, appIdx, totals, req.Prices, &vs)
	m.checkOverflow(cl, &vs)
	m.readUsage(req, appIdx, &vs)
	m.readPairs(req.Pairs, appIdx, &vs)
	m.readAsks(req.Requests, &vs)
	return m, vs.Err()
}

func readSettings(s *Settings) settings {
	out := settings{fitness: 2, ttlWeight: 1, ttlHorizon: 3600, grace: 30, holdTime: defaultHoldTime}
	if s == nil {
		return out
	}
	for _, kv := range []struct {
		v   *float64
		dst *float64
	}{{s.Fitness, &out.fitness}, {s.TTLWeight, &out.ttlWeight}, {s.TTLHorizon, &out.ttlHorizon}, {s.GracePeriod, &out.grace},
		{s.HoldTime, &out.holdTime}} {
		if kv.v != nil {
			*kv.dst = *kv.v
		}
	}
	if r := s.Readings; r != nil {
		out.ownedToo = r.Takeover == TakeoverOwnedToo
		out.inDebt = r.ZeroBound == ZeroBoundInDebt
		out.noHold = r.Hold == HoldNone
		out.byPriority = r.Lending == LendingPriority
	}
	return out
}

// defaultHoldTime is the hand-over hold's default: two default grace
// periods, so a container fought over changes hands between the same two
// applications at most once a minute (in seconds) unless their balance
// moves by what the container itself charges in that time.
const defaultHoldTime = 60

// readCluster takes the explicit lists or expands the placement.
func readCluster(req *Request, vs *solver.Violations) cluster {
	explicit := len(req.Nodes) > 0 || len(req.Containers) > 0 || len(req.Resources) > 0
	switch {
	case req.Placement != nil && explicit:
		vs.Add("/placement", "give either placement or resources, nodes and containers, not both")
	case req.Placement == nil && (len(req.Nodes) == 0 || len(req.Resources) == 0):
		vs.Add("/nodes", "resources and nodes (with containers) or a placement are required")
	case len(req.Usage) > 0 && req.Placement == nil:
		vs.Add("/usage", "usage names containers of a placement; explicit containers carry their user")
	}
	if req.Placement == nil {
		return cluster{resources: req.Resources, nodeList: req.Nodes, conts: req.Containers, nodes: "/nodes",
			ptr: func(i int, f string) string { return solver.Ptr("containers", i, f) }}
	}
	return placementCluster(req.Placement, vs)
}

// maxContainers caps a placement's expanded containers, as the schema
// caps an explicit list.
const maxContainers = 1000000

// placementCluster turns an X-Select request and result into containers
// "node/k" with the shape's size and the application as owner.
func placementCluster(p *Placement, vs *solver.Violations) cluster {
	shapes := map[string][]float64{}
	for _, s := range p.Request.Shapes {
		shapes[s.Name] = s.Size
	}
	cl := cluster{resources: p.Request.Resources, nodes: "/placement/request/nodes"}
	for _, n := range p.Request.Nodes {
		cl.nodeList = append(cl.nodeList, Node{Name: n.Name, Rack: n.Rack, Capacity: reservedLess(n.Capacity, n.Reserved)})
	}
	var where [][2]int // result node, container entry
	for ni, n := range p.Result.Nodes {
		k := 0
		for ci, c := range n.Containers {
			count := int64(1)
			if c.Count != nil {
				count = *c.Count
			}
			if int64(len(cl.conts))+count > maxContainers {
				vs.Add(solver.Ptr("placement", "result", "nodes", ni, "containers", ci), "more than %d containers", maxContainers)
				return cl
			}
			for range count {
				cl.conts = append(cl.conts, Container{ID: fmt.Sprintf("%s/%d", n.Name, k), Node: n.Name, Size: shapes[c.Shape], Owner: c.App})
				where = append(where, [2]int{ni, ci})
				k++
			}
		}
	}
	cl.ptr = func(i int, f string) string {
		w := where[i]
		if f == "node" {
			return solver.Ptr("placement", "result", "nodes", w[0], "name")
		}
		seg := map[string]string{"size": "shape", "owner": "app"}[f]
		return solver.Ptr("placement", "result", "nodes", w[0], "containers", w[1], seg)
	}
	return cl
}

// reservedLess is what X-Select may fill: capacity less reserved.
func reservedLess(capacity, reserved []float64) []float64 {
	out := append([]float64(nil), capacity...)
	for r := range min(len(out), len(reserved)) {
		out[r] -= reserved[r]
	}
	return out
}

func (m *Model) readApps(apps []App, vs *solver.Violations) map[string]int {
	idx := map[string]int{}
	for i, a := range apps {
		if j, dup := idx[a.Name]; dup {
			vs.Add(solver.Ptr("apps", i, "name"), "duplicate application %q (also at /apps/%d)", a.Name, j)
		}
		idx[a.Name] = i
	}
	for i, a := range apps {
		ap := app{name: a.Name, garbo: a.Mode == ModeGarbo, delta: a.SharingBound, deltas: map[int]float64{}}
		for _, peer := range sortedKeys(a.SharingBounds) {
			j, ok := idx[peer]
			switch {
			case !ok:
				vs.Add(solver.Ptr("apps", i, "sharing_bounds", peer), "unknown application %q", peer)
			case j == i:
				vs.Add(solver.Ptr("apps", i, "sharing_bounds", peer), "a sharing bound with itself")
			}
			ap.deltas[j] = a.SharingBounds[peer]
		}
		m.apps = append(m.apps, ap)
	}
	return idx
}

func (m *Model) readNodes(cl cluster, vs *solver.Violations) (map[string]int, []float64) {
	idx := map[string]int{}
	totals := make([]float64, len(cl.resources))
	for i, n := range cl.nodeList {
		if j, dup := idx[n.Name]; dup {
			vs.Add(nodePtr(cl, i, "name"), "duplicate node %q (also node %d)", n.Name, j)
		}
		idx[n.Name] = i
		if len(n.Capacity) != len(cl.resources) {
			vs.Add(nodePtr(cl, i, "capacity"), "%d capacities for %d resources", len(n.Capacity), len(cl.resources))
			continue
		}
		for r, x := range n.Capacity {
			totals[r] += x
		}
		m.nodes = append(m.nodes, node{name: n.Name, rack: n.Rack, capacity: n.Capacity})
	}
	return idx, totals
}

func nodePtr(cl cluster, i int, f string) string {
	return cl.nodes + solver.Ptr(i, f)
}

func (m *Model) readContainers(cl cluster, nodeIdx, appIdx map[string]int, totals, prices []float64, vs *solver.Violations) {
	seen := make(map[string]int, len(cl.conts))
	m.conts = make([]cont, 0, len(cl.conts))
	for i, c := range cl.conts {
		if j, dup := seen[c.ID]; dup {
			vs.Add(cl.ptr(i, "id"), "duplicate container id %q (also container %d)", c.ID, j)
		}
		seen[c.ID] = i
		n, okN := nodeIdx[c.Node]
		o, okO := appIdx[c.Owner]
		if !okN {
			vs.Add(cl.ptr(i, "node"), "container on unknown node %q", c.Node)
		}
		if !okO {
			vs.Add(cl.ptr(i, "owner"), "unknown application %q", c.Owner)
		}
		if len(c.Size) != len(totals) {
			vs.Add(cl.ptr(i, "size"), "%d sizes for %d resources", len(c.Size), len(totals))
			continue
		}
		k := cont{id: c.ID, node: n, size: c.Size, owner: o, user: -1, prio: c.PreemptionPriority, norm: normalize(c.Size, totals)}
		k.charge = k.norm
		if len(prices) > 0 {
			k.charge = dot(c.Size, prices)
		}
		m.conts = append(m.conts, k)
		if okN && okO {
			m.applyUse(len(m.conts)-1, c.User, c.PreemptionPriority, c.Notice, cl.ptr(i, "user"), appIdx, vs)
		}
	}
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// applyUse sets container i's user and notice, refusing what X-Schedule
// could not have done: Garbo containers lent, Garbo apps borrowing.
func (m *Model) applyUse(i int, user string, prio int, nt *Notice, ptr string, appIdx map[string]int, vs *solver.Violations) {
	c := &m.conts[i]
	c.prio = prio
	if user != "" {
		u, ok := appIdx[user]
		switch {
		case !ok:
			vs.Add(ptr, "unknown application %q", user)
			return
		case u != c.owner && (m.apps[u].garbo || m.apps[c.owner].garbo):
			vs.Add(ptr, "%q cannot use a container of %q: Garbo applications neither lend nor borrow", user, m.apps[c.owner].name)
			return
		}
		c.user = u
	}
	if nt != nil {
		a, ok := appIdx[nt.App]
		if !ok || (a != c.owner && (m.apps[a].garbo || m.apps[c.owner].garbo)) {
			vs.Add(ptr, "notice for unknown or Garbo-barred application %q", nt.App)
			return
		}
		c.notice = &notice{app: a, request: nt.Request, deadline: nt.Deadline, prio: nt.PreemptionPriority}
	}
}

// checkOverflow refuses a node whose containers need more than it has.
func (m *Model) checkOverflow(cl cluster, vs *solver.Violations) {
	if len(m.conts) != len(cl.conts) || len(m.nodes) != len(cl.nodeList) {
		return
	}
	used := make([][]float64, len(cl.nodeList))
	first := make([]int, len(cl.nodeList))
	for i, c := range m.conts {
		if used[c.node] == nil {
			used[c.node] = make([]float64, len(c.size))
			first[c.node] = i
		}
		for r, x := range c.size {
			used[c.node][r] += x
		}
	}
	for n, u := range used {
		for r, x := range u {
			if capa := cl.nodeList[n].Capacity[r]; x > capa+vecpack.FitTol*math.Max(1, capa) {
				vs.Add(cl.ptr(first[n], "node"), "containers on node %q need %g of %q, more than its %g", cl.nodeList[n].Name, x, cl.resources[r], capa)
			}
		}
	}
}

func (m *Model) readUsage(req *Request, appIdx map[string]int, vs *solver.Violations) {
	if len(req.Usage) == 0 {
		return
	}
	byID := make(map[string]int, len(m.conts))
	for i, c := range m.conts {
		byID[c.id] = i
	}
	for i, u := range req.Usage {
		c, ok := byID[u.ID]
		if !ok {
			vs.Add(solver.Ptr("usage", i, "id"), "unknown container %q", u.ID)
			continue
		}
		m.applyUse(c, u.User, u.PreemptionPriority, u.Notice, solver.Ptr("usage", i, "user"), appIdx, vs)
	}
}

func (m *Model) readPairs(pairs []Pair, appIdx map[string]int, vs *solver.Violations) {
	for i, p := range pairs {
		a, okA := appIdx[p.A]
		b, okB := appIdx[p.B]
		switch {
		case !okA || !okB:
			vs.Add(solver.Ptr("pairs", i), "unknown application in pair (%q, %q)", p.A, p.B)
			continue
		case a == b:
			vs.Add(solver.Ptr("pairs", i, "b"), "a pair needs two applications")
			continue
		case m.apps[a].garbo || m.apps[b].garbo:
			vs.Add(solver.Ptr("pairs", i), "Garbo applications have no sharing context")
			continue
		case p.LastCalcTime > m.now:
			vs.Add(solver.Ptr("pairs", i, "last_calc_time"), "last_calc_time %g is after now %g", p.LastCalcTime, m.now)
		}
		key, sign := [2]int{a, b}, 1.0
		if b < a {
			key, sign = [2]int{b, a}, -1
		}
		if m.pairs[key] != nil {
			vs.Add(solver.Ptr("pairs", i), "duplicate pair (%q, %q)", p.A, p.B)
		}
		m.pairs[key] = &pairCtx{share: sign * p.LastShare, slope: sign * p.LastSlope, time: p.LastCalcTime}
	}
}

func (m *Model) readAsks(asks []Ask, vs *solver.Violations) {
	seen := map[string]int{}
	for i, a := range asks {
		if j, dup := seen[a.ID]; dup {
			vs.Add(solver.Ptr("requests", i, "id"), "duplicate request id %q (also at /requests/%d)", a.ID, j)
		}
		seen[a.ID] = i
		if k, ok := m.readAsk(a, func(f string) string { return solver.Ptr("requests", i, f) }, vs); ok {
			k.index = i
			m.asks = append(m.asks, k)
		}
	}
}

// readAsk checks one request against the model's names and capacities;
// ptr gives its fields' pointers. It is false when the size cannot be
// read.
func (m *Model) readAsk(a Ask, ptr func(field string) string, vs *solver.Violations) (ask, bool) {
	k := ask{id: a.ID, count: a.Count, size: a.Size, prio: a.Priority, pprio: a.PreemptionPriority, rack: a.Rack, host: -1, typ: a.Type, fit: &fitList{}}
	if k.typ == "" {
		k.typ = OwnedFirst
	}
	var ok bool
	if k.app, ok = m.index.apps[a.App]; !ok {
		vs.Add(ptr("app"), "unknown application %q", a.App)
	}
	if a.Host != "" {
		if k.host, ok = m.index.nodes[a.Host]; !ok {
			vs.Add(ptr("host"), "unknown host %q", a.Host)
		}
	}
	if a.Rack != "" && !m.index.racks[a.Rack] {
		vs.Add(ptr("rack"), "unknown rack %q", a.Rack)
	}
	if len(a.Size) != len(m.index.totals) {
		vs.Add(ptr("size"), "%d sizes for %d resources", len(a.Size), len(m.index.totals))
		return k, false
	}
	k.norm = normalize(a.Size, m.index.totals)
	m.checkAskSize(ptr("size"), &k, vs)
	return k, true
}

// checkAskSize refuses a request no container of the cluster could hold.
func (m *Model) checkAskSize(ptr string, k *ask, vs *solver.Violations) {
	if k.norm <= 0 {
		vs.Add(ptr, "a request needs a positive size in some resource")
		return
	}
	if m.index.largest == nil {
		m.index.largest = largestSizes(m.conts)
	}
	for _, size := range m.index.largest {
		if FitsDims(size, k.size) {
			return
		}
	}
	vs.Add(ptr, "request %q is larger than every container", k.id)
}

// largestSizes are the container sizes no other container's size
// dominates: a request fits some container exactly when it fits one of
// these, and there are few (a cluster has few shapes), so checking a
// trace of requests does not scan every container for each.
func largestSizes(conts []cont) [][]float64 {
	out := [][]float64{}
	seen := map[string]bool{}
	for _, c := range conts {
		k := sizeKey(c.size)
		if seen[k] {
			continue
		}
		seen[k] = true
		if slices.ContainsFunc(out, func(o []float64) bool { return FitsDims(o, c.size) }) {
			continue
		}
		out = slices.DeleteFunc(out, func(o []float64) bool { return FitsDims(c.size, o) })
		out = append(out, c.size)
	}
	return out
}

func sortedKeys[V any](mp map[string]V) []string {
	keys := make([]string, 0, len(mp))
	for k := range mp {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
