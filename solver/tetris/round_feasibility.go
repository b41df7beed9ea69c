package tetris

import "math"

// Step 2 of a pick, feasibility: does a candidate fit the machine being
// filled, and do its remote reads fit the machines holding its input.
//
// After a placement (recheck) the entries that no longer fit m are
// dropped: with few live entries by testing each, otherwise by walking,
// per checked resource, the groups in order of demand from where the last
// walk stopped (the demands only pass the falling limit in that order; no
// walk while the entry the last one stopped at still fits); members with
// input on m are tested one by one (not at all while a per-resource bound
// of their demands fits). Remote reads are rechecked only for entries
// reading from a machine the placement read from, after the fit test (the
// reference's order, which decides which members are marked dead).
//
// Invariant: free capacity only shrinks during a round, so a candidate
// that fails a fit or remote-read test stays failed for the fill (and a
// representative whose remote reads fail is dead for the round), and a
// remote-read check made at remoteState version v holds while none of the
// task's input machines changed after v.

// machineView is the machine being filled as the picks see it: its
// normalised free capacity and fit limits, and the buffers of one pick.
type machineView struct {
	ms    []Machine // the round's machines (Free shrinks as tasks are placed)
	mask  []bool    // the resources checked (Config.Mask, or all)
	d     int       // resources per vector
	roles Roles
	// monotone: every normalised demand computed so far is non-negative
	// (and not NaN), so the machine being filled only loses free capacity
	// and every score only falls during a fill (see round_score.go).
	monotone bool
	free     []float64 // normalised masked free of the machine
	limit    []float64 // fit threshold per resource of the current pick
	scratch  []float64 // scratch: local demand
	alive    []int     // scratch for fill: groups that may fit the machine
	// placedDemand and placedReads are the demand on the machine and the
	// remote reads of the last placement (commit).
	placedDemand []float64
	placedReads  []Input
}

// prepMachine caches m's normalised free vector over the checked resources
// and the fit threshold of each entry (fitLimit on normalised amounts).
func (v *machineView) prepMachine(m int) {
	mc := &v.ms[m]
	for k := 0; k < v.d; k++ {
		v.prepResource(mc, k)
	}
}

// prepResource is prepMachine for resource k of machine mc.
func (v *machineView) prepResource(mc *Machine, k int) {
	free := 0.0
	if v.mask[k] && mc.Cap[k] > 0 {
		free = mc.Free[k] / mc.Cap[k]
	}
	v.free[k] = free
	v.limit[k] = fitLimit(free, 1)
}

// demandOn writes into nd the normalised masked demand on machine m of a
// task of g with the given inputs; absent reports that m lacks a resource
// the task needs (a machine without the resource at all never takes the
// task, not even when the resource is unchecked).
func (v *machineView) demandOn(g *Group, inputs []Input, m int, nd []float64) (remote, absent bool) {
	remote = LocalDemand(g, inputs, m, v.roles, v.scratch)
	return remote, v.normalise(v.scratch, m, nd)
}

// normalise writes into nd the demand dem on machine m normalised by m's
// capacity over the checked resources; absent as for demandOn.
func (v *machineView) normalise(dem []float64, m int, nd []float64) (absent bool) {
	mc := v.ms[m]
	for k := 0; k < v.d; k++ {
		nd[k] = 0
		x := dem[k]
		if x > 0 && mc.Cap[k] <= 0 {
			return true
		}
		if v.mask[k] && mc.Cap[k] > 0 {
			nd[k] = x / mc.Cap[k]
			if !(nd[k] >= 0) {
				v.monotone = false
			}
		}
	}
	return false
}

// align is vecpack.Alignment(nd, free) against the current pick's free vector
// (its fit thresholds precomputed by prepMachine); ok is false when nd does
// not fit.
func (v *machineView) align(nd []float64) (a float64, ok bool) {
	if !fitsAll(nd, v.limit) {
		return 0, false
	}
	nf := v.free[:len(nd)]
	for k, x := range nd {
		a += x * nf[k]
	}
	return a, true
}

// fitsAll reports whether nd[k] ≤ limit[k] for every k < len(nd).
func fitsAll(nd, limit []float64) bool {
	limit = limit[:len(nd)]
	for k, x := range nd {
		if x > limit[k] {
			return false
		}
	}
	return true
}

// remoteState tracks where free capacity changed, so that a remote-fit
// check is redone only when it may no longer hold.
type remoteState struct {
	ms    []Machine
	mask  []bool
	roles Roles
	needs []Input // scratch: a task's remote reads aggregated per machine
	// remoteVer counts placements with remote reads and fills that placed
	// something: only they change free capacity at machines other than the
	// one being filled, so a remote-fit check stays valid while it is
	// unchanged.
	remoteVer int
	// chg[x] is remoteVer after the last placement that read remotely from
	// machine x, or after the last fill of x that placed something: a
	// remote-fit check made at version v still holds while none of the
	// task's input machines (other than the one being filled) has chg above
	// v.
	chg []int
}

// stale reports whether a remote-fit check of a task with the given inputs,
// placed on m, made at version ver (-1: never) may no longer hold: some
// input machine other than m lost free capacity since.
func (rs *remoteState) stale(inputs []Input, m, ver int) bool {
	for _, in := range inputs {
		if in.Machine != m && rs.chg[in.Machine] > ver {
			return true
		}
	}
	return false
}

// remoteFits checks disk read and network out at every remote input machine.
func (rs *remoteState) remoteFits(inputs []Input, m int) bool {
	if len(inputs) == 1 {
		// The common case needs no aggregation.
		return inputs[0].Machine == m || rs.needFits(inputs[0])
	}
	rs.needs = RemoteNeeds(inputs, m, rs.needs)
	for _, n := range rs.needs {
		if !rs.needFits(n) {
			return false
		}
	}
	return true
}

// needFits is the fitLimit test of the need's rate, as disk read and network out
// where checked, against the free amounts at its machine.
func (rs *remoteState) needFits(n Input) bool {
	f := rs.ms[n.Machine].Free
	ro := rs.roles
	if ro.DiskRead >= 0 && rs.mask[ro.DiskRead] {
		if n.Rate > fitLimit(f[ro.DiskRead], rs.ms[n.Machine].Cap[ro.DiskRead]) {
			return false
		}
	}
	if ro.NetOut >= 0 && rs.mask[ro.NetOut] {
		if n.Rate > fitLimit(f[ro.NetOut], rs.ms[n.Machine].Cap[ro.NetOut]) {
			return false
		}
	}
	return true
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

// scanMax is the number of live entries up to which recheck tests each
// one's fit instead of walking the resources' sorted lists (a speed choice
// only: both find the same entries).
const scanMax = 24

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
func (fs *candidateSet) scanFit(list []int, mx, limit []float64) []int {
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
