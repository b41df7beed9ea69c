package simulate

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/tetris"
	"github.com/xflex/xflex/vecpack"
)

// timeTol merges events closer than this (relative to the clock, at least
// absolute): event times are sums and quotients of request numbers, so
// 1e-9 relative absorbs round-off while no two real events are that close.
const timeTol = 1e-9

// outcome is one simulation run.
type outcome struct {
	complete   bool
	finish     []float64 // per job; NaN if unfinished
	stageEnd   [][]float64
	bins       *binner
	over       []float64 // per resource: machine-time over-allocated / machine count
	nTasks     int
	stretchSum float64
	stretchMax float64
	end        float64
}

type task struct {
	job, stage, m int
	work, rate    float64
	last, start   float64
	ver           int
	// dem is the demand on m (the stage's, plus input bandwidth); in is
	// the machine the task reads its input from remotely (-1: none), at
	// inRate of disk read and network out there.
	dem    []float64
	in     int
	inRate float64
}

type stageState struct {
	deps              int
	runnable          bool
	started, finished int
	// For stages whose tasks read input: the pending tasks as a Tetris
	// group with one member per task, and per machine the members whose
	// input lives there (the baselines' local-first choice).
	grp   *tetris.Group
	local [][]int32
	cur   int
}

type jobState struct {
	arrived, done bool
	stages        []stageState
	alloc         []float64 // current usage
	attained      []float64 // Σ demand·duration of started tasks
	slots         int
	work          float64 // remaining work p of unstarted tasks
	stagesLeft    int
	pending       int // runnable, unstarted tasks
}

type sim struct {
	in       *Instance
	pol      string
	d        int
	now      float64
	used     [][]float64
	slots    []int
	maxSlots []int
	running  [][]int
	overPrev []bool  // a compressible resource was over-allocated at the last rate update
	readers  [][]int // tasks reading input remotely from each machine
	rvec     []float64
	changed  []bool
	chList   []int
	dirty    []bool
	allDirty bool
	tasks    []task
	freeIDs  []int
	h        evHeap
	js       []jobState
	eff, dem []float64 // cluster totals: used (capped per machine) and demanded
	overNow  []float64 // machines currently over-allocated per resource
	bins     *binner
	out      outcome
	compress []bool
	// tetris buffers
	tm    []tetris.Machine
	tj    []tetris.Job
	order []int
	jl    []int
	key   []float64
	// afterSchedule, when set (tests), runs after every scheduling event.
	afterSchedule func(s *sim)
}

// Simulate runs the trace under policy pol.
func Simulate(ctx context.Context, in *Instance, pol string) (*outcome, error) {
	return simulateWith(ctx, in, pol, nil)
}

func simulateWith(ctx context.Context, in *Instance, pol string, hook func(*sim)) (*outcome, error) {
	s := newSim(in, pol, hook)
	if !s.run(ctx) {
		s.out.end = s.now
		return &s.out, nil
	}
	s.out.complete = true
	s.out.end = s.now
	if stuck := s.stuck(); len(stuck) > 0 {
		// No event is left yet tasks wait: the policy can never run them
		// (slot rounding or a slot larger than a machine's memory).
		return nil, solver.Infeasible(fmt.Sprintf("under policy %s some tasks fit no machine", pol), stuck...)
	}
	return &s.out, nil
}

