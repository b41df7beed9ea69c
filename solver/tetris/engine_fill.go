package tetris

import (
	"math"
	"sort"
)

// The fill of one machine: place tasks on m until none fits.
//
// At its start every candidate of m is evaluated once: each member with
// input on m (its demand there is its own) and each group, represented by
// its first pending member that is not dead and holds no input on m (every
// such member has the group's demand on m; engine_cache.go keeps what a
// group needs for this across fills). A candidate that does not fit, or
// whose remote reads do not fit, is dropped for the fill: free capacity
// only shrinks while m is filled (and, at other machines, during the whole
// round). The candidates that fit become entries, their jobs counted as
// holding one, and their scores go into two max-heaps (promoted stages and
// the others).
//
// After a placement (recheck) the entries that no longer fit m are
// dropped: with few live entries by testing each, otherwise by walking,
// per checked resource, the groups in order of demand from where the last
// walk stopped (the demands only pass the falling threshold in that
// order; no walk while the entry the last one stopped at still fits);
// members with input on m are tested one by one (not at all while a
// per-resource bound of their demands fits). Remote reads are
// rechecked only for entries reading from a machine the placement read
// from, after the fit test (the reference's order, which decides which
// members are marked dead). The per-job counts of live entries give the
// jobs holding a candidate exactly, which the fairness cut (kth) and the
// rank need.
//
// Scores are not recomputed: each heap node keeps the score of its last
// evaluation, an upper bound of the current one (placing demand p lowers
// every alignment a = nd·nf by nd·p ≥ 0, and floating-point products and
// sums are monotone, so the directly computed dot product also never
// rises). The pick pops the heap top, re-evaluates it exactly when its
// snapshot is older than the last placement, and stops at the first
// current top: that is the best candidate, with the same score, bit for
// bit, as a full rescan computes. Nodes of jobs outside the fairness cut
// met at the top are parked until their job is eligible again.
//
// When a normalised demand is negative or NaN (both problems' schemas rule
// this out) the upper bounds do not hold; every pick then re-evaluates all
// candidates (r.mono false).

