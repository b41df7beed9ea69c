package master

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Policy is how a master splits the containers it holds among its jobs.
type Policy int

// The application-master policies of the X-Flex paper's §3.
const (
	FIFO Policy = iota // earliest-arrived job with a waiting task first
	Fair               // the job running the fewest tasks first
	Flex               // targets from a Flex solve every interval
)

var policyNames = []string{"fifo", "fair", "flex"}

func (p Policy) String() string { return policyNames[p] }

// ParsePolicy reads a policy name (fifo, fair, flex).
func ParsePolicy(s string) (Policy, bool) {
	i := slices.Index(policyNames, s)
	return Policy(max(i, 0)), i >= 0
}

// DefaultInterval is the Flex scheduling interval in seconds (the paper's
// "one second scheduling interval").
const DefaultInterval = 1.0

// Job is a map-only job: Tasks independent tasks of TaskDuration seconds
// each, one task per container, arriving at Arrival.
type Job struct {
	ID           string
	Arrival      float64
	Tasks        int
	TaskDuration float64
}

// Config is a master's policy and settings.
type Config struct {
	Policy Policy
	// Metric is the Flex metric (weighted_response_time, stretch or
	// makespan; "" is weighted_response_time); Flex policy only.
	Metric string
	// Interval is the Flex scheduling interval in seconds (0: DefaultInterval).
	Interval float64
	// AM: the master needs one container of its own (its application
	// master) before it starts any task, held while it has an unfinished
	// arrived job (a job-level AM as under DRF); false when the AM lives
	// outside the containers the master asks for.
	AM bool
	// ReleaseEachTask: a container is given back when its task ends and
	// the next task waits for a new grant (YARN's MapReduce AM), instead
	// of running at once on the container that just freed (reuse, the
	// default: an X-Flex application keeps the containers it owns busy).
	ReleaseEachTask bool
	// Seed seeds the Flex solves.
	Seed int64
}

// JobResult is one job's outcome.
type JobResult struct {
	ID         string
	Arrival    float64
	Completion float64
	Response   float64 // Completion − Arrival
	Tasks      int
	Restarts   int // tasks whose container was revoked and ran again
}

// TaskRun is one task's run on a container: from Start until End, when it
// completed, or until it was revoked (Lost, End the revocation time).
type TaskRun struct {
	Container string
	Job       string
	Start     float64
	End       float64
	Lost      bool
}

// job is a job's state in the master.
type job struct {
	Job
	idx                            int // index in the input (ties)
	pending, running, done, resets int
	completion                     float64
}

// container is one container the master holds: idle (task == -1), the
// AM, or running a task of job task until end, recorded as runs[run].
// spent: it takes no new task and goes back once idle (its task ended
// under ReleaseEachTask, or it is under a preemption notice).
type container struct {
	id    string
	task  int
	am    bool
	spent bool
	end   float64
	run   int
}

// Master is one application master over map-only jobs. A driver calls
// Wake for the time of its next own event, Step at that time (or at any
// time the driver chooses), and Granted/Revoked when the cluster gives or
// takes a container. Times never decrease.
type Master struct {
	cfg      Config
	jobs     []*job
	arrivals []*job // by arrival, ties by input order
	next     int    // arrivals[next:] have not arrived yet
	active   []*job // arrived, unfinished, in arrival order
	held     []*container
	now      float64
	nextTick float64
	plan     flexPlan
	runs     []TaskRun
}

// New makes a master over jobs. Job ids must be unique and non-empty,
// arrivals finite and not negative, tasks at least 1 and durations
// positive and finite.
func New(cfg Config, jobs []Job) (*Master, error) {
	if err := checkConfig(&cfg); err != nil {
		return nil, err
	}
	m := &Master{cfg: cfg, nextTick: math.Inf(1)}
	seen := map[string]bool{}
	for i, j := range jobs {
		if err := checkJob(j, seen); err != nil {
			return nil, fmt.Errorf("job %d: %w", i, err)
		}
		m.jobs = append(m.jobs, &job{Job: j, idx: i, pending: j.Tasks})
	}
	m.arrivals = slices.Clone(m.jobs)
	slices.SortStableFunc(m.arrivals, func(a, b *job) int { return cmp.Compare(a.Arrival, b.Arrival) })
	return m, nil
}