// newSim sets up the simulation of the trace in under policy pol: the
// machines, the jobs and the outcome to fill.
func newSim(in *Instance, pol string, hook func(*sim)) *sim {
	d := len(in.Resources)
	s := &sim{in: in, pol: pol, d: d, afterSchedule: hook}
	nm := len(in.Cap)
	s.used = make([][]float64, nm)
	s.slots = make([]int, nm)
	s.maxSlots = make([]int, nm)
	s.running = make([][]int, nm)
	s.overPrev = make([]bool, nm)
	s.readers = make([][]int, nm)
	s.rvec = make([]float64, d)
	s.changed = make([]bool, nm)
	s.dirty = make([]bool, nm)
	s.tm = make([]tetris.Machine, nm)
	for m := range s.used {
		s.used[m] = make([]float64, d)
		if in.Mem >= 0 && in.Slot > 0 {
			s.maxSlots[m] = int(math.Floor(in.Cap[m][in.Mem]/in.Slot + timeTol))
		}
		s.tm[m] = tetris.Machine{Cap: in.Cap[m], Free: make([]float64, d)}
	}
	s.compress = make([]bool, d)
	for k := range s.compress {
		s.compress[k] = k != in.Mem
	}
	s.eff, s.dem, s.overNow = make([]float64, d), make([]float64, d), make([]float64, d)
	s.initJobs()
	s.initOutcome()
	return s
}

// initJobs sets every job's state and its tetris.Job.
func (s *sim) initJobs() {
	in, d := s.in, s.d
	s.js = make([]jobState, len(in.Jobs))
	s.tj = make([]tetris.Job, len(in.Jobs))
	for j, jb := range in.Jobs {
		js := &s.js[j]
		js.alloc = make([]float64, d)
		js.attained = make([]float64, d)
		js.stages = make([]stageState, len(jb.stages))
		js.stagesLeft = len(jb.stages)
		for k, st := range jb.stages {
			js.stages[k].deps = len(st.after)
			js.work += float64(st.tasks) * st.work
		}
		s.tj[j] = tetris.Job{Alloc: make([]float64, d), Weight: jb.weight}
	}
}

// initOutcome sets the outcome's finish times to NaN (not finished) and
// its utilization bins.
func (s *sim) initOutcome() {
	in := s.in
	s.out.over = make([]float64, s.d)
	s.out.finish = make([]float64, len(in.Jobs))
	s.out.stageEnd = make([][]float64, len(in.Jobs))
	for j := range s.out.finish {
		s.out.finish[j] = math.NaN()
		s.out.stageEnd[j] = make([]float64, len(in.Jobs[j].stages))
		for k := range s.out.stageEnd[j] {
			s.out.stageEnd[j][k] = math.NaN()
		}
	}
	s.bins = newBinner(in.Bins, in.lowerBound(), s.d)
	s.out.bins = s.bins
}

// run plays the events (arrivals, completions, each followed by a
// scheduling round) until none is left. It reports false when ctx ended
// first or cut a round short (a round cut short is not the policy's
// schedule: the simulation stops with what ran so far, and tasks it left
// unplaced would look unplaceable to stuck).
func (s *sim) run(ctx context.Context) bool {
	in := s.in
	arr := make([]int, len(in.Jobs))
	for i := range arr {
		arr[i] = i
	}
	sort.SliceStable(arr, func(a, b int) bool { return in.Jobs[arr[a]].arrival < in.Jobs[arr[b]].arrival })
	ai := 0
	for {
		// Every event: one event's scheduling can take milliseconds on a
		// large cluster, and ctx.Err costs nanoseconds.
		if ctx.Err() != nil {
			return false
		}
		next := math.Inf(1)
		if ai < len(arr) {
			next = in.Jobs[arr[ai]].arrival
		}
		s.dropStale()
		if len(s.h) > 0 && s.h[0].t < next {
			next = s.h[0].t
		}
		if math.IsInf(next, 1) {
			return true
		}
		if next > s.now {
			s.advance(next)
		}
		tol := timeTol * math.Max(1, math.Abs(s.now))
		for ai < len(arr) && in.Jobs[arr[ai]].arrival <= s.now+tol {
			s.arrive(arr[ai])
			ai++
		}
		s.completeDue(tol)
		if !s.schedule(ctx) {
			return false
		}
		if s.afterSchedule != nil {
			s.afterSchedule(s)
		}
		s.flushRates()
	}
}

// completeDue completes the tasks whose end is due (within tol of now).
func (s *sim) completeDue(tol float64) {
	for {
		s.dropStale()
		if len(s.h) == 0 || s.h[0].t > s.now+tol {
			return
		}
		e := heap.Pop(&s.h).(ev)
		s.complete(e.id)
	}
}

