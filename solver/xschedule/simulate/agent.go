package simulate

import (
	"cmp"
	"container/heap"
	"math"
	"slices"
)

// An agent is one application's demand: the request trace replays
// requests; an application master turns jobs into requests.
type agent interface {
	wake() float64                                  // time of its next own event (arrival, release, tick); math.Inf(1) if none
	step(t float64) (asks []ask, releases []string) // run own events at t; new asks and containers given back
	granted(t float64, a ask, container string)     // a container was granted to ask a
	revoked(t float64, container string)            // a container was preempted from it (its work is lost)
}

// ask is a demand as the loop sees it: Count containers of at least
// size for app, each held for duration. id is unique among the asks
// pending at one time; an agent may ask again under an id whose earlier
// ask is still pending, which adds to its count.
type ask struct {
	id    string
	app   string
	user  string // the DRF user charged (default app)
	count int
	size  []float64
	prio  int // request priority: higher first
	pprio int // preemption priority: lower preempted first
	typ   string
	rack  string
	host  string
	// duration is how long a granted container is held (the trace
	// agent's release time; a master decides its own).
	duration float64
}

// drfUser is the DRF user an ask is charged to.
func (a *ask) drfUser() string {
	if a.user != "" {
		return a.user
	}
	return a.app
}

// traceAgent replays the request trace: each request asks at its
// arrival; a granted container is released duration later; a revoked
// container's work is lost and the request asks for one container again
// at once (it waits anew).
type traceAgent struct {
	asks []ask     // by arrival, ties in trace order
	at   []float64 // arrival of asks[i]
	next int       // first ask not yet made
	// holds are the containers held with their release time; requeue the
	// asks to renew at the next step.
	holds   map[string]traceHold
	ends    endHeap
	requeue []ask
	now     float64
}

type traceHold struct {
	a   ask
	seq int
}

func newTraceAgent(reqs []Ask) *traceAgent {
	order := make([]int, len(reqs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(reqs[x].Arrival, reqs[y].Arrival) })
	t := &traceAgent{asks: make([]ask, 0, len(reqs)), at: make([]float64, 0, len(reqs)), holds: map[string]traceHold{}}
	for _, i := range order {
		r := reqs[i]
		t.asks = append(t.asks, ask{id: r.ID, app: r.App, user: r.User, count: r.Count, size: r.Size, prio: r.Priority,
			pprio: r.PreemptionPriority, typ: r.Type, rack: r.Rack, host: r.Host, duration: r.Duration})
		t.at = append(t.at, r.Arrival)
	}
	return t
}

// fresh is a new agent over t's trace: the sorted asks are shared (no run
// changes them), so Build sorts the trace once, alongside validation,
// and neither run spends its budget on it (0.3 s each for 100,000
// requests under load, six times a 50 ms budget).
func (t *traceAgent) fresh() *traceAgent {
	return &traceAgent{asks: t.asks, at: t.at, holds: map[string]traceHold{}}
}

func (t *traceAgent) wake() float64 {
	w := math.Inf(1)
	if t.next < len(t.asks) {
		w = t.at[t.next]
	}
	if len(t.requeue) > 0 {
		w = min(w, t.now)
	}
	if e, ok := t.ends.peek(t.holds); ok {
		w = min(w, e.end)
	}
	return w
}

// step releases the containers whose duration is over (in grant order),
// then makes the arrivals due and the asks renewed after a preemption.
func (t *traceAgent) step(now float64) ([]ask, []string) {
	t.now = now
	var rel []string
	for {
		e, ok := t.ends.peek(t.holds)
		if !ok || e.end > now {
			break
		}
		heap.Pop(&t.ends)
		delete(t.holds, e.container)
		rel = append(rel, e.container)
	}
	var out []ask
	for t.next < len(t.asks) && t.at[t.next] <= now {
		out = append(out, t.asks[t.next])
		t.next++
	}
	out = append(out, t.requeue...)
	t.requeue = nil
	return out, rel
}

func (t *traceAgent) granted(now float64, a ask, c string) {
	t.now = now
	t.ends.seq++
	t.holds[c] = traceHold{a: a, seq: t.ends.seq}
	heap.Push(&t.ends, end{end: now + a.duration, container: c, seq: t.ends.seq})
}

func (t *traceAgent) revoked(now float64, c string) {
	t.now = now
	h, ok := t.holds[c]
	if !ok {
		return
	}
	delete(t.holds, c)
	a := h.a
	a.count = 1
	t.requeue = append(t.requeue, a)
}

// end is a held container's release time; seq orders equal times by
// grant order and tells a live entry from a stale one.
type end struct {
	end       float64
	container string
	seq       int
}

// endHeap is a min-heap of release times (container/heap). An entry
// whose container is no longer held under its seq (revoked, or granted
// again) is skipped lazily.
type endHeap struct {
	h   []end
	seq int
}

func (e *endHeap) Len() int { return len(e.h) }
func (e *endHeap) Less(i, j int) bool {
	return e.h[i].end < e.h[j].end || (e.h[i].end == e.h[j].end && e.h[i].seq < e.h[j].seq)
}
func (e *endHeap) Swap(i, j int) { e.h[i], e.h[j] = e.h[j], e.h[i] }
func (e *endHeap) Push(x any)    { e.h = append(e.h, x.(end)) }
func (e *endHeap) Pop() any {
	x := e.h[len(e.h)-1]
	e.h = e.h[:len(e.h)-1]
	return x
}

// peek drops stale entries and returns the earliest live one.
func (e *endHeap) peek(holds map[string]traceHold) (end, bool) {
	for len(e.h) > 0 {
		top := e.h[0]
		if h, ok := holds[top.container]; ok && h.seq == top.seq {
			return top, true
		}
		heap.Pop(e)
	}
	return end{}, false
}
