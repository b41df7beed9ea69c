package tetris

// Step 3 of a pick, the alignment score: a·(1−penalty if remote) − ε·p,
// a the dot product of the normalised demand and the machine's normalised
// free capacity (vecpack.Alignment), ε·p the job's SRTF term.
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
// candidates (machineView.monotone false).

// dot is the alignment of a normalised demand known to fit (align without
// the fit test, the same arithmetic).
func (v *machineView) dot(nd []float64) (a float64) {
	nf := v.free[:len(nd)]
	for k, x := range nd {
		a += x * nf[k]
	}
	return a
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

// top is the best node of h among eligible jobs (all jobs holding a
// candidate when cut is false): dead entries are dropped, entries of jobs
// outside the cut parked, and stale snapshots re-evaluated until the top is
// current.
func (fs *candidateSet) top(q *jobQueue, v *machineView, h *nheap, cut bool) (hnode, bool) {
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
func (fs *candidateSet) unpark(q *jobQueue, v *machineView, cut bool) {
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

// refreshAll re-evaluates every node (when scores may rise, machineView.monotone false).
func (fs *candidateSet) refreshAll(q *jobQueue, v *machineView) {
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