// stuck marks the outcome incomplete when a job is not done and returns
// the runnable stages whose tasks the policy never placed.
func (s *sim) stuck() []solver.Violation {
	in, pol := s.in, s.pol
	var stuck []solver.Violation
	for j := range s.js {
		if s.js[j].done {
			continue
		}
		s.out.complete = false
		for k, st := range s.js[j].stages {
			if st.runnable && st.started < in.Jobs[j].stages[k].tasks {
				msg := fmt.Sprintf("policy %s never places these tasks on any machine", pol)
				if (pol == PolicySlotFair || pol == PolicyCapacity) && in.Mem >= 0 {
					mem := in.Jobs[j].stages[k].demand[in.Mem]
					msg += fmt.Sprintf(": memory %g takes %d slots of %g, more than any machine has", mem, in.taskSlots(mem), in.Slot)
				}
				stuck = append(stuck, solver.Violation{Pointer: solver.Ptr("jobs", in.Jobs[j].index, "stages", k, "demand"), Message: msg})
			}
		}
	}
	return stuck
}

// advance integrates utilization up to t and moves the clock.
func (s *sim) advance(t float64) {
	dt := t - s.now
	s.bins.add(s.now, t, s.eff, s.dem)
	for k, n := range s.overNow {
		s.out.over[k] += n * dt
	}
	s.now = t
}

func (s *sim) arrive(j int) {
	js := &s.js[j]
	js.arrived = true
	if js.stagesLeft == 0 {
		s.finishJob(j)
		return
	}
	for k := range js.stages {
		if js.stages[k].deps == 0 {
			s.makeRunnable(j, k)
		}
	}
}

func (s *sim) makeRunnable(j, k int) {
	js := &s.js[j]
	st := &js.stages[k]
	st.runnable = true
	n := s.in.Jobs[j].stages[k].tasks
	if n == 0 {
		s.stageDone(j, k)
		return
	}
	js.pending += n
	s.allDirty = true
	spec := &s.in.Jobs[j].stages[k]
	if spec.inRate > 0 {
		g := &tetris.Group{Job: j, Demand: spec.demand, Count: n, Members: make([]tetris.Member, n)}
		st.local = make([][]int32, len(s.in.Cap))
		for t := 0; t < n; t++ {
			at := spec.inAt[t]
			g.Members[t].Inputs = []tetris.Input{{Machine: int(at), Rate: spec.inRate}}
			st.local[at] = append(st.local[at], int32(t))
		}
		g.ByMachine = st.local
		st.grp = g
	}
}

func (s *sim) stageDone(j, k int) {
	js := &s.js[j]
	js.stagesLeft--
	s.out.stageEnd[j][k] = s.now
	for _, nx := range s.in.Jobs[j].stages[k].next {
		js.stages[nx].deps--
		if js.stages[nx].deps == 0 {
			s.makeRunnable(j, nx)
		}
	}
	if js.stagesLeft == 0 {
		s.finishJob(j)
	}
}

func (s *sim) finishJob(j int) {
	s.js[j].done = true
	s.out.finish[j] = s.now
}

func (s *sim) markChanged(m int) {
	if !s.changed[m] {
		s.changed[m] = true
		s.chList = append(s.chList, m)
	}
}

// setUsed applies delta·demand to machine m's usage and the cluster totals.
func (s *sim) setUsed(m int, dem []float64, sign float64) {
	u := s.used[m]
	c := s.in.Cap[m]
	for k, x := range dem {
		if x == 0 {
			continue
		}
		before := u[k]
		u[k] += sign * x
		if math.Abs(u[k]) < vecpack.FitTol*math.Max(1, c[k]) {
			u[k] = 0
		}
		s.eff[k] += math.Min(u[k], c[k]) - math.Min(before, c[k])
		s.dem[k] += u[k] - before
		// Incremental sums drift by round-off; snap them to zero when the
		// cluster is idle in k so utilization never reads negative.
		if tiny := vecpack.FitTol * math.Max(1, s.in.Total[k]); math.Abs(s.dem[k]) < tiny {
			s.eff[k], s.dem[k] = 0, 0
		}
		ob, oa := over(before, c[k]), over(u[k], c[k])
		if ob != oa {
			if oa {
				s.overNow[k]++
			} else {
				s.overNow[k]--
			}
		}
	}
}

