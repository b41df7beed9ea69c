package tetris

import (
	"math"
	"sort"
)

// Step 1 of a pick, candidates: the candidate set of one fill.
//
// At the fill's start every candidate of m is evaluated once: each member
// with input on m (its demand there is its own) and each group, represented
// by its first pending member that is not dead and holds no input on m
// (every such member has the group's demand on m; round_groups.go keeps
// what a group needs for this across fills). A candidate that does not
// fit, or whose remote reads do not fit, is dropped for the fill: free
// capacity only shrinks while m is filled (and, at other machines, during
// the whole round). The candidates that fit become entries, their jobs
// counted as holding one, and their scores go into two max-heaps (promoted
// stages and the others).
//
// Invariant: an entry is live (not dead) exactly while it may still fit m;
// perJob counts the live entries of each job and jobsHolding the jobs with
// one, exactly, which the fairness cut and the rank need.

// candidate is a candidate of the fill of one machine: a member with input on
// the machine (local), or a group standing for its pending members without
// input there (mi is then its representative, -1 for an anonymous group).
type candidate struct {
	gi, mi, job int
	alignment   float64 // alignment at the last evaluation
	off         int     // normalised demand on the machine: candidateSet.demands[off : off+d]
	// ver is remoteVer when its remote reads last fitted (-1: unchecked);
	// they need no recheck while none of its input machines changed since.
	ver    int
	local  bool
	remote bool
	promo  bool
	dead   bool
	// sorted: a group entry whose demand is the group's remote demand, so
	// it has its place in byRemote order (the others are in rest).
	sorted bool
}

// candidateSet is the candidates of one fill (its scratch, reused across
// fills).
type candidateSet struct {
	entries []candidate
	// nd holds the entries' normalised demands, d each. When m has a
	// capacity class, nd starts as that class's cache of the groups'
	// normalised remote demands (base values, group gi's at gi·d: the
	// fill's class entries point into it instead of copying) and the
	// other entries' demands are appended after it; shared reports that
	// nd still has the class cache's backing array (an append past its
	// capacity copies it, and the cache's later values are then copied
	// per entry). own is the buffer of fills without a class.
	demands []float64
	own     []float64
	base    int
	shared  bool
	d       int
	// live lists the entries, dead ones removed by scans; nlive counts
	// those not dead. rest lists the entries not sorted.
	live  []int
	rest  []int
	nlive int
	// ptr[k] is the position in byRemote[k] before which every sorted
	// entry is dead (pointer mode of recheck), and stop[k] the demand of
	// the entry the last walk stopped at (+Inf before the first walk, -Inf
	// when it reached the end): the live sorted entries from ptr[k] on
	// demand at most stop[k], so while stop[k] is within the threshold no
	// walk is needed. chk lists the resources checked on the machine
	// (masked, capacity > 0).
	ptr  []int
	stop []float64
	chk  []int
	// restMax[k] bounds resource k's normalised demand over the live
	// entries of rest (+Inf before the first scan): while every bound is
	// within its threshold no entry of rest can fail the fit test, and
	// recheck skips the scan.
	restMax []float64
	// slot[gi] is fill<<32 | e: group gi's entry in the fill is e when
	// fill is the fill's number (one load for recheck's walk).
	slot []int64
	// byIn[x] lists entries whose current member reads from machine x
	// (maybe no longer: a recheck then finds nothing changed); inUsed
	// lists the machines with a non-empty list.
	byIn             [][]int
	inUsed           []int
	promoted, others nheap // promoted entries, the others
	// perJob is the number of live entries per job; jobsHolding the number
	// of jobs with perJob > 0 (the jobs holding a candidate).
	perJob      []int
	jobsHolding int
	step        int // placements made in this fill
	// bound is the position in order of the last job within the fairness
	// cut (the k-th holding a candidate).
	bound int
	// parked holds, per job, nodes popped while the job was outside the
	// cut; parkedJobs lists the jobs with parked nodes.
	parked     [][]hnode
	parkedJobs []int
}

