package httpapi

import (
	"context"
	"errors"
	"io"
	"math"
	"runtime/debug"
	"strconv"
	"sync"
	"time"
)

// MemoryPerBodyByte is the memory a request is charged per byte of body:
// the body itself, its decoded document (schema validation), the solver's
// typed request and the encoded response. Measured with `xflex solve` on
// a 9.6 MB tetris/assign request: 128 MB peak RSS against 37 MB for an
// empty one, 9.5 bytes per body byte (GC headroom included); rounded up.
const MemoryPerBodyByte = 10

// chunkedStep is how much body a chunked (no Content-Length) request
// reserves at a time as it is read.
const chunkedStep = 1 << 20

// Retry-After bounds, in seconds: at least one second (the header's
// resolution), at most a minute so a client is never parked for long on
// an estimate from a burst of slow solves.
const (
	minRetryAfter = 1
	maxRetryAfter = 60
)

// solveTimeWeight is the weight of the newest slot hold time in the
// moving average Retry-After is derived from: about the last ten solves
// count.
const solveTimeWeight = 0.2

// freeInterval is the shortest time between two returns of memory to the
// OS. A return happens once no request holds memory and at least half the
// budget was reserved since the last one: debug.FreeOSMemory, in the
// background. Go's own scavenger hands idle memory back only gradually
// (minutes for gigabytes); a return costs one garbage collection.
const freeInterval = 2 * time.Second

// errOverloaded is returned when a slot or memory could not be had within
// the queue wait.
var errOverloaded = errors.New("overloaded")

// admission holds the server's memory budget and solve slots. A request
// first reserves its share of the memory budget, MemoryPerBodyByte times
// its body (its Content-Length, or, for a chunked body, in steps as it is
// read), and only then is its body read; then it waits for a solve slot.
// The reservation is held until the response is written, so the bodies,
// decoded documents and responses of all requests in flight, waiting or
// solving, together stay near MaxInflightBytes whatever the number of
// clients. A request waiting for memory holds nothing but its headers (a
// client that sent "Expect: 100-continue", as curl does for large
// bodies, has not even sent its body yet: Go answers 100 Continue only on
// the first body read), and a request refused with 503 there was never
// buffered. A single request larger than the whole budget reserves the
// whole budget (it runs alone rather than never).
//
// Both the memory and the slots are shared fairly among tenants
// (fairQueue, issue 16): whatever one tenant has queued, a request of a
// tenant holding less gets the next memory that frees and then the next
// slot. Memory has to be fair too, not only slots: a tenant flooding
// large bodies otherwise holds the whole budget with requests queued for
// slots, and the others get 503 before they reach the slot queue. A
// tenant may hold at most Config.MaxConcurrentPerTenant slots; memory
// has no per-tenant cap (fair order suffices, and a cap would refuse a
// lone tenant's largest bodies).
//
// Memory before the slot, not the other way round: the few requests the
// budget admits beyond the slots upload and buffer their bodies while
// others solve, so a slot never idles while a body arrives (from a slow
// client, up to Config.ReadBodyTimeout).
//
// A body's charge bounds nothing when a solve's memory grows with numbers
// in the body (a 155-byte fairshare request simulates 10^6 server copies
// in 116 MB; docs/MEMORY.md). Problems estimate their memory from the
// built request (solver.Typed.Memory), and the solve tops its
// reservation up to the estimate (ticket.topUp, the request's
// solver.MemoryGate) before it starts. When it has to wait for that
// memory it gives back its slot and memory and waits holding nothing, so
// no wait here holds what another waits for.
type admission struct {
	slots  *fairQueue // solve slots, a unit each
	memory *fairQueue // the memory budget, in bytes
	budget int64
	wait   time.Duration

	mu        sync.Mutex
	holdEWMA  time.Duration // moving average of how long a slot is held
	inflight  int64         // bytes reserved now
	bodies    int64         // bytes of bodies read and held now
	burst     int64         // bytes reserved since memory was last returned
	lastFree  time.Time
	freeOSMem func()           // debug.FreeOSMemory; tests count calls
	now       func() time.Time // clock of hold times and returns; tests set it
}

func newAdmission(cfg Config) *admission {
	return &admission{
		slots:     newFairQueue(int64(cfg.MaxConcurrent), int64(cfg.MaxConcurrentPerTenant)),
		memory:    newFairQueue(cfg.MaxInflightBytes, 0),
		budget:    cfg.MaxInflightBytes,
		wait:      cfg.QueueWait,
		freeOSMem: debug.FreeOSMemory,
		now:       time.Now,
	}
}

