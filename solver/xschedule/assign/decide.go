package assign

import (
	"context"
	"math"
	"slices"
)

// Grant kinds and notice kinds (wire names).
const (
	KindOwned     = "owned"     // a free container of the requester
	KindBorrowed  = "borrowed"  // a free container of another application
	KindPreempted = "preempted" // taken from its user after a preemption
	KindReclaim   = "reclaim"   // preemption of the first kind: the requester's own container back
	KindTakeover  = "takeover"  // preemption of the second kind: another's container from a debtor
)

// Pending reasons (wire names).
const (
	ReasonNoFit   = "no_fit"            // no container of the request's type fits its size and fitness
	ReasonLocal   = "locality"          // fitting ones exist, none on the requested rack or host
	ReasonBound   = "bound_not_reached" // fitting ones are in use, no user is in debt beyond the bound
	ReasonBusy    = "busy"              // fitting ones are in use by the requester or under notice
	ReasonGarbo   = "garbo"             // a Garbo application asked for others' containers
	ReasonTimeout = "timeout"           // the budget ran out before the request was examined
)

// choice is a candidate container for one grant.
type choice struct {
	c       int
	score   float64
	preempt string // "", KindReclaim or KindTakeover
}

// round is one decision round's output as it is built.
type round struct {
	grants    []Grant
	notices   []NoticeOut
	withdrawn []NoticeOut
	pending   []Pending
}

// decide runs one round: due notices complete, then the requests in
// priority order (highest first, ties by request order) each take up to
// their count of containers.
func (m *Model) decide(ctx context.Context) (*round, bool) {
	rd := &round{}
	n := len(m.apps)
	m.cache = cache{eligStamp: make([]int, n), pairStamp: make([]int, n), elig: make([]bool, n),
		debt: make([]float64, n), slope: make([]float64, n)}
	m.completeNotices(rd)
	m.buildClasses()
	for i := range m.asks {
		m.claim(&m.asks[i], 1)
	}
	order := make([]int, len(m.asks))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return m.asks[b].prio - m.asks[a].prio })
	for at, i := range order {
		if ctx.Err() != nil {
			for _, j := range order[at:] {
				a := &m.asks[j]
				rd.pending = append(rd.pending, Pending{Request: a.id, App: m.apps[a.app].name, Remaining: a.count, Reason: ReasonTimeout})
			}
			return rd, false
		}
		m.serve(&m.asks[i], rd)
	}
	return rd, true
}

// completeNotices hands over every container under notice whose deadline
// has come or whose user released it: the kill after the grace period.
func (m *Model) completeNotices(rd *round) {
	for i := range m.conts {
		c := &m.conts[i]
		if c.notice == nil || (c.user >= 0 && c.notice.deadline > m.now) {
			continue
		}
		nt := c.notice
		from := ""
		if c.user >= 0 {
			from = m.apps[c.user].name
		}
		c.notice = nil
		if c.user >= 0 {
			m.handOver(c, nt.app)
		} else {
			m.setUser(c, nt.app)
		}
		c.prio = nt.prio
		rd.grants = append(rd.grants, m.grant(nt.request, nt.app, i, KindPreempted, from))
	}
}

// serve grants a up to its count, one container at a time.
func (m *Model) serve(a *ask, rd *round) {
	m.cache.eligNow++
	defer m.claim(a, -1)
	for k := range a.count {
		ch, ok := m.pick(a)
		if !ok {
			rd.pending = append(rd.pending, Pending{Request: a.id, App: m.apps[a.app].name, Remaining: a.count - k, Reason: m.diagnose(a)})
			return
		}
		m.apply(a, ch, rd)
	}
}

// claim adds d to the claims of a on its own classes (reading lending
// owner_first): on those that fit it and hold a free container on its
// host or rack (claims: their free containers are not lent), and on all
// that fit it (wants: their containers in a borrower's use are not taken
// over, the owner is about to take them back), while a is not yet served
// in the round. Garbo applications never lend, and non_owned requests
// do not use their own containers, so they claim nothing. The classes
// are chosen at the round's start (d = 1) and kept in a.claimed and
// a.wanted for the withdrawal after a is served.
func (m *Model) claim(a *ask, d int) {
	if m.settings.byPriority || a.typ == NonOwned || m.apps[a.app].garbo {
		return
	}
	if d > 0 {
		a.claimed, a.wanted = a.claimed[:0], a.wanted[:0]
		for _, j := range m.fitting(a) {
			if k := &m.classes[j]; k.owner == a.app {
				a.wanted = append(a.wanted, j)
				if m.freeFor(a, k) {
					a.claimed = append(a.claimed, j)
				}
			}
		}
	}
	for _, j := range a.claimed {
		m.classes[j].claims += d
	}
	for _, j := range a.wanted {
		m.classes[j].wants += d
	}
}