func over(u, c float64) bool { return u > c+vecpack.FitTol*math.Max(1, c) }

// taskDemand is the demand on m of task mi of stage k of job j (mi < 0:
// a task without input) and the machine it reads remotely from (-1: none).
func (s *sim) taskDemand(j, k, m, mi int) ([]float64, int) {
	st := &s.in.Jobs[j].stages[k]
	if mi < 0 || st.inRate <= 0 {
		return st.demand, -1
	}
	dem := append([]float64(nil), st.demand...)
	at := int(st.inAt[mi])
	if at == m {
		dem[s.in.IO.DiskRead] += st.inRate
		return dem, -1
	}
	dem[s.in.IO.NetIn] += st.inRate
	return dem, at
}

// remoteVec is the usage a remote read of rate puts on the input's machine.
func (s *sim) remoteVec(rate float64) []float64 {
	for k := range s.rvec {
		s.rvec[k] = 0
	}
	s.rvec[s.in.IO.DiskRead] += rate
	s.rvec[s.in.IO.NetOut] += rate
	return s.rvec
}

// start runs task mi (-1: a task without input) of stage k of job j on m.
func (s *sim) start(j, k, m, mi int) {
	in := s.in
	st := &in.Jobs[j].stages[k]
	js := &s.js[j]
	js.stages[k].started++
	js.pending--
	js.work -= st.work
	if js.work < 0 {
		js.work = 0
	}
	dem, at := s.taskDemand(j, k, m, mi)
	for r, x := range dem {
		js.alloc[r] += x
		js.attained[r] += x * st.duration
	}
	s.setUsed(m, dem, 1)
	if in.Mem >= 0 {
		s.slots[m] += in.taskSlots(st.demand[in.Mem])
		js.slots += in.taskSlots(st.demand[in.Mem])
	}
	var id int
	if n := len(s.freeIDs); n > 0 {
		id = s.freeIDs[n-1]
		s.freeIDs = s.freeIDs[:n-1]
	} else {
		id = len(s.tasks)
		s.tasks = append(s.tasks, task{})
	}
	ver := s.tasks[id].ver + 1
	s.tasks[id] = task{job: j, stage: k, m: m, work: st.duration, rate: 1, last: s.now, start: s.now, ver: ver,
		dem: dem, in: at, inRate: st.inRate}
	if at >= 0 {
		rv := s.remoteVec(st.inRate)
		for r, x := range rv {
			js.alloc[r] += x
			js.attained[r] += x * st.duration
		}
		s.setUsed(at, rv, 1)
		s.readers[at] = append(s.readers[at], id)
		s.markChanged(at)
	}
	s.running[m] = append(s.running[m], id)
	heap.Push(&s.h, ev{t: s.now + st.duration, id: id, ver: ver})
	s.markChanged(m)
}

func removeID(list []int, id int) []int {
	for i, x := range list {
		if x == id {
			list[i] = list[len(list)-1]
			return list[:len(list)-1]
		}
	}
	return list
}