// ticket is one admitted request's memory reservation and solve slot.
type ticket struct {
	a        *admission
	tenant   string    // whose share the memory and slot count in
	deadline time.Time // end of the wait for memory
	reserved int64     // memory held
	body     int64     // bytes of body read and held (holdBody)
	slot     bool      // a solve slot is held
	start    time.Time // when the slot was taken
}

// admit waits until ctx ends or the queue wait passes for
// MemoryPerBodyByte*bodyLen of memory (bodyLen < 0: unknown, the body
// reserves as it is read). It returns errOverloaded when the memory
// cannot be had in time, ctx.Err() when the client left.
func (a *admission) admit(ctx context.Context, bodyLen int64) (*ticket, error) {
	t := &ticket{a: a, tenant: PrincipalOf(ctx).Tenant, deadline: time.Now().Add(a.wait)}
	if bodyLen > 0 {
		if err := t.reserve(ctx, satMul(bodyLen, MemoryPerBodyByte)); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// takeSlot waits for a solve slot, for the queue wait at most.
func (t *ticket) takeSlot(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, t.a.wait)
	defer cancel()
	if err := t.a.slots.acquire(ctx, t.tenant, 1); err != nil {
		return overloadedOr(ctx)
	}
	t.slot, t.start = true, t.a.now()
	return nil
}

// overloadedOr tells a client that left (its context's error) from a wait
// that ran out (errOverloaded), once a wait under ctx has ended.
func overloadedOr(ctx context.Context) error {
	if errors.Is(context.Cause(ctx), context.Canceled) {
		return context.Canceled
	}
	return errOverloaded
}

// topUp is the ticket's solver.MemoryGate: it raises the ticket's
// reservation to total bytes, the solve's estimate, when its body's
// charge is less. Memory free at once is taken at once. Otherwise the
// request waits holding nothing, neither its memory nor its slot, for
// the total (a new queue wait) and then for a slot again: a request that
// waited for memory while holding either would deadlock with another
// doing the same (two estimates of half the budget each, or a slot held
// against memory held by requests waiting for slots), until both got 503.
// It waits ahead of the requests that have not had their turn
// (reserveFirst, takeSlotFirst), which it had already.
// Like a body, an estimate above the whole budget reserves the whole
// budget: the request runs alone.
func (t *ticket) topUp(ctx context.Context, total int64) error {
	want := min(total, t.a.budget)
	if want <= t.reserved {
		return nil
	}
	now, cancel := context.WithCancel(ctx)
	cancel() // acquire still grants what is free at once
	if t.a.memory.acquire(now, t.tenant, want-t.reserved) == nil {
		t.hold(want - t.reserved)
		return nil
	}
	t.putBack()
	t.deadline = time.Now().Add(t.a.wait)
	if err := t.reserveFirst(ctx, want); err != nil {
		return err
	}
	return t.takeSlotFirst(ctx)
}

// reserveFirst is reserve from nothing held, ahead of the requests that
// have not yet had their turn (fairQueue.acquireFirst): topUp's wait.
// Queued behind them, a request that had read and built its body gave
// way to new bodies, which read and built theirs and gave way in turn
// until the queue wait ran out: 100 clients posting a 10.9 MB
// tetris/assign body (charge 109 MB, estimate 251 MB, budget 512 MiB)
// finished 8 solves in 15 s where 8 clients finished 78 (issue 28).
func (t *ticket) reserveFirst(ctx context.Context, n int64) error {
	ctx, cancel := context.WithDeadline(ctx, t.deadline)
	defer cancel()
	if err := t.a.memory.acquireFirst(ctx, t.tenant, n); err != nil {
		return overloadedOr(ctx)
	}
	t.hold(n)
	return nil
}

// takeSlotFirst is takeSlot ahead of the requests that have not yet had
// a slot: the topped-up request holds its estimate while it waits.
func (t *ticket) takeSlotFirst(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, t.a.wait)
	defer cancel()
	if err := t.a.slots.acquireFirst(ctx, t.tenant, 1); err != nil {
		return overloadedOr(ctx)
	}
	t.slot, t.start = true, t.a.now()
	return nil
}

// putBack returns the ticket's memory and slot while it keeps its body
// (topUp's wait); the slot's short hold is not a solve time.
func (t *ticket) putBack() {
	a := t.a
	if t.reserved > 0 {
		a.memory.release(t.tenant, t.reserved)
	}
	if t.slot {
		a.slots.release(t.tenant, 1)
	}
	a.mu.Lock()
	a.inflight -= t.reserved
	a.mu.Unlock()
	t.reserved, t.slot = 0, false
}

