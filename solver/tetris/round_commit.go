package tetris

// Step 6 of a pick, commit: the placement's demand leaves the machine and
// its remote reads the input machines, the job's allocation grows, and the
// counts the other steps read (pending per job, the group's count, its
// first live member) move with it.

// commit places the entry of heap node t on machine m and writes its
// placement into p; it returns the placement's remote reads (nil when it
// reads nothing remotely). The placement's demand on m and its remote
// reads stay in r.machine.placedDemand and r.machine.placedReads until the
// next commit.
func (r *round) commit(t hnode, m int, p *Placement) (reads []Input) {
	fs := &r.cands
	e := &fs.entries[t.e]
	pj := e.job
	rank := r.jobs.rank(fs, pj)
	c := cand{g: e.gi, mi: e.mi, align: e.alignment, score: t.score(), remote: e.remote, promoted: e.promo, ok: true}
	share := r.jobs.shares[pj]
	g := r.in.gs[c.g]
	var inputs []Input
	if c.mi >= 0 {
		g.Members[c.mi].placed = true
		b := r.local.mbase[c.g] + c.mi
		r.local.placedBits[b>>6] |= 1 << (b & 63)
		g.removeLive(c.mi)
		inputs = g.Members[c.mi].Inputs
	}
	if r.machine.placedDemand == nil {
		r.machine.placedDemand = make([]float64, r.in.d)
	}
	dem := r.machine.placedDemand
	LocalDemand(g, inputs, m, r.in.cfg.Roles, dem)
	job := &r.in.js[g.Job]
	for k, x := range dem {
		r.in.ms[m].Free[k] -= x
		job.Alloc[k] += x
	}
	if c.remote {
		// A copy: the rechecks that follow reuse r.remote.needs.
		r.remote.needs = RemoteNeeds(inputs, m, r.remote.needs)
		r.machine.placedReads = append(r.machine.placedReads[:0], r.remote.needs...)
		reads = r.machine.placedReads
		ro := r.in.cfg.Roles
		for _, n := range reads {
			f := r.in.ms[n.Machine].Free
			if ro.DiskRead >= 0 {
				f[ro.DiskRead] -= n.Rate
				job.Alloc[ro.DiskRead] += n.Rate
			}
			if ro.NetOut >= 0 {
				f[ro.NetOut] -= n.Rate
				job.Alloc[ro.NetOut] += n.Rate
			}
		}
		// The input machines lost capacity: remote-read checks of the
		// tasks reading from them are stale.
		r.remote.remoteVer++
		for _, n := range reads {
			r.remote.chg[n.Machine] = r.remote.remoteVer
		}
	}
	g.Count--
	r.groups.cache[c.g].count--
	if c.mi >= 0 && int(r.groups.cache[c.g].first) == c.mi {
		r.groups.cache[c.g].first = -1
	}
	r.jobs.pending[g.Job]--
	if r.jobs.pending[g.Job] == 0 {
		r.jobs.jobsPending--
	}
	*p = Placement{Group: int32(c.g), Member: int32(c.mi), Machine: int32(m), Alignment: c.align, Score: c.score,
		Remote: c.remote, Promoted: c.promoted, Share: share, Rank: int32(rank)}
	r.jobs.reorder(pj)
	fs.advance(int(t.e), m, r.in.gs)
	fs.step++
	// Only the resources the placement used changed on m.
	for k, x := range r.machine.placedDemand {
		if x != 0 {
			r.machine.prepResource(&r.in.ms[m], k)
		}
	}
	return reads
}