// freeFor says whether class k has a free container located for a. It
// moves the class's cursor past containers in use first (none becomes
// free within a round), so a round's claims scan each class's busy
// prefix once.
func (m *Model) freeFor(a *ask, k *class) bool {
	for k.cursor < len(k.members) && !m.conts[k.members[k.cursor]].free() {
		k.cursor++
	}
	for _, i := range k.members[k.cursor:] {
		if c := &m.conts[i]; c.free() && m.located(a, c) {
			return true
		}
	}
	return false
}

// pick runs the request type's steps in order and returns the first
// step's best container.
func (m *Model) pick(a *ask) (choice, bool) {
	own := func(o int) bool { return o == a.app }
	others := func(o int) bool { return o != a.app && !m.apps[o].garbo }
	steps := []func() (choice, bool){
		func() (choice, bool) { return m.best(a, own, false, "") },
		func() (choice, bool) { return m.best(a, others, true, "") },
		func() (choice, bool) { return m.best(a, own, false, KindReclaim) },
		func() (choice, bool) { return m.best(a, others, true, KindTakeover) },
	}
	var use []int
	switch {
	case a.typ == OwnedOnly || m.apps[a.app].garbo:
		use = []int{0, 2}
	case a.typ == NonOwned:
		use = []int{1, 3}
	default:
		use = []int{0, 1, 2, 3}
	}
	if m.apps[a.app].garbo && a.typ == NonOwned {
		return choice{}, false
	}
	for _, s := range use {
		if ch, ok := steps[s](); ok {
			return ch, true
		}
	}
	return choice{}, false
}

// best is the step's choice: the best candidate among the classes in
// scope (free ones when preempt is "", else in use by an application
// that may be preempted).
func (m *Model) best(a *ask, scope func(owner int) bool, ttl bool, preempt string) (choice, bool) {
	return m.bestIn(a, m.rank(a, scope, ttl), preempt)
}

// available says whether c may serve a now: free when not preempting;
// when preempting, used by another application that may be preempted
// (eligible, or a borrower giving back on demand), neither a takeover of
// its user's own container (reading takeover borrowed_only) or of one
// its owner wants back in this round (lending owner_first) nor held (the
// hand-over hold).
func (m *Model) available(a *ask, c *cont, preempt string) bool {
	switch {
	case preempt == "":
		return c.user < 0
	case c.user < 0 || c.user == a.app || c.fresh:
		return false
	case preempt == KindTakeover && (c.user == c.owner && !m.settings.ownedToo || m.classes[c.class].wants > 0):
		return false
	case m.held(c, a.app):
		return false
	case preempt == KindReclaim && m.onDemand(c.user, a.app):
		return true
	}
	return m.eligibleCached(c.user, a.app)
}

// onDemand says whether the owner r takes its containers back from u
// whatever u's debt: their pair bound is 0 (reading zero_bound
// on_demand; "applications with sharing bounds of 0 can borrow
// containers at times. They simply have to give the containers back on
// demand").
func (m *Model) onDemand(u, r int) bool {
	return !m.settings.inDebt && !m.apps[u].garbo && !m.apps[r].garbo && m.bound(u, r) == 0
}

// held says whether the hand-over hold keeps c from moving between its
// user and r: c's last preemption since it was free was between those
// two, less than holdTime ago, and their pair context has moved less
// than c's charge rate times holdTime since.
func (m *Model) held(c *cont, r int) bool {
	h := c.hold
	if m.settings.noHold || h == nil || !(h.from == r && h.to == c.user || h.from == c.user && h.to == r) {
		return false
	}
	if m.now-h.at >= m.settings.holdTime {
		return false
	}
	return math.Abs(m.debt(h.from, h.to)-h.debt) < c.charge*m.settings.holdTime
}

// handOver moves c from its user to r by preemption and records the
// hand-over for the hold.
func (m *Model) handOver(c *cont, r int) {
	from := c.user
	m.setUser(c, r)
	c.hold = &handover{from: from, to: r, at: m.now, debt: m.debt(from, r)}
}

// eligibleCached is eligible(u, r) for the current ask's requester r.
func (m *Model) eligibleCached(u, r int) bool {
	k := &m.cache
	if k.eligStamp[u] != k.eligNow {
		k.eligStamp[u], k.elig[u] = k.eligNow, m.eligible(u, r)
	}
	return k.elig[u]
}

