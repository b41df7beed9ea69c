package simulate

import (
	"errors"
	"math"
	"slices"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/xschedule/assign"
	"github.com/xflex/xflex/solver/xschedule/master"
)

// MasterIn is an application master of the request: App's demand comes
// from its map-only jobs, split among them by Policy
// (solver/xschedule/master), instead of (or beside) trace requests.
type MasterIn struct {
	App string `json:"app"`
	// Policy is fifo, fair or flex; Metric (flex: weighted_response_time,
	// the default, stretch or makespan) and Interval (flex: seconds
	// between Flex solves, default 1) tune flex.
	Policy   string   `json:"policy"`
	Metric   string   `json:"metric,omitempty"`
	Interval *float64 `json:"interval,omitempty"`
	// TaskSize is the container size each task (and the AM) asks for.
	TaskSize []float64 `json:"task_size"`
	// Type, Priority and PreemptionPriority are those of its asks, as in
	// a trace request.
	Type               string `json:"type,omitempty"`
	Priority           int    `json:"priority,omitempty"`
	PreemptionPriority int    `json:"preemption_priority,omitempty"`
	// OverflowType, when set, splits its asks under X-Schedule: Type for
	// as many containers as the application owns, OverflowType for the
	// rest (the paper's Flex: mission-critical work in its own share,
	// best-effort work elsewhere).
	OverflowType string `json:"overflow_type,omitempty"`
	// ReleaseEachTask gives a container back when its task ends (YARN's
	// MapReduce AM) instead of running the next task on it.
	ReleaseEachTask bool          `json:"release_each_task,omitempty"`
	Jobs            []MasterJobIn `json:"jobs"`
}

// MasterJobIn is one map-only job: Tasks tasks of TaskDuration seconds,
// one per container, arriving at Arrival.
type MasterJobIn struct {
	ID           string  `json:"id"`
	Arrival      float64 `json:"arrival"`
	Tasks        int     `json:"tasks"`
	TaskDuration float64 `json:"task_duration"`
}

// MasterOut is one application's jobs' outcome in a run: under
// X-Schedule its master's (policy as asked), under DRF its jobs' as DRF
// users (policy "drf"). Makespan (the last completion) and AvgResponse
// are absent while a job is unfinished (the run stopped first).
type MasterOut struct {
	App         string   `json:"app"`
	Policy      string   `json:"policy"`
	Completed   int      `json:"completed"`
	AvgResponse *float64 `json:"avg_response,omitempty"`
	Makespan    *float64 `json:"makespan,omitempty"`
	Jobs        []JobOut `json:"jobs"`
}

// JobOut is one job's outcome: Completion and Response (completion −
// arrival) are absent while it is unfinished; Restarts counts its tasks
// whose container was preempted (their work lost).
type JobOut struct {
	ID         string   `json:"id"`
	Arrival    float64  `json:"arrival"`
	Tasks      int      `json:"tasks"`
	Completion *float64 `json:"completion,omitempty"`
	Response   *float64 `json:"response,omitempty"`
	Restarts   int      `json:"restarts"`
}

// defaultAMShare caps the DRF run's AM containers at half the cluster,
// YARN's maxAMShare default.
const defaultAMShare = 0.5

// checkMasters checks the masters against the model: a known
// application with at most one master, a task size the model accepts as
// a request of that application (Prepare's checks, at the master's
// pointers), job ids unique within a master, and the ids of the asks the
// masters make (askIDs) unused by the trace and each other.
func checkMasters(req *Request, m *assign.Model, vs *solver.Violations) {
	ids := map[string]bool{}
	for _, a := range req.Requests {
		ids[a.ID] = true
	}
	seen := map[string]int{}
	for i, ms := range req.Masters {
		if j, dup := seen[ms.App]; dup {
			vs.Add(solver.Ptr("masters", i, "app"), "application %q already has a master (/masters/%d)", ms.App, j)
		}
		seen[ms.App] = i
		_, err := m.Prepare(assign.Ask{ID: xAskID(ms.App), App: ms.App, Count: 1, Size: ms.TaskSize, Type: ms.Type,
			Priority: ms.Priority, PreemptionPriority: ms.PreemptionPriority}, func(f string) string {
			if f == "size" {
				f = "task_size"
			}
			return solver.Ptr("masters", i, f)
		})
		var e *solver.Error
		if errors.As(err, &e) {
			*vs = append(*vs, e.Violations...)
		}
		if ms.Metric != "" && ms.Policy != "flex" {
			vs.Add(solver.Ptr("masters", i, "metric"), "metric is for policy flex, not %s", ms.Policy)
		}
		checkMasterJobs(i, ms, ids, vs)
	}
}

