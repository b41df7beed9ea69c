package tetris

import (
	"math"
	"sort"
)

// Step 4 of a pick, SRTF, fairness and barrier: which jobs may receive the
// machine, and in which order.
//
// The jobs with pending tasks are kept in dominant-share order (order, by
// shareLess, which treats shares within ShareTieTol as equal, and exact,
// the strict order rank counts in); only a placed job's share changes, so
// a placement moves that one job. The fairness cut admits the first
// ⌈(1−f)·|J|⌉ jobs, in share order, that hold a candidate. The SRTF term
// ε·p is fixed for the round (srtf). The barrier hint needs no state here:
// promoted stages' entries sit in a heap of their own, which the pick
// tries first.
//
// Invariant: order and exact list exactly the jobs with pending tasks,
// sorted by the shares in shares, and orderPos, exactPos are their
// positions.

// ceilTol keeps ⌈(1−f)·|J|⌉ from jumping up on round-off (e.g.
// (1−0.7)·10 = 3.0000000000000004): the product is at most ~1e6, so 1e-9
// is far below one job.
const ceilTol = 1e-9

// jobQueue is the per-job state of the fairness cut and the SRTF term.
type jobQueue struct {
	js          []Job     // the round's jobs (Alloc grows as tasks are placed)
	total       []float64 // the cluster's capacity per resource (Config.Total)
	fairness    float64   // f (Config.Fairness)
	penalty     float64   // the remote-read penalty (Config.RemotePenalty)
	pending     []int     // pending members per job
	jobsPending int       // jobs with pending members
	shares      []float64 // dominant share per job
	srtf        []float64 // ε·Work per job (Work does not change during a round)
	// shareRes lists the resources of dominant shares (masked, with a
	// positive cluster total), in index order.
	shareRes []int
	// order lists the jobs with pending tasks by dominant share (ties by
	// index); shares caches each job's share. Only a placed job's share
	// changes, so the order is kept by moving that one job. orderPos[j] is
	// job j's position in order (-1: not there).
	order    []int
	orderPos []int
	// exact lists the same jobs as order sorted by (share, index) exactly,
	// and exactPos[j] is job j's position in it (-1: not there). order is
	// sorted by shareLess, which treats shares within ShareTieTol as equal
	// and so need not be transitive; exact is what rank counts in.
	exact, exactPos []int
}

// newJobQueue sets the jobs' pending counts, SRTF terms and share
// resources, then lists the jobs with pending tasks in share order.
func newJobQueue(js []Job, gs []*Group, cfg Config, mask []bool) jobQueue {
	q := jobQueue{js: js, total: cfg.Total, fairness: cfg.Fairness, penalty: cfg.RemotePenalty}
	q.pending, q.shares, q.srtf = make([]int, len(js)), make([]float64, len(js)), make([]float64, len(js))
	for j := range js {
		q.srtf[j] = cfg.Epsilon * js[j].Work
	}
	for k := range min(len(mask), len(cfg.Total)) {
		if mask[k] && cfg.Total[k] > 0 {
			q.shareRes = append(q.shareRes, k)
		}
	}
	for _, g := range gs {
		q.pending[g.Job] += g.Count
	}
	q.initOrder()
	return q
}

// initOrder lists the jobs with pending tasks by share, in both orders.
func (q *jobQueue) initOrder() {
	for j, p := range q.pending {
		if p > 0 {
			q.jobsPending++
			q.shares[j] = q.share(j)
			q.order = append(q.order, j)
		}
	}
	sort.Slice(q.order, func(a, b int) bool { return q.shareLess(q.order[a], q.order[b]) })
	q.orderPos = positions(q.order, len(q.js))
	q.exact = append([]int(nil), q.order...)
	sort.Slice(q.exact, func(a, b int) bool { return q.valueLess(q.exact[a], q.exact[b]) })
	q.exactPos = positions(q.exact, len(q.js))
}

// positions maps each of n jobs to its position in list (-1: not there).
func positions(list []int, n int) []int {
	pos := make([]int, n)
	for j := range pos {
		pos[j] = -1
	}
	for i, j := range list {
		pos[j] = i
	}
	return pos
}

