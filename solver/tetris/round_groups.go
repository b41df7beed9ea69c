package tetris

import (
	"math"
	"sort"
)

// What a round keeps across the fills of its machines.
//
// A group's members without input on the machine being filled read all
// their input remotely, so their demand there does not depend on the
// machine: the group's Demand plus, on network in, the input rates added in
// the member's input order (LocalDemand). Members with the same sequence of
// rates as member 0 (every member, when the caller groups by input rates
// in order, and trivially with one input) share it bit for bit; this is the
// group's remote demand. Normalised by a machine's capacity it is the same
// on every machine with the same capacity vector, so it is computed once per
// capacity class, and ordered by it the groups are ordered by normalised
// demand on every machine (division by a positive capacity is monotone).

// groupCache is what the round keeps per group across fills, flat for the
// fills' scans (this file).
type groupCache struct {
	gs       []*Group
	ms       []Machine
	mask     []bool
	d        int
	roles    Roles
	cache    []groupState
	promoted []bool // barrier promotion per group
	// baseDemand is every group's Demand, d per group (the fills' pre-filter
	// reads it for each local member).
	baseDemand []float64
	// remoteDemand[gi] is group gi's remote demand (nil until needed, see
	// remoteDem).
	remoteDemand [][]float64
	byBase       [][]int // per resource: groups by demand (see byDemand)
	// byRemote[k] lists the groups by remote demand of resource k,
	// largest first (see recheck and sortByRemote).
	byRemote [][]int32
	// capClass numbers the machines' distinct capacity vectors; classes is the
	// cache per capacity class.
	capClass []int
	classes  []classCache
}

// newGroupCache fills the per-group caches and starts each group's round.
func newGroupCache(ms []Machine, gs []*Group, cfg Config, mask []bool, d int) groupCache {
	c := groupCache{gs: gs, ms: ms, mask: mask, d: d, roles: cfg.Roles,
		cache: make([]groupState, len(gs)), promoted: make([]bool, len(gs)), baseDemand: make([]float64, len(gs)*d),
		capClass: capClasses(ms), classes: make([]classCache, maxCapClasses)}
	for gi, g := range gs {
		c.cache[gi] = groupState{gi: int32(gi), nmem: int32(len(g.Members)), job: int32(g.Job), count: int32(g.Count), promo: g.Promoted, anon: g.Members == nil,
			byMachine: g.ByMachine != nil, remote: len(g.Members) > 0 && len(g.Members[0].Inputs) > 0,
			input1: len(g.Members) > 0 && len(g.Members[0].Inputs) == 1,
			first:  -1, repMi: -1}
		c.promoted[gi] = g.Promoted
		copy(c.baseDemand[gi*d:(gi+1)*d], g.Demand)
		g.round++
	}
	return c
}

// maxCapClasses bounds the distinct capacity vectors a round tells apart;
// machines beyond it get no class and their demands are computed per fill
// (a speed limit only: results are the same).
const maxCapClasses = 16

// groupState is a group's state kept across the fills of one round, next to
// the other groups' (the fills read it for every group).
//
// Its fields are 32-bit (Round refuses rounds of 2³¹ members or more) so
// that the entry takes 48 bytes: every fill reads it for every group, and
// at 104 bytes the array no longer stayed in the L1 cache from one fill
// to the next.
type groupState struct {
	// repVer: see repMi.
	repVer int
	// The group's index, and copies of its fields: len(Members), Job,
	// Count (commit keeps it in step).
	gi, nmem   int32
	job, count int32
	// first is the first member, from the cursor, neither placed nor dead
	// this round (-1: to be found; commit and dead marks reset it); every
	// representative is it or a later member. firstIn is the one machine
	// it reads from (-1: none, -2: several), firstCanon that its rates are
	// member 0's.
	first, firstIn int32
	// repMi is the last representative whose remote reads fitted, at
	// remoteVer repVer (-1: none); the check holds on every machine
	// without its input until one of its input machines changes.
	repMi int32
	// Promoted, Members == nil, ByMachine != nil.
	promo, anon bool
	byMachine   bool
	remote      bool // member 0 reads input
	// input1: member 0 reads from exactly one machine entry (see
	// classLocalND).
	input1     bool
	firstCanon bool
}

