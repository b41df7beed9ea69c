package fairshare

import (
	"encoding/binary"
	"maps"
	"math"
	"slices"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/vecpack"
)

// instance is a validated request in index form.
type instance struct {
	resources []string
	servers   []server
	fws       []framework
	// total[r] is Σ_j count_j·c_{j,r}, the cluster capacity of eq. 3.
	total []float64
	// groups coalesce servers with equal capacity, equal δ column and equal
	// utility column: an allocation of the group's pooled capacity splits
	// evenly across its copies, so the divisible problems are solved on
	// groups.
	groups []group
	// groupOf[j] is server j's group.
	groupOf []int
}

type server struct {
	name  string
	cap   []float64
	count int
}

type framework struct {
	name string
	d    []float64
	phi  float64
	// on lists, ascending, the servers δ allows; nil: every server. Rows
	// are sparse so that build stays linear in the body: dense rows took
	// 9 bytes a framework × server pair before the memory estimate was
	// asked (docs/MEMORY.md).
	on   []int
	cap  float64         // task cap, +Inf when none
	util map[int]float64 // generic utility per server the request gives (1 elsewhere)
}

// allows is δ: whether f may run on server j.
func (f *framework) allows(j int) bool {
	if f.on == nil {
		return true
	}
	_, ok := slices.BinarySearch(f.on, j)
	return ok
}

// utility is f's generic utility on server j: the request's, else 1.
func (f *framework) utility(j int) float64 {
	if u, ok := f.util[j]; ok {
		return u
	}
	return 1
}

type group struct {
	members []int     // server indices, ascending
	count   int       // Σ counts
	cap     []float64 // per-copy capacity
}

// usable reports whether framework n may run on server j at all: δ allows
// it and the server has some capacity of every resource the task needs.
func (in *instance) usable(n, j int) bool {
	return in.fws[n].allows(j) && in.holds(n, j)
}

// holds reports whether server j has some capacity of every resource a
// task of framework n needs.
func (in *instance) holds(n, j int) bool {
	for r, d := range in.fws[n].d {
		if d > 0 && in.servers[j].cap[r] <= 0 {
			return false
		}
	}
	return true
}

// dominantPerTask is max_r d_{n,r}/Σc_r, the dominant share of one task of
// n (eq. 3). A resource no server has is left out: n demands it, so no
// server is usable by n (see usable), n never gets a task and its share is
// 0 whatever this coefficient is; counting the resource made the
// coefficient +Inf and the share Inf·0 = NaN.
func (in *instance) dominantPerTask(n int) float64 {
	dom := 0.0
	for r, d := range in.fws[n].d {
		if d > 0 && in.total[r] > 0 {
			dom = math.Max(dom, d/in.total[r])
		}
	}
	return dom
}

// fits reports whether demand d fits the free capacity of a server with
// capacity capacity. Round-off, up to vecpack.FitTol of the server's capacity, is
// forgiven only against a positive residual: a residual placement clamped
// to 0 holds nothing more. The tolerance used to be absolute below 1
// (vecpack.FitTol·max(1, free)), so a demand of 1e-9 fit a residual of 0 again and
// again and placing tasks one by one never ended.
func fits(d, free, capacity []float64) bool {
	for r, v := range d {
		if v <= free[r] {
			continue
		}
		if !(free[r] > 0) || v > free[r]+vecpack.FitTol*capacity[r] {
			return false
		}
	}
	return true
}

// Numeric ranges the exact policies' LPs and the progressive filling stay
// well conditioned on. The schema admits any positive float up to 1e15, but
// a weight of 1e-300 put coefficients of 1e294 in the LP, a capacity of
// 5e-324 against a demand of 1 made shares NaN, and a demand of 1e15
// against 1e-300 of capacity overflowed: requests outside these ranges are
// refused with the pointer and the limit instead.
const (
	// MinWeight and MaxWeight bound a framework's weight φ (and the
	// generic criterion's utilities), as CMMF bounds its weights: shares
	// divided by weights stay well inside float64 range and the LP's
	// coefficient range stays within what CLP handles (about 1e12).
	MinWeight = 1e-6
	MaxWeight = 1e6
	// MaxTaskRatio bounds capacity/demand both ways for every resource a
	// framework demands: at most 1e12 tasks of it fit one server, and a
	// server holds at least 1e-12 of one task. The PF tests already span
	// 12 orders of magnitude of task counts (TestPFExtremeAlphaAndUnits
	// reaches 6e10 tasks a server); past that the LPs lose the fit
	// tolerance's digits.
	MaxTaskRatio = 1e12
)

