package tetris

import (
	"math"
	"sort"

	"github.com/xflex/xflex/vecpack"
)

// Shortfall is one resource a task lacks at one machine.
type Shortfall struct {
	Resource int
	Machine  int
	Need     float64
	Free     float64
}

// Reason explains why a pending task was not placed: the placement closest
// to fitting (the machine minimising the largest shortfall relative to
// capacity) and every shortfall there, worst first. Blocked counts, per
// resource, the machines where that resource alone is short for the task
// (placed there with its input read remotely), which says whether the
// cluster is out of the resource or merely fragmented.
type Reason struct {
	Machine int
	Remote  bool
	Short   []Shortfall
	Blocked []int
}

// absentMetric ranks placements on a machine lacking a resource entirely
// behind every placement that is merely short.
const absentMetric = 1e300

// Explain returns, for every group, the reason of each pending member
// (indexed like Members; nil entries for placed members) or, for an
// anonymous group, a single reason shared by its Count pending tasks.
func Explain(machines []Machine, groups []*Group, cfg Config) [][]*Reason {
	d := 0
	if len(machines) > 0 {
		d = len(machines[0].Cap)
	}
	mask := cfg.Mask
	if mask == nil {
		mask = make([]bool, d)
		for i := range mask {
			mask[i] = true
		}
	}
	ex := explainer{ms: machines, mask: mask, roles: cfg.Roles, dem: make([]float64, d)}
	out := make([][]*Reason, len(groups))
	for gi, g := range groups {
		if g.Count == 0 {
			continue
		}
		out[gi] = ex.group(g)
	}
	return out
}

type explainer struct {
	ms    []Machine
	mask  []bool
	roles Roles
	dem   []float64
	need  []Input
}

// short appends the local shortfalls of demand dem on machine m.
func (e *explainer) short(dem []float64, m int, buf []Shortfall) []Shortfall {
	mc := e.ms[m]
	for k, x := range dem {
		if !e.mask[k] || vecpack.Fits(dem[k:k+1], mc.Free[k:k+1]) {
			continue
		}
		buf = append(buf, Shortfall{Resource: k, Machine: m, Need: x, Free: mc.Free[k]})
	}
	return buf
}

// remoteShort appends shortfalls of disk read and network out at the
// machines a task on m reads from.
func (e *explainer) remoteShort(inputs []Input, m int, buf []Shortfall) []Shortfall {
	e.need = RemoteNeeds(inputs, m, e.need)
	for _, n := range e.need {
		f := e.ms[n.Machine].Free
		for _, k := range []int{e.roles.DiskRead, e.roles.NetOut} {
			if k < 0 || !e.mask[k] {
				continue
			}
			if !vecpack.Fits([]float64{n.Rate}, f[k:k+1]) {
				buf = append(buf, Shortfall{Resource: k, Machine: n.Machine, Need: n.Rate, Free: f[k]})
			}
		}
	}
	return buf
}

func (e *explainer) metric(ss []Shortfall) float64 {
	w := 0.0
	for _, s := range ss {
		c := e.ms[s.Machine].Cap[s.Resource]
		v := absentMetric
		if c > 0 {
			v = (s.Need - s.Free) / c
		}
		w = math.Max(w, v)
	}
	return w
}

func (e *explainer) sortShort(ss []Shortfall) {
	sort.SliceStable(ss, func(a, b int) bool {
		return e.metric(ss[a:a+1]) > e.metric(ss[b:b+1])
	})
}

type placeEval struct {
	m      int
	metric float64
	short  []Shortfall
}

func (e *explainer) group(g *Group) []*Reason {
	// The all-remote variant: demand on a machine holding none of the
	// input (identical for every member: groups share input rates).
	var rep []Input
	if len(g.Members) > 0 {
		for _, mem := range g.Members {
			if !mem.placed {
				rep = mem.Inputs
				break
			}
		}
	}
	d := len(g.Demand)
	blocked := make([]int, d)
	evals := make([]placeEval, len(e.ms))
	for m := range e.ms {
		LocalDemand(g, rep, -1, e.roles, e.dem)
		ss := e.short(e.dem, m, nil)
		for _, s := range ss {
			blocked[s.Resource]++
		}
		evals[m] = placeEval{m: m, metric: e.metric(ss), short: ss}
	}
	order := make([]int, len(e.ms))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return evals[order[a]].metric < evals[order[b]].metric
	})
	if g.Members == nil {
		r := &Reason{Machine: -1, Blocked: blocked}
		if len(order) > 0 {
			best := evals[order[0]]
			r.Machine, r.Short = best.m, best.short
			e.sortShort(r.Short)
		}
		return []*Reason{r}
	}
	out := make([]*Reason, len(g.Members))
	for mi := range g.Members {
		mem := &g.Members[mi]
		if mem.placed {
			continue
		}
		var best placeEval
		best.m, best.metric = -1, math.Inf(1)
		remote := false
		consider := func(pe placeEval, rem bool) {
			if pe.metric < best.metric || (pe.metric == best.metric && pe.m < best.m) {
				best, remote = pe, rem
			}
		}
		for k, in := range mem.Inputs {
			if hasInput(mem.Inputs[:k], in.Machine) {
				continue
			}
			rem := LocalDemand(g, mem.Inputs, in.Machine, e.roles, e.dem)
			ss := e.short(e.dem, in.Machine, nil)
			ss = e.remoteShort(mem.Inputs, in.Machine, ss)
			consider(placeEval{m: in.Machine, metric: e.metric(ss), short: ss}, rem)
		}
		for _, m := range order {
			if hasInput(mem.Inputs, m) {
				continue
			}
			ss := append([]Shortfall(nil), evals[m].short...)
			ss = e.remoteShort(mem.Inputs, m, ss)
			consider(placeEval{m: m, metric: e.metric(ss), short: ss}, len(mem.Inputs) > 0)
			break
		}
		r := &Reason{Machine: best.m, Remote: remote, Short: best.short, Blocked: blocked}
		e.sortShort(r.Short)
		out[mi] = r
	}
	return out
}
