package flex

import "math"

// This file is the malleable packing scheme of the paper's Fig. 3.
//
// Given a priority list L, every interval gives each job in L its minimum,
// then hands the slack S − Σ_{j∈L} m_j to the jobs in priority order, each
// up to its maximum (so at most one job gets a partial extra); the first
// job to finish ends the interval and leaves L. Tie-breaks: jobs finishing
// at the same time leave in priority order, one per interval (the
// zero-length intervals between them are dropped from the output).
//
// The implementation is event driven and runs in O(J log J): slack only
// grows as jobs leave, so the jobs at their maximum form a prefix of the
// priority list that only extends, each job's rate changes O(1) times
// amortised, and an indexed heap keeps the next completion.

// rateEvent records that job Job runs at Rate slots from the start of the
// interval that follows the first K completions.
type rateEvent struct {
	K    int
	Job  int
	Rate int
}

// mpsWork is scratch space reused across MPS runs (local search and the
// exact search call MPS many times).
type mpsWork struct {
	rem, tl []float64
	rate    []int
	extra   []int
	active  []bool
	pos     []int
	h       heap
}

func newMPSWork(n int) *mpsWork {
	return &mpsWork{
		rem: make([]float64, n), tl: make([]float64, n), rate: make([]int, n),
		extra: make([]int, n), active: make([]bool, n), pos: make([]int, n),
		h: newHeap(n),
	}
}

// mps runs the malleable packing scheme with priority list prio (a
// permutation of the jobs) and writes completion times into comp. With
// zeroMin the minima are taken as 0 (the FIFO baseline). When rec is not
// nil the rate changes and the completion order are appended to it.
func (in *Instance) mps(prio []int, zeroMin bool, w *mpsWork, comp []float64, rec *mpsRecord) {
	n := len(in.Jobs)
	minOf := func(j int) int {
		if zeroMin {
			return 0
		}
		return in.Jobs[j].Min
	}
	t := in.T0
	slack := in.S
	w.h.reset()
	for k, j := range prio {
		w.pos[j] = k
	}
	for j := 0; j < n; j++ {
		m := minOf(j)
		w.rem[j] = in.Jobs[j].Work
		w.tl[j] = t
		w.rate[j] = m
		w.extra[j] = 0
		w.active[j] = true
		slack -= m
	}
	setRate := func(j, r, k int) {
		if w.rate[j] > 0 {
			w.rem[j] -= float64(w.rate[j]) * (t - w.tl[j])
		}
		w.tl[j] = t
		w.rate[j] = r
		if r > 0 {
			w.h.set(j, t+w.rem[j]/float64(r), w.pos[j])
		}
		if rec != nil {
			rec.events = append(rec.events, rateEvent{K: k, Job: j, Rate: r})
		}
	}
	for _, j := range prio {
		if w.rate[j] > 0 {
			w.h.add(j, t+w.rem[j]/float64(w.rate[j]), w.pos[j])
		}
		if rec != nil {
			rec.events = append(rec.events, rateEvent{K: 0, Job: j, Rate: w.rate[j]})
		}
	}
	w.h.heapify()
	used, p := 0, 0
	fill := func(k int) {
		free := slack - used
		for free > 0 && p < n {
			j := prio[p]
			if !w.active[j] {
				p++
				continue
			}
			room := in.Jobs[j].Max - minOf(j) - w.extra[j]
			if room <= 0 {
				p++
				continue
			}
			g := min(free, room)
			w.extra[j] += g
			used += g
			free -= g
			setRate(j, w.rate[j]+g, k)
			if g == room {
				p++
			}
		}
	}
	fill(0)
	for k := 1; k <= n; k++ {
		j, key, ok := w.h.pop()
		if !ok {
			// Unreachable for a validated instance (some active job always
			// has a positive rate); keep the remaining jobs unfinished.
			for i := 0; i < n; i++ {
				if w.active[i] {
					comp[i] = math.Inf(1)
				}
			}
			return
		}
		if key > t {
			t = key
		}
		comp[j] = t
		w.active[j] = false
		slack += minOf(j)
		used -= w.extra[j]
		if rec != nil {
			rec.order = append(rec.order, j)
			if rec.stopAfter > 0 && k >= rec.stopAfter {
				return // the caller lists only the first intervals
			}
		}
		fill(k)
	}
}

// mpsRecord is what an MPS run needs to print its intervals.
type mpsRecord struct {
	events []rateEvent
	order  []int
	// stopAfter > 0 ends the run after that many completions (the
	// completion times of the other jobs are then left unset).
	stopAfter int
}

// Interval is one interval of a schedule: Slots[i] slots go to job Jobs[i]
// from Start to End.
type Interval struct {
	Start, End float64
	Jobs       []int
	Slots      []int
}

