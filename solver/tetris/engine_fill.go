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
type fent struct {
	gi, mi, job int
	a           float64 // alignment at the last evaluation
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
type fillState struct {
	ents []fent
	// nd holds the entries' normalised demands, d each. When m has a
	// capacity class, nd starts as that class's cache of the groups'
	// normalised remote demands (base values, group gi's at gi·d: the
	// fill's class entries point into it instead of copying) and the
	// other entries' demands are appended after it; shared reports that
	// nd still has the class cache's backing array (an append past its
	// capacity copies it, and the cache's later values are then copied
	// per entry). own is the buffer of fills without a class.
	nd     []float64
	own    []float64
	base   int
	shared bool
	d      int
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
	byIn   [][]int
	inUsed []int
	hp, hn nheap // promoted entries, the others
	// cnt is the number of live entries per job; ntouched the number of
	// jobs with cnt > 0 (the jobs holding a candidate).
	cnt      []int
	ntouched int
	step     int // placements made in this fill
	// bound is the position in order of the last job within the fairness
	// cut (the k-th holding a candidate).
	bound int
	// parked holds, per job, nodes popped while the job was outside the
	// cut; parkedJobs lists the jobs with parked nodes.
	parked     [][]hnode
	parkedJobs []int
}

func (fs *fillState) init(nj, ng, nm, d int) {
	fs.cnt = make([]int, nj)
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
	r.prepMachine(m)
	r.addCandidates(m)
	for r.fs.ntouched > 0 {
		out = r.place(m, out)
	}
	r.endFill(m)
	return out
}

// startFill resets the fill's scratch for machine m: its entries start
// after the capacity class's cached demands (when m has a class).
func (r *round) startFill(m int) {
	fs := &r.fs
	fs.ents, fs.live, fs.rest = fs.ents[:0], fs.live[:0], fs.rest[:0]
	if cls := r.capCls[m]; cls >= 0 {
		cc := r.classCache(cls)
		fs.nd, fs.base, fs.shared = cc.nd, len(cc.nd), true
	} else {
		fs.nd, fs.base, fs.shared = fs.own[:0], 0, false
	}
	fs.hp, fs.hn = fs.hp[:0], fs.hn[:0]
	fs.step, fs.nlive = 0, 0
	fs.chk = fs.chk[:0]
	for k := range fs.ptr {
		fs.ptr[k], fs.stop[k], fs.restMax[k] = 0, math.Inf(1), math.Inf(1)
		if r.mask[k] && r.ms[m].Cap[k] > 0 {
			fs.chk = append(fs.chk, k)
		}
	}
}

// addCandidates evaluates every candidate of m at the fill's start (the
// members with input on m, then each group through its representative) and
// builds the heaps of those that fit.
func (r *round) addCandidates(m int) {
	alive, scarce, lim := r.prefilter(m)
	for _, lr := range r.localAll[r.localAt[m]:r.localAt[m+1]] {
		if r.placedBits[lr.bit>>6]&(1<<(lr.bit&63)) == 0 && (scarce < 0 || r.gdem[int(lr.gi)*r.d+scarce] <= lim) {
			r.addLocal(int(lr.gi), int(lr.mi), m, lr.canon)
		}
	}
	for _, gi := range alive {
		if r.gc[gi].byMachine {
			r.addByMachine(gi, m)
		}
	}
	for _, gi := range alive {
		r.addGroup(gi, m)
	}
	r.alive = alive[:0]
	r.fs.hp.heapify()
	r.fs.hn.heapify()
}

// prefilter returns the groups with pending tasks that may fit m: a group
// fits m only if its base demand (placement only adds input bandwidth to
// it) fits m's free amount of the scarcest checked resource; byDemand
// lists groups by that demand, so the candidates are a prefix found by
// binary search. It also returns that resource (-1: none checked) and the
// limit on its demand.
func (r *round) prefilter(m int) (alive []int, scarce int, lim float64) {
	alive = r.alive[:0]
	free := r.ms[m].Free
	scarce, frac := -1, math.Inf(1)
	for k := 0; k < r.d; k++ {
		if r.mask[k] && r.ms[m].Cap[k] > 0 {
			if f := free[k] / r.ms[m].Cap[k]; f < frac {
				scarce, frac = k, f
			}
		}
	}
	if scarce < 0 {
		for gi := range r.gs {
			if r.gc[gi].count > 0 {
				alive = append(alive, gi)
			}
		}
		return alive, scarce, math.Inf(1)
	}
	byD := r.byDemand(scarce)
	lim = fitLimit(free[scarce], r.ms[m].Cap[scarce])
	n := sort.Search(len(byD), func(i int) bool { return r.gs[byD[i]].Demand[scarce] > lim })
	for _, gi := range byD[:n] {
		if r.gc[gi].count > 0 {
			alive = append(alive, gi)
		}
	}
	return alive, scarce, lim
}

// addByMachine evaluates the pending members of group gi that its
// ByMachine lists with input on m.
func (r *round) addByMachine(gi, m int) {
	g := r.gs[gi]
	for _, mi := range g.ByMachine[m] {
		if mem := &g.Members[mi]; !mem.placed {
			// The cached demand needs its one input on m (ByMachine lists
			// members with input there; the check keeps that a guarantee).
			r.addLocal(gi, int(mi), m, r.canonLocal(gi, mem) && mem.Inputs[0].Machine == m)
		}
	}
}

// place makes one pick on m: the best candidate of the jobs within the
// fairness cut, promoted stages first. It applies it, appends its
// placement to out, and drops the entries that no longer fit.
func (r *round) place(m int, out []Placement) []Placement {
	fs := &r.fs
	cut := r.cutAt()
	r.unpark(cut)
	if !r.mono {
		r.refreshAll()
	}
	t, ok := r.top(&fs.hp, cut)
	if !ok {
		t, ok = r.top(&fs.hn, cut)
	}
	if !ok {
		// Some job holds a live candidate and k ≥ 1, so some eligible
		// job does, and its entries are in a heap (parked ones were
		// restored above).
		panic("tetris: no eligible candidate although a job holds one")
	}
	e := &fs.ents[t.e]
	pj := e.job
	rank := r.rank(pj)
	c := cand{g: e.gi, mi: e.mi, align: e.a, score: t.score(), remote: e.remote, promoted: e.promo, ok: true}
	out = append(out, Placement{})
	r.apply(c, m, r.sh[pj], rank, &out[len(out)-1])
	var ru []Input
	if c.remote {
		ru = r.pru
		r.remoteVer++
		for _, n := range ru {
			r.chg[n.Machine] = r.remoteVer
		}
	}
	r.reorder(pj)
	r.advance(int(t.e), m)
	fs.step++
	// Only the resources the placement used changed on m.
	for k, x := range r.pdem {
		if x != 0 {
			r.prepResource(&r.ms[m], k)
		}
	}
	r.recheck(m, ru, int(t.e))
	return out
}

// cutAt sets fs.bound, the position in order of the last job within the
// fairness cut: the first k = ⌈(1−f)·|J|⌉ jobs, in share order, that hold
// a candidate. It reports whether the cut excludes any job holding one.
func (r *round) cutAt() bool {
	fs := &r.fs
	k := int(math.Ceil((1-r.cfg.Fairness)*float64(r.npend) - ceilTol))
	if k < 1 {
		k = 1
	}
	cut := k < fs.ntouched
	fs.bound = len(r.order) - 1
	if cut {
		fs.bound = r.kth(k)
	}
	return cut
}

// endFill marks m changed when the fill placed something and clears the
// fill's per-machine lists, keeping the larger demand array.
func (r *round) endFill(m int) {
	fs := &r.fs
	if fs.step > 0 {
		// m lost capacity: remote-read checks of members reading from m,
		// kept across fills (gcache.repVer), are stale.
		r.remoteVer++
		r.chg[m] = r.remoteVer
	}
	for _, j := range fs.parkedJobs {
		fs.parked[j] = fs.parked[j][:0]
	}
	fs.parkedJobs = fs.parkedJobs[:0]
	for _, x := range fs.inUsed {
		fs.byIn[x] = fs.byIn[x][:0]
	}
	fs.inUsed = fs.inUsed[:0]
	if cls := r.capCls[m]; cls < 0 {
		fs.own = fs.nd[:0]
	} else if !fs.shared {
		// Keep the larger array for the class's next fills, with the
		// cache's current values.
		cc := &r.cls[cls]
		copy(fs.nd[:fs.base], cc.nd)
		cc.nd = fs.nd[:fs.base]
	}
	fs.nd = nil
}

// kth is the position in order of the k-th job holding a candidate (k ≤
// the number of such jobs), found from whichever end is closer.
func (r *round) kth(k int) int {
	fs := &r.fs
	if back := fs.ntouched - k; back < k {
		for i := len(r.order) - 1; ; i-- {
			if fs.cnt[r.order[i]] > 0 {
				if back == 0 {
					return i
				}
				back--
			}
		}
	}
	n := 0
	for i, j := range r.order {
		if fs.cnt[j] > 0 {
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
func (r *round) rank(pj int) int {
	fs := &r.fs
	sp, p := r.sh[pj], r.vpos[pj]
	lo, hi := p, p
	for lo > 0 && math.Abs(r.sh[r.vo[lo-1]]-sp) <= ShareTieTol {
		lo--
	}
	for hi+1 < len(r.vo) && math.Abs(r.sh[r.vo[hi+1]]-sp) <= ShareTieTol {
		hi++
	}
	rank := 0
	for _, j := range r.vo[lo : hi+1] {
		if j < pj && fs.cnt[j] > 0 {
			rank++
		}
	}
	if lo <= len(r.vo)-lo {
		for _, j := range r.vo[:lo] {
			if fs.cnt[j] > 0 {
				rank++
			}
		}
		return rank
	}
	after := 0
	for _, j := range r.vo[lo:] {
		if fs.cnt[j] > 0 {
			after++
		}
	}
	return rank + fs.ntouched - after
}

// score is offer's score of a candidate of job j with alignment a:
// a·(1−penalty if remote) − ε·p.
func (r *round) score(j int, a float64, remote bool) float64 {
	sc := a
	if remote {
		sc *= 1 - r.cfg.RemotePenalty
	}
	sc -= r.ew[j]
	return sc
}

// dot is the alignment of a normalised demand known to fit (align without
// the fit test, the same arithmetic).
func (r *round) dot(nd []float64) (a float64) {
	nf := r.nf[:len(nd)]
	for k, x := range nd {
		a += x * nf[k]
	}
	return a
}

// take appends room for one normalised demand and returns its offset.
func (fs *fillState) take() int {
	off := len(fs.nd)
	if off+fs.d > cap(fs.nd) {
		fs.shared = false
	}
	for range fs.d {
		fs.nd = append(fs.nd, 0)
	}
	return off
}

// drop releases the normalised demand at off, unless it is in the class
// cache.
func (fs *fillState) drop(off int) {
	if off >= fs.base {
		fs.nd = fs.nd[:off]
	}
}

// ndOf is entry e's normalised demand.
func (fs *fillState) ndOf(e *fent) []float64 { return fs.nd[e.off : e.off+fs.d : e.off+fs.d] }

// add keeps entry e, evaluated at the fill's start with alignment a.
func (r *round) add(e *fent, a float64, m int) {
	fs := &r.fs
	fs.ents = append(fs.ents, *e)
	r.kept(len(fs.ents)-1, a, m)
}

// kept registers entry ei, just appended, evaluated at the fill's start
// with alignment a.
func (r *round) kept(ei int, a float64, m int) {
	fs := &r.fs
	e := &fs.ents[ei]
	fs.live = append(fs.live, ei)
	fs.nlive++
	if !e.sorted {
		fs.rest = append(fs.rest, ei)
	}
	if !e.local {
		fs.slot[e.gi] = int64(r.fills)<<32 | int64(uint32(ei))
	}
	if e.remote {
		r.register(ei, m)
	}
	if fs.cnt[e.job] == 0 {
		fs.ntouched++
	}
	fs.cnt[e.job]++
	fs.ents[ei].a = a
	nd := mkNode(r.score(e.job, a, e.remote), tieKey(e.gi, e.mi), int32(ei), 0)
	if e.promo {
		fs.hp = append(fs.hp, nd)
	} else {
		fs.hn = append(fs.hn, nd)
	}
}

// addLocal evaluates member mi of group gi, which has input on m, at the
// start of m's fill and keeps it if it fits.
//
// canon reports that the member's one input entry, on m, has member 0's
// rate and member 0 has one input entry (localRef.canon).
func (r *round) addLocal(gi, mi, m int, canon bool) {
	fs := &r.fs
	if canon && r.capCls[m] >= 0 {
		// The common case: the class's cached local demand of the group,
		// read entirely on m (no remote reads to check), without touching
		// the member.
		nd, absent := r.classLocalND(gi, r.capCls[m], m)
		if absent {
			return
		}
		a, ok := r.align(nd)
		if !ok {
			return
		}
		off := (len(r.gs) + gi) * r.d
		if !fs.shared {
			off = len(fs.nd)
			fs.nd = append(fs.nd, nd...)
		}
		e := fent{gi: gi, mi: mi, job: int(r.gc[gi].job), off: off, ver: -1, local: true, promo: r.gPromo[gi]}
		r.add(&e, a, m)
		return
	}
	g := r.gs[gi]
	off := fs.take()
	nd := fs.nd[off:]
	remote, absent := r.demandOn(g, g.Members[mi].Inputs, m, nd)
	a, ok := 0.0, false
	if !absent {
		a, ok = r.align(nd)
	}
	e := fent{gi: gi, mi: mi, job: g.Job, off: off, ver: -1, local: true, remote: remote, promo: r.gPromo[gi]}
	if !ok || (remote && !r.remoteOK(&e, m)) {
		fs.nd = fs.nd[:off]
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
	c := &r.gc[gi]
	if c.count == 0 {
		return
	}
	cls := r.capCls[m]
	mi := -1
	if !c.anon {
		if c.first < 0 {
			r.findFirst(gi)
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
	if cc := &r.cls[cls]; cc.state != nil && cc.state[gi] == 1 {
		// classND's cached case, without the call.
		nd = cc.nd[gi*r.d : (gi+1)*r.d : (gi+1)*r.d]
	} else {
		var absent bool
		if nd, absent = r.classND(gi, cls, m); absent {
			return
		}
	}
	a, ok := r.align(nd)
	if !ok {
		return
	}
	ver := -1
	if int(c.repMi) == mi {
		ver = c.repVer
	}
	if c.remote && r.chg[c.firstIn] > ver {
		// The slow path rechecks the representative's reads (and may
		// move on to the next member) exactly as remoteOK does.
		r.addGroupSlow(gi, m)
		return
	}
	fs := &r.fs
	off := gi * r.d
	if !fs.shared {
		off = len(fs.nd)
		fs.nd = append(fs.nd, nd...)
	}
	ei := len(fs.ents)
	j, remote, promo := int(c.job), c.remote, c.promo
	fs.ents = append(fs.ents, fent{gi: gi, mi: mi, job: j, a: a, off: off, ver: ver, remote: remote, promo: promo, sorted: true})
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
			r.register(ei, m)
		}
	}
	if fs.cnt[j] == 0 {
		fs.ntouched++
	}
	fs.cnt[j]++
	node := mkNode(r.score(j, a, remote), tieKey(gi, mi), int32(ei), 0)
	if promo {
		fs.hp = append(fs.hp, node)
	} else {
		fs.hn = append(fs.hn, node)
	}
}

// addGroupSlow is addGroup through the group's members.
func (r *round) addGroupSlow(gi, m int) {
	c := &r.gc[gi]
	e := fent{gi: gi, mi: -1, job: int(c.job), ver: -1, promo: c.promo}
	if !c.anon {
		g := r.gs[gi]
		e.mi = r.rep(g, c, m)
		if e.mi >= len(g.Members) {
			return
		}
		if int(c.repMi) == e.mi {
			e.ver = c.repVer
		}
	}
	off, remote, absent, canon := r.groupDemand(gi, e.mi, m)
	fs := &r.fs
	if absent {
		fs.drop(off)
		return
	}
	a, ok := r.align(fs.nd[off : off+fs.d])
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
func (r *round) remoteOK(e *fent, m int) bool {
	g := r.gs[e.gi]
	if e.local {
		ins := g.Members[e.mi].Inputs
		if !r.stale(ins, m, e.ver) {
			return true
		}
		if !r.remoteFits(ins, m) {
			return false
		}
		e.ver = r.remoteVer
		return true
	}
	mi := e.mi
	if !r.stale(g.Members[mi].Inputs, m, e.ver) {
		return true
	}
	for mi < len(g.Members) && !r.remoteFits(g.Members[mi].Inputs, m) {
		g.Members[mi].deadAt = g.round
		g.removeLive(mi)
		if int(r.gc[e.gi].first) == mi {
			r.gc[e.gi].first = -1
		}
		mi = r.nextRep(g, g.nextLive(mi+1), m)
	}
	e.mi, e.ver = mi, r.remoteVer
	if mi >= len(g.Members) {
		return false
	}
	r.gc[e.gi].repMi, r.gc[e.gi].repVer = int32(mi), r.remoteVer
	return true
}

// register lists entry ei under the machines its current member reads
// from remotely.
func (r *round) register(ei, m int) {
	fs := &r.fs
	e := &fs.ents[ei]
	for _, in := range r.gs[e.gi].Members[e.mi].Inputs {
		if x := in.Machine; x != m {
			fs.listIn(ei, x)
		}
	}
}

// listIn lists entry ei under machine x (one of its input entries).
func (fs *fillState) listIn(ei, x int) {
	if len(fs.byIn[x]) == 0 {
		fs.inUsed = append(fs.inUsed, x)
	}
	fs.byIn[x] = append(fs.byIn[x], ei)
}

// kill drops entry e for the rest of the fill.
func (fs *fillState) kill(e *fent) {
	e.dead = true
	fs.nlive--
	fs.cnt[e.job]--
	if fs.cnt[e.job] == 0 {
		fs.ntouched--
	}
}

// advance updates the entry just placed: a local member is gone, an
// anonymous group loses one task, a group's representative moves to the
// next pending member without input on m (its remote reads are checked by
// recheck, after the fit test, as the reference round orders them).
func (r *round) advance(ei, m int) {
	fs := &r.fs
	e := &fs.ents[ei]
	g := r.gs[e.gi]
	switch {
	case e.local:
		fs.kill(e)
		// A member listed twice (a caller's ByMachine may repeat one) is
		// gone with either entry. Local entries are never sorted, so
		// rest holds them all.
		for _, x := range fs.rest {
			if o := &fs.ents[x]; !o.dead && o.local && o.gi == e.gi && o.mi == e.mi {
				fs.kill(o)
			}
		}
	case g.Members == nil:
		if g.Count == 0 {
			fs.kill(e)
		}
	default:
		e.mi, e.ver = r.nextRep(g, g.nextLive(e.mi+1), m), -1
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
	fs := &r.fs
	if fs.nlive <= scanMax {
		fs.live = r.scanFit(fs.live, nil)
	} else {
		if r.byRemote == nil {
			r.sortByRemote()
		}
		for _, k := range fs.chk {
			t := r.thr[k]
			if fs.stop[k] <= t {
				continue
			}
			srt, p := r.byRemote[k], fs.ptr[k]
			stop := math.Inf(-1)
			for ; p < len(srt); p++ {
				gi := srt[p]
				sl := fs.slot[gi]
				if int(sl>>32) != r.fills {
					continue
				}
				e := &fs.ents[uint32(sl)]
				if e.dead || !e.sorted {
					continue
				}
				if v := fs.nd[e.off+k]; v <= t {
					stop = v
					break
				}
				fs.kill(e)
			}
			fs.ptr[k], fs.stop[k] = p, stop
		}
		if !fitsAll(fs.restMax, r.thr) {
			fs.rest = r.scanFit(fs.rest, fs.restMax)
		}
	}
	if e := &fs.ents[placed]; !e.dead && e.remote && e.ver < 0 {
		if !r.remoteOK(e, m) {
			fs.kill(e)
		} else {
			r.register(placed, m)
		}
	}
	for _, n := range ru {
		// Registrations made during the loop are for members just
		// checked.
		for _, ei := range fs.byIn[n.Machine] {
			e := &fs.ents[ei]
			if e.dead {
				continue
			}
			if mi := e.mi; !r.remoteOK(e, m) {
				fs.kill(e)
			} else if e.mi != mi {
				r.register(ei, m)
			}
		}
	}
}

// scanFit drops the listed entries that are dead or no longer fit m and
// returns the list of the others (in place). With mx (restMax) it also
// sets mx to the largest demands of the entries kept.
func (r *round) scanFit(list []int, mx []float64) []int {
	fs := &r.fs
	thr := r.thr[:fs.d]
	if mx != nil {
		mx = mx[:len(thr)]
		for k := range mx {
			mx[k] = math.Inf(-1)
		}
	}
	keep := list[:0]
	for _, ei := range list {
		e := &fs.ents[ei]
		if e.dead {
			continue
		}
		nd := fs.nd[e.off:][:len(thr)]
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
func (r *round) top(h *nheap, cut bool) (hnode, bool) {
	fs := &r.fs
	for len(*h) > 0 {
		t := &(*h)[0]
		e := &fs.ents[t.e]
		if e.dead {
			h.pop()
			continue
		}
		if cut && r.opos[e.job] > fs.bound {
			if len(fs.parked[e.job]) == 0 {
				fs.parkedJobs = append(fs.parkedJobs, e.job)
			}
			fs.parked[e.job] = append(fs.parked[e.job], h.pop())
			continue
		}
		if tie := tieKey(e.gi, e.mi); int(t.at) != fs.step || t.tie() != tie {
			e.a = r.dot(fs.ndOf(e))
			*t = mkNode(r.score(e.job, e.a, e.remote), tie, t.e, int32(fs.step))
			h.down(0)
			continue
		}
		return *t, true
	}
	return hnode{}, false
}

// unpark returns the parked nodes of jobs now eligible to their heaps.
func (r *round) unpark(cut bool) {
	fs := &r.fs
	if len(fs.parkedJobs) == 0 {
		return
	}
	keep := fs.parkedJobs[:0]
	for _, j := range fs.parkedJobs {
		if cut && r.opos[j] > fs.bound {
			keep = append(keep, j)
			continue
		}
		for _, t := range fs.parked[j] {
			e := &fs.ents[t.e]
			if e.dead {
				continue
			}
			if tie := tieKey(e.gi, e.mi); int(t.at) != fs.step || t.tie() != tie {
				// Back with a current score: it would be re-evaluated on
				// reaching the top anyway.
				e.a = r.dot(fs.ndOf(e))
				t = mkNode(r.score(e.job, e.a, e.remote), tie, t.e, int32(fs.step))
			}
			if e.promo {
				fs.hp.push(t)
			} else {
				fs.hn.push(t)
			}
		}
		fs.parked[j] = fs.parked[j][:0]
	}
	fs.parkedJobs = keep
}

// refreshAll re-evaluates every node (when scores may rise, r.mono false).
func (r *round) refreshAll() {
	fs := &r.fs
	for _, h := range []nheap{fs.hp, fs.hn} {
		for i := range h {
			t := &h[i]
			e := &fs.ents[t.e]
			if e.dead {
				continue
			}
			e.a = r.dot(fs.ndOf(e))
			*t = mkNode(r.score(e.job, e.a, e.remote), tieKey(e.gi, e.mi), t.e, int32(fs.step))
		}
		h.heapify()
	}
}