func (fs *candidateSet) init(nj, ng, nm, d int) {
	fs.perJob = make([]int, nj)
	fs.parked = make([][]hnode, nj)
	fs.slot = make([]int64, ng)
	fs.d = d
	fs.byIn = make([][]int, nm)
	fs.ptr = make([]int, d)
	fs.stop = make([]float64, d)
	fs.restMax = make([]float64, d)
}

// take appends room for one normalised demand and returns its offset.
func (fs *candidateSet) take() int {
	off := len(fs.demands)
	if off+fs.d > cap(fs.demands) {
		fs.shared = false
	}
	for range fs.d {
		fs.demands = append(fs.demands, 0)
	}
	return off
}

// drop releases the normalised demand at off, unless it is in the class
// cache.
func (fs *candidateSet) drop(off int) {
	if off >= fs.base {
		fs.demands = fs.demands[:off]
	}
}

// ndOf is entry e's normalised demand.
func (fs *candidateSet) ndOf(e *candidate) []float64 {
	return fs.demands[e.off : e.off+fs.d : e.off+fs.d]
}

// listIn lists entry ei under machine x (one of its input entries).
func (fs *candidateSet) listIn(ei, x int) {
	if len(fs.byIn[x]) == 0 {
		fs.inUsed = append(fs.inUsed, x)
	}
	fs.byIn[x] = append(fs.byIn[x], ei)
}

// kill drops entry e for the rest of the fill.
func (fs *candidateSet) kill(e *candidate) {
	e.dead = true
	fs.nlive--
	fs.perJob[e.job]--
	if fs.perJob[e.job] == 0 {
		fs.jobsHolding--
	}
}

// register lists entry ei under the machines its current member reads
// from remotely.
func (fs *candidateSet) register(ei, m int, gs []*Group) {
	e := &fs.entries[ei]
	for _, in := range gs[e.gi].Members[e.mi].Inputs {
		if x := in.Machine; x != m {
			fs.listIn(ei, x)
		}
	}
}

// advance updates the entry just placed: a local member is gone, an
// anonymous group loses one task, a group's representative moves to the
// next pending member without input on m (its remote reads are checked by
// recheck, after the fit test, as the reference round orders them).
func (fs *candidateSet) advance(ei, m int, gs []*Group) {
	e := &fs.entries[ei]
	g := gs[e.gi]
	switch {
	case e.local:
		fs.kill(e)
		// A member listed twice (a caller's ByMachine may repeat one) is
		// gone with either entry. Local entries are never sorted, so
		// rest holds them all.
		for _, x := range fs.rest {
			if o := &fs.entries[x]; !o.dead && o.local && o.gi == e.gi && o.mi == e.mi {
				fs.kill(o)
			}
		}
	case g.Members == nil:
		if g.Count == 0 {
			fs.kill(e)
		}
	default:
		e.mi, e.ver = nextRep(g, g.nextLive(e.mi+1), m), -1
		if e.mi >= len(g.Members) {
			fs.kill(e)
			return
		}
	}
}

// localIndex lists, per machine, the members with input there.
type localIndex struct {
	// localAll lists the members with input on each machine, machine by
	// machine (by group, member and input order within one), those of
	// machine m at localAll[localAt[m]:localAt[m+1]].
	localAll []localRef
	localAt  []int32
	// placedBits has bit mbase[gi]+mi set when member mi of group gi is
	// placed in this round: the fills test their local members here, not
	// in the members (a bit per member instead of a cache line).
	placedBits []uint64
	mbase      []int
}

// newLocalIndex lists the pending members with input on each machine (groups
// without ByMachine; the others list their own) and sets up the skip
// pointers over placed and dead members for this round.
func newLocalIndex(ms []Machine, gs []*Group, c *groupCache) localIndex {
	var l localIndex
	l.mbase = make([]int, len(gs))
	nmem := 0
	var refs []localRef
	var refAt []int32 // the machine of each of refs
	for gi, g := range gs {
		l.mbase[gi] = nmem
		nmem += len(g.Members)
		if g.ByMachine != nil {
			g.skip = nil
			continue
		}
		if g.Members != nil {
			g.skip = make([]int32, len(g.Members)+1)
			g.skip[len(g.Members)] = int32(len(g.Members))
		}
		for mi := range g.Members {
			mem := &g.Members[mi]
			g.skip[mi] = int32(mi)
			if mem.placed {
				g.skip[mi] = int32(mi + 1)
				continue
			}
			canon := c.canonLocal(gi, mem)
			for k, in := range mem.Inputs {
				if !hasInput(mem.Inputs[:k], in.Machine) {
					refs = append(refs, localRef{gi: int32(gi), mi: int32(mi), bit: int32(l.mbase[gi] + mi), canon: canon})
					refAt = append(refAt, int32(in.Machine))
				}
			}
		}
	}
	l.placedBits = make([]uint64, (nmem+63)/64)
	l.sortLocal(len(ms), refs, refAt)
	return l
}

