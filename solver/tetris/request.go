package tetris

import (
	"sort"

	"github.com/xflex/xflex/solver"
)

// This file holds the request decoding both Tetris problems share: the
// machines and the resource index they define, resource roles, and the
// knobs (schemas/tetris-assign.request.json#/$defs/knobs, which the
// simulator's schema references).

// MachineReq is one machine of a request: its total capacity and what is
// free now (tetris/assign only; default: all of it).
type MachineReq struct {
	Name     string             `json:"name"`
	Capacity map[string]float64 `json:"capacity"`
	Free     map[string]float64 `json:"free,omitempty"`
}

// Cluster is the machine side of a request in index form.
type Cluster struct {
	// Resources is the union of the machines' capacity keys, sorted, so
	// every vector is indexed the same way on every run.
	Resources []string
	index     map[string]int
	// Machines holds each machine's capacity and free vectors (Free is a
	// copy of Cap when the request gives none).
	Machines []Machine
	// Total is the cluster's capacity per resource.
	Total []float64
	// ByName maps a machine name to the first machine with that name.
	ByName map[string]int
}

// MinCapacity is the smallest positive capacity a machine may have. The
// round divides demands and input rates (at most 1e15 by the schemas) by
// capacities and squares capacities (ε's mean alignment): with capacities
// of at least 1e-100 those stay below 1e115 and 1e-200, far inside
// float64, where a capacity of 1e-300 made alignments infinite and the
// response unencodable (NaN, ±Inf). No real unit system needs capacities
// this small; zero (the resource is absent) stays allowed.
const MinCapacity = 1e-100

// NewCluster indexes the machines of a request, adding to vs a violation
// for every duplicate name, every positive capacity below MinCapacity and
// every free amount a machine cannot have.
func NewCluster(machines []MachineReq, vs *solver.Violations) *Cluster {
	c := &Cluster{index: map[string]int{}, ByName: map[string]int{}}
	for _, m := range machines {
		for r := range m.Capacity {
			if _, ok := c.index[r]; !ok {
				c.index[r] = 0
				c.Resources = append(c.Resources, r)
			}
		}
	}
	sort.Strings(c.Resources)
	for k, r := range c.Resources {
		c.index[r] = k
	}
	d := len(c.Resources)
	c.Total = make([]float64, d)
	for i, m := range machines {
		if _, dup := c.ByName[m.Name]; dup {
			vs.Add(solver.Ptr("machines", i, "name"), "duplicate machine name %q", m.Name)
		} else {
			c.ByName[m.Name] = i
		}
		capa, _ := c.Vector(m.Capacity)
		for _, r := range sortedKeys(m.Capacity) {
			if x := m.Capacity[r]; x > 0 && x < MinCapacity {
				vs.Add(solver.Ptr("machines", i, "capacity", r), "capacity %g is below the smallest positive capacity %g (use 0 for an absent resource, or larger units)", x, MinCapacity)
			}
		}
		free := append([]float64(nil), capa...)
		if m.Free != nil {
			free = make([]float64, d)
			for _, r := range sortedKeys(m.Free) {
				k, ok := c.index[r]
				if !ok || m.Capacity[r] == 0 && m.Free[r] > 0 {
					vs.Add(solver.Ptr("machines", i, "free", r), "machine has no capacity of resource %q", r)
					continue
				}
				if m.Free[r] > m.Capacity[r] {
					vs.Add(solver.Ptr("machines", i, "free", r), "free %g exceeds capacity %g", m.Free[r], m.Capacity[r])
				}
				free[k] = m.Free[r]
			}
		}
		c.Machines = append(c.Machines, Machine{Cap: capa, Free: free})
		for k, x := range capa {
			c.Total[k] += x
		}
	}
	return c
}

// Resource is the index of resource r, if some machine has it.
func (c *Cluster) Resource(r string) (int, bool) {
	k, ok := c.index[r]
	return k, ok
}

