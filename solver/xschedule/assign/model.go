package assign

// Request types and application modes (wire names).
const (
	OwnedOnly  = "owned_only"
	OwnedFirst = "owned_first"
	NonOwned   = "non_owned"
	ModeShare  = "share"
	ModeGarbo  = "garbo"
)

// Model is a checked round: indices instead of names, normalised sizes
// and charge rates, Δ per pair, and the mutable state (users, notices,
// pair contexts) the round changes. The simulator drives the same model
// event by event.
type Model struct {
	now      float64
	settings settings
	nodes    []node
	apps     []app
	conts    []cont
	asks     []ask
	// pairs holds the context of every pair that has one, keyed by app
	// indices (lower first); missing pairs are all zero (the paper's
	// initial state).
	pairs map[[2]int]*pairCtx
	cache cache
	// classes group the containers by owner and size (classes.go);
	// rankBuf is rank's reused buffer.
	classes []class
	rankBuf []ranked
	// rescan lists the classes fitting a request at every scan instead
	// of keeping the list (ask.fit): only the test that checks keeping
	// it changes nothing sets it.
	rescan bool
	// index keeps the name lookups and totals for asks made after
	// Build (Prepare).
	index index
}

// index is what Build learnt of names and capacities.
type index struct {
	apps, nodes map[string]int
	racks       map[string]bool
	totals      []float64
	// largest holds the undominated container sizes (checkAskSize),
	// made on first use.
	largest [][]float64
}

// cache holds per-application values a scan reuses, valid while their
// stamp equals the current one: eligibility toward the current requester
// (debts at now do not change within a round) and the requester's debt
// and slope toward each owner (valid for one scan).
type cache struct {
	eligStamp, pairStamp []int
	elig                 []bool
	debt, slope          []float64
	eligNow, pairNow     int
}

type settings struct {
	fitness, ttlWeight, ttlHorizon, grace, holdTime float64
	// The readings (Readings), true for the literal one.
	ownedToo, inDebt, noHold, byPriority bool
}

type node struct {
	name, rack string
	capacity   []float64
}

type app struct {
	name  string
	garbo bool
	// delta is δ_A; deltas holds the per-peer δ_AB by peer index.
	delta  float64
	deltas map[int]float64
}

type cont struct {
	id    string
	node  int
	size  []float64
	owner int
	user  int // -1 when free
	prio  int // preemption priority of its user's request
	// norm is Σ size/total (the fitness measure); charge is the charge
	// rate per unit time (norm, or Σ size·price).
	norm, charge float64
	notice       *notice
	// fresh marks a container that changed hands in this round: it is
	// not preempted again in the same round.
	fresh bool
	// class is the index of its class (owner and size) in Model.classes.
	class int
	// hold is the container's last preemption since it was last free
	// (nil: none), which the hand-over hold reads.
	hold *handover
}

// handover is a preemption of a container from one application to
// another at time at, when from's debt to to was debt.
type handover struct {
	from, to int
	at, debt float64
}

type notice struct {
	app      int
	request  string
	deadline float64
	prio     int
	// kind is reclaim or takeover; "" for a notice of the input, whose
	// kind is that of the preemption replacing it (see noticeOut).
	kind string
}

type ask struct {
	index int
	id    string
	app   int
	count int
	size  []float64
	norm  float64
	prio  int
	pprio int
	rack  string
	host  int // node index, -1 when any
	typ   string
	// claimed and wanted list the classes the request claims in the
	// round (Model.claim).
	claimed, wanted []int
	// fit, shared by the copies of one prepared request (a simulator's
	// rounds copy it), holds the classes whose size serves it once a
	// round has listed them (Model.fitting): classes and sizes never
	// change, so later rounds scan only those.
	fit *fitList
}

// fitList is the classes, ascending, whose size serves a request (every
// dimension and fitness, Model.fits); done once they are listed.
type fitList struct {
	done    bool
	classes []int
}

// pairCtx is the pair (a, b) context, a < b: share is how far b is in
// debt to a at time, slope its rate of change.
type pairCtx struct {
	share, slope, time float64
}

// bound is Δ_ij = min(δ_ij, δ_ji).
func (m *Model) bound(i, j int) float64 {
	return min(m.apps[i].deltaTo(j), m.apps[j].deltaTo(i))
}

func (a *app) deltaTo(j int) float64 {
	if d, ok := a.deltas[j]; ok {
		return d
	}
	return a.delta
}

// pair returns the context of (i, j), creating a zero one, and the sign
// that turns its share into j's debt to i (+1 when i is the pair's a).
func (m *Model) pair(i, j int) (*pairCtx, float64) {
	key, sign := [2]int{i, j}, 1.0
	if j < i {
		key, sign = [2]int{j, i}, -1
	}
	p := m.pairs[key]
	if p == nil {
		p = &pairCtx{time: m.now}
		m.pairs[key] = p
	}
	return p, sign
}

// debt is newShareProjection: how far u is in debt to o now,
// lastShare + lastSlope·(now − lastCalcTime) from u's side.
func (m *Model) debt(u, o int) float64 {
	key, sign := [2]int{o, u}, 1.0
	if u < o {
		key, sign = [2]int{u, o}, -1
	}
	p := m.pairs[key]
	if p == nil {
		return 0
	}
	return sign * (p.share + p.slope*(m.now-p.time))
}

// slopeOf is the rate at which u's debt to o grows now.
func (m *Model) slopeOf(u, o int) float64 {
	key, sign := [2]int{o, u}, 1.0
	if u < o {
		key, sign = [2]int{u, o}, -1
	}
	if p := m.pairs[key]; p != nil {
		return sign * p.slope
	}
	return 0
}

// setUser moves c to user u (-1 frees it), bringing the contexts of the
// pairs it leaves and joins up to now and moving their slopes by its
// charge rate.
func (m *Model) setUser(c *cont, u int) {
	if c.user >= 0 && c.user != c.owner {
		m.shiftSlope(c.owner, c.user, -c.charge)
	}
	c.user, c.fresh = u, true
	if u < 0 {
		c.hold = nil
	}
	if u >= 0 && u != c.owner {
		m.shiftSlope(c.owner, u, c.charge)
	}
}

// shiftSlope updates the (o, u) context at now: the share is extrapolated
// and u's debt slope to o moves by d.
func (m *Model) shiftSlope(o, u int, d float64) {
	p, sign := m.pair(o, u)
	p.share += p.slope * (m.now - p.time)
	p.time = m.now
	p.slope += sign * d
}

// normalize is Σ size/total over the resources with a positive total.
func normalize(size, totals []float64) float64 {
	s := 0.0
	for r, x := range size {
		if totals[r] > 0 {
			s += x / totals[r]
		}
	}
	return s
}

// FitsDims reports whether have is at least want in every dimension
// (xschedule-simulate's DRF baseline places with it too).
func FitsDims(have, want []float64) bool {
	for r, w := range want {
		if have[r] < w {
			return false
		}
	}
	return true
}