// checkMasterJobs checks master i's job ids and the ids of its asks.
func checkMasterJobs(i int, ms MasterIn, ids map[string]bool, vs *solver.Violations) {
	for _, id := range []string{xAskID(ms.App), borrowAskID(ms.App)} {
		if ids[id] {
			vs.Add(solver.Ptr("masters", i, "app"), "the master's request id %q is a trace request's", id)
		}
		ids[id] = true
	}
	jobs := map[string]int{}
	for k, j := range ms.Jobs {
		if prev, dup := jobs[j.ID]; dup {
			vs.Add(solver.Ptr("masters", i, "jobs", k, "id"), "duplicate job id %q (also at /masters/%d/jobs/%d)", j.ID, i, prev)
			continue
		}
		jobs[j.ID] = k
		if id := drfAskID(ms.App, j.ID); ids[id] {
			vs.Add(solver.Ptr("masters", i, "jobs", k, "id"), "the job's DRF request id %q is already used", id)
		} else {
			ids[id] = true
		}
	}
}

// xAskID is the id of a master's asks under X-Schedule; drfAskID that of
// a job's asks under DRF (also its DRF user).
func xAskID(app string) string        { return app + "#master" }
func borrowAskID(app string) string   { return app + "#borrow" }
func drfAskID(app, job string) string { return app + "#" + job }

// masterAgents are the masters' agents for one run: under X-Schedule
// (b nil) one per master, asking as its application; under a baseline
// one per job (a one-job FIFO master with its own AM, the job its own
// user, as YARN runs a MapReduce job), all behind one AM gate at the
// baseline's AM share. Every agent has the request's latencies.
func (in *Instance) masterAgents(b *baseline) []agent {
	var out []agent
	var gate *amGate
	if b != nil {
		gate = &amGate{share: b.amShare}
	}
	lat := in.latencies()
	for i, ms := range in.req.Masters {
		base := ask{app: ms.App, size: ms.TaskSize, prio: ms.Priority, pprio: ms.PreemptionPriority, typ: ms.Type}
		jobs := masterJobs(ms.Jobs)
		if b == nil {
			cfg := master.Config{Policy: mustPolicy(ms.Policy), Metric: ms.Metric, Interval: deref(ms.Interval, 0), AM: true,
				ReleaseEachTask: ms.ReleaseEachTask, Seed: deref(in.req.Seed, 0) + int64(i)}
			base.id = xAskID(ms.App)
			ag := newMasterAgent(ms.App, ms.Policy, cfg, jobs, base, nil)
			ag.lat = lat
			if ms.OverflowType != "" {
				over := base
				over.id, over.typ = borrowAskID(ms.App), ms.OverflowType
				ag.over, ag.owned = &over, in.owned(ms.App)
			}
			out = append(out, ag)
			continue
		}
		for _, j := range jobs {
			jb := base
			jb.id = drfAskID(ms.App, j.ID)
			jb.user = jb.id
			cfg := master.Config{Policy: master.FIFO, AM: true, ReleaseEachTask: ms.ReleaseEachTask}
			ag := newMasterAgent(ms.App, b.name, cfg, []master.Job{j}, jb, gate)
			ag.amShare = dominantShare(ms.TaskSize, in.model.Totals())
			ag.lat = lat
			out = append(out, ag)
		}
	}
	return out
}

// owned counts the containers app owns.
func (in *Instance) owned(app string) int {
	i := slices.Index(in.model.AppNames(), app)
	n := 0
	for _, c := range in.model.Containers() {
		if c.Owner == i {
			n++
		}
	}
	return n
}

// masterItems is the number of items the masters add to a run's answer
// (one per job and one per master), counted in the answer-time reserve.
func (in *Instance) masterItems() int {
	n := len(in.req.Masters)
	for _, ms := range in.req.Masters {
		n += len(ms.Jobs)
	}
	return n
}

func (in *Instance) settings() *Settings {
	if in.req.Settings != nil {
		return in.req.Settings
	}
	return &Settings{}
}