// Vector maps named amounts onto the resource index. It also returns,
// sorted, the names no machine has that carry a positive amount (a zero
// amount of a missing resource asks for nothing), for the caller to report.
func (c *Cluster) Vector(amounts map[string]float64) (v []float64, unknown []string) {
	v = make([]float64, len(c.Resources))
	for r, x := range amounts {
		k, ok := c.index[r]
		if !ok {
			if x > 0 {
				unknown = append(unknown, r)
			}
			continue
		}
		v[k] = x
	}
	sort.Strings(unknown)
	return v, unknown
}

// Role is the index of the resource named name (def when name is empty),
// or -1 when no machine has it.
func (c *Cluster) Role(name, def string) int {
	if name == "" {
		name = def
	}
	if k, ok := c.index[name]; ok {
		return k
	}
	return -1
}

// IORoles locates the resources remote reads use, by the names a request
// gives (empty: "disk_read", "net_in", "net_out").
func (c *Cluster) IORoles(diskRead, netIn, netOut string) Roles {
	return Roles{DiskRead: c.Role(diskRead, "disk_read"), NetIn: c.Role(netIn, "net_in"), NetOut: c.Role(netOut, "net_out")}
}

func sortedKeys(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Knobs are Tetris's knobs as a request gives them; nil fields take the
// paper's defaults.
type Knobs struct {
	Fairness      *float64 `json:"fairness,omitempty"`
	Barrier       *float64 `json:"barrier,omitempty"`
	Epsilon       *float64 `json:"epsilon,omitempty"`
	EpsilonScale  *float64 `json:"epsilon_scale,omitempty"`
	RemotePenalty *float64 `json:"remote_penalty,omitempty"`
}

// Paper defaults (§5.3: f = 0.25, b = 0.9, ε = ā/p̄, remote penalty 10%).
const (
	DefaultFairness      = 0.25
	DefaultBarrier       = 0.9
	DefaultRemotePenalty = 0.1
)

// Resolved are the knob values in force.
type Resolved struct {
	Fairness, Barrier, RemotePenalty float64
	// Epsilon is the given ε; with EpsilonAuto it is chosen per round as
	// EpsilonScale·ā/p̄ (see EpsilonFor).
	Epsilon, EpsilonScale float64
	EpsilonAuto           bool
}

// Resolve fills in the defaults, adding to vs a violation when both
// epsilon and epsilon_scale are given. k may be nil.
func (k *Knobs) Resolve(vs *solver.Violations) Resolved {
	r := Resolved{Fairness: DefaultFairness, Barrier: DefaultBarrier, RemotePenalty: DefaultRemotePenalty,
		EpsilonScale: 1, EpsilonAuto: true}
	if k == nil {
		return r
	}
	if k.Fairness != nil {
		r.Fairness = *k.Fairness
	}
	if k.Barrier != nil {
		r.Barrier = *k.Barrier
	}
	if k.RemotePenalty != nil {
		r.RemotePenalty = *k.RemotePenalty
	}
	if k.EpsilonScale != nil {
		r.EpsilonScale = *k.EpsilonScale
	}
	if k.Epsilon != nil {
		r.Epsilon, r.EpsilonAuto = *k.Epsilon, false
		if k.EpsilonScale != nil {
			vs.Add("/knobs/epsilon_scale", "epsilon_scale applies to the automatic epsilon only; give epsilon or epsilon_scale, not both")
		}
	}
	return r
}

// EpsilonFor is ε for a round over these machines, groups and jobs: the
// given value, or EpsilonScale times AutoEpsilon.
func (r Resolved) EpsilonFor(machines []Machine, groups []*Group, jobs []Job, mask []bool) float64 {
	if !r.EpsilonAuto {
		return r.Epsilon
	}
	return r.EpsilonScale * AutoEpsilon(machines, groups, jobs, mask)
}

// Promoted reports whether a stage with finished of tasks done is past the
// barrier threshold b (§3.5); b = 1 turns the hint off.
func (r Resolved) Promoted(finished, tasks int) bool {
	return tasks > 0 && r.Barrier < 1 && float64(finished) >= r.Barrier*float64(tasks)
}