// checkConfig fills the defaults and refuses what a master cannot run.
func checkConfig(cfg *Config) error {
	if cfg.Policy < FIFO || cfg.Policy > Flex {
		return fmt.Errorf("unknown policy %d", cfg.Policy)
	}
	if cfg.Metric == "" {
		cfg.Metric = "weighted_response_time"
	}
	if !slices.Contains(flexMetrics, cfg.Metric) {
		return fmt.Errorf("metric %q: want one of %v", cfg.Metric, flexMetrics)
	}
	if cfg.Interval == 0 {
		cfg.Interval = DefaultInterval
	}
	if !(cfg.Interval > 0) || math.IsInf(cfg.Interval, 0) {
		return fmt.Errorf("interval %g: want a positive finite number of seconds", cfg.Interval)
	}
	return nil
}

// checkJob checks one job and records its id in seen.
func checkJob(j Job, seen map[string]bool) error {
	switch {
	case j.ID == "":
		return errors.New("empty id")
	case seen[j.ID]:
		return fmt.Errorf("duplicate id %q", j.ID)
	case !(j.Arrival >= 0) || math.IsInf(j.Arrival, 0):
		return fmt.Errorf("arrival %g: want finite and not negative", j.Arrival)
	case j.Tasks < 1:
		return fmt.Errorf("tasks %d: want at least 1", j.Tasks)
	case !(j.TaskDuration > 0) || math.IsInf(j.TaskDuration, 0):
		return fmt.Errorf("task duration %g: want positive and finite", j.TaskDuration)
	}
	seen[j.ID] = true
	return nil
}

// Wake is the time of the master's next own event: a job's arrival, a
// task's end, a Flex tick, or now when it holds an idle container to give
// back; +Inf when it has none.
func (m *Master) Wake() float64 {
	w := m.nextTick
	if m.next < len(m.arrivals) {
		w = math.Min(w, m.arrivals[m.next].Arrival)
	}
	for _, c := range m.held {
		switch {
		case c.task >= 0:
			w = math.Min(w, c.end)
		case !c.am:
			w = math.Min(w, m.now)
		case len(m.active) == 0:
			w = math.Min(w, m.now) // an AM with nothing left to manage
		}
	}
	return w
}

// Step runs the master's events at time t: tasks that end by t complete,
// jobs that arrive by t are admitted, a due Flex tick re-plans, idle
// containers take waiting tasks, and those left idle (and an AM with no
// job left) are given back. want is how many containers the master would
// hold now (AM, running and waiting tasks); release lists the containers
// it gives back.
func (m *Master) Step(t float64) (want int, release []string) {
	m.advance(t)
	m.complete(t)
	m.admit(t)
	if m.cfg.Policy == Flex && t >= m.nextTick {
		m.tick(t)
	}
	for _, c := range m.held {
		if c.task < 0 && !c.am && !c.spent {
			m.startOn(c, t)
		}
	}
	return m.want(), m.releaseIdle()
}

// advance moves the clock to t.
func (m *Master) advance(t float64) {
	if t < m.now {
		panic(fmt.Sprintf("master: time went back from %g to %g", m.now, t))
	}
	m.now = t
}

// complete finishes every task that ends by t; a job whose last task
// ends is complete at that task's end.
func (m *Master) complete(t float64) {
	for _, c := range m.held {
		if c.task < 0 || c.end > t {
			continue
		}
		j := m.jobs[c.task]
		j.running--
		j.done++
		if j.done == j.Tasks {
			j.completion = c.end
			m.active = slices.DeleteFunc(m.active, func(a *job) bool { return a == j })
		}
		c.task, c.spent = -1, c.spent || m.cfg.ReleaseEachTask
	}
}

// admit makes the jobs that arrive by t active. The first arrival while
// no job is active starts the Flex ticks at once.
func (m *Master) admit(t float64) {
	for m.next < len(m.arrivals) && m.arrivals[m.next].Arrival <= t {
		if len(m.active) == 0 && m.cfg.Policy == Flex {
			m.nextTick = t
		}
		m.active = append(m.active, m.arrivals[m.next])
		m.next++
	}
	if len(m.active) == 0 {
		m.nextTick = math.Inf(1)
	}
}

// want counts the containers the master would hold now.
func (m *Master) want() int {
	n := 0
	for _, j := range m.active {
		n += j.pending + j.running
	}
	if m.cfg.AM && len(m.active) > 0 {
		n++
	}
	return n
}