func (s *sim) complete(id int) {
	in := s.in
	t := &s.tasks[id]
	j, k, m := t.job, t.stage, t.m
	st := &in.Jobs[j].stages[k]
	js := &s.js[j]
	stretch := (s.now - t.start) / st.duration
	s.out.nTasks++
	s.out.stretchSum += stretch
	s.out.stretchMax = math.Max(s.out.stretchMax, stretch)
	for r, x := range t.dem {
		js.alloc[r] -= x
	}
	s.setUsed(m, t.dem, -1)
	if t.in >= 0 {
		rv := s.remoteVec(t.inRate)
		for r, x := range rv {
			js.alloc[r] -= x
		}
		s.setUsed(t.in, rv, -1)
		s.readers[t.in] = removeID(s.readers[t.in], id)
		// Freed disk read and network out at the input's machine can let a
		// pending remote reader start on any machine.
		s.allDirty = true
		s.markChanged(t.in)
	}
	if in.Mem >= 0 {
		s.slots[m] -= in.taskSlots(st.demand[in.Mem])
		js.slots -= in.taskSlots(st.demand[in.Mem])
	}
	s.running[m] = removeID(s.running[m], id)
	t.ver++
	s.freeIDs = append(s.freeIDs, id)
	s.dirty[m] = true
	s.markChanged(m)
	js.stages[k].finished++
	if js.stages[k].finished == st.tasks {
		s.stageDone(j, k)
	}
}

// share is the speed of a task on a resource with capacity c demanded at
// u > c by all its tasks: proportional sharing gives c/u; interference α
// lowers the effective capacity to c / (1 + α·(u/c − 1)) (seeks, incast:
// §2.1 "the total effective throughput is lowered").
func (in *Instance) share(c, u float64) float64 {
	eff := c / (1 + in.Interference*(u/c-1))
	return eff / u
}

// taskSlots is the number of memory slots a task occupies (at least one).
func (in *Instance) taskSlots(mem float64) int {
	if in.Slot <= 0 {
		return 1
	}
	return max(1, int(math.Ceil(mem/in.Slot-timeTol)))
}

// flushRates recomputes the speed of tasks touching machines whose usage
// changed (running there or reading input from there): each compressible
// resource demanded beyond capacity is shared in proportion to demand, and
// a task runs at the smallest share among the resources it uses, here and
// at its input's machine. A machine that was and is not over-allocated
// changes no task's speed and is skipped.
func (s *sim) flushRates() {
	for _, m := range s.chList {
		s.changed[m] = false
		u, c := s.used[m], s.in.Cap[m]
		anyOver := false
		for k := range u {
			if s.compress[k] && over(u[k], c[k]) {
				anyOver = true
				break
			}
		}
		if !anyOver && !s.overPrev[m] {
			continue
		}
		s.overPrev[m] = anyOver
		for _, list := range [2][]int{s.running[m], s.readers[m]} {
			for _, id := range list {
				s.updateRate(id)
			}
		}
	}
	s.chList = s.chList[:0]
}

// updateRate recomputes one running task's speed and reschedules its
// completion if it changed.
func (s *sim) updateRate(id int) {
	t := &s.tasks[id]
	rate := 1.0
	u, c := s.used[t.m], s.in.Cap[t.m]
	for k, x := range t.dem {
		if x > 0 && s.compress[k] && over(u[k], c[k]) {
			rate = math.Min(rate, s.in.share(c[k], u[k]))
		}
	}
	if t.in >= 0 {
		u, c := s.used[t.in], s.in.Cap[t.in]
		for _, k := range []int{s.in.IO.DiskRead, s.in.IO.NetOut} {
			if s.compress[k] && over(u[k], c[k]) {
				rate = math.Min(rate, s.in.share(c[k], u[k]))
			}
		}
	}
	if rate == t.rate {
		return
	}
	t.work = math.Max(0, t.work-t.rate*(s.now-t.last))
	t.last = s.now
	t.rate = rate
	t.ver++
	heap.Push(&s.h, ev{t: s.now + t.work/rate, id: id, ver: t.ver})
}

// ev is a task completion; ver invalidates entries of tasks whose rate
// changed or that finished.
type ev struct {
	t   float64
	id  int
	ver int
}

type evHeap []ev

func (h evHeap) Len() int { return len(h) }
func (h evHeap) Less(a, b int) bool {
	if h[a].t != h[b].t {
		return h[a].t < h[b].t
	}
	return h[a].id < h[b].id
}
func (h evHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *evHeap) Push(x any)   { *h = append(*h, x.(ev)) }
func (h *evHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