// build checks the request's semantics and returns the index form. Every
// problem found is reported at once with its JSON pointer.
func build(req *Request) (*instance, error) {
	b := &fsBuilder{req: req, R: len(req.Resources), srvIdx: map[string]int{}}
	b.in = &instance{resources: req.Resources, total: make([]float64, b.R)}
	b.checkResources()
	b.addServers()
	b.capRange = capacityRange(req.Servers, b.R)
	fwIdx := map[string]int{}
	for n := range req.Frameworks {
		f := &req.Frameworks[n]
		if _, dup := fwIdx[f.Name]; dup {
			b.vs.Add(solver.Ptr("frameworks", n, "name"), "duplicate framework name %q", f.Name)
		}
		fwIdx[f.Name] = n
		b.in.fws = append(b.in.fws, b.framework(n, f))
	}
	b.checkCriterion()
	if err := b.vs.Err(); err != nil {
		return nil, err
	}
	b.in.coalesce(req.Criterion == CriterionGeneric)
	return b.in, nil
}

// fsBuilder is build's state: the index form so far and the violations
// found.
type fsBuilder struct {
	req    *Request
	R      int
	in     *instance
	vs     solver.Violations
	srvIdx map[string]int // server name to its last index
	// capRange[r] holds the smallest and largest positive capacity of
	// resource r, each with the first server holding it.
	capRange [][2]extreme
}

// extreme is a capacity and the server j holding it (-1: none).
type extreme struct {
	c float64
	j int
}

// checkResources refuses duplicate resource names.
func (b *fsBuilder) checkResources() {
	resIdx := map[string]int{}
	for r, name := range b.req.Resources {
		if _, dup := resIdx[name]; dup {
			b.vs.Add(solver.Ptr("resources", r), "duplicate resource name %q", name)
			continue
		}
		resIdx[name] = r
	}
}

// addServers checks the servers' names and capacities and adds them and
// their capacity to the cluster total.
func (b *fsBuilder) addServers() {
	R := b.R
	for j, s := range b.req.Servers {
		if _, dup := b.srvIdx[s.Name]; dup {
			b.vs.Add(solver.Ptr("servers", j, "name"), "duplicate server name %q", s.Name)
		}
		b.srvIdx[s.Name] = j
		if len(s.Capacity) != R {
			b.vs.Add(solver.Ptr("servers", j, "capacity"), "capacity has %d entries but there are %d resources", len(s.Capacity), R)
		}
		count := 1
		if s.Count != nil {
			count = *s.Count
		}
		c := make([]float64, R)
		copy(c, s.Capacity)
		b.in.servers = append(b.in.servers, server{name: s.Name, cap: c, count: count})
		for r := 0; r < R; r++ {
			b.in.total[r] += float64(count) * c[r]
		}
	}
}

// capacityRange is the smallest and largest positive capacity of each of
// the R resources, with the first server holding it (for the demand-ratio
// checks).
func capacityRange(servers []ServerSpec, R int) [][2]extreme {
	capRange := make([][2]extreme, R)
	for r := range capRange {
		capRange[r] = [2]extreme{{math.Inf(1), -1}, {0, -1}}
	}
	for j, s := range servers {
		for r, c := range s.Capacity {
			if r >= R || c <= 0 {
				continue
			}
			if c < capRange[r][0].c {
				capRange[r][0] = extreme{c, j}
			}
			if c > capRange[r][1].c {
				capRange[r][1] = extreme{c, j}
			}
		}
	}
	return capRange
}

// framework checks framework n and returns its index form.
func (b *fsBuilder) framework(n int, f *FrameworkSpec) framework {
	p := func(segs ...any) string { return solver.Ptr(append([]any{"frameworks", n}, segs...)...) }
	fw := framework{name: f.Name, phi: 1, cap: math.Inf(1), d: b.demand(f, p)}
	if f.Weight != nil {
		fw.phi = *f.Weight
		if fw.phi < MinWeight || fw.phi > MaxWeight {
			b.vs.Add(p("weight"), "weight %g is outside [%g, %g], the range shares divided by weights are computed in", fw.phi, MinWeight, MaxWeight)
		}
	}
	b.checkTaskRatios(f, p)
	if f.MaxTasks != nil {
		fw.cap = *f.MaxTasks
	}
	fw.on = b.allowed(f, p)
	fw.util = b.utility(f, p)
	return fw
}

// demand is f's demand vector, which must have one entry a resource and
// not be all zero.
func (b *fsBuilder) demand(f *FrameworkSpec, p func(...any) string) []float64 {
	d := make([]float64, b.R)
	if len(f.Demand) != b.R {
		b.vs.Add(p("demand"), "demand has %d entries but there are %d resources", len(f.Demand), b.R)
	}
	copy(d, f.Demand)
	if !slices.ContainsFunc(d, func(v float64) bool { return v > 0 }) {
		b.vs.Add(p("demand"), "demand is zero in every resource: a task must need something")
	}
	return d
}

