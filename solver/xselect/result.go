package xselect

import (
	"math"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/vecpack"
)

// Result is the X-Select answer (schemas/xselect.response.json).
type Result struct {
	// Lambda is the attained multiplier: every group holds at least
	// ⌈λ·c⌉ containers; LambdaFraction is it as an exact fraction k/c.
	Lambda         float64 `json:"lambda"`
	LambdaFraction string  `json:"lambda_fraction"`
	// UpperBound is the largest breakpoint k/c not above the LP bound
	// (λ itself once an exact search completes); Gap is
	// (UpperBound−Lambda)/UpperBound.
	UpperBound float64 `json:"upper_bound"`
	Gap        float64 `json:"gap"`
	// LPBound is the plain LP relaxation's λ (or the fallback bound when
	// the LP fails), before the rounded-count tightening.
	LPBound    float64          `json:"lp_bound"`
	Nodes      []NodeResult     `json:"nodes"`
	Apps       []AppResult      `json:"apps"`
	Resources  []ResourceResult `json:"resources"`
	Containers int64            `json:"containers"`
	// Score names the greedy rule (and local search) behind the packing.
	Score   string     `json:"score,omitempty"`
	Search  SearchInfo `json:"search"`
	Changes *Changes   `json:"changes,omitempty"`
}

// AppResult is one application's outcome.
type AppResult struct {
	Name       string `json:"name"`
	Containers int64  `json:"containers"`
	// Share is Σ over its containers of Σ_r size_r / cluster capacity_r,
	// the X-Flex charging unit.
	Share float64 `json:"share"`
	// Required is ⌈λ·c⌉ per shape; Placed is what the packing holds.
	Required map[string]int64 `json:"required"`
	Placed   map[string]int64 `json:"placed"`
}

// ResourceResult is one resource's cluster-wide utilization.
type ResourceResult struct {
	Name        string  `json:"name"`
	Capacity    float64 `json:"capacity"`
	Reserved    float64 `json:"reserved"`
	Used        float64 `json:"used"`
	Utilization float64 `json:"utilization"`
	// Stranded is free capacity on nodes where no required container can
	// be added any more (by size, placement or conflict rules).
	Stranded         float64 `json:"stranded"`
	StrandedFraction float64 `json:"stranded_fraction"`
}

// SearchInfo describes the λ search.
type SearchInfo struct {
	Method      string `json:"method"`
	OracleCalls int    `json:"oracle_calls"`
	// Complete: every breakpoint between λ and the bound was decided.
	Complete bool `json:"complete"`
	// RejectedAt is the smallest λ the packer could not pack (heuristic:
	// not a proof of infeasibility).
	RejectedAt *float64 `json:"rejected_at,omitempty"`
}

// Changes reports an incremental replan.
type Changes struct {
	ChangedNodes      []string `json:"changed_nodes"`
	Changed           int      `json:"changed"`
	MaxChanged        int      `json:"max_changed"`
	ContainersMoved   int64    `json:"containers_moved"`
	ContainersRemoved int64    `json:"containers_removed"`
	PreviousLambda    float64  `json:"previous_lambda"`
}

// finalAssignment is the containers on every node.
func (o *outcome) finalAssignment() [][]cnt {
	m := o.m
	if o.inc != nil {
		if o.pack != nil {
			return o.inc.assignment(o.sp, o.pack, o.inc.open)
		}
		out := make([][]cnt, m.N)
		copy(out, o.inc.cur)
		if !o.inc.valid {
			for _, n := range o.inc.forced {
				out[n] = nil
			}
		}
		return out
	}
	out := make([][]cnt, m.N)
	if o.pack != nil {
		for b, nd := range o.sp.bins {
			out[nd] = packedCounts(m, o.sp, o.pack, b)
		}
	}
	return out
}

