package simulate

import "slices"

// askTimes are the ask times of the containers a request still wants,
// oldest first, kept as runs (a time and how many were asked then): a
// request for a million containers holds one run, not a million times,
// so memory follows the number of asks, not their counts.
type askTimes struct {
	runs []askRun
	n    int
}

type askRun struct {
	t float64
	n int
}

// add records n containers asked at t (t not before the last add).
func (q *askTimes) add(t float64, n int) {
	if k := len(q.runs); k > 0 && q.runs[k-1].t == t {
		q.runs[k-1].n += n
	} else {
		q.runs = append(q.runs, askRun{t, n})
	}
	q.n += n
}

// insert records one container asked at t, in time order (t may be
// before the last add: a promise given back).
func (q *askTimes) insert(t float64) {
	k := 0
	for k < len(q.runs) && q.runs[k].t < t {
		k++
	}
	if k < len(q.runs) && q.runs[k].t == t {
		q.runs[k].n++
	} else {
		q.runs = slices.Insert(q.runs, k, askRun{t, 1})
	}
	q.n++
}

// len is the number of containers wanted.
func (q *askTimes) len() int { return q.n }

// pop removes the oldest container and returns its ask time; q must not
// be empty.
func (q *askTimes) pop() float64 {
	r := &q.runs[0]
	t := r.t
	if r.n--; r.n == 0 {
		q.runs = q.runs[1:]
	}
	q.n--
	return t
}

// expire removes the containers asked before cut and returns how many.
func (q *askTimes) expire(cut float64) int {
	k, gone := 0, 0
	for k < len(q.runs) && q.runs[k].t < cut {
		gone += q.runs[k].n
		k++
	}
	q.runs, q.n = q.runs[k:], q.n-gone
	return gone
}