// eligible: the user u may be preempted by r when u's newShareProjection
// toward r (its debt) is positive and at least Δ_ur.
func (m *Model) eligible(u, r int) bool {
	if m.apps[u].garbo || m.apps[r].garbo {
		return false
	}
	d := m.debt(u, r)
	return d > 0 && d >= m.bound(u, r)
}

// ttlTerm is the weighted TTL projection of r borrowing c:
// (Δ − newShareProjection)/newSlopeProjection, clipped to [0, horizon]
// (a slope that does not grow the debt never reaches the bound: horizon).
func (m *Model) ttlTerm(r, owner int, charge float64) float64 {
	st, k := m.settings, &m.cache
	if k.pairStamp[owner] != k.pairNow {
		k.pairStamp[owner] = k.pairNow
		k.debt[owner], k.slope[owner] = m.debt(r, owner), m.slopeOf(r, owner)
	}
	share := k.debt[owner]
	slope := k.slope[owner] + charge
	ttl := st.ttlHorizon
	if slope > 0 {
		ttl = min(max((m.bound(r, owner)-share)/slope, 0), st.ttlHorizon)
	}
	return st.ttlWeight * ttl / st.ttlHorizon
}

// apply grants the chosen container, or sends its user a notice. A
// reclaim of a container under another application's notice (redirects)
// withdraws that notice and keeps its deadline.
func (m *Model) apply(a *ask, ch choice, rd *round) {
	c := &m.conts[ch.c]
	deadline := m.now + m.settings.grace
	if old := c.notice; old != nil {
		rd.withdrawn = append(rd.withdrawn, m.noticeOut(c, old, KindTakeover))
		deadline = min(deadline, old.deadline)
		c.notice = nil
	}
	switch {
	case ch.preempt == "":
		kind := KindOwned
		if c.owner != a.app {
			kind = KindBorrowed
		}
		m.setUser(c, a.app)
		c.prio = a.pprio
		rd.grants = append(rd.grants, m.grant(a.id, a.app, ch.c, kind, ""))
	case deadline <= m.now:
		from := m.apps[c.user].name
		m.handOver(c, a.app)
		c.prio = a.pprio
		rd.grants = append(rd.grants, m.grant(a.id, a.app, ch.c, KindPreempted, from))
	default:
		c.notice = &notice{app: a.app, request: a.id, deadline: deadline, prio: a.pprio, kind: ch.preempt}
		rd.notices = append(rd.notices, m.noticeOut(c, c.notice, ch.preempt))
	}
}

// redirects says whether the owner's reclaim a may take c although it is
// under notice: the notice is another application's takeover (reading
// lending owner_first; the owner's claim comes first, so an owner never
// waits for a takeover in flight on its container and then a grace
// period more).
func (m *Model) redirects(a *ask, c *cont, preempt string) bool {
	return preempt == KindReclaim && !m.settings.byPriority && c.owner == a.app && c.notice.app != a.app
}

// noticeOut is the wire form of notice nt on c.
func (m *Model) noticeOut(c *cont, nt *notice, kind string) NoticeOut {
	if nt.kind != "" {
		kind = nt.kind
	}
	return NoticeOut{Container: c.id, Node: m.nodes[c.node].name, Owner: m.apps[c.owner].name, User: m.apps[c.user].name,
		App: m.apps[nt.app].name, Request: nt.request, Deadline: nt.deadline, Kind: kind, PreemptionPriority: nt.prio}
}

func (m *Model) grant(req string, app, ci int, kind, from string) Grant {
	c := &m.conts[ci]
	return Grant{Request: req, App: m.apps[app].name, Container: c.id, Node: m.nodes[c.node].name,
		Owner: m.apps[c.owner].name, Kind: kind, From: from, PreemptionPriority: c.prio}
}

// diagnose says why a is left (partly) pending, looking at the
// containers its type could ever use.
func (m *Model) diagnose(a *ask) string {
	garbo := m.apps[a.app].garbo
	if garbo && a.typ == NonOwned {
		return ReasonGarbo
	}
	ownOnly := garbo || a.typ == OwnedOnly
	scope := func(o int) bool {
		mine := o == a.app
		return !((ownOnly && !mine) || (a.typ == NonOwned && mine) || (!mine && m.apps[o].garbo))
	}
	rk := m.rank(a, scope, false)
	if len(rk) == 0 {
		return ReasonNoFit
	}
	located := false
	for _, r := range rk {
		for _, i := range m.classes[r.class].members {
			c := &m.conts[i]
			if !m.located(a, c) {
				continue
			}
			located = true
			if c.notice == nil && c.user >= 0 && c.user != a.app {
				return ReasonBound
			}
		}
	}
	if !located {
		return ReasonLocal
	}
	return ReasonBusy
}
