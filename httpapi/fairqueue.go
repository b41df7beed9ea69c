package httpapi

import (
	"container/list"
	"context"
	"sync"
)

// fairQueue is a weighted semaphore shared fairly among tenants (issue
// 16): the solve slots (one unit a solve) and the memory budget (bytes)
// are each one. When units are free and several tenants wait, the next
// grant goes to the waiting tenant that holds the fewest units now, ties
// to the one whose oldest request has waited longest; within a tenant
// requests are served first come, first served. So a tenant flooding the
// server cannot starve another: the other's request is next as soon as
// units free, however many the flooder has queued.
//
// It is work-conserving: a lone tenant may hold every unit, unless
// perTenant caps what one tenant holds. A request larger than the free
// units blocks the ones ranked after it (as golang.org/x/sync/semaphore
// does), so a large request is never starved by a stream of small ones.
// Without tenants (everyone is `local`) it is a FIFO semaphore.
type fairQueue struct {
	capacity  int64
	perTenant int64 // most units one tenant may hold

	mu       sync.Mutex
	free     int64
	tenants  map[string]*tenantShare // tenants holding or waiting for units
	waiters  int                     // requests queued, all tenants
	arrivals uint64                  // numbers the requests in order of arrival
}

// tenantShare is what one tenant holds and its queue.
type tenantShare struct {
	held  int64
	queue list.List // of *waiter, oldest first
}

// waiter is one request for units.
type waiter struct {
	tenant  string
	n       int64
	arrival uint64
	elem    *list.Element // in its tenant's queue while it waits
	ready   chan struct{} // closed once granted
	granted bool
}

// newFairQueue returns a queue of capacity units of which one tenant may
// hold perTenant at most (perTenant <= 0 or above capacity: capacity).
func newFairQueue(capacity, perTenant int64) *fairQueue {
	if perTenant <= 0 || perTenant > capacity {
		perTenant = capacity
	}
	return &fairQueue{capacity: capacity, perTenant: perTenant, free: capacity, tenants: map[string]*tenantShare{}}
}

// acquire obtains n units (1 <= n <= perTenant) for tenant, waiting its
// turn until ctx ends. Units that can be granted at once are, even when
// ctx has already ended. On ctx's end it returns ctx.Err() and holds
// nothing.
func (q *fairQueue) acquire(ctx context.Context, tenant string, n int64) error {
	return q.acquireAt(ctx, tenant, n, false)
}

// acquireFirst is acquire ahead of the tenant's other requests (after
// any earlier acquireFirst of its), and ranked as its oldest: for a
// request that already waited its turn once and had to give its units
// back (admission's topUp), so that requests arriving after it cannot
// take the units it waits for first.
func (q *fairQueue) acquireFirst(ctx context.Context, tenant string, n int64) error {
	return q.acquireAt(ctx, tenant, n, true)
}

func (q *fairQueue) acquireAt(ctx context.Context, tenant string, n int64, first bool) error {
	w, granted := q.enqueueAt(tenant, n, first)
	if granted {
		return nil
	}
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		q.cancel(w)
		return ctx.Err()
	}
}

// enqueue queues a request and grants what can be granted, the request
// itself included if it can be (then granted is true).
func (q *fairQueue) enqueue(tenant string, n int64) (w *waiter, granted bool) {
	return q.enqueueAt(tenant, n, false)
}

// enqueueAt is enqueue, with first: ahead of the tenant's requests that
// are not first, ranked with arrival 0.
func (q *fairQueue) enqueueAt(tenant string, n int64, first bool) (w *waiter, granted bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := q.tenants[tenant]
	if s == nil {
		s = &tenantShare{}
		q.tenants[tenant] = s
	}
	q.arrivals++
	w = &waiter{tenant: tenant, n: n, arrival: q.arrivals, ready: make(chan struct{})}
	if first {
		w.arrival = 0
		e := s.queue.Front()
		for e != nil && e.Value.(*waiter).arrival == 0 {
			e = e.Next()
		}
		if e == nil {
			w.elem = s.queue.PushBack(w)
		} else {
			w.elem = s.queue.InsertBefore(w, e)
		}
	} else {
		w.elem = s.queue.PushBack(w)
	}
	q.waiters++
	q.dispatch()
	return w, w.granted
}

// cancel withdraws a waiter whose wait ended: out of its queue, or, if it
// was granted meanwhile, its units handed back.
func (q *fairQueue) cancel(w *waiter) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if w.granted {
		q.releaseLocked(w.tenant, w.n)
		return
	}
	s := q.tenants[w.tenant]
	s.queue.Remove(w.elem)
	q.waiters--
	q.forget(w.tenant, s)
	q.dispatch() // w may have been blocking the requests ranked after it
}

// release gives back n units tenant holds.
func (q *fairQueue) release(tenant string, n int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.releaseLocked(tenant, n)
}

func (q *fairQueue) releaseLocked(tenant string, n int64) {
	s := q.tenants[tenant]
	s.held -= n
	q.free += n
	q.forget(tenant, s)
	q.dispatch()
}

// forget drops a tenant that holds nothing and waits for nothing, so the
// map does not grow with every tenant ever seen.
func (q *fairQueue) forget(tenant string, s *tenantShare) {
	if s.held == 0 && s.queue.Len() == 0 {
		delete(q.tenants, tenant)
	}
}

// dispatch grants units to the waiters in turn (see next) while the one
// whose turn it is fits in the free units.
func (q *fairQueue) dispatch() {
	for {
		s := q.next()
		if s == nil {
			return
		}
		w := s.queue.Front().Value.(*waiter)
		if w.n > q.free {
			return
		}
		s.queue.Remove(w.elem)
		q.waiters--
		s.held += w.n
		q.free -= w.n
		w.granted = true
		close(w.ready)
	}
}

// next is the tenant whose oldest request is served next: among the
// tenants with a request that their perTenant cap allows, the one holding
// the fewest units, ties to the oldest request (arrival numbers are
// unique, so the choice does not depend on map order). Nil if none.
func (q *fairQueue) next() *tenantShare {
	var best *tenantShare
	var bestArrival uint64
	for _, s := range q.tenants {
		if s.queue.Len() == 0 {
			continue
		}
		head := s.queue.Front().Value.(*waiter)
		if s.held+head.n > q.perTenant {
			continue
		}
		if best == nil || s.held < best.held || (s.held == best.held && head.arrival < bestArrival) {
			best, bestArrival = s, head.arrival
		}
	}
	return best
}

// waiting is the number of requests queued.
func (q *fairQueue) waiting() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.waiters
}

// inUse is the number of units held.
func (q *fairQueue) inUse() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.capacity - q.free
}
