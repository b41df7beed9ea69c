package master

import (
	"fmt"
	"math"
	"strconv"
)

// Pool is a fixed pool of identical containers shared by masters with no
// preemption, the single-resource DRF of YARN's scheduler: a free
// container goes to the master holding the fewest containers among those
// that want more (ties to the lower master index), and free containers
// are handed out lowest id first. AMShare caps the masters holding an AM
// container at AMShare·Containers (YARN's maxAMShare); 0 means no cap.
type Pool struct {
	Containers int
	AMShare    float64
}

// PoolStats sums a pool run.
type PoolStats struct {
	End float64 // the last event: every master's makespan is at most End
	// Busy is the container-seconds spent running tasks or AMs; Busy /
	// (Containers·End) is the pool's utilisation.
	Busy float64
}

// poolRun is a Run in progress.
type poolRun struct {
	p      Pool
	ms     []*Master
	want   []int
	free   []bool // free[c]: container c is free
	owner  []int  // owner[c]: the master holding c, -1 when free
	since  []float64
	byName map[string]int
	stats  PoolStats
}

// Run drives the masters on the pool from time 0 until every job is done.
// It fails when the masters wait on each other forever (every container
// held by an AM whose job cannot start a task).
func (p Pool) Run(ms []*Master) (PoolStats, error) {
	r := &poolRun{p: p, ms: ms, want: make([]int, len(ms)), byName: map[string]int{}}
	for c := range p.Containers {
		r.free = append(r.free, true)
		r.owner = append(r.owner, -1)
		r.since = append(r.since, 0)
		r.byName[containerName(c)] = c
	}
	for {
		t := math.Inf(1)
		for _, m := range ms {
			t = math.Min(t, m.Wake())
		}
		if math.IsInf(t, 1) {
			return r.stats, r.finish()
		}
		r.step(t)
		r.grant(t)
	}
}

func containerName(c int) string { return "c" + strconv.Itoa(c) }

// finish checks every master is done.
func (r *poolRun) finish() error {
	for i, m := range r.ms {
		if !m.Done() {
			return fmt.Errorf("pool of %d containers: master %d waits forever (%d of its containers held, wants %d)", r.p.Containers, i, m.Held(), r.want[i])
		}
	}
	return nil
}

// step runs every master whose next event is due at t and takes back
// the containers they release.
func (r *poolRun) step(t float64) {
	for i, m := range r.ms {
		if m.Wake() > t {
			continue
		}
		want, rel := m.Step(t)
		r.want[i] = want
		for _, id := range rel {
			c := r.byName[id]
			r.stats.Busy += t - r.since[c]
			r.stats.End = math.Max(r.stats.End, t)
			r.free[c], r.owner[c] = true, -1
		}
	}
}

// grant hands out free containers, one at a time, to the master holding
// the fewest among those that want more.
func (r *poolRun) grant(t float64) {
	for c := range r.free {
		if !r.free[c] {
			continue
		}
		i := r.neediest()
		if i < 0 {
			return
		}
		r.free[c], r.owner[c], r.since[c] = false, i, t
		r.ms[i].Granted(t, containerName(c))
	}
}

// neediest is the master that gets the next free container, or -1.
func (r *poolRun) neediest() int {
	ams := 0
	for _, m := range r.ms {
		if m.hasAM() {
			ams++
		}
	}
	amFull := r.p.AMShare > 0 && float64(ams+1) > r.p.AMShare*float64(r.p.Containers)
	best := -1
	for i, m := range r.ms {
		if m.Held() >= r.want[i] || (amFull && m.NeedsAM()) {
			continue
		}
		if best < 0 || m.Held() < r.ms[best].Held() {
			best = i
		}
	}
	return best
}