func masterJobs(js []MasterJobIn) []master.Job {
	out := make([]master.Job, len(js))
	for k, j := range js {
		out[k] = master.Job{ID: j.ID, Arrival: j.Arrival, Tasks: j.Tasks, TaskDuration: j.TaskDuration}
	}
	return out
}

// mustPolicy reads a policy the schema has checked.
func mustPolicy(s string) master.Policy {
	p, ok := master.ParsePolicy(s)
	if !ok {
		panic("simulate: unchecked master policy " + s)
	}
	return p
}

// masterAgent is an application master as the loop's agent. It asks, under
// one request id, for the containers its master wants beyond those it
// holds and those already asked (asks cannot be withdrawn: a container
// granted after the master stopped wanting it is given back at once),
// and passes grants and preemptions on. Behind an AM gate (DRF) it first
// asks for its AM alone, when the gate lets it, and for its tasks once
// the AM is granted.
type masterAgent struct {
	app, policy       string
	m                 *master.Master
	base              ask
	held, outstanding int
	gate              *amGate
	amShare           float64 // its AM's dominant share of the cluster (gate)
	inGate            bool    // its AM, asked or held, counts in the gate
	// over is the overflow ask (nil: none): beyond owned containers held
	// or asked under base, the master asks under over; outOver and
	// heldOver are its asked and held part.
	over     *ask
	owned    int
	outOver  int
	heldOver map[string]bool
	// restep is a time to step again at (after the AM's grant or a
	// preemption: the master wants more); +Inf when none.
	restep float64
	// lat are the start-up latencies; held containers not yet handed to
	// the master wait in deferred (latency.go).
	lat      latencies
	deferred []deferredGrant
	amWait   bool
}

func newMasterAgent(app, policy string, cfg master.Config, jobs []master.Job, base ask, gate *amGate) *masterAgent {
	m, err := master.New(cfg, jobs)
	if err != nil {
		// Build checked the masters as the schema and checkMasters do.
		panic("simulate: " + err.Error())
	}
	return &masterAgent{app: app, policy: policy, m: m, base: base, gate: gate, restep: math.Inf(1), heldOver: map[string]bool{}}
}

func (a *masterAgent) wake() float64 {
	w := min(a.m.Wake(), a.restep, a.nextDelivery())
	if a.gate != nil && a.m.NeedsAM() && a.outstanding == 0 && !a.inGate && a.gate.room(a.amShare) {
		w = min(w, a.gate.now)
	}
	return w
}

func (a *masterAgent) step(t float64) ([]ask, []string) {
	a.restep = math.Inf(1)
	a.deliver(t)
	am := a.m.AMContainer()
	want, rel := a.m.Step(t)
	a.held -= len(rel)
	for _, c := range rel {
		delete(a.heldOver, c)
	}
	if a.gate != nil {
		a.gate.now = t
		if am != "" && slices.Contains(rel, am) {
			a.leaveGate()
		}
	}
	need := want - a.held - a.outstanding
	if need <= 0 {
		return nil, rel
	}
	if a.gate != nil && a.m.NeedsAM() {
		// An AM granted but still starting (am_latency) is not asked again.
		if a.amWait || a.outstanding > 0 || (!a.inGate && !a.gate.room(a.amShare)) {
			return nil, rel
		}
		if !a.inGate {
			a.gate.enter(a.amShare)
			a.inGate = true
		}
		need = 1
	}
	a.outstanding += need
	return a.asks(need), rel
}

// asks splits need containers between the base ask and, when there is
// one, the overflow ask (base up to the containers owned).
func (a *masterAgent) asks(need int) []ask {
	p := need
	if a.over != nil {
		p = max(0, min(need, a.owned-(a.held-len(a.heldOver))-(a.outstanding-need-a.outOver)))
		a.outOver += need - p
	}
	var out []ask
	for _, k := range []struct {
		a ask
		n int
	}{{a.base, p}, {a.overAsk(), need - p}} {
		if k.n > 0 {
			k.a.count = k.n
			out = append(out, k.a)
		}
	}
	return out
}

func (a *masterAgent) overAsk() ask {
	if a.over == nil {
		return ask{}
	}
	return *a.over
}