// fent is a candidate of the fill of one machine: a member with input on
// the machine (local), or a group standing for its pending members without
// input there (mi is then its representative, -1 for an anonymous group).
type candidate struct {
	gi, mi, job int
	alignment   float64 // alignment at the last evaluation
	off         int     // normalised demand on the machine: fillState.nd[off : off+d]
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

// fillState is the scratch of one fill, reused across fills.
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
	// cnt is the number of live entries per job; ntouched the number of
	// jobs with cnt > 0 (the jobs holding a candidate).
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

// scanMax is the number of live entries up to which recheck tests each
// one's fit instead of walking the resources' sorted lists (a speed choice
// only: both find the same entries).
const scanMax = 24

// fill places tasks on machine m until none fits (see above).
func (r *round) fill(m int, out []Placement) []Placement {
	r.fills++
	r.startFill(m)
	r.machine.prepMachine(m)
	r.addCandidates(m)
	for r.cands.jobsHolding > 0 {
		out = r.place(m, out)
	}
	r.endFill(m)
	return out
}

// startFill resets the fill's scratch for machine m: its entries start
// after the capacity class's cached demands (when m has a class).
func (r *round) startFill(m int) {
	fs := &r.cands
	fs.entries, fs.live, fs.rest = fs.entries[:0], fs.live[:0], fs.rest[:0]
	if cls := r.groups.capClass[m]; cls >= 0 {
		cc := r.groups.classCache(cls)
		fs.demands, fs.base, fs.shared = cc.nd, len(cc.nd), true
	} else {
		fs.demands, fs.base, fs.shared = fs.own[:0], 0, false
	}
	fs.promoted, fs.others = fs.promoted[:0], fs.others[:0]
	fs.step, fs.nlive = 0, 0
	fs.chk = fs.chk[:0]
	for k := range fs.ptr {
		fs.ptr[k], fs.stop[k], fs.restMax[k] = 0, math.Inf(1), math.Inf(1)
		if r.in.mask[k] && r.in.ms[m].Cap[k] > 0 {
			fs.chk = append(fs.chk, k)
		}
	}
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

// place makes one pick on m: the best candidate of the jobs within the
// fairness cut, promoted stages first. It applies it, appends its
// placement to out, and drops the entries that no longer fit.
func (r *round) place(m int, out []Placement) []Placement {
	fs := &r.cands
	cut := r.jobs.cutAt(&r.cands)
	fs.unpark(&r.jobs, &r.machine, cut)
	if !r.machine.monotone {
		fs.refreshAll(&r.jobs, &r.machine)
	}
	t, ok := fs.top(&r.jobs, &r.machine, &fs.promoted, cut)
	if !ok {
		t, ok = fs.top(&r.jobs, &r.machine, &fs.others, cut)
	}
	if !ok {
		// Some job holds a live candidate and k ≥ 1, so some eligible
		// job does, and its entries are in a heap (parked ones were
		// restored above).
		panic("tetris: no eligible candidate although a job holds one")
	}
	e := &fs.entries[t.e]
	pj := e.job
	rank := r.jobs.rank(&r.cands, pj)
	c := cand{g: e.gi, mi: e.mi, align: e.alignment, score: t.score(), remote: e.remote, promoted: e.promo, ok: true}
	out = append(out, Placement{})
	r.apply(c, m, r.jobs.shares[pj], rank, &out[len(out)-1])
	var ru []Input
	if c.remote {
		ru = r.machine.placedReads
		r.remote.remoteVer++
		for _, n := range ru {
			r.remote.chg[n.Machine] = r.remote.remoteVer
		}
	}
	r.jobs.reorder(pj)
	fs.advance(int(t.e), m, r.in.gs)
	fs.step++
	// Only the resources the placement used changed on m.
	for k, x := range r.machine.placedDemand {
		if x != 0 {
			r.machine.prepResource(&r.in.ms[m], k)
		}
	}
	r.recheck(m, ru, int(t.e))
	return out
}

// cutAt sets fs.bound, the position in order of the last job within the
// fairness cut: the first k = ⌈(1−f)·|J|⌉ jobs, in share order, that hold
// a candidate. It reports whether the cut excludes any job holding one.
func (q *jobQueue) cutAt(cs *candidateSet) bool {
	fs := cs
	k := int(math.Ceil((1-q.fairness)*float64(q.jobsPending) - ceilTol))
	if k < 1 {
		k = 1
	}
	cut := k < fs.jobsHolding
	fs.bound = len(q.order) - 1
	if cut {
		fs.bound = q.kthHolder(cs, k)
	}
	return cut
}

// endFill marks m changed when the fill placed something and clears the
// fill's per-machine lists, keeping the larger demand array.
func (r *round) endFill(m int) {
	fs := &r.cands
	if fs.step > 0 {
		// m lost capacity: remote-read checks of members reading from m,
		// kept across fills (gcache.repVer), are stale.
		r.remote.remoteVer++
		r.remote.chg[m] = r.remote.remoteVer
	}
	for _, j := range fs.parkedJobs {
		fs.parked[j] = fs.parked[j][:0]
	}
	fs.parkedJobs = fs.parkedJobs[:0]
	for _, x := range fs.inUsed {
		fs.byIn[x] = fs.byIn[x][:0]
	}
	fs.inUsed = fs.inUsed[:0]
	if cls := r.groups.capClass[m]; cls < 0 {
		fs.own = fs.demands[:0]
	} else if !fs.shared {
		// Keep the larger array for the class's next fills, with the
		// cache's current values.
		cc := &r.groups.classes[cls]
		copy(fs.demands[:fs.base], cc.nd)
		cc.nd = fs.demands[:fs.base]
	}
	fs.demands = nil
}

// kth is the position in order of the k-th job holding a candidate (k ≤
// the number of such jobs), found from whichever end is closer.
func (q *jobQueue) kthHolder(cs *candidateSet, k int) int {
	fs := cs
	if back := fs.jobsHolding - k; back < k {
		for i := len(q.order) - 1; ; i-- {
			if fs.perJob[q.order[i]] > 0 {
				if back == 0 {
					return i
				}
				back--
			}
		}
	}
	n := 0
	for i, j := range q.order {
		if fs.perJob[j] > 0 {
			if n++; n == k {
				return i
			}
		}
	}
	panic("tetris: fewer jobs hold a candidate than counted")
}

// rank is the number of jobs holding a candidate that shareLess puts before
// pj. shareLess(j, pj) holds for the jobs whose share is below pj's by more
// than ShareTieTol, a prefix of vo (the rounded difference is monotone in
// the share), and for the jobs of lower index among those within
// ShareTieTol of pj's share, a segment of vo around pj. The prefix is
// counted from whichever end of vo is nearer.
func (q *jobQueue) rank(cs *candidateSet, pj int) int {
	fs := cs
	sp, p := q.shares[pj], q.exactPos[pj]
	lo, hi := p, p
	for lo > 0 && math.Abs(q.shares[q.exact[lo-1]]-sp) <= ShareTieTol {
		lo--
	}
	for hi+1 < len(q.exact) && math.Abs(q.shares[q.exact[hi+1]]-sp) <= ShareTieTol {
		hi++
	}
	rank := 0
	for _, j := range q.exact[lo : hi+1] {
		if j < pj && fs.perJob[j] > 0 {
			rank++
		}
	}
	if lo <= len(q.exact)-lo {
		for _, j := range q.exact[:lo] {
			if fs.perJob[j] > 0 {
				rank++
			}
		}
		return rank
	}
	after := 0
	for _, j := range q.exact[lo:] {
		if fs.perJob[j] > 0 {
			after++
		}
	}
	return rank + fs.jobsHolding - after
}

// score is offer's score of a candidate of job j with alignment a:
// a·(1−penalty if remote) − ε·p.
func (q *jobQueue) score(j int, a float64, remote bool) float64 {
	sc := a
	if remote {
		sc *= 1 - q.penalty
	}
	sc -= q.srtf[j]
	return sc
}

// dot is the alignment of a normalised demand known to fit (align without
// the fit test, the same arithmetic).
func (v *machineView) dot(nd []float64) (a float64) {
	nf := v.free[:len(nd)]
	for k, x := range nd {
		a += x * nf[k]
	}
	return a
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
	// kept, for a sorted group entry.
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

// remoteOK reports whether entry e's remote reads fit, rechecking them only
// when one of its input machines lost capacity since the last check. A
// group's representative whose reads do not fit is dead for the round
// (free capacity elsewhere only shrinks) and the next member takes its
// place.
func (r *round) remoteOK(e *candidate, m int) bool {
	g := r.in.gs[e.gi]
	if e.local {
		ins := g.Members[e.mi].Inputs
		if !r.remote.stale(ins, m, e.ver) {
			return true
		}
		if !r.remote.remoteFits(ins, m) {
			return false
		}
		e.ver = r.remote.remoteVer
		return true
	}
	mi := e.mi
	if !r.remote.stale(g.Members[mi].Inputs, m, e.ver) {
		return true
	}
	for mi < len(g.Members) && !r.remote.remoteFits(g.Members[mi].Inputs, m) {
		g.Members[mi].deadAt = g.round
		g.removeLive(mi)
		if int(r.groups.cache[e.gi].first) == mi {
			r.groups.cache[e.gi].first = -1
		}
		mi = nextRep(g, g.nextLive(mi+1), m)
	}
	e.mi, e.ver = mi, r.remote.remoteVer
	if mi >= len(g.Members) {
		return false
	}
	r.groups.cache[e.gi].repMi, r.groups.cache[e.gi].repVer = int32(mi), r.remote.remoteVer
	return true
}

// register lists entry ei under the machines its current member reads
// from remotely.
func (cs *candidateSet) register(ei, m int, gs []*Group) {
	fs := cs
	e := &fs.entries[ei]
	for _, in := range gs[e.gi].Members[e.mi].Inputs {
		if x := in.Machine; x != m {
			fs.listIn(ei, x)
		}
	}
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

// advance updates the entry just placed: a local member is gone, an
// anonymous group loses one task, a group's representative moves to the
// next pending member without input on m (its remote reads are checked by
// recheck, after the fit test, as the reference round orders them).
func (cs *candidateSet) advance(ei, m int, gs []*Group) {
	fs := cs
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

// recheck drops, after a placement on m of entry placed that read ru
// remotely, the live entries that no longer fit m (against the thresholds
// prepMachine just computed), and then those of the rest whose remote reads
// no longer fit: the entry placed when it has a new representative, and
// the entries reading from a machine in ru (no other remote check can have
// changed). The fit test comes first because the reference round checks
// remote reads only of candidates that fit, and which members it marks dead
// decides whose inputs later fills take a group's demand from.
//
// With few live entries each is tested for fit; otherwise, per checked
// resource, the sorted entries are walked in byRemote order from where the
// last walk stopped down to the first live one that still fits (every later
// one fits too), and only the rest are tested one by one.
func (r *round) recheck(m int, ru []Input, placed int) {
	fs := &r.cands
	if fs.nlive <= scanMax {
		fs.live = fs.scanFit(fs.live, nil, r.machine.limit)
	} else {
		if r.groups.byRemote == nil {
			r.groups.sortByRemote()
		}
		for _, k := range fs.chk {
			t := r.machine.limit[k]
			if fs.stop[k] <= t {
				continue
			}
			srt, p := r.groups.byRemote[k], fs.ptr[k]
			stop := math.Inf(-1)
			for ; p < len(srt); p++ {
				gi := srt[p]
				sl := fs.slot[gi]
				if int(sl>>32) != r.fills {
					continue
				}
				e := &fs.entries[uint32(sl)]
				if e.dead || !e.sorted {
					continue
				}
				if v := fs.demands[e.off+k]; v <= t {
					stop = v
					break
				}
				fs.kill(e)
			}
			fs.ptr[k], fs.stop[k] = p, stop
		}
		if !fitsAll(fs.restMax, r.machine.limit) {
			fs.rest = fs.scanFit(fs.rest, fs.restMax, r.machine.limit)
		}
	}
	if e := &fs.entries[placed]; !e.dead && e.remote && e.ver < 0 {
		if !r.remoteOK(e, m) {
			fs.kill(e)
		} else {
			r.cands.register(placed, m, r.in.gs)
		}
	}
	for _, n := range ru {
		// Registrations made during the loop are for members just
		// checked.
		for _, ei := range fs.byIn[n.Machine] {
			e := &fs.entries[ei]
			if e.dead {
				continue
			}
			if mi := e.mi; !r.remoteOK(e, m) {
				fs.kill(e)
			} else if e.mi != mi {
				r.cands.register(ei, m, r.in.gs)
			}
		}
	}
}

// scanFit drops the listed entries that are dead or no longer fit m and
// returns the list of the others (in place). With mx (restMax) it also
// sets mx to the largest demands of the entries kept.
func (cs *candidateSet) scanFit(list []int, mx, limit []float64) []int {
	fs := cs
	thr := limit[:fs.d]
	if mx != nil {
		mx = mx[:len(thr)]
		for k := range mx {
			mx[k] = math.Inf(-1)
		}
	}
	keep := list[:0]
	for _, ei := range list {
		e := &fs.entries[ei]
		if e.dead {
			continue
		}
		nd := fs.demands[e.off:][:len(thr)]
		if !fitsAll(nd, thr) {
			fs.kill(e)
			continue
		}
		if mx != nil {
			for k, x := range nd {
				if x > mx[k] { // not the builtin max: a NaN demand (which fits) must not make the bound NaN
					mx[k] = x
				}
			}
		}
		keep = append(keep, ei)
	}
	return keep
}

// fitsAll reports whether nd[k] ≤ thr[k] for every k < len(nd).
func fitsAll(nd, thr []float64) bool {
	thr = thr[:len(nd)]
	for k, x := range nd {
		if x > thr[k] {
			return false
		}
	}
	return true
}

// top is the best node of h among eligible jobs (all jobs holding a
// candidate when cut is false): dead entries are dropped, entries of jobs
// outside the cut parked, and stale snapshots re-evaluated until the top is
// current.
func (cs *candidateSet) top(q *jobQueue, v *machineView, h *nheap, cut bool) (hnode, bool) {
	fs := cs
	for len(*h) > 0 {
		t := &(*h)[0]
		e := &fs.entries[t.e]
		if e.dead {
			h.pop()
			continue
		}
		if cut && q.orderPos[e.job] > fs.bound {
			if len(fs.parked[e.job]) == 0 {
				fs.parkedJobs = append(fs.parkedJobs, e.job)
			}
			fs.parked[e.job] = append(fs.parked[e.job], h.pop())
			continue
		}
		if tie := tieKey(e.gi, e.mi); int(t.at) != fs.step || t.tie() != tie {
			e.alignment = v.dot(fs.ndOf(e))
			*t = mkNode(q.score(e.job, e.alignment, e.remote), tie, t.e, int32(fs.step))
			h.down(0)
			continue
		}
		return *t, true
	}
	return hnode{}, false
}

// unpark returns the parked nodes of jobs now eligible to their heaps.
func (cs *candidateSet) unpark(q *jobQueue, v *machineView, cut bool) {
	fs := cs
	if len(fs.parkedJobs) == 0 {
		return
	}
	keep := fs.parkedJobs[:0]
	for _, j := range fs.parkedJobs {
		if cut && q.orderPos[j] > fs.bound {
			keep = append(keep, j)
			continue
		}
		for _, t := range fs.parked[j] {
			e := &fs.entries[t.e]
			if e.dead {
				continue
			}
			if tie := tieKey(e.gi, e.mi); int(t.at) != fs.step || t.tie() != tie {
				// Back with a current score: it would be re-evaluated on
				// reaching the top anyway.
				e.alignment = v.dot(fs.ndOf(e))
				t = mkNode(q.score(e.job, e.alignment, e.remote), tie, t.e, int32(fs.step))
			}
			if e.promo {
				fs.promoted.push(t)
			} else {
				fs.others.push(t)
			}
		}
		fs.parked[j] = fs.parked[j][:0]
	}
	fs.parkedJobs = keep
}

// refreshAll re-evaluates every node (when scores may rise, r.mono false).
func (cs *candidateSet) refreshAll(q *jobQueue, v *machineView) {
	fs := cs
	for _, h := range []nheap{fs.promoted, fs.others} {
		for i := range h {
			t := &h[i]
			e := &fs.entries[t.e]
			if e.dead {
				continue
			}
			e.alignment = v.dot(fs.ndOf(e))
			*t = mkNode(q.score(e.job, e.alignment, e.remote), tieKey(e.gi, e.mi), t.e, int32(fs.step))
		}
		h.heapify()
	}
}
