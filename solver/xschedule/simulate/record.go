package simulate

import (
	"cmp"
	"maps"
	"slices"
)

// pairSource reads the pair contexts a scheduler keeps (X-Schedule).
type pairSource interface {
	// pairAt is the pair (a, b)'s share at t (a < b, application
	// indices) and its slope.
	pairAt(a, b int, t float64) (share, slope float64)
	bound(a, b int) float64
}

// recorder builds a Run from the loop's changes. Its lists are bounded:
// events beyond maxEvents are counted, series stop at maxPoints points.
type recorder struct {
	sched     scheduler
	pairs     pairSource // nil under DRF
	apps      []string
	appIdx    map[string]int
	maxEvents int
	maxPoints int
	nres      float64
	run       Run
	reqs      map[string]*RequestOut
	order     []*RequestOut
	acc       []AppTotals
	inUse     []float64 // per app: Σ norm of the containers it uses
	series    map[[2]int]*PairSeries
	// count is the items recorded so far, packed those of the packing
	// (items).
	count, packed int
	// rebuild makes utilPoint rebuild the whole point at every change:
	// only the test that checks updating one entry changes nothing sets
	// it.
	rebuild bool
}

func newRecorder(sched scheduler, pairs pairSource, apps []string, nres, maxEvents, maxPoints, packed int) *recorder {
	r := &recorder{sched: sched, pairs: pairs, apps: apps, appIdx: map[string]int{}, maxEvents: maxEvents, maxPoints: maxPoints, packed: packed,
		nres: float64(nres), reqs: map[string]*RequestOut{}, acc: make([]AppTotals, len(apps)), inUse: make([]float64, len(apps)),
		series: map[[2]int]*PairSeries{}}
	for i, a := range apps {
		r.appIdx[a] = i
		r.acc[i].App = a
	}
	r.run.Events = []Event{}
	r.run.Utilization.Points = []UtilPoint{{T: 0, ByApp: map[string]float64{}}}
	return r
}

func (r *recorder) event(e Event) {
	if len(r.run.Events) >= r.maxEvents {
		r.run.Dropped++
		return
	}
	r.run.Events = append(r.run.Events, e)
	r.count++
}

func (r *recorder) request(a ask, t float64) *RequestOut {
	q := r.reqs[a.id]
	if q == nil {
		q = &RequestOut{ID: a.id, App: a.app, User: a.drfUser(), Arrival: t}
		if r.pairs != nil {
			q.Owners = map[string]int{}
		}
		r.reqs[a.id] = q
		r.order = append(r.order, q)
		r.count++
	}
	return q
}

func (r *recorder) ask(t float64, a ask) {
	r.request(a, t).Asked += a.count
	r.acc[r.appIdx[a.app]].Asked += a.count
}

func (r *recorder) expire(a ask, n int) {
	r.request(a, 0).Expired += n
	r.acc[r.appIdx[a.app]].Expired += n
}

func (r *recorder) grant(t float64, c string, h hold, asked float64) {
	info := r.sched.container(c)
	q, ac := r.request(h.a, t), &r.acc[r.appIdx[h.a.app]]
	q.Granted++
	ac.Granted++
	q.waitSum += t - asked
	ac.waitSum += t - asked
	if q.FirstGrant == nil {
		q.FirstGrant = &t
	}
	q.LastGrant = &t
	if q.Owners != nil {
		q.Owners[info.owner]++
	}
	r.event(Event{T: t, Kind: KindGrant, Container: c, Owner: info.owner, User: h.a.app, Request: h.a.id})
	r.use(t, info, h.a.app, 1)
}

func (r *recorder) notice(t float64, d decision, h hold, by ask) {
	r.event(Event{T: t, Kind: KindNotice, Container: d.container, Owner: r.sched.container(d.container).owner, User: h.a.app,
		Request: h.a.id, ByApp: by.app, ByRequest: by.id})
}

func (r *recorder) preempt(t float64, d decision, h hold, by ask) {
	info := r.sched.container(d.container)
	r.request(h.a, t).Preempted++
	r.acc[r.appIdx[h.a.app]].PreemptionsSuffered++
	r.acc[r.appIdx[by.app]].PreemptionsCaused++
	r.run.Summary.Preemptions++
	r.event(Event{T: t, Kind: KindPreempt, Container: d.container, Owner: info.owner, User: h.a.app, Request: h.a.id, ByApp: by.app, ByRequest: by.id})
	r.end(t, info, h)
}

func (r *recorder) release(t float64, c string, h hold) {
	info := r.sched.container(c)
	r.request(h.a, t).Completed++
	r.acc[r.appIdx[h.a.app]].Completed++
	r.event(Event{T: t, Kind: KindRelease, Container: c, Owner: info.owner, User: h.a.app, Request: h.a.id})
	r.end(t, info, h)
}

// end closes a hold: its container-seconds go to the user (own or
// borrowed) and the owner (lent).
func (r *recorder) end(t float64, info contInfo, h hold) {
	r.credit(info, h, t-h.since)
	r.use(t, info, h.a.app, -1)
}

// credit adds d container-seconds of h to its user and the owner.
func (r *recorder) credit(info contInfo, h hold, d float64) {
	u := r.appIdx[h.a.app]
	o, owned := r.appIdx[info.owner]
	switch {
	case !owned:
		r.acc[u].Used += d
	case o == u:
		r.acc[u].Own += d
	default:
		r.acc[u].Borrowed += d
		r.acc[o].Lent += d
	}
}