func (a *masterAgent) granted(t float64, k ask, c string) {
	a.outstanding--
	if a.over != nil && k.id == a.over.id {
		a.outOver--
		a.heldOver[c] = true
	}
	a.held++
	if a.defer_(t, c) {
		return
	}
	a.hand(t, c)
}

// hand gives container c to the master at t.
func (a *masterAgent) hand(t float64, c string) {
	a.m.Granted(t, c)
	if a.gate != nil && a.m.AMContainer() == c {
		a.gate.now, a.restep = t, t
	}
}

// notice: container c will be taken; the master runs no new task there
// and gives it back once idle.
func (a *masterAgent) notice(t float64, c string) {
	a.handNow(t, c)
	a.m.Notice(t, c)
}

// expired: n of its containers asked waited past the patience and were
// dropped; its tasks still need them, so it asks again at once.
func (a *masterAgent) expired(t float64, k ask, n int) {
	a.outstanding -= n
	if a.over != nil && k.id == a.over.id {
		a.outOver -= n
	}
	a.restep = t
}

func (a *masterAgent) revoked(t float64, c string) {
	if a.dropDeferred(c) {
		a.held--
		delete(a.heldOver, c)
		a.restep = t
		return
	}
	if a.gate != nil && a.m.AMContainer() == c {
		a.leaveGate()
		a.gate.now = t
	}
	a.held--
	delete(a.heldOver, c)
	a.m.Revoked(t, c)
	a.restep = t
}

// leaveGate takes the agent's AM out of the gate's count.
func (a *masterAgent) leaveGate() {
	a.gate.leave(a.amShare)
	a.inGate = false
}

// amGate caps the AM containers of the DRF run's jobs, held or asked:
// the sum of their dominant shares of the cluster stays within share,
// and one AM is always allowed (so no cap can stop every job). now is the
// last time an agent behind it stepped, when a waiting agent may ask.
type amGate struct {
	share float64
	used  float64
	ams   int
	now   float64
}

// room says whether one more AM of dominant share d fits under the cap.
// The tolerance keeps a cap met exactly in exact arithmetic (0.5 of 78
// containers is 39 AMs of 1/78) from failing on the float sum.
func (g *amGate) room(d float64) bool {
	return g.ams == 0 || g.used+d <= g.share*(1+amCapTol)
}

func (g *amGate) enter(d float64) { g.ams++; g.used += d }

func (g *amGate) leave(d float64) {
	g.ams--
	g.used -= d
	if g.ams == 0 {
		g.used = 0 // no drift once every AM is gone
	}
}

// dominantShare is the largest fraction of a resource size takes.
func dominantShare(size, totals []float64) float64 {
	d := 0.0
	for r, x := range size {
		if totals[r] > 0 {
			d = max(d, x/totals[r])
		}
	}
	return d
}

// mastersOut collects the masters' outcomes of a run, one per
// application in request order (under DRF the jobs of one application
// come from several agents).
func mastersOut(agents []agent) []MasterOut {
	var out []MasterOut
	idx := map[string]int{}
	for _, ag := range agents {
		a, ok := ag.(*masterAgent)
		if !ok {
			continue
		}
		i, seen := idx[a.app]
		if !seen {
			i = len(out)
			idx[a.app] = i
			out = append(out, MasterOut{App: a.app, Policy: a.policy, Jobs: []JobOut{}})
		}
		for _, r := range a.m.Results() {
			out[i].Jobs = append(out[i].Jobs, jobOut(r))
		}
	}
	for i := range out {
		summariseMaster(&out[i])
	}
	return out
}

func jobOut(r master.JobResult) JobOut {
	j := JobOut{ID: r.ID, Arrival: r.Arrival, Tasks: r.Tasks, Restarts: r.Restarts}
	if !math.IsNaN(r.Completion) {
		c, resp := r.Completion, r.Response
		j.Completion, j.Response = &c, &resp
	}
	return j
}

// summariseMaster sets the completed count, and the mean response and
// makespan when every job completed.
func summariseMaster(o *MasterOut) {
	sum, mk := 0.0, 0.0
	for _, j := range o.Jobs {
		if j.Completion != nil {
			o.Completed++
			sum += *j.Response
			mk = max(mk, *j.Completion)
		}
	}
	if o.Completed == len(o.Jobs) && o.Completed > 0 {
		avg := sum / float64(o.Completed)
		o.AvgResponse, o.Makespan = &avg, &mk
	}
}