// reserve adds n bytes of memory to the ticket, at most up to the whole
// budget, waiting until the ticket's deadline at most.
func (t *ticket) reserve(ctx context.Context, n int64) error {
	n = min(n, t.a.budget-t.reserved)
	if n <= 0 {
		return nil // the ticket already holds the whole budget
	}
	// Wait, but only until the queue wait's end: memory that can be had
	// at once is taken even after it (a chunked body still arriving).
	ctx, cancel := context.WithDeadline(ctx, t.deadline)
	defer cancel()
	if err := t.a.memory.acquire(ctx, t.tenant, n); err != nil {
		return overloadedOr(ctx)
	}
	t.hold(n)
	return nil
}

// hold counts n bytes of memory acquired for the ticket.
func (t *ticket) hold(n int64) {
	t.reserved += n
	t.a.mu.Lock()
	t.a.inflight += n
	t.a.burst += n
	t.a.mu.Unlock()
}

// holdBody counts the ticket's body, n bytes read, as held until release
// (the xflex_inflight_body_bytes gauge).
func (t *ticket) holdBody(n int) {
	t.body = int64(n)
	t.a.mu.Lock()
	t.a.bodies += t.body
	t.a.mu.Unlock()
}

// inflightBytes returns the bytes of bodies held and the memory reserved
// by the requests in flight.
func (a *admission) inflightBytes() (bodies, reserved int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.bodies, a.inflight
}

// satMul is a*b for non-negative a and b, saturating at MaxInt64.
func satMul(a, b int64) int64 {
	if b != 0 && a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// release returns the ticket's memory and slot, records how long the slot
// was held, and returns memory to the OS after a burst.
func (t *ticket) release() {
	a := t.a
	if t.reserved > 0 {
		a.memory.release(t.tenant, t.reserved)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if t.slot {
		a.slots.release(t.tenant, 1)
		held := a.now().Sub(t.start)
		if a.holdEWMA == 0 {
			a.holdEWMA = held
		} else {
			a.holdEWMA += time.Duration(solveTimeWeight * float64(held-a.holdEWMA))
		}
	}
	a.inflight -= t.reserved
	a.bodies -= t.body
	if a.inflight == 0 && a.burst >= a.budget/2 && a.now().Sub(a.lastFree) >= freeInterval {
		a.burst, a.lastFree = 0, a.now()
		go a.freeOSMem()
	}
}

// retryAfter estimates, in whole seconds, when a refused request could be
// admitted: the moving average slot hold time times the number of slot
// turnovers before a request behind the current waiters gets one
// (waiters/slots + 1), clamped to [minRetryAfter, maxRetryAfter]. Before
// any solve has finished it is minRetryAfter.
func (a *admission) retryAfter() string {
	a.mu.Lock()
	hold := a.holdEWMA
	a.mu.Unlock()
	waiting := a.memory.waiting() + a.slots.waiting()
	turns := int64(waiting)/a.slots.capacity + 1
	secs := math.Ceil(hold.Seconds() * float64(turns))
	return strconv.Itoa(int(min(max(secs, minRetryAfter), maxRetryAfter)))
}

// slotsTaken names, for a 503's detail, the solve slots that were taken:
// all of them, or as many as one tenant may hold.
func (a *admission) slotsTaken() string {
	all := "all " + strconv.FormatInt(a.slots.capacity, 10) + " solve slots"
	if a.slots.perTenant == a.slots.capacity {
		return all
	}
	return all + " or the " + strconv.FormatInt(a.slots.perTenant, 10) + " one tenant may hold"
}

// reservingReader reads a body of unknown length, reserving memory for it
// chunkedStep bytes ahead of what has been read.
type reservingReader struct {
	ctx  context.Context
	t    *ticket
	r    io.Reader
	read int64 // bytes read
	room int64 // bytes of body reserved
}

func (rr *reservingReader) Read(p []byte) (int, error) {
	if rr.read == rr.room {
		if err := rr.t.reserve(rr.ctx, chunkedStep*MemoryPerBodyByte); err != nil {
			return 0, err
		}
		rr.room += chunkedStep
	}
	p = p[:min(int64(len(p)), rr.room-rr.read)]
	n, err := rr.r.Read(p)
	rr.read += int64(n)
	return n, err
}
