package simulate

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"
)

// scheduler is the policy the loop drives: X-Schedule over the assign
// model (xsched.go) or online DRF (drf.go).
type scheduler interface {
	// prepare checks a new ask (X-Schedule keeps a checked form).
	prepare(p *pending) error
	// round decides at t over the queue; false when ctx ended first.
	round(ctx context.Context, t float64, queue []*pending) ([]decision, bool)
	// release frees a container its user gave back at t.
	release(t float64, container string)
	// container describes a container (owner "" under DRF).
	container(id string) contInfo
	// noticed counts the preemption notices not yet completed.
	noticed() int
	// packing is the final packing of the containers on the nodes.
	packing() []NodeOut
}

// contInfo is what the recorder needs of a container.
type contInfo struct {
	owner, node string
	size        []float64
	norm        float64
}

// Decision kinds, as event kinds (wire names).
const (
	KindGrant   = "grant"
	KindNotice  = "notice"
	KindPreempt = "preempt"
	KindRelease = "release"
	// kindWithdraw is a decision only (no event): a notice replaced by
	// the owner's reclaim gives its request's promise back (the
	// owner's notice that replaces it is an event).
	kindWithdraw = "withdraw"
)

// decision is one outcome of a round. A grant gives container to
// request; a notice tells the container's user to give it up for
// request; a preempt takes it from its user now (the loop knows who).
// completes marks a grant that completes a notice.
type decision struct {
	kind      string
	container string
	request   string
	completes bool
}

// pending is an ask still wanting containers: times holds the ask times
// of the containers wanted, promised those of containers under notice
// for it.
type pending struct {
	a        ask
	agent    int
	times    askTimes
	promised askTimes
	// fit is DRF's kept best-fit node for the ask's shape
	// (drf.bestFitOf).
	fit *bestFitMemo
}

// hold is a granted container: the agent and ask holding it.
type hold struct {
	agent int
	a     ask
	since float64
}

// Ends of a run (wire names).
const (
	EndQuiet   = "quiet"   // nothing was left to happen
	EndHorizon = "horizon" // the horizon was reached
	EndBudget  = "budget"  // the budget ran out
)

// sim is one run of the loop. Time advances from event to event: an
// agent's own events (arrivals, releases) and decision rounds, which
// run at multiples of the scheduling interval while a request is pending
// or a notice outstanding. At one time: agents step in agent order (each
// releases, then asks), patience expires asks, then the round.
type sim struct {
	sched    scheduler
	agents   []agent
	horizon  float64
	interval float64
	patience float64
	queue    []*pending
	byID     map[string]*pending
	holds    map[string]hold
	rec      *recorder
	now      float64
	// deadline, when set, is when the answer is due: the run stops while
	// the time left still covers writing what is recorded (encodeItem
	// per record, beyond the base records of an earlier run).
	deadline time.Time
	base     int
	// lastRound is the time of the last round (-1 before the first);
	// roundAt that of the next, when next found one due; dirty says an
	// ask or a release came after the last round.
	lastRound, roundAt float64
	dirty              bool
	// oldest, once known, is at most every ask time still waiting in
	// the queue (+Inf when none): expire scans the queue only when the
	// patience cut passes it.
	oldest      float64
	oldestKnown bool
	// emptied says an ask may have nothing left to wait for (a grant or
	// an expiry took its last container) since the last compact, which
	// scans the queue only then.
	emptied bool
	// scanAll makes expire and compact scan the queue at every step:
	// only the test that checks the shortcuts change nothing sets it.
	scanAll bool
}

// run simulates until nothing is left to happen, the horizon or ctx's
// end, and says which.
func (s *sim) run(ctx context.Context) (string, error) {
	for {
		next, ok := s.next()
		switch {
		case !ok:
			s.rec.finish(s.now, s.holds)
			return EndQuiet, nil
		case next > s.horizon:
			s.now = s.horizon
			s.rec.finish(s.horizon, s.holds)
			return EndHorizon, nil
		case ctx.Err() != nil || s.late():
			s.rec.finish(s.now, s.holds)
			return EndBudget, nil
		}
		s.now = next
		if err := s.stepAgents(); err != nil {
			return "", err
		}
		s.expire()
		if s.now == s.roundAt {
			s.lastRound, s.roundAt = s.now, math.Inf(1)
			s.dirty = false
			if s.due() && !s.decide(ctx) {
				s.rec.finish(s.now, s.holds)
				return EndBudget, nil
			}
		}
	}
}

// encodeItem is the time kept back per recorded item (an event, a
// series point, a request's outcome, a packed container) for writing the
// answer. Written a chunk at a time into a buffer grown once (encode.go)
// an item (about 140 bytes) takes ~0.25 µs on an idle core (28 ms for
// the 122,000 items of a 20,000-request X-Flex plan) and about ten times
// that with the machine's two cores ten times oversubscribed; 1.5 µs
// keeps a loaded server near its budget without starving the run. (It
// was 5 µs while goccy/go-json grew its own buffer by copying: ~1 µs an
// item idle, ~10 µs loaded.)
const encodeItem = 1500 * time.Nanosecond

// late says the time left no longer covers writing the answer.
func (s *sim) late() bool {
	return !s.deadline.IsZero() && time.Until(s.deadline) < time.Duration(s.base+s.rec.items())*encodeItem
}

