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

// fitsWhole reports whether one whole task of n fits on an empty copy of j.
func (in *instance) fitsWhole(n, j int) bool {
	if !in.usable(n, j) {
		return false
	}
	return fits(in.fws[n].d, in.servers[j].cap)
}

func fits(d, free []float64) bool {
	for r, v := range d {
		if v > free[r]+fitTol*math.Max(1, math.Abs(free[r])) {
			return false
		}
	}
	return true
}

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
