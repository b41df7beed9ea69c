package jobs

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// MaxWait caps GET /v1/jobs/{id}?wait=: a longer wait is cut to it, so a
// request never holds its connection (and a server draining for
// shutdown) for long.
const MaxWait = 60 * time.Second

// parseWait reads the wait query parameter: a Go duration ("30s",
// "1m", "250ms") or a whole number of seconds ("30"), at least 0, cut to
// MaxWait. Absent is 0 (no wait).
func parseWait(v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		n, nerr := strconv.ParseUint(v, 10, 32)
		if nerr != nil {
			return 0, fmt.Errorf("wait %q is not a duration (30s, 1m, 500ms) or a whole number of seconds", v)
		}
		d = time.Duration(n) * time.Second
	}
	if d < 0 {
		return 0, fmt.Errorf("wait %q is negative", v)
	}
	return min(d, MaxWait), nil
}

// changes wakes the requests waiting on a job when this replica changes
// one (a claim, a finish, a cancel): a change made here is seen at once,
// one made by another replica at the next poll of the store.
type changes struct {
	mu sync.Mutex
	ch chan struct{}
}

// next returns a channel closed at the next change.
func (c *changes) next() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		c.ch = make(chan struct{})
	}
	return c.ch
}

// notify wakes every waiter.
func (c *changes) notify() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch != nil {
		close(c.ch)
		c.ch = nil
	}
}

// awaitChange waits, for d at most, until job rec's state is no longer
// the one it has now, and returns the record as it then reads. A
// terminal job never changes, so it returns at once. Changes are seen
// at once when made on this replica and within the poll interval
// (--job-poll) when made by another; the wait also ends when the
// request's context does or the server starts draining (drain).
func (s *Service) awaitChange(ctx context.Context, rec record, d time.Duration, drain <-chan struct{}) (record, error) {
	if d <= 0 || rec.State.Terminal() {
		return rec, nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	tick := time.NewTicker(s.cfg.PollInterval)
	defer tick.Stop()
	from := rec.State
	for {
		// Listen before reading, so a change between the read and the
		// select still wakes this wait.
		woken := s.changed.next()
		cur, err := s.st.get(ctx, rec.ID)
		switch {
		case ctx.Err() != nil:
			return rec, nil
		case err != nil:
			return rec, err
		}
		if rec = cur; rec.State != from {
			return rec, nil
		}
		select {
		case <-ctx.Done():
			return rec, nil
		case <-drain:
			return rec, nil
		case <-timer.C:
			return rec, nil
		case <-woken:
		case <-tick.C:
		}
	}
}