// use moves app's use by sign·norm at t and records the utilisation and
// the pair the container joins or leaves.
func (r *recorder) use(t float64, info contInfo, app string, sign float64) {
	u := r.appIdx[app]
	r.inUse[u] += sign * info.norm
	r.utilPoint(t, u)
	if o, ok := r.appIdx[info.owner]; ok && o != u && r.pairs != nil {
		r.pairPoint(min(o, u), max(o, u), t)
	}
}

// utilPoint records the use per application at t, after application
// u's changed: a new point, or the point already at t updated. That
// point was the whole use when last written and only use() changes it,
// so updating u's entry alone gives what byApp would (a round's many
// grants at one time each rebuilt the whole map).
func (r *recorder) utilPoint(t float64, u int) {
	ut := &r.run.Utilization
	if last := &ut.Points[len(ut.Points)-1]; last.T == t {
		r.count -= len(last.ByApp)
		if r.rebuild {
			last.ByApp = r.byApp()
		} else if x := r.inUse[u]; x > useEps {
			last.ByApp[r.apps[u]] = x / r.nres
		} else {
			delete(last.ByApp, r.apps[u])
		}
		r.count += len(last.ByApp)
		return
	}
	if len(ut.Points) >= r.maxPoints {
		ut.Truncated = true
		return
	}
	ut.Points = append(ut.Points, UtilPoint{T: t, ByApp: r.byApp()})
	r.count += 1 + len(ut.Points[len(ut.Points)-1].ByApp)
}

// byApp is the current use per application; a use below useEps (the
// rounding left by adding and removing norms) counts as none.
func (r *recorder) byApp() map[string]float64 {
	out := map[string]float64{}
	for i, x := range r.inUse {
		if x > useEps {
			out[r.apps[i]] = x / r.nres
		}
	}
	return out
}

// useEps is below any container's normalised size in a sane cluster
// (a container of 1e-9 of the cluster) and above the float error of
// summing a million norms.
const useEps = 1e-9

func (r *recorder) pairPoint(a, b int, t float64) {
	s := r.series[[2]int{a, b}]
	if s == nil {
		s = &PairSeries{A: r.apps[a], B: r.apps[b], Bound: r.pairs.bound(a, b), Points: []PairPoint{{}}}
		r.series[[2]int{a, b}] = s
	}
	share, slope := r.pairs.pairAt(a, b, t)
	if last := &s.Points[len(s.Points)-1]; last.T == t {
		last.Share, last.Slope = share, slope
		return
	}
	if len(s.Points) >= r.maxPoints {
		s.Truncated = true
		return
	}
	s.Points = append(s.Points, PairPoint{T: t, Share: share, Slope: slope})
	r.count++
}

// finish closes the holds still open at t (their container-seconds up
// to t count), ends each pair series at t and fills the totals.
func (r *recorder) finish(t float64, holds map[string]hold) {
	for _, c := range slices.Sorted(maps.Keys(holds)) {
		h := holds[c]
		r.credit(r.sched.container(c), h, t-h.since)
	}
	for _, k := range slices.SortedFunc(maps.Keys(r.series), func(x, y [2]int) int { return cmp.Or(x[0]-y[0], x[1]-y[1]) }) {
		s := r.series[k]
		if s.Points[len(s.Points)-1].T < t && !s.Truncated {
			share, slope := r.pairs.pairAt(k[0], k[1], t)
			s.Points = append(s.Points, PairPoint{T: t, Share: share, Slope: slope})
		}
	}
	r.run.Until = t
	r.totals()
}

func (r *recorder) totals() {
	sm := &r.run.Summary
	waitSum := 0.0
	for i := range r.acc {
		a := &r.acc[i]
		a.Waiting = a.Asked - a.Granted - a.Expired
		a.Used += a.Own + a.Borrowed
		if a.Granted > 0 {
			a.AvgWait = a.waitSum / float64(a.Granted)
		}
		sm.Asked += a.Asked
		sm.Granted += a.Granted
		sm.Expired += a.Expired
		sm.Waiting += a.Waiting
		sm.Completed += a.Completed
		sm.Used += a.Used
		waitSum += a.waitSum
	}
	if sm.Granted > 0 {
		sm.AvgWait = waitSum / float64(sm.Granted)
	}
	r.run.Apps = r.acc
	r.run.Requests = make([]RequestOut, len(r.order))
	for i, q := range r.order {
		q.Waiting = q.Asked - q.Granted - q.Expired
		if q.Granted > 0 {
			q.Wait = q.waitSum / float64(q.Granted)
		}
		r.run.Requests[i] = *q
	}
}

// items counts what the answer will hold (encodeItem's unit): events,
// utilisation points with their entries, pair points, requests, and the
// containers of the packing.
func (r *recorder) items() int { return r.count + r.packed }

// pairSeries lists the series in pair order.
func (r *recorder) pairSeries() []PairSeries {
	out := []PairSeries{}
	for _, k := range slices.SortedFunc(maps.Keys(r.series), func(x, y [2]int) int { return cmp.Or(x[0]-y[0], x[1]-y[1]) }) {
		out = append(out, *r.series[k])
	}
	return out
}
