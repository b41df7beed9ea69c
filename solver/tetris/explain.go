package tetris

import (
	"context"
	"math"
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

// The builtin max used here has math.Max's rules for NaN and signed zeros.

// absentMetric ranks placements on a machine lacking a resource entirely
// behind every placement that is merely short.
const absentMetric = 1e300

// Explain returns, for every group, the reason of each pending member
// (indexed like Members; nil entries for placed members) or, for an
// anonymous group, a single reason shared by its Count pending tasks.
// Every machine counts as offered: ExplainOn with offered nil.
func Explain(machines []Machine, groups []*Group, cfg Config) [][]*Reason {
	return ExplainOn(context.Background(), machines, nil, groups, cfg)
}

// ExplainOn is Explain when only the machines in offered (indices,
// ascending) were filled, as in a heartbeat round: the closest placement
// and the blocked counts range over those machines only, while remote
// reads are still checked at any input machine. A nil offered means every
// machine; an empty one gives reasons with Machine -1.
//
// Each group costs a pass over the offered machines, so ExplainOn checks
// ctx before each group and leaves the groups it had no time for nil.
func ExplainOn(ctx context.Context, machines []Machine, offered []int, groups []*Group, cfg Config) [][]*Reason {
	d := dims(machines)
	if offered == nil {
		offered = make([]int, len(machines))
		for m := range offered {
			offered[m] = m
		}
	}
	isOff := make([]bool, len(machines))
	for _, m := range offered {
		isOff[m] = true
	}
	ex := explainer{ms: machines, offered: offered, isOff: isOff, mask: cfg.mask(d), roles: cfg.Roles, dem: make([]float64, d)}
	out := make([][]*Reason, len(groups))
	for gi, g := range groups {
		if g.Count == 0 {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		out[gi] = ex.group(g)
	}
	return out
}

type explainer struct {
	ms []Machine
	// offered lists the machines a task could have been placed on
	// (ascending); isOff marks them.
	offered []int
	isOff   []bool
	mask    []bool
	roles   Roles
	dem     []float64
	need    []Input
}

// short appends the local shortfalls of demand dem on machine m.
func (e *explainer) short(dem []float64, m int, buf []Shortfall) []Shortfall {
	mc := e.ms[m]
	for k, x := range dem {
		if !e.mask[k] || x <= fitLimit(mc.Free[k], mc.Cap[k]) {
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
			if n.Rate > fitLimit(f[k], e.ms[n.Machine].Cap[k]) {
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
		w = max(w, v)
	}
	return w
}

func (e *explainer) sortShort(ss []Shortfall) {
	// Insertion sort, stable: the lists hold a few shortfalls.
	for a := 1; a < len(ss); a++ {
		x := ss[a]
		v := e.metric(ss[a : a+1])
		b := a
		for b > 0 && v > e.metric(ss[b-1:b]) {
			ss[b] = ss[b-1]
			b--
		}
		ss[b] = x
	}
}

// localMetric is the largest shortfall of dem on machine m relative to
// capacity (0 if it fits), counting short resources into blocked when non-nil.
func (e *explainer) localMetric(dem []float64, m int, blocked []int) float64 {
	mc := e.ms[m]
	w := 0.0
	for k, x := range dem {
		if !e.mask[k] || x <= fitLimit(mc.Free[k], mc.Cap[k]) {
			continue
		}
		if blocked != nil {
			blocked[k]++
		}
		v := absentMetric
		if mc.Cap[k] > 0 {
			v = (x - mc.Free[k]) / mc.Cap[k]
		}
		w = max(w, v)
	}
	return w
}

// remoteMetric is the largest relative shortfall of disk read and network
// out at the machines a task on m reads from.
func (e *explainer) remoteMetric(inputs []Input, m int) float64 {
	e.need = RemoteNeeds(inputs, m, e.need)
	w := 0.0
	for _, n := range e.need {
		mc := e.ms[n.Machine]
		for _, k := range []int{e.roles.DiskRead, e.roles.NetOut} {
			if k < 0 || !e.mask[k] || n.Rate <= fitLimit(mc.Free[k], mc.Cap[k]) {
				continue
			}
			v := absentMetric
			if mc.Cap[k] > 0 {
				v = (n.Rate - mc.Free[k]) / mc.Cap[k]
			}
			w = max(w, v)
		}
	}
	return w
}

// reason lists the shortfalls of a task of g with the given inputs placed
// on m, worst first.
func (e *explainer) reason(g *Group, inputs []Input, m int, blocked []int) *Reason {
	remote := LocalDemand(g, inputs, m, e.roles, e.dem)
	ss := e.short(e.dem, m, nil)
	ss = e.remoteShort(inputs, m, ss)
	e.sortShort(ss)
	return &Reason{Machine: m, Remote: remote, Short: ss, Blocked: blocked}
}

func (e *explainer) group(g *Group) []*Reason {
	// The all-remote variant: demand on a machine holding none of the
	// input (identical for every member: groups share input rates).
	var rep []Input
	for _, mem := range g.Members {
		if !mem.placed {
			rep = mem.Inputs
			break
		}
	}
	blocked := make([]int, len(g.Demand))
	LocalDemand(g, rep, -1, e.roles, e.dem)
	// metric[i] belongs to machine offered[i].
	metric := make([]float64, len(e.offered))
	for i, m := range e.offered {
		metric[i] = e.localMetric(e.dem, m, blocked)
	}
	if len(e.offered) == 0 {
		out := make([]*Reason, max(1, len(g.Members)))
		for i := range out {
			if g.Members == nil || !g.Members[i].placed {
				out[i] = &Reason{Machine: -1, Blocked: blocked}
			}
		}
		return out
	}
	// A member's closest machine without its input is among the first
	// 1 + (its inputs) machines by (metric, index): those are all the
	// order a member can need (a stable sort by metric would give the
	// same prefix).
	need := 1
	for _, mem := range g.Members {
		if !mem.placed {
			need = max(need, 1+len(mem.Inputs))
		}
	}
	order := bestMachines(metric, min(need, len(e.offered)))
	if g.Members == nil {
		return []*Reason{e.reason(g, nil, e.offered[order[0]], blocked)}
	}
	out := make([]*Reason, len(g.Members))
	for mi := range g.Members {
		mem := &g.Members[mi]
		if mem.placed {
			continue
		}
		bestM, best := -1, math.Inf(1)
		consider := func(m int, v float64) {
			// The first machine is taken whatever its metric (an
			// infinite or NaN one included).
			if bestM < 0 || v < best || (v == best && m < bestM) {
				bestM, best = m, v
			}
		}
		for k, in := range mem.Inputs {
			if !e.isOff[in.Machine] || hasInput(mem.Inputs[:k], in.Machine) {
				continue
			}
			LocalDemand(g, mem.Inputs, in.Machine, e.roles, e.dem)
			consider(in.Machine, max(e.localMetric(e.dem, in.Machine, nil), e.remoteMetric(mem.Inputs, in.Machine)))
		}
		for _, i := range order {
			m := e.offered[i]
			if hasInput(mem.Inputs, m) {
				continue
			}
			consider(m, max(metric[i], e.remoteMetric(mem.Inputs, m)))
			break
		}
		out[mi] = e.reason(g, mem.Inputs, bestM, blocked)
	}
	return out
}

// bestMachines returns the k positions of metric with the smallest value,
// ties by position, in that order (the prefix of a stable sort by metric).
func bestMachines(metric []float64, k int) []int {
	out := make([]int, 0, k)
	for m, v := range metric {
		if len(out) == k && !(v < metric[out[k-1]]) {
			continue
		}
		// Insert after every kept machine whose metric is not larger
		// (they have smaller indices): the order stays (metric, index).
		i := len(out)
		if i == k {
			i--
		} else {
			out = append(out, 0)
		}
		for i > 0 && v < metric[out[i-1]] {
			out[i] = out[i-1]
			i--
		}
		out[i] = m
	}
	return out
}