// sortLocal is a counting sort of refs by machine into localAll (stable:
// each machine's list keeps the order of refs).
func (l *localIndex) sortLocal(nm int, refs []localRef, refAt []int32) {
	l.localAt = make([]int32, nm+1)
	for _, m := range refAt {
		l.localAt[m+1]++
	}
	for m := range nm {
		l.localAt[m+1] += l.localAt[m]
	}
	l.localAll = make([]localRef, len(refs))
	next := append([]int32(nil), l.localAt[:nm]...)
	for i, ref := range refs {
		m := refAt[i]
		l.localAll[next[m]] = ref
		next[m]++
	}
}

// localRef is a member with input on a machine (round.localAll).
type localRef struct {
	gi, mi int32
	bit    int32 // the member's bit in round.placedBits
	// canon: the member reads one input entry, at member 0's rate bit
	// for bit, and so does member 0 (classLocalND is then its demand on
	// the machine holding the input).
	canon bool
}

// addCandidates evaluates every candidate of m at the fill's start (the
// members with input on m, then each group through its representative) and
// builds the heaps of those that fit.
func (r *round) addCandidates(m int) {
	alive, scarce, lim := r.groups.prefilter(r.machine.alive, m)
	for _, lr := range r.local.localAll[r.local.localAt[m]:r.local.localAt[m+1]] {
		if r.local.placedBits[lr.bit>>6]&(1<<(lr.bit&63)) == 0 && (scarce < 0 || r.groups.baseDemand[int(lr.gi)*r.in.d+scarce] <= lim) {
			r.addLocal(int(lr.gi), int(lr.mi), m, lr.canon)
		}
	}
	for _, gi := range alive {
		if r.groups.cache[gi].byMachine {
			r.addByMachine(gi, m)
		}
	}
	for _, gi := range alive {
		r.addGroup(gi, m)
	}
	r.machine.alive = alive[:0]
	r.cands.promoted.heapify()
	r.cands.others.heapify()
}

// prefilter returns the groups with pending tasks that may fit m: a group
// fits m only if its base demand (placement only adds input bandwidth to
// it) fits m's free amount of the scarcest checked resource; byDemand
// lists groups by that demand, so the candidates are a prefix found by
// binary search. It also returns that resource (-1: none checked) and the
// limit on its demand.
func (c *groupCache) prefilter(buf []int, m int) (alive []int, scarce int, lim float64) {
	alive = buf[:0]
	free := c.ms[m].Free
	scarce, frac := -1, math.Inf(1)
	for k := 0; k < c.d; k++ {
		if c.mask[k] && c.ms[m].Cap[k] > 0 {
			if f := free[k] / c.ms[m].Cap[k]; f < frac {
				scarce, frac = k, f
			}
		}
	}
	if scarce < 0 {
		for gi := range c.gs {
			if c.cache[gi].count > 0 {
				alive = append(alive, gi)
			}
		}
		return alive, scarce, math.Inf(1)
	}
	byD := c.byDemand(scarce)
	lim = fitLimit(free[scarce], c.ms[m].Cap[scarce])
	n := sort.Search(len(byD), func(i int) bool { return c.gs[byD[i]].Demand[scarce] > lim })
	for _, gi := range byD[:n] {
		if c.cache[gi].count > 0 {
			alive = append(alive, gi)
		}
	}
	return alive, scarce, lim
}