// checkTaskRatios holds each of f's demands within MaxTaskRatio of the
// capacities of the servers that have the resource, both ways.
func (b *fsBuilder) checkTaskRatios(f *FrameworkSpec, p func(...any) string) {
	for r, d := range f.Demand {
		if d <= 0 || r >= b.R {
			continue
		}
		lo, hi := b.capRange[r][0], b.capRange[r][1]
		if hi.j < 0 {
			continue // no server has the resource: the framework fits nowhere
		}
		if hi.c/d > MaxTaskRatio {
			b.vs.Add(p("demand", r), "demand %g of %q is below 1/%g of server %q's capacity %g: at most %g tasks may fit one server", d, b.req.Resources[r], MaxTaskRatio, b.req.Servers[hi.j].Name, hi.c, MaxTaskRatio)
		} else if lo.c/d < 1/MaxTaskRatio {
			b.vs.Add(p("demand", r), "demand %g of %q is above %g times server %q's capacity %g: a server must hold at least 1/%g of a task of each resource it has", d, b.req.Resources[r], MaxTaskRatio, b.req.Servers[lo.j].Name, lo.c, MaxTaskRatio)
		}
	}
}

// allowed is f's δ row, ascending: nil (every server) when f lists none,
// else the servers it lists, which must exist and appear once.
func (b *fsBuilder) allowed(f *FrameworkSpec, p func(...any) string) []int {
	if f.Servers == nil {
		return nil
	}
	on := make([]int, 0, len(f.Servers))
	seen := make(map[int]bool, len(f.Servers))
	for k, name := range f.Servers {
		j, ok := b.srvIdx[name]
		if !ok {
			b.vs.Add(p("servers", k), "unknown server %q", name)
			continue
		}
		if seen[j] {
			b.vs.Add(p("servers", k), "server %q listed twice", name)
			continue
		}
		seen[j] = true
		on = append(on, j)
	}
	slices.Sort(on)
	return on
}

// utility is f's utility on the servers it gives one for, each within
// [MinWeight, MaxWeight] (in sorted server-name order, for stable
// violations).
func (b *fsBuilder) utility(f *FrameworkSpec, p func(...any) string) map[int]float64 {
	util := make(map[int]float64, len(f.Utility))
	for _, name := range sortedKeys(f.Utility) {
		j, ok := b.srvIdx[name]
		if !ok {
			b.vs.Add(p("utility", name), "unknown server %q", name)
			continue
		}
		u := f.Utility[name]
		util[j] = u
		if u < MinWeight || u > MaxWeight {
			b.vs.Add(p("utility", name), "utility %g is outside [%g, %g], the range the generic criterion is computed in", u, MinWeight, MaxWeight)
		}
	}
	return util
}

// checkCriterion refuses utilities unless the criterion is generic.
func (b *fsBuilder) checkCriterion() {
	if b.req.Criterion == CriterionGeneric {
		return
	}
	for n, f := range b.req.Frameworks {
		if len(f.Utility) > 0 {
			b.vs.Add(solver.Ptr("frameworks", n, "utility"), "utility applies only to criterion %q", CriterionGeneric)
		}
	}
}

// coalesce groups servers with identical capacity vectors, identical δ
// columns and (for the generic criterion) identical utility columns. Two
// such servers are interchangeable in every divisible problem, so a group is
// one server with pooled capacity. A server's key holds only what can set
// it apart, so the keys are linear in the body: its capacities, the
// restricted frameworks that allow it and the utilities other than 1 given
// on it, each in framework order.
func (in *instance) coalesce(generic bool) {
	allowedBy, utilOn := in.columns(generic)
	keyOf := make(map[string]int)
	in.groupOf = make([]int, len(in.servers))
	var b []byte
	for j, s := range in.servers {
		b = b[:0]
		for _, c := range s.cap {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(c))
		}
		b = binary.LittleEndian.AppendUint64(b, uint64(len(allowedBy[j])))
		for _, n := range allowedBy[j] {
			b = binary.LittleEndian.AppendUint64(b, uint64(n))
		}
		for _, nu := range utilOn[j] {
			b = binary.LittleEndian.AppendUint64(b, uint64(nu.n))
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(nu.u))
		}
		k := string(b)
		g, ok := keyOf[k]
		if !ok {
			g = len(in.groups)
			keyOf[k] = g
			in.groups = append(in.groups, group{cap: s.cap})
		}
		in.groupOf[j] = g
		in.groups[g].members = append(in.groups[g].members, j)
		in.groups[g].count += s.count
	}
}

// frameworkUtility is framework n's utility u on some server.
type frameworkUtility struct {
	n int
	u float64
}

// columns is the sparse δ and utility columns of every server: the
// restricted frameworks that allow it, and (generic) the utilities other
// than 1 given on it, each in framework order. Unrestricted frameworks and
// utilities of 1 are the same on every server, so they are left out.
func (in *instance) columns(generic bool) (allowedBy [][]int, utilOn [][]frameworkUtility) {
	allowedBy = make([][]int, len(in.servers))
	utilOn = make([][]frameworkUtility, len(in.servers))
	for n, f := range in.fws {
		for _, j := range f.on {
			allowedBy[j] = append(allowedBy[j], n)
		}
		if !generic {
			continue
		}
		for _, j := range slices.Sorted(maps.Keys(f.util)) {
			if u := f.util[j]; u != 1 {
				utilOn[j] = append(utilOn[j], frameworkUtility{n, u})
			}
		}
	}
	return allowedBy, utilOn
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