// releaseIdle gives back every idle task container, and the AM when no
// job is active.
func (m *Master) releaseIdle() []string {
	var out []string
	m.held = slices.DeleteFunc(m.held, func(c *container) bool {
		idle := c.task < 0 && (!c.am || len(m.active) == 0)
		if idle {
			out = append(out, c.id)
		}
		return idle
	})
	return out
}

// Granted gives the master container id at time t: it becomes the AM when
// one is needed, else it runs a waiting task at once, else it stays idle
// until the next Step gives it back.
func (m *Master) Granted(t float64, id string) {
	m.advance(t)
	if slices.ContainsFunc(m.held, func(c *container) bool { return c.id == id }) {
		panic(fmt.Sprintf("master: container %q granted twice", id))
	}
	c := &container{id: id, task: -1}
	m.held = append(m.held, c)
	if m.NeedsAM() {
		c.am = true
		return
	}
	m.startOn(c, t)
}

// Notice tells the master at time t that container id will be taken (a
// preemption notice with a grace period): it starts no new task there,
// lets the running one finish if it can, and gives the container back
// once idle. A notice on the AM changes nothing (the AM cannot move).
func (m *Master) Notice(t float64, id string) {
	m.advance(t)
	i := slices.IndexFunc(m.held, func(c *container) bool { return c.id == id })
	if i < 0 {
		panic(fmt.Sprintf("master: notice on container %q it does not hold", id))
	}
	if c := m.held[i]; !c.am {
		c.spent = true
	}
}

// Revoked takes container id from the master at time t: a task it ran
// goes back to waiting (its work is lost) and runs again from the start
// on a later container; a lost AM is asked for again.
func (m *Master) Revoked(t float64, id string) {
	m.advance(t)
	i := slices.IndexFunc(m.held, func(c *container) bool { return c.id == id })
	if i < 0 {
		panic(fmt.Sprintf("master: revoked container %q is not held", id))
	}
	if c := m.held[i]; c.task >= 0 {
		j := m.jobs[c.task]
		j.running--
		j.pending++
		j.resets++
		m.runs[c.run].End, m.runs[c.run].Lost = t, true
	}
	m.held = slices.Delete(m.held, i, i+1)
}

// NeedsAM reports whether the master's next container would be its AM
// (Config.AM, an arrived unfinished job, no AM held).
func (m *Master) NeedsAM() bool { return m.cfg.AM && len(m.active) > 0 && !m.hasAM() }

// AMContainer is the id of the container holding the master's AM, "" when
// it holds none.
func (m *Master) AMContainer() string {
	for _, c := range m.held {
		if c.am {
			return c.id
		}
	}
	return ""
}

func (m *Master) hasAM() bool {
	return slices.ContainsFunc(m.held, func(c *container) bool { return c.am })
}

// startOn starts a waiting task on idle container c, of the job the
// policy picks, when there is one (and the AM, if needed, is held).
func (m *Master) startOn(c *container, t float64) {
	if m.cfg.AM && !m.hasAM() {
		return
	}
	j := m.pick()
	if j == nil {
		return
	}
	j.pending--
	j.running++
	c.task, c.end, c.run = j.idx, t+j.TaskDuration, len(m.runs)
	m.runs = append(m.runs, TaskRun{Container: c.id, Job: j.ID, Start: t, End: c.end})
}

// Runs are the task runs so far in start order (a run still going shows
// its planned end).
func (m *Master) Runs() []TaskRun { return slices.Clone(m.runs) }

// Done reports whether every job has completed.
func (m *Master) Done() bool {
	for _, j := range m.jobs {
		if j.done < j.Tasks {
			return false
		}
	}
	return true
}

// Held is the number of containers the master holds (its AM included).
func (m *Master) Held() int { return len(m.held) }

// Results are the jobs' outcomes in input order (Completion and Response
// are NaN for a job not complete yet).
func (m *Master) Results() []JobResult {
	out := make([]JobResult, len(m.jobs))
	for i, j := range m.jobs {
		c := math.NaN()
		if j.done == j.Tasks {
			c = j.completion
		}
		out[i] = JobResult{ID: j.ID, Arrival: j.Arrival, Completion: c, Response: c - j.Arrival, Tasks: j.Tasks, Restarts: j.resets}
	}
	return out
}

// Makespan is the last job's completion time (NaN until all are done).
func (m *Master) Makespan() float64 {
	if !m.Done() {
		return math.NaN()
	}
	mk := 0.0
	for _, j := range m.jobs {
		mk = math.Max(mk, j.completion)
	}
	return mk
}