// addByMachine evaluates the pending members of group gi that its
// ByMachine lists with input on m.
func (r *round) addByMachine(gi, m int) {
	g := r.in.gs[gi]
	for _, mi := range g.ByMachine[m] {
		if mem := &g.Members[mi]; !mem.placed {
			// The cached demand needs its one input on m (ByMachine lists
			// members with input there; the check keeps that a guarantee).
			r.addLocal(gi, int(mi), m, r.groups.canonLocal(gi, mem) && mem.Inputs[0].Machine == m)
		}
	}
}

// add keeps candidate c, evaluated at the fill's start with alignment a:
// it becomes a live entry, its job holds one more candidate, and its
// score goes into the heap of its kind (promoted stages or the others).
func (r *round) add(c *candidate, a float64, m int) {
	fs := &r.cands
	fs.entries = append(fs.entries, *c)
	ei := len(fs.entries) - 1
	e := &fs.entries[ei]
	fs.live = append(fs.live, ei)
	fs.nlive++
	if !e.sorted {
		fs.rest = append(fs.rest, ei)
	}
	if !e.local {
		fs.slot[e.gi] = int64(r.fills)<<32 | int64(uint32(ei))
	}
	if e.remote {
		r.cands.register(ei, m, r.in.gs)
	}
	if fs.perJob[e.job] == 0 {
		fs.jobsHolding++
	}
	fs.perJob[e.job]++
	fs.entries[ei].alignment = a
	nd := mkNode(r.jobs.score(e.job, a, e.remote), tieKey(e.gi, e.mi), int32(ei), 0)
	if e.promo {
		fs.promoted = append(fs.promoted, nd)
	} else {
		fs.others = append(fs.others, nd)
	}
}

// addLocal evaluates member mi of group gi, which has input on m, at the
// start of m's fill and keeps it if it fits.
//
// canon reports that the member's one input entry, on m, has member 0's
// rate and member 0 has one input entry (localRef.canon).
func (r *round) addLocal(gi, mi, m int, canon bool) {
	fs := &r.cands
	if canon && r.groups.capClass[m] >= 0 {
		// The common case: the class's cached local demand of the group,
		// read entirely on m (no remote reads to check), without touching
		// the member.
		nd, absent := r.groups.classLocalND(&r.machine, gi, r.groups.capClass[m], m)
		if absent {
			return
		}
		a, ok := r.machine.align(nd)
		if !ok {
			return
		}
		off := (len(r.in.gs) + gi) * r.in.d
		if !fs.shared {
			off = len(fs.demands)
			fs.demands = append(fs.demands, nd...)
		}
		e := candidate{gi: gi, mi: mi, job: int(r.groups.cache[gi].job), off: off, ver: -1, local: true, promo: r.groups.promoted[gi]}
		r.add(&e, a, m)
		return
	}
	g := r.in.gs[gi]
	off := fs.take()
	nd := fs.demands[off:]
	remote, absent := r.machine.demandOn(g, g.Members[mi].Inputs, m, nd)
	a, ok := 0.0, false
	if !absent {
		a, ok = r.machine.align(nd)
	}
	e := candidate{gi: gi, mi: mi, job: g.Job, off: off, ver: -1, local: true, remote: remote, promo: r.groups.promoted[gi]}
	if !ok || (remote && !r.remoteOK(&e, m)) {
		fs.demands = fs.demands[:off]
		return
	}
	r.add(&e, a, m)
}