func (o *outcome) result() *Result {
	m := o.m
	req := m.req
	c := m.required()
	lam := o.lambda
	ub := vecpack.BreakpointAtMost(o.ub, c)
	if o.exact && o.search.Complete {
		ub = lam
	}
	if ub.Float() < lam.Float() {
		ub = lam
	}
	res := &Result{
		Lambda: lam.Float(), LambdaFraction: lam.String(),
		UpperBound: ub.Float(), LPBound: o.ub, Score: o.rule,
		Search: SearchInfo{Method: MethodHeuristic, OracleCalls: o.search.Calls, Complete: o.search.Complete},
	}
	if o.exact {
		res.Search.Method = MethodExact
	}
	if o.search.FailedAt.Den != 0 {
		f := o.search.FailedAt.Float()
		res.Search.RejectedAt = &f
	}
	if m.lpBound > 0 {
		res.LPBound = m.lpBound
	}
	res.Gap = solver.RelGap(res.Lambda, res.UpperBound)
	if res.Lambda == res.UpperBound {
		res.Gap = 0
	}
	assign := o.finalAssignment()
	placed := make([]map[string]int64, len(req.Apps))
	appCount := make([]int64, len(req.Apps))
	appShare := make([]float64, len(req.Apps))
	for a := range placed {
		placed[a] = map[string]int64{}
	}
	used := make([]float64, m.R)
	res.Nodes = make([]NodeResult, m.N)
	for n := range assign {
		node := &req.Nodes[n]
		nr := NodeResult{Name: node.Name, Containers: []Container{}, Utilization: make([]float64, m.R)}
		nu := make([]float64, m.R)
		for _, ct := range assign[n] {
			sh := &req.Shapes[ct.shape]
			app := req.Apps[ct.app].Name
			for range ct.k {
				nr.Containers = append(nr.Containers, Container{Shape: sh.Name, App: app})
			}
			placed[ct.app][sh.Name] += ct.k
			appCount[ct.app] += ct.k
			res.Containers += ct.k
			for r, x := range sh.Size {
				nu[r] += x * float64(ct.k)
				if m.total[r] > 0 {
					appShare[ct.app] += x * float64(ct.k) / m.total[r]
				}
			}
		}
		for r := range nu {
			used[r] += nu[r]
			if node.Capacity[r] > 0 {
				nr.Utilization[r] = nu[r] / node.Capacity[r]
			}
		}
		res.Nodes[n] = nr
	}
	for a, app := range req.Apps {
		ar := AppResult{Name: app.Name, Containers: appCount[a], Share: appShare[a], Required: map[string]int64{}, Placed: placed[a]}
		res.Apps = append(res.Apps, ar)
	}
	n := lam.Counts(c)
	for g, gr := range m.groups {
		res.Apps[gr.app].Required[req.Shapes[gr.shape].Name] = n[g]
	}
	stranded := m.stranded(assign)
	for r, name := range req.Resources {
		rr := ResourceResult{Name: name, Capacity: m.total[r], Used: used[r], Stranded: stranded[r]}
		for _, node := range req.Nodes {
			if node.Reserved != nil {
				rr.Reserved += node.Reserved[r]
			}
		}
		if rr.Capacity > 0 {
			rr.Utilization = rr.Used / rr.Capacity
			rr.StrandedFraction = rr.Stranded / rr.Capacity
		}
		res.Resources = append(res.Resources, rr)
	}
	if o.inc != nil {
		res.Changes = o.inc.changes(assign, res)
		if o.inc.valid {
			res.Changes.PreviousLambda = vecpack.Attained(o.inc.curGroup, c).Float()
		}
	}
	return res
}

// stranded sums, per resource, the free capacity of nodes on which no
// required group could place one more container. The size test depends on
// the shape only, so it runs once per shape and node, and a shape's groups
// are looked at only where it fits: a full node costs shapes, not groups
// (20,000 full nodes × 2,000 groups took 0.2 s of a 1 s budget after the
// search had stopped).
func (m *model) stranded(assign [][]cnt) []float64 {
	out := make([]float64, m.R)
	free := make([]float64, m.R)
	byShape := make([][]int, len(m.req.Shapes))
	for g, gr := range m.groups {
		byShape[gr.shape] = append(byShape[gr.shape], g)
	}
	for n, cs := range assign {
		copy(free, m.caps[n])
		for _, c := range cs {
			for r, x := range m.req.Shapes[c.shape].Size {
				free[r] -= x * float64(c.k)
			}
		}
		if m.open(n, cs, free, byShape) {
			continue
		}
		for r := range out {
			out[r] += math.Max(0, free[r])
		}
	}
	return out
}

// open reports whether node n, holding cs with free capacity left, could
// take one more container of some group (byShape: the groups of each
// shape).
func (m *model) open(n int, cs []cnt, free []float64, byShape [][]int) bool {
	apps := map[int]bool{}
	garbo := -1
	for _, c := range cs {
		apps[c.app] = true
		if m.req.Apps[c.app].Garbo {
			garbo = c.app
		}
	}
	for s, gs := range byShape {
		if len(gs) == 0 || !vecpack.Fits(m.req.Shapes[s].Size, free) {
			continue
		}
		for _, g := range gs {
			if m.canJoin(g, n, cs, apps, garbo) {
				return true
			}
		}
	}
	return false
}

// canJoin reports whether a container of group g may join node n's
// containers cs (apps: their applications; garbo: the Garbo application
// among them, -1 if none) by placement, Garbo and conflict rules.
func (m *model) canJoin(g, n int, cs []cnt, apps map[int]bool, garbo int) bool {
	gr := m.groups[g]
	if !m.allowed[g][n] {
		return false
	}
	if garbo >= 0 && gr.app != garbo {
		return false
	}
	if m.req.Apps[gr.app].Garbo && (len(apps) > 1 || (len(apps) == 1 && !apps[gr.app])) {
		return false
	}
	for _, c := range cs {
		if h, found := m.gidx[[2]int{c.app, c.shape}]; found && m.conflictClasses(g, h) {
			return false
		}
	}
	return true
}

// changes compares the final assignment with current.
func (inc *incremental) changes(assign [][]cnt, res *Result) *Changes {
	ch := &Changes{ChangedNodes: []string{}, MaxChanged: inc.m.changeMax}
	for n := range assign {
		before := map[[2]int]int64{}
		for _, c := range inc.cur[n] {
			before[[2]int{c.app, c.shape}] += c.k
		}
		after := map[[2]int]int64{}
		for _, c := range assign[n] {
			after[[2]int{c.app, c.shape}] += c.k
		}
		changed := false
		for k, v := range after {
			if d := v - before[k]; d > 0 {
				ch.ContainersMoved += d
				changed = true
			}
		}
		for k, v := range before {
			if d := v - after[k]; d > 0 {
				ch.ContainersRemoved += d
				changed = true
			}
		}
		if changed {
			ch.ChangedNodes = append(ch.ChangedNodes, inc.m.req.Nodes[n].Name)
			ch.Changed++
			res.Nodes[n].Changed = true
		}
	}
	return ch
}