// next is the time of the next event; false when nothing can change
// any more. A round is due while a request is pending or a notice
// outstanding, unless nothing changed since the last round and nothing
// is in use (then it would decide the same again).
func (s *sim) next() (float64, bool) {
	t := math.Inf(1)
	for _, ag := range s.agents {
		t = min(t, ag.wake())
	}
	s.roundAt = math.Inf(1)
	if s.due() && (s.dirty || len(s.holds) > 0 || s.sched.noticed() > 0) {
		s.roundAt = s.nextRoundTime()
		t = min(t, s.roundAt)
	}
	return t, t < math.Inf(1)
}

// nextRoundTime is the first multiple of the interval at or after now
// and after the last round. Where floats cannot tell multiples apart (an
// interval tiny against the time) it is the next float after the last
// round, so time always moves on.
func (s *sim) nextRoundTime() float64 {
	at := math.Ceil(s.now/s.interval) * s.interval
	if at <= s.lastRound {
		at = (math.Floor(s.lastRound/s.interval) + 1) * s.interval
	}
	if at <= s.lastRound || at < s.now || math.IsInf(at, 1) {
		at = max(s.now, math.Nextafter(s.lastRound, math.Inf(1)))
	}
	return at
}

func (s *sim) due() bool { return len(s.queue) > 0 || s.sched.noticed() > 0 }

// stepAgents runs every agent whose event is due, in agent order.
func (s *sim) stepAgents() error {
	for i, ag := range s.agents {
		if ag.wake() > s.now {
			continue
		}
		asks, rel := ag.step(s.now)
		for _, c := range rel {
			if err := s.release(i, c); err != nil {
				return err
			}
		}
		for _, a := range asks {
			if err := s.enqueue(i, a); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *sim) release(agent int, c string) error {
	h, ok := s.holds[c]
	if !ok || h.agent != agent {
		return fmt.Errorf("simulate: agent %d released container %q it does not hold", agent, c)
	}
	delete(s.holds, c)
	s.dirty = true
	s.sched.release(s.now, c)
	s.rec.release(s.now, c, h)
	return nil
}

// enqueue adds an ask: to the pending one of the same id, or as a new
// pending ask at the end of the queue.
func (s *sim) enqueue(agent int, a ask) error {
	p := s.byID[a.id]
	if p == nil {
		p = &pending{a: a, agent: agent}
		if err := s.sched.prepare(p); err != nil {
			return err
		}
		s.byID[a.id] = p
		s.queue = append(s.queue, p)
	} else if p.agent != agent {
		return fmt.Errorf("simulate: request id %q asked by two agents", a.id)
	}
	p.times.add(s.now, a.count)
	s.oldest = min(s.oldest, s.now)
	s.dirty = true
	s.rec.ask(s.now, a)
	return nil
}

// expire drops the container requests that waited longer than patience.
func (s *sim) expire() {
	if math.IsInf(s.patience, 1) {
		return
	}
	cut := s.now - s.patience
	if s.oldestKnown && s.oldest >= cut && !s.scanAll {
		// Nothing waited longer than patience: the scan would expire
		// nothing.
		s.compact()
		return
	}
	oldest := math.Inf(1)
	for _, p := range s.queue {
		if k := p.times.expire(cut); k > 0 {
			s.emptied = true
			s.rec.expire(p.a, k)
			if e, ok := s.agents[p.agent].(expirer); ok {
				e.expired(s.now, p.a, k)
			}
		}
		if len(p.times.runs) > 0 {
			oldest = min(oldest, p.times.runs[0].t)
		}
	}
	s.oldest, s.oldestKnown = oldest, true
	s.compact()
}

// noticer is an agent told when a container it holds is under a
// preemption notice (an application master stops starting tasks there).
type noticer interface {
	notice(t float64, container string)
}

// expirer is an agent told when its asks expire (an application master
// keeps count of the containers it has asked for).
type expirer interface {
	expired(t float64, a ask, n int)
}

// decide runs a round and applies its decisions in order.
func (s *sim) decide(ctx context.Context) bool {
	ds, complete := s.sched.round(ctx, s.now, s.queue)
	for _, d := range ds {
		s.apply(d)
	}
	s.compact()
	return complete
}

func (s *sim) apply(d decision) {
	switch d.kind {
	case kindWithdraw:
		p := s.byID[d.request]
		back := p.promised.pop()
		p.times.insert(back)
		s.oldest = min(s.oldest, back)
		s.dirty = true
	case KindNotice:
		p := s.byID[d.request]
		p.promised.add(p.times.pop(), 1)
		h := s.holds[d.container]
		s.rec.notice(s.now, d, h, p.a)
		if n, ok := s.agents[h.agent].(noticer); ok {
			n.notice(s.now, d.container)
		}
	case KindPreempt:
		h := s.holds[d.container]
		delete(s.holds, d.container)
		s.agents[h.agent].revoked(s.now, d.container)
		s.rec.preempt(s.now, d, h, s.byID[d.request].a)
	case KindGrant:
		p := s.byID[d.request]
		var asked float64
		if d.completes {
			asked = p.promised.pop()
		} else {
			asked = p.times.pop()
		}
		s.emptied = true
		h := hold{agent: p.agent, a: p.a, since: s.now}
		s.holds[d.container] = h
		s.rec.grant(s.now, d.container, h, asked)
		s.agents[p.agent].granted(s.now, p.a, d.container)
	}
}

// compact drops the asks with nothing left to wait for, keeping order;
// only a grant or an expiry empties one (a notice or a withdrawal moves
// a container between times and promised), so it scans only after one.
func (s *sim) compact() {
	if !s.emptied && !s.scanAll {
		return
	}
	s.emptied = false
	s.queue = slices.DeleteFunc(s.queue, func(p *pending) bool {
		if p.times.len() == 0 && p.promised.len() == 0 {
			delete(s.byID, p.a.id)
			return true
		}
		return false
	})
}
