package fairshare

import (
	"encoding/binary"
	"maps"
	"math"
	"slices"

	"github.com/xflex/xflex/solver"
)

// fitTol absorbs float round-off when comparing a task's demand with a
// server's residual capacity: residuals are capacities minus at most ~1e6
// demands of magnitude ≤ 1e15, so 1e-9 relative is far above accumulated
// error and far below any real size (the same convention as vecpack.FitTol).
const fitTol = 1e-9

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
	name    string
	d       []float64
	phi     float64
	allowed []bool    // per server
	cap     float64   // task cap, +Inf when none
	util    []float64 // generic utility per server (1 by default)
}

type group struct {
	members []int     // server indices, ascending
	count   int       // Σ counts
	cap     []float64 // per-copy capacity
}

// usable reports whether framework n may run on server j at all: δ allows
// it and the server has some capacity of every resource the task needs.
func (in *instance) usable(n, j int) bool {
	f := &in.fws[n]
	if !f.allowed[j] {
		return false
	}
	for r, d := range f.d {
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
// capacity capacity. Round-off, up to fitTol of the server's capacity, is
// forgiven only against a positive residual: a residual placement clamped
// to 0 holds nothing more. The tolerance used to be absolute below 1
// (fitTol·max(1, free)), so a demand of 1e-9 fit a residual of 0 again and
// again and placing tasks one by one never ended.
func fits(d, free, capacity []float64) bool {
	for r, v := range d {
		if v <= free[r] {
			continue
		}
		if !(free[r] > 0) || v > free[r]+fitTol*capacity[r] {
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
	var vs solver.Violations
	R := len(req.Resources)
	resIdx := map[string]int{}
	for r, name := range req.Resources {
		if _, dup := resIdx[name]; dup {
			vs.Add(solver.Ptr("resources", r), "duplicate resource name %q", name)
			continue
		}
		resIdx[name] = r
	}
	in := &instance{resources: req.Resources, total: make([]float64, R)}
	srvIdx := map[string]int{}
	for j, s := range req.Servers {
		if _, dup := srvIdx[s.Name]; dup {
			vs.Add(solver.Ptr("servers", j, "name"), "duplicate server name %q", s.Name)
		}
		srvIdx[s.Name] = j
		if len(s.Capacity) != R {
			vs.Add(solver.Ptr("servers", j, "capacity"), "capacity has %d entries but there are %d resources", len(s.Capacity), R)
		}
		count := 1
		if s.Count != nil {
			count = *s.Count
		}
		c := make([]float64, R)
		copy(c, s.Capacity)
		in.servers = append(in.servers, server{name: s.Name, cap: c, count: count})
		for r := 0; r < R; r++ {
			in.total[r] += float64(count) * c[r]
		}
	}
	// Smallest and largest positive capacity of each resource, with the
	// first server holding it (for the demand-ratio checks).
	type extreme struct {
		c float64
		j int
	}
	capRange := make([][2]extreme, R)
	for r := range capRange {
		capRange[r] = [2]extreme{{math.Inf(1), -1}, {0, -1}}
	}
	for j, s := range req.Servers {
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
	fwIdx := map[string]int{}
	for n, f := range req.Frameworks {
		p := func(segs ...any) string { return solver.Ptr(append([]any{"frameworks", n}, segs...)...) }
		if _, dup := fwIdx[f.Name]; dup {
			vs.Add(p("name"), "duplicate framework name %q", f.Name)
		}
		fwIdx[f.Name] = n
		fw := framework{name: f.Name, phi: 1, cap: math.Inf(1), d: make([]float64, R)}
		if len(f.Demand) != R {
			vs.Add(p("demand"), "demand has %d entries but there are %d resources", len(f.Demand), R)
		}
		copy(fw.d, f.Demand)
		zero := true
		for _, v := range fw.d {
			if v > 0 {
				zero = false
			}
		}
		if zero {
			vs.Add(p("demand"), "demand is zero in every resource: a task must need something")
		}
		if f.Weight != nil {
			fw.phi = *f.Weight
			if fw.phi < MinWeight || fw.phi > MaxWeight {
				vs.Add(p("weight"), "weight %g is outside [%g, %g], the range shares divided by weights are computed in", fw.phi, MinWeight, MaxWeight)
			}
		}
		for r, d := range f.Demand {
			if d <= 0 || r >= R {
				continue
			}
			lo, hi := capRange[r][0], capRange[r][1]
			if hi.j < 0 {
				continue // no server has the resource: the framework fits nowhere
			}
			if hi.c/d > MaxTaskRatio {
				vs.Add(p("demand", r), "demand %g of %q is below 1/%g of server %q's capacity %g: at most %g tasks may fit one server", d, req.Resources[r], MaxTaskRatio, req.Servers[hi.j].Name, hi.c, MaxTaskRatio)
			} else if lo.c/d < 1/MaxTaskRatio {
				vs.Add(p("demand", r), "demand %g of %q is above %g times server %q's capacity %g: a server must hold at least 1/%g of a task of each resource it has", d, req.Resources[r], MaxTaskRatio, req.Servers[lo.j].Name, lo.c, MaxTaskRatio)
			}
		}
		if f.MaxTasks != nil {
			fw.cap = *f.MaxTasks
		}
		fw.allowed = make([]bool, len(req.Servers))
		if f.Servers == nil {
			for j := range fw.allowed {
				fw.allowed[j] = true
			}
		} else {
			for k, name := range f.Servers {
				j, ok := srvIdx[name]
				if !ok {
					vs.Add(p("servers", k), "unknown server %q", name)
					continue
				}
				if fw.allowed[j] {
					vs.Add(p("servers", k), "server %q listed twice", name)
				}
				fw.allowed[j] = true
			}
		}
		fw.util = make([]float64, len(req.Servers))
		for j := range fw.util {
			fw.util[j] = 1
		}
		for _, name := range sortedKeys(f.Utility) {
			j, ok := srvIdx[name]
			if !ok {
				vs.Add(p("utility", name), "unknown server %q", name)
				continue
			}
			fw.util[j] = f.Utility[name]
			if u := fw.util[j]; u < MinWeight || u > MaxWeight {
				vs.Add(p("utility", name), "utility %g is outside [%g, %g], the range the generic criterion is computed in", u, MinWeight, MaxWeight)
			}
		}
		in.fws = append(in.fws, fw)
	}
	if req.Criterion != CriterionGeneric {
		for n, f := range req.Frameworks {
			if len(f.Utility) > 0 {
				vs.Add(solver.Ptr("frameworks", n, "utility"), "utility applies only to criterion %q", CriterionGeneric)
			}
		}
	}
	if err := vs.Err(); err != nil {
		return nil, err
	}
	in.coalesce(req.Criterion == CriterionGeneric)
	return in, nil
}

// coalesce groups servers with identical capacity vectors, identical δ
// columns and (for the generic criterion) identical utility columns. Two
// such servers are interchangeable in every divisible problem, so a group is
// one server with pooled capacity.
func (in *instance) coalesce(generic bool) {
	keyOf := make(map[string]int)
	in.groupOf = make([]int, len(in.servers))
	var b []byte
	for j, s := range in.servers {
		b = b[:0]
		for _, c := range s.cap {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(c))
		}
		for n := range in.fws {
			if in.fws[n].allowed[j] {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
			if generic {
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(in.fws[n].util[j]))
			}
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

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