// Per capacity class, the groups' remote demands normalised (nd[gi·d:]),
// then their local demands normalised (nd[(len(gs)+gi)·d:], see
// classLocalND), each computed on first use (state[gi], state[len(gs)+gi]:
// 0 not yet, 1 done, 2 the class lacks a resource the group needs). The
// fills of the class's machines use nd as the start of their demand array
// (candidateSet.demands), appending past its length.
type classCache struct {
	nd    []float64
	state []uint8
}

// capClasses numbers the distinct capacity vectors of the machines (bit
// for bit), -1 past maxCapClasses.
func capClasses(ms []Machine) []int {
	cls := make([]int, len(ms))
	var reps []int
	for m := range ms {
		cls[m] = -1
		for c, x := range reps {
			if sameBits(ms[x].Cap, ms[m].Cap) {
				cls[m] = c
				break
			}
		}
		if cls[m] < 0 && len(reps) < maxCapClasses {
			cls[m] = len(reps)
			reps = append(reps, m)
		}
	}
	return cls
}

func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// sameRates reports whether two members' inputs have the same rates in the
// same order, bit for bit (then their remote demands are identical).
func sameRates(a, b []Input) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	for i := range a {
		if math.Float64bits(a[i].Rate) != math.Float64bits(b[i].Rate) {
			return false
		}
	}
	return true
}

// remoteDem is group gi's remote demand, computed on first use.
func (c *groupCache) remoteDem(gi int) []float64 {
	if c.remoteDemand == nil {
		c.remoteDemand = make([][]float64, len(c.gs))
	}
	if c.remoteDemand[gi] == nil {
		g := c.gs[gi]
		c.remoteDemand[gi] = make([]float64, c.d)
		var inputs []Input
		if len(g.Members) > 0 {
			inputs = g.Members[0].Inputs
		}
		// m = -1: every input is remote.
		c.cache[gi].remote = LocalDemand(g, inputs, -1, c.roles, c.remoteDemand[gi])
	}
	return c.remoteDemand[gi]
}

// classND is group gi's remote demand normalised for capacity class cls (m
// is a machine of it), computed on first use.
func (c *groupCache) classND(v *machineView, gi, cls, m int) (nd []float64, absent bool) {
	cc := c.classCache(cls)
	nd = cc.nd[gi*c.d : (gi+1)*c.d : (gi+1)*c.d]
	if cc.state[gi] == 0 {
		cc.state[gi] = 1
		if v.normalise(c.remoteDem(gi), m, nd) {
			cc.state[gi] = 2
		}
	}
	return nd, cc.state[gi] == 2
}

// classLocalND is, for capacity class cls (m is a machine of it), the
// normalised demand of a member of group gi whose one input entry, at
// member 0's rate, is on the machine being filled: the group's Demand plus
// that rate on disk read (LocalDemand with the input on the machine),
// computed on first use. Group gi's member 0 must have one input entry
// (groupState.input1); the caller checks that the member's rate is member 0's,
// bit for bit.
func (c *groupCache) classLocalND(v *machineView, gi, cls, m int) (nd []float64, absent bool) {
	cc := c.classCache(cls)
	i := len(c.gs) + gi
	nd = cc.nd[i*c.d : (i+1)*c.d : (i+1)*c.d]
	if cc.state[i] == 0 {
		cc.state[i] = 1
		g := c.gs[gi]
		in := g.Members[0].Inputs
		LocalDemand(g, in, in[0].Machine, c.roles, v.scratch)
		if v.normalise(v.scratch, m, nd) {
			cc.state[i] = 2
		}
	}
	return nd, cc.state[i] == 2
}

// classFillRoom is the room, in entries, a class cache leaves after its
// groups' demands for a fill's other entries (members with input on the
// machine, groups whose representative has other rates); more only costs
// a copy.
const classFillRoom = 64

