package master

import (
	"context"
	"fmt"
	"strconv"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/flex"
)

// flexMetrics are the Flex metrics a master can optimise: those that need
// nothing but a job's work, size and arrival.
var flexMetrics = []string{"weighted_response_time", "stretch", "makespan"}

// flexPlan is the last Flex solve: its priority list (job indices) and
// each job's slots in the schedule's first interval.
type flexPlan struct {
	order  []int
	target map[int]int
}

// pick is the active job whose waiting task runs next on a free container,
// or nil when no task waits.
func (m *Master) pick() *job {
	switch m.cfg.Policy {
	case Fair:
		return m.pickFair()
	case Flex:
		return m.pickFlex()
	}
	return m.pickFIFO()
}

// pickFIFO is the earliest-arrived job with a waiting task (ties in input
// order).
func (m *Master) pickFIFO() *job {
	for _, j := range m.active {
		if j.pending > 0 {
			return j
		}
	}
	return nil
}

// pickFair is the job with a waiting task that runs the fewest tasks
// (ties to the earlier arrival, then input order): filling the containers
// so, one at a time, is the max-min fair split of the containers among
// the jobs, each capped by its tasks.
func (m *Master) pickFair() *job {
	var best *job
	for _, j := range m.active {
		if j.pending > 0 && (best == nil || j.running < best.running) {
			best = j
		}
	}
	return best
}

// pickFlex follows the last plan: the first job in the plan's priority
// list that runs fewer tasks than its first-interval target, else (work
// conserving) the first in the list with a waiting task; jobs that arrived
// after the plan come after the list, by arrival.
func (m *Master) pickFlex() *job {
	for _, i := range m.plan.order {
		if j := m.jobs[i]; j.pending > 0 && j.running < m.plan.target[i] {
			return j
		}
	}
	for _, i := range m.plan.order {
		if j := m.jobs[i]; j.pending > 0 {
			return j
		}
	}
	return m.pickFIFO()
}

// tick re-plans at t with a Flex solve over the active jobs on the task
// containers held (at least 1), and schedules the next tick an interval
// later.
func (m *Master) tick(t float64) {
	m.nextTick = t + m.cfg.Interval
	req := m.flexRequest(t)
	res, _, err := flex.SolveRequest(context.Background(), req, solver.Options{Seed: m.cfg.Seed})
	if err != nil {
		// The request is built from checked jobs; an error is a bug here.
		panic(fmt.Sprintf("master: flex solve: %v", err))
	}
	m.plan = flexPlan{target: map[int]int{}}
	for _, id := range res.Ordering {
		m.plan.order = append(m.plan.order, m.jobIndex(id))
	}
	if len(res.Intervals) > 0 {
		for _, s := range res.Intervals[0].Slots {
			m.plan.target[m.jobIndex(s.ID)] = s.Slots
		}
	}
}

// flexRequest is the Flex instance of the active jobs at t: slots = task
// containers held (at least 1); a job's work is its waiting tasks' time
// plus its running tasks' remaining time, its max its unfinished tasks
// (one task per container), its min 0, its arrival its own. Work is
// positive: Step completed the tasks that end by t, so a running task has
// time left and a job with none running has a task waiting. The job id
// is its input index, so ids need no escaping.
func (m *Master) flexRequest(t float64) *flex.Request {
	slots := 0
	for _, c := range m.held {
		if !c.am {
			slots++
		}
	}
	req := &flex.Request{
		Slots: max(slots, 1), Metric: m.cfg.Metric, Start: t,
		LocalSearch: new(int), Refine: "off", MaxIntervals: new(int),
	}
	*req.MaxIntervals = 1
	work := make([]float64, len(m.jobs))
	for _, c := range m.held {
		if c.task >= 0 {
			work[c.task] += c.end - t
		}
	}
	for _, j := range m.active {
		arr := j.Arrival
		w := work[j.idx] + float64(j.pending)*j.TaskDuration
		req.Jobs = append(req.Jobs, flex.JobReq{
			ID: strconv.Itoa(j.idx), Work: w, Max: j.pending + j.running, Arrival: &arr,
		})
	}
	return req
}

// jobIndex reads a job id of flexRequest back.
func (m *Master) jobIndex(id string) int {
	i, err := strconv.Atoi(id)
	if err != nil || i < 0 || i >= len(m.jobs) {
		panic(fmt.Sprintf("master: flex answered unknown job %q", id))
	}
	return i
}
