package httpapi

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// granted reports whether w has been granted its units.
func granted(w *waiter) bool {
	select {
	case <-w.ready:
		return true
	default:
		return false
	}
}

// mustGrant enqueues a request that must be granted at once.
func mustGrant(t *testing.T, q *fairQueue, tenant string, n int64) {
	t.Helper()
	if _, ok := q.enqueue(tenant, n); !ok {
		t.Fatalf("%d units for %s not granted at once (%d free)", n, tenant, q.capacity-q.inUse())
	}
}

// queue enqueues k requests of n units for tenant that must wait.
func queue(t *testing.T, q *fairQueue, tenant string, n int64, k int) []*waiter {
	t.Helper()
	ws := make([]*waiter, k)
	for i := range ws {
		var ok bool
		if ws[i], ok = q.enqueue(tenant, n); ok {
			t.Fatalf("request %d of %s granted at once, want it queued", i, tenant)
		}
	}
	return ws
}

// wantGranted checks which of ws are granted.
func wantGranted(t *testing.T, what string, ws []*waiter, want ...bool) {
	t.Helper()
	for i, w := range ws {
		if granted(w) != want[i] {
			t.Fatalf("%s: request %d granted=%v, want %v", what, i, granted(w), want[i])
		}
	}
}

// TestFairQueueNextSlotToOtherTenant: tenant A holds every slot and has
// 20 more queued; tenant B's one request gets the next slot that frees,
// and A's queued requests then get theirs first come, first served.
func TestFairQueueNextSlotToOtherTenant(t *testing.T) {
	q := newFairQueue(2, 0)
	mustGrant(t, q, "A", 1)
	mustGrant(t, q, "A", 1)
	a := queue(t, q, "A", 1, 20)
	b := queue(t, q, "B", 1, 1)
	q.release("A", 1)
	wantGranted(t, "first release", append(a[:1:1], b[0]), false, true)
	for i := range a {
		q.release("A", 1)
		for j, w := range a {
			if granted(w) != (j <= i) {
				t.Fatalf("after %d more releases, A's request %d granted=%v: not first come, first served", i+1, j, granted(w))
			}
		}
	}
	if q.waiting() != 0 || q.inUse() != 2 {
		t.Fatalf("waiting %d, in use %d; want 0 and 2", q.waiting(), q.inUse())
	}
}

// TestFairQueueTieGoesToOldest: of two waiting tenants holding as many
// units, the one whose request came first is served first.
func TestFairQueueTieGoesToOldest(t *testing.T) {
	q := newFairQueue(3, 0)
	for _, tenant := range []string{"A", "B", "C"} {
		mustGrant(t, q, tenant, 1)
	}
	b := queue(t, q, "B", 1, 1)
	a := queue(t, q, "A", 1, 1)
	q.release("C", 1)
	wantGranted(t, "B came first", []*waiter{b[0], a[0]}, true, false)
	q.release("B", 1)
	wantGranted(t, "then A", a, true)
}

// TestFairQueuePerTenantCap: a tenant at its cap waits even with units
// free, while another tenant's request is granted at once; without a cap
// a lone tenant takes every unit (work-conserving).
func TestFairQueuePerTenantCap(t *testing.T) {
	q := newFairQueue(3, 2)
	mustGrant(t, q, "A", 1)
	mustGrant(t, q, "A", 1)
	a := queue(t, q, "A", 1, 1)
	mustGrant(t, q, "B", 1)
	q.release("B", 1)
	wantGranted(t, "A at its cap", a, false)
	q.release("A", 1)
	wantGranted(t, "A below its cap", a, true)

	lone := newFairQueue(3, 0)
	for range 3 {
		mustGrant(t, lone, "A", 1)
	}
}

// TestFairQueueLargeRequestNotStarved: weighted units (the memory
// budget): a large request whose turn it is blocks smaller ones ranked
// after it, even when they would fit, until enough units free.
func TestFairQueueLargeRequestNotStarved(t *testing.T) {
	q := newFairQueue(10, 0)
	mustGrant(t, q, "A", 8)
	b := queue(t, q, "B", 5, 1)
	a := queue(t, q, "A", 1, 1)
	wantGranted(t, "B's 5 units do not fit", []*waiter{b[0], a[0]}, false, false)
	q.release("A", 8)
	wantGranted(t, "once A's 8 are back", []*waiter{b[0], a[0]}, true, true)
	if q.inUse() != 6 {
		t.Fatalf("in use %d, want 6", q.inUse())
	}
}