// addGroup evaluates group gi at the start of m's fill through its
// representative and keeps it if it fits. The common case reads only the
// round's per-group and per-class caches: the representative is the
// group's first live member (no input on m, the group's rates), its demand
// the class's, its remote check valid unless its one input machine changed.
func (r *round) addGroup(gi, m int) {
	c := &r.groups.cache[gi]
	if c.count == 0 {
		return
	}
	cls := r.groups.capClass[m]
	mi := -1
	if !c.anon {
		if c.first < 0 {
			r.groups.findFirst(gi)
		}
		if c.first >= c.nmem {
			return // no live member
		}
		if int(c.firstIn) == m || c.firstIn == -2 || !c.firstCanon || cls < 0 {
			r.addGroupSlow(gi, m)
			return
		}
		mi = int(c.first)
	}
	if cls < 0 {
		r.addGroupSlow(gi, m)
		return
	}
	var nd []float64
	if cc := &r.groups.classes[cls]; cc.state != nil && cc.state[gi] == 1 {
		// classND's cached case, without the call.
		nd = cc.nd[gi*r.in.d : (gi+1)*r.in.d : (gi+1)*r.in.d]
	} else {
		var absent bool
		if nd, absent = r.groups.classND(&r.machine, gi, cls, m); absent {
			return
		}
	}
	a, ok := r.machine.align(nd)
	if !ok {
		return
	}
	ver := -1
	if int(c.repMi) == mi {
		ver = c.repVer
	}
	if c.remote && r.remote.chg[c.firstIn] > ver {
		// The slow path rechecks the representative's reads (and may
		// move on to the next member) exactly as remoteOK does.
		r.addGroupSlow(gi, m)
		return
	}
	fs := &r.cands
	off := gi * r.in.d
	if !fs.shared {
		off = len(fs.demands)
		fs.demands = append(fs.demands, nd...)
	}
	ei := len(fs.entries)
	j, remote, promo := int(c.job), c.remote, c.promo
	fs.entries = append(fs.entries, candidate{gi: gi, mi: mi, job: j, alignment: a, off: off, ver: ver, remote: remote, promo: promo, sorted: true})
	// add, for a sorted group entry.
	fs.live = append(fs.live, ei)
	fs.nlive++
	fs.slot[gi] = int64(r.fills)<<32 | int64(uint32(ei))
	if remote {
		if c.input1 {
			// register without reading the member: its one input entry
			// is on firstIn (not m).
			fs.listIn(ei, int(c.firstIn))
		} else {
			r.cands.register(ei, m, r.in.gs)
		}
	}
	if fs.perJob[j] == 0 {
		fs.jobsHolding++
	}
	fs.perJob[j]++
	node := mkNode(r.jobs.score(j, a, remote), tieKey(gi, mi), int32(ei), 0)
	if promo {
		fs.promoted = append(fs.promoted, node)
	} else {
		fs.others = append(fs.others, node)
	}
}

// addGroupSlow is addGroup through the group's members.
func (r *round) addGroupSlow(gi, m int) {
	c := &r.groups.cache[gi]
	e := candidate{gi: gi, mi: -1, job: int(c.job), ver: -1, promo: c.promo}
	if !c.anon {
		g := r.in.gs[gi]
		e.mi = r.groups.rep(g, c, m)
		if e.mi >= len(g.Members) {
			return
		}
		if int(c.repMi) == e.mi {
			e.ver = c.repVer
		}
	}
	off, remote, absent, canon := r.groupDemand(gi, e.mi, m)
	fs := &r.cands
	if absent {
		fs.drop(off)
		return
	}
	a, ok := r.machine.align(fs.demands[off : off+fs.d])
	e.off, e.remote, e.sorted = off, remote, canon
	if !ok || (remote && !r.remoteOK(&e, m)) {
		fs.drop(off)
		return
	}
	r.add(&e, a, m)
}

// groupDemand appends to the fill's demands the normalised demand on m of
// group gi's member mi (-1: anonymous), which holds no input on m, and
// returns its offset. canon reports that it is the group's remote demand
// normalised (see byRemote; then it comes from the class cache); absent as
// for demandOn.
func (r *round) groupDemand(gi, mi, m int) (off int, remote, absent, canon bool) {
	fs := &r.cands
	c := &r.groups.cache[gi]
	if mi >= 0 {
		g := r.in.gs[gi]
		inputs := g.Members[mi].Inputs
		if !sameRates(inputs, g.Members[0].Inputs) {
			off = fs.take()
			remote, absent = r.machine.demandOn(g, inputs, m, fs.demands[off:])
			return off, remote, absent, false
		}
	}
	cls := r.groups.capClass[m]
	if cls < 0 {
		off = fs.take()
		return off, c.remote, r.machine.normalise(r.groups.remoteDem(gi), m, fs.demands[off:]), true
	}
	nd, absent := r.groups.classND(&r.machine, gi, cls, m)
	off = gi * r.in.d
	if !fs.shared {
		off = len(fs.demands)
		fs.demands = append(fs.demands, nd...)
	}
	return off, c.remote, absent, true
}
