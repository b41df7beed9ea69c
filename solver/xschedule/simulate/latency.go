package simulate

import (
	"math"
	"slices"
)

// latencies are a master's start-up delays (settings am_latency and
// launch_latency): a granted container is held from its grant but
// reaches the master only later, AM after AM seconds (the AM process
// starting and registering before it asks for tasks), any other after
// Launch seconds (the NodeManager launching the task's container). Both
// 0 (the default) hand every container over at its grant.
type latencies struct {
	AM, Launch float64
}

// deferredGrant is a held container the master gets at time at.
type deferredGrant struct {
	at float64
	c  string
}

func (in *Instance) latencies() latencies {
	s := in.settings()
	return latencies{AM: deref(s.AMLatency, 0), Launch: deref(s.LaunchLatency, 0)}
}

// defer_ holds container c, granted at t, back from the master when a
// latency applies, and says so. The first container while the master
// needs its AM becomes the AM after the AM latency; the others reach the
// master after the launch latency, never before the AM (a task needs
// its AM).
func (a *masterAgent) defer_(t float64, c string) bool {
	if a.lat.AM == 0 && a.lat.Launch == 0 {
		return false
	}
	at := t + a.lat.Launch
	if a.m.NeedsAM() && !a.amWait {
		at, a.amWait = t+a.lat.AM, true
	} else if a.amWait {
		at = max(at, a.deferred[0].at)
	}
	a.deferred = append(a.deferred, deferredGrant{at: at, c: c})
	// Keep delivery order stable: by time, ties in grant order.
	slices.SortStableFunc(a.deferred, func(x, y deferredGrant) int {
		switch {
		case x.at < y.at:
			return -1
		case x.at > y.at:
			return 1
		}
		return 0
	})
	return true
}

// nextDelivery is when the next deferred container reaches the master.
func (a *masterAgent) nextDelivery() float64 {
	if len(a.deferred) == 0 {
		return math.Inf(1)
	}
	return a.deferred[0].at
}

// deliver hands the master the deferred containers due by t, at their
// due times.
func (a *masterAgent) deliver(t float64) {
	for len(a.deferred) > 0 && a.deferred[0].at <= t {
		d := a.deferred[0]
		a.deferred = a.deferred[1:]
		a.hand(d.at, d.c)
		if !a.m.NeedsAM() {
			a.amWait = false
		}
	}
}

// handNow hands deferred container c to the master at t at once (a
// notice for it came before its latency ended).
func (a *masterAgent) handNow(t float64, c string) {
	i := slices.IndexFunc(a.deferred, func(d deferredGrant) bool { return d.c == c })
	if i < 0 {
		return
	}
	a.deferred = slices.Delete(a.deferred, i, i+1)
	a.hand(t, c)
	if !a.m.NeedsAM() {
		a.amWait = false
	}
}

// dropDeferred forgets deferred container c (preempted before the
// master got it) and says whether it was deferred.
func (a *masterAgent) dropDeferred(c string) bool {
	i := slices.IndexFunc(a.deferred, func(d deferredGrant) bool { return d.c == c })
	if i < 0 {
		return false
	}
	a.deferred = slices.Delete(a.deferred, i, i+1)
	if len(a.deferred) == 0 {
		a.amWait = false
	}
	return true
}