// classCache is capacity class cls's cache, allocated on first use.
func (c *groupCache) classCache(cls int) *classCache {
	cc := &c.classes[cls]
	if cc.state == nil {
		n := 2 * len(c.gs) * c.d
		cc.nd, cc.state = make([]float64, n, n+classFillRoom*c.d), make([]uint8, 2*len(c.gs))
	}
	return cc
}

// findFirst sets group gi's first live member (c.first = -1) and what
// the fills read of it, and returns it.
func (c *groupCache) findFirst(gi int) int {
	st, g := &c.cache[gi], c.gs[gi]
	f := nextRep(g, g.nextLive(g.cursor), -1)
	st.first, st.firstIn, st.firstCanon = int32(f), -2, false
	if f < len(g.Members) {
		st.firstIn = int32(remoteIn(g.Members[f].Inputs, -1))
		st.firstCanon = sameRates(g.Members[f].Inputs, g.Members[0].Inputs)
	}
	return f
}

// rep is group gi's representative on m: its first pending member, not
// dead this round, without input on m (len(Members) if none).
func (c *groupCache) rep(g *Group, st *groupState, m int) int {
	gi := int(st.gi)
	f := int(st.first)
	if f < 0 || (f < len(g.Members) && (g.Members[f].placed || g.Members[f].deadAt == g.round)) {
		st.first = -1
		f = c.findFirst(gi)
	}
	if f < len(g.Members) && hasInput(g.Members[f].Inputs, m) {
		return nextRep(g, g.nextLive(f+1), m)
	}
	return f
}

// nextRep is the first member of g at or after from (a live index) that is
// pending, not dead this round and without input on m; len(Members) if
// none. It advances g.cursor over placed members.
func nextRep(g *Group, from, m int) int {
	for mi := from; mi < len(g.Members); mi = g.nextLive(mi + 1) {
		mem := &g.Members[mi]
		if mem.placed {
			if mi == g.cursor {
				g.cursor++
			}
			continue
		}
		if mem.deadAt == g.round || hasInput(mem.Inputs, m) {
			continue
		}
		return mi
	}
	return len(g.Members)
}

// byDemand returns the group indices sorted by demand of resource k (ties
// by index), built once per round per resource.
func (c *groupCache) byDemand(k int) []int {
	if c.byBase == nil {
		c.byBase = make([][]int, c.d)
	}
	if c.byBase[k] == nil {
		idx := make([]int, len(c.gs))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return c.gs[idx[a]].Demand[k] < c.gs[idx[b]].Demand[k] })
		c.byBase[k] = idx
	}
	return c.byBase[k]
}

// sortByRemote lists, per resource k, the groups with pending tasks by
// remote demand of k, largest first (ties by index); once per round.
func (c *groupCache) sortByRemote() {
	var idx []int32
	for gi, g := range c.gs {
		if g.Count > 0 {
			c.remoteDem(gi)
			idx = append(idx, int32(gi))
		}
	}
	c.byRemote = make([][]int32, c.d)
	for k := range c.byRemote {
		s := append([]int32(nil), idx...)
		sort.SliceStable(s, func(a, b int) bool { return c.remoteDemand[s[a]][k] > c.remoteDemand[s[b]][k] })
		c.byRemote[k] = s
	}
}

// remoteIn is the one machine other than m that inputs are read from: -1
// none, -2 several.
func remoteIn(inputs []Input, m int) int {
	in := -1
	for _, x := range inputs {
		if x.Machine == m {
			continue
		}
		if in >= 0 && x.Machine != in {
			return -2
		}
		in = x.Machine
	}
	return in
}

// canonLocal reports localRef.canon for member mem of group gi: it reads
// one input entry, at member 0's rate, and so does member 0.
func (c *groupCache) canonLocal(gi int, mem *Member) bool {
	return len(mem.Inputs) == 1 && c.cache[gi].input1 && sameRates(mem.Inputs, c.gs[gi].Members[0].Inputs)
}
