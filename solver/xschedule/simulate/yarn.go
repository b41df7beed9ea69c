package simulate

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"

	"github.com/xflex/xflex/solver/xschedule/assign"
)

// yarn is a YARN ResourceManager scheduler as the X-Flex paper measured
// it, seen from one leaf queue: YARN's Fair Scheduler with the DRF
// policy (the paper's "DRF", baseline yarn_fair) or its Capacity
// Scheduler with FIFO ordering (yarn_capacity). Unlike drf (a global
// best fit over every node each round), it serves one node at a time,
// as the node heartbeats, and models what hadoop's code does there:
//
//   - Heartbeats. Every round (the heartbeat interval) each node
//     heartbeats once, in a rotating order (the first node moves on by
//     one every round) or a seeded random order ("jitter"); YARN's
//     NodeManagers heartbeat every second by default
//     (yarn.resourcemanager.nodemanagers.heartbeat-interval-ms 1000).
//   - Order. Fair (FSLeafQueue.assignContainer sorting its runnable apps
//     with the DRF comparator): users with demand by dominant share,
//     lowest first, ties by start time (the user's first ask), then
//     name. Capacity (LeafQueue with the FIFO ordering policy): users
//     by start time, then name, so the first job submitted is served
//     first.
//   - Asks. The chosen user's top-priority ask that may run on the node
//     (locality, and no larger than the node) is served on that node
//     only (FSAppAttempt.assignContainer): a container of exactly its
//     size when it fits the node's free capacity; otherwise the user
//     reserves the node (FSAppAttempt.reserve): while reserved, the
//     node serves nobody else, and at each of its heartbeats the
//     reservation is tried first, granted once it fits, dropped when the
//     user no longer asks.
//   - Containers per heartbeat. One unless assign_multiple (Fair's
//     yarn.scheduler.fair.assignmultiple, default false; maxassign
//     unlimited): then the node keeps serving until nothing fits or it
//     is reserved. The Capacity Scheduler assigns multiple by default
//     (yarn.scheduler.capacity.per-node-heartbeat.multiple-assignments-enabled).
//   - AM limit. The AMs of the jobs (masters only) may hold at most a
//     share of the cluster: Fair's maxAMShare (default 0.5), Capacity's
//     maximum-am-resource-percent (default 0.1); a job's AM is asked
//     only when it fits under the limit (as masterAgent's gate does for
//     drf), which YARN enforces by skipping the app
//     (FSAppAttempt.isOverAMShareLimit).
//
// Not modelled: delay scheduling (relaxed locality waits), the limit on
// reservable nodes of later Hadoop releases (one user may reserve any
// number of nodes, as in Hadoop 2.x), continuous scheduling, queue
// hierarchies and user limits, and preemption.
type yarn struct {
	*drf
	capacity bool
	multiple bool
	jitter   bool
	rng      *rand.Rand
	rounds   int
	// start is each user's start time (its first ask); clock reads the
	// loop's time when an ask is prepared.
	start map[string]float64
	clock func() float64
	// reserved is the ask holding each node's reservation (nil: none).
	reserved []*pending
}

func newYarn(nodes []assign.NodeInfo, totals []float64, capacity, multiple, jitter bool, seed int64) *yarn {
	return &yarn{drf: newDRF(nodes, totals), capacity: capacity, multiple: multiple, jitter: jitter,
		rng: rand.New(rand.NewPCG(uint64(seed), 0x7a4e)), start: map[string]float64{},
		reserved: make([]*pending, len(nodes))}
}

func (y *yarn) prepare(p *pending) error {
	u := p.a.drfUser()
	if _, ok := y.start[u]; !ok {
		y.start[u] = y.clock()
	}
	return y.drf.prepare(p)
}

// round is one heartbeat of every node, in this round's node order.
func (y *yarn) round(ctx context.Context, _ float64, queue []*pending) ([]decision, bool) {
	left := make(map[*pending]int, len(queue))
	for _, p := range queue {
		left[p] = p.times.len()
	}
	var ds []decision
	for _, n := range y.nodeOrder() {
		if ctx.Err() != nil {
			return ds, false
		}
		ds = y.heartbeat(n, queue, left, ds)
	}
	y.rounds++
	return ds, true
}

// nodeOrder is the order the nodes heartbeat in this round: rotating by
// one each round, or a seeded permutation (jitter).
func (y *yarn) nodeOrder() []int {
	k := len(y.nodes)
	if y.jitter {
		return y.rng.Perm(k)
	}
	out := make([]int, k)
	for i := range out {
		out[i] = (i + y.rounds) % k
	}
	return out
}

// heartbeat serves node n: its reservation first, then the users in
// order, one container unless multiple.
func (y *yarn) heartbeat(n int, queue []*pending, left map[*pending]int, ds []decision) []decision {
	for {
		p := y.reserved[n]
		if p != nil && left[p] == 0 {
			y.reserved[n], p = nil, nil // the user no longer asks
		}
		if p == nil {
			p = y.choose(n, queue, left)
			if p == nil {
				return ds
			}
		}
		if !assign.FitsDims(y.free[n], p.a.size) {
			y.reserved[n] = p
			return ds
		}
		y.reserved[n] = nil
		left[p]--
		ds = append(ds, decision{kind: KindGrant, container: y.place(p, n), request: p.a.id})
		if !y.multiple {
			return ds
		}
	}
}

// choose is the ask node n serves: the first user in the scheduler's
// order with an ask that may run on n, and that user's top-priority
// such ask (ties in queue order); nil when none.
func (y *yarn) choose(n int, queue []*pending, left map[*pending]int) *pending {
	top := map[string]*pending{}
	var users []string
	for _, p := range queue {
		if left[p] == 0 || !y.mayRun(&p.a, n) {
			continue
		}
		u := p.a.drfUser()
		b, ok := top[u]
		if !ok {
			users = append(users, u)
		}
		if !ok || p.a.prio > b.a.prio {
			top[u] = p
		}
	}
	if len(users) == 0 {
		return nil
	}
	best := slices.MinFunc(users, y.compare)
	return top[best]
}

// compare orders users: Fair by dominant share, then start time, then
// name; Capacity (FIFO) by start time, then name.
func (y *yarn) compare(a, b string) int {
	if !y.capacity {
		if c := cmp.Compare(y.dominant(a), y.dominant(b)); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(y.start[a], y.start[b]); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

// mayRun says whether ask a may be served on node n: its locality
// allows n and it is no larger than n (YARN reserves only a node the
// ask could ever fit).
func (y *yarn) mayRun(a *ask, n int) bool {
	if (a.host != "" && y.nodes[n].Name != a.host) || (a.rack != "" && y.racks[n] != a.rack) {
		return false
	}
	return assign.FitsDims(y.nodes[n].Capacity, a.size)
}