// TestFairQueueCancel: a request whose wait ends leaves the queue and
// holds nothing (also when it was granted just as its wait ended), and a
// cancelled large request stops blocking the ones behind it.
func TestFairQueueCancel(t *testing.T) {
	q := newFairQueue(10, 0)
	mustGrant(t, q, "A", 8)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() { errc <- q.acquire(ctx, "B", 5) }()
	a := queueWhenWaiting(t, q, 1, "A", 1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled acquire returned %v", err)
	}
	wantGranted(t, "B's large request gone", a, true)
	if q.waiting() != 0 || q.inUse() != 9 {
		t.Fatalf("waiting %d, in use %d; want 0 and 9", q.waiting(), q.inUse())
	}

	// Granted and cancelled at once: the units go back.
	w := queue(t, q, "C", 2, 1)[0]
	q.release("A", 1)
	wantGranted(t, "C", []*waiter{w}, true)
	q.cancel(w)
	q.release("A", 8)
	if q.inUse() != 0 || len(q.tenants) != 0 {
		t.Fatalf("in use %d, tenants %v; want 0 and none", q.inUse(), q.tenants)
	}

	// A wait that has ended still takes units that are free at once.
	if err := q.acquire(ctx, "D", 10); err != nil {
		t.Fatalf("free units refused to an ended context: %v", err)
	}
}

// queueWhenWaiting waits until the queue holds `ahead` waiters (started by
// other goroutines), then queues k requests of n units for tenant.
func queueWhenWaiting(t *testing.T, q *fairQueue, ahead int, tenant string, n int64) []*waiter {
	t.Helper()
	for q.waiting() < ahead {
		time.Sleep(time.Millisecond) // a sequencing wait, bounded by the test timeout
	}
	return queue(t, q, tenant, n, 1)
}

// patience is the context of one wait in TestFairQueueConcurrent: a
// quarter give up at once (taking only a slot free at once), a quarter
// after up to 100 µs in the queue, half wait as long as it takes.
func patience(rng *rand.Rand) (context.Context, context.CancelFunc) {
	switch rng.IntN(4) {
	case 0:
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx, cancel
	case 1:
		return context.WithTimeout(context.Background(), time.Duration(rng.IntN(100))*time.Microsecond)
	default:
		return context.WithCancel(context.Background())
	}
}

// TestFairQueueConcurrent: many goroutines of several tenants acquire and
// release slots, some giving up early; no more than the capacity (nor
// the per-tenant cap) is ever held, and everything is given back.
// Run with -race.
func TestFairQueueConcurrent(t *testing.T) {
	const slots, perTenant, tenants, workers, rounds = 4, 3, 5, 40, 50
	q := newFairQueue(slots, perTenant)
	var total atomic.Int64
	var per [tenants]atomic.Int64
	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			tenant := g % tenants
			name := fmt.Sprint("t", tenant)
			for range rounds {
				ctx, cancel := patience(rng)
				err := q.acquire(ctx, name, 1)
				cancel()
				if err != nil {
					continue
				}
				if n := total.Add(1); n > slots {
					t.Errorf("%d slots held, capacity %d", n, slots)
				}
				if n := per[tenant].Add(1); n > perTenant {
					t.Errorf("tenant %s holds %d slots, cap %d", name, n, perTenant)
				}
				if rng.IntN(2) == 0 {
					time.Sleep(time.Duration(rng.IntN(50)) * time.Microsecond)
				}
				per[tenant].Add(-1)
				total.Add(-1)
				q.release(name, 1)
			}
		}()
	}
	wg.Wait()
	if q.inUse() != 0 || q.waiting() != 0 || len(q.tenants) != 0 {
		t.Fatalf("after all released: in use %d, waiting %d, tenants %d", q.inUse(), q.waiting(), len(q.tenants))
	}
}

// TestFairQueueFirstGoesAhead: a request queued first (admission's
// topUp, which had its turn once) is granted before the tenant's earlier
// requests, and two such requests keep their order; a tenant holding
// less still goes first (fairness is kept).
func TestFairQueueFirstGoesAhead(t *testing.T) {
	q := newFairQueue(10, 0)
	mustGrant(t, q, "A", 10)
	plain := queue(t, q, "A", 5, 2)
	first1, ok := q.enqueueAt("A", 5, true)
	if ok {
		t.Fatal("first request granted with nothing free")
	}
	first2, _ := q.enqueueAt("A", 5, true)
	q.release("A", 5)
	wantGranted(t, "after 5 free", []*waiter{first1, first2, plain[0], plain[1]}, true, false, false, false)
	q.release("A", 5)
	wantGranted(t, "after 10 free", []*waiter{first1, first2, plain[0], plain[1]}, true, true, false, false)

	q2 := newFairQueue(10, 0)
	mustGrant(t, q2, "A", 10)
	b := queue(t, q2, "B", 5, 1)
	a, _ := q2.enqueueAt("A", 5, true)
	q2.release("A", 5)
	wantGranted(t, "B holds less", []*waiter{b[0], a}, true, false)
}