// share is job j's weighted dominant share over the masked resources.
func (q *jobQueue) share(j int) float64 {
	s := 0.0
	alloc, total := q.js[j].Alloc, q.total
	for _, k := range q.shareRes {
		if k >= len(alloc) {
			break
		}
		s = max(s, alloc[k]/total[k]) // the builtin has math.Max's NaN and signed-zero rules
	}
	w := q.js[j].Weight
	if w <= 0 {
		w = 1
	}
	return s / w
}

// shareLess orders jobs by dominant share, ties by index.
func (q *jobQueue) shareLess(a, b int) bool {
	sa, sb := q.shares[a], q.shares[b]
	if math.Abs(sa-sb) > ShareTieTol {
		return sa < sb
	}
	return a < b
}

// valueLess orders jobs by dominant share exactly, ties by index.
func (q *jobQueue) valueLess(a, b int) bool {
	if sa, sb := q.shares[a], q.shares[b]; sa != sb {
		return sa < sb
	}
	return a < b
}

// reorder refreshes job j's share after a placement (only the placed job's
// share changes) and moves it to its place in r.order, dropping it when it
// has nothing pending.
func (q *jobQueue) reorder(j int) {
	pos := q.orderPos[j]
	if pos < 0 {
		return
	}
	if q.pending[j] == 0 {
		drop(&q.order, q.orderPos, j)
		drop(&q.exact, q.exactPos, j)
		return
	}
	q.shares[j] = q.share(j)
	// shareLess(x, j) written out with j's share read once.
	sj := q.shares[j]
	for pos+1 < len(q.order) {
		x := q.order[pos+1]
		var less bool
		if sx := q.shares[x]; math.Abs(sx-sj) > ShareTieTol {
			less = sx < sj
		} else {
			less = x < j
		}
		if !less {
			break
		}
		q.order[pos], q.orderPos[x] = x, pos
		pos++
	}
	q.order[pos], q.orderPos[j] = j, pos
	// exact is strictly ordered: binary search for j's new place (later,
	// its share only grew).
	pos = q.exactPos[j]
	rest := q.exact[pos+1:]
	// sort.Search for the first job of rest not valueLess than j, written
	// out (no closure call per step).
	lo, hi := 0, len(rest)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		x := rest[h]
		if sx := q.shares[x]; sx < sj || (sx == sj && x < j) {
			lo = h + 1
		} else {
			hi = h
		}
	}
	at := pos + lo
	for i, x := range rest[:lo] {
		q.exact[pos+i], q.exactPos[x] = x, pos+i
	}
	q.exact[at], q.exactPos[j] = j, at
}

// drop removes job j from list, keeping pos (positions in list) in step.
func drop(list *[]int, pos []int, j int) {
	p := pos[j]
	*list = append((*list)[:p], (*list)[p+1:]...)
	pos[j] = -1
	for i := p; i < len(*list); i++ {
		pos[(*list)[i]] = i
	}
}

// cutAt sets fs.bound, the position in order of the last job within the
// fairness cut: the first k = ⌈(1−f)·|J|⌉ jobs, in share order, that hold
// a candidate. It reports whether the cut excludes any job holding one.
func (q *jobQueue) cutAt(fs *candidateSet) bool {
	k := int(math.Ceil((1-q.fairness)*float64(q.jobsPending) - ceilTol))
	if k < 1 {
		k = 1
	}
	cut := k < fs.jobsHolding
	fs.bound = len(q.order) - 1
	if cut {
		fs.bound = q.kthHolder(fs, k)
	}
	return cut
}

// kthHolder is the position in order of the k-th job holding a candidate (k ≤
// the number of such jobs), found from whichever end is closer.
func (q *jobQueue) kthHolder(fs *candidateSet, k int) int {
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
// than ShareTieTol, a prefix of exact (the rounded difference is monotone in
// the share), and for the jobs of lower index among those within
// ShareTieTol of pj's share, a segment of exact around pj. The prefix is
// counted from whichever end of exact is nearer.
func (q *jobQueue) rank(fs *candidateSet, pj int) int {
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