// intervalsFromRecord replays an MPS record into at most limit intervals
// (limit < 0: all), dropping zero-length ones.
func (in *Instance) intervalsFromRecord(rec *mpsRecord, comp []float64, limit int) []Interval {
	n := len(in.Jobs)
	rate := make([]int, n)
	done := make([]bool, n)
	var out []Interval
	e := 0
	start := in.T0
	for k := 0; k < len(rec.order); k++ {
		for e < len(rec.events) && rec.events[e].K <= k {
			rate[rec.events[e].Job] = rec.events[e].Rate
			e++
		}
		end := comp[rec.order[k]]
		if end-start > TimeTol*math.Max(1, math.Abs(end)) {
			if limit >= 0 && len(out) >= limit {
				return out
			}
			iv := Interval{Start: start, End: end}
			cnt := 0
			for j := 0; j < n; j++ {
				if !done[j] && rate[j] > 0 {
					cnt++
				}
			}
			iv.Jobs, iv.Slots = make([]int, 0, cnt), make([]int, 0, cnt)
			for j := 0; j < n; j++ {
				if !done[j] && rate[j] > 0 {
					iv.Jobs = append(iv.Jobs, j)
					iv.Slots = append(iv.Slots, rate[j])
				}
			}
			out = append(out, iv)
			start = end
		}
		done[rec.order[k]] = true
	}
	return out
}

// heap is an indexed binary min-heap of jobs keyed by (key, tie). Entries
// carry their keys so comparisons stay in one array (cache friendly), and
// sifting moves a hole instead of swapping (one write per level). Every
// caller uses a tie unique among the entries, so (key, tie) is a total
// order and the pop order does not depend on the heap's layout.
type heap struct {
	idx []int32 // heap position of job, -1 when absent
	e   []hent
}

type hent struct {
	key float64
	tie int32
	job int32
}

func newHeap(n int) heap {
	h := heap{idx: make([]int32, n), e: make([]hent, 0, n)}
	for i := range h.idx {
		h.idx[i] = -1
	}
	return h
}

func (h *heap) reset() {
	for _, x := range h.e {
		h.idx[x.job] = -1
	}
	h.e = h.e[:0]
}

// hless is the heap order: key, then tie.
func hless(x, y *hent) bool {
	if x.key != y.key {
		return x.key < y.key
	}
	return x.tie < y.tie
}

// up moves the entry at i towards the root; it reports whether it moved.
func (h *heap) up(i int) bool {
	e := h.e
	x := e[i]
	start := i
	for i > 0 {
		p := (i - 1) / 2
		if !hless(&x, &e[p]) {
			break
		}
		e[i] = e[p]
		h.idx[e[i].job] = int32(i)
		i = p
	}
	e[i] = x
	h.idx[x.job] = int32(i)
	return i != start
}

func (h *heap) down(i int) {
	e := h.e
	n := len(e)
	x := e[i]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && hless(&e[r], &e[l]) {
			m = r
		}
		if !hless(&e[m], &x) {
			break
		}
		e[i] = e[m]
		h.idx[e[i].job] = int32(i)
		i = m
	}
	e[i] = x
	h.idx[x.job] = int32(i)
}

// set inserts job j or changes its key.
func (h *heap) set(j int, key float64, tie int) {
	if i := int(h.idx[j]); i >= 0 {
		h.e[i].key, h.e[i].tie = key, int32(tie)
		if !h.up(i) {
			h.down(i)
		}
		return
	}
	h.e = append(h.e, hent{key: key, tie: int32(tie), job: int32(j)})
	h.up(len(h.e) - 1)
}

// add appends job j (absent) without restoring the heap order; call
// heapify after a run of adds.
func (h *heap) add(j int, key float64, tie int) {
	h.idx[j] = int32(len(h.e))
	h.e = append(h.e, hent{key: key, tie: int32(tie), job: int32(j)})
}

// heapify restores the heap order in O(n) (Floyd).
func (h *heap) heapify() {
	for i := len(h.e)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// keyOf is job j's key (j must be present).
func (h *heap) keyOf(j int) float64 { return h.e[h.idx[j]].key }

// remove deletes job j if present.
func (h *heap) remove(j int) {
	i := int(h.idx[j])
	if i < 0 {
		return
	}
	last := len(h.e) - 1
	h.idx[j] = -1
	if i < last {
		h.e[i] = h.e[last]
		h.e = h.e[:last]
		if !h.up(i) {
			h.down(i)
		}
		return
	}
	h.e = h.e[:last]
}

// top returns the minimum without removing it.
func (h *heap) top() (job int, ok bool) {
	if len(h.e) == 0 {
		return 0, false
	}
	return int(h.e[0].job), true
}

// pop removes the minimum.
func (h *heap) pop() (job int, key float64, ok bool) {
	if len(h.e) == 0 {
		return 0, 0, false
	}
	x := h.e[0]
	last := len(h.e) - 1
	h.idx[x.job] = -1
	if last == 0 {
		h.e = h.e[:0]
		return int(x.job), x.key, true
	}
	// Bottom-up deletion: move the hole at the root down along the
	// smaller children to a leaf (one comparison per level), put the last
	// entry there and sift it up; it usually belongs near the bottom.
	y := h.e[last]
	h.e = h.e[:last]
	e := h.e
	i := 0
	for {
		l := 2*i + 1
		if l >= last {
			break
		}
		m := l
		if r := l + 1; r < last && hless(&e[r], &e[l]) {
			m = r
		}
		e[i] = e[m]
		h.idx[e[i].job] = int32(i)
		i = m
	}
	e[i] = y
	h.up(i)
	return int(x.job), x.key, true
}
