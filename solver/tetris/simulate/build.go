package simulate

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/tetris"
)

// MaxTasks bounds the total task count of a trace so one request cannot
// exhaust memory: tasks with zero demand can all run at once, and each
// running task costs ~100 bytes, so 2M tasks stay within ~200 MB. The
// paper's traces and the benchmark workload (~127k tasks) are far below.
const MaxTasks = 2_000_000

// Instance is a validated trace in index form.
type Instance struct {
	Req       *Request
	Resources []string
	Cap       [][]float64 // per machine
	Total     []float64
	Norm      []float64
	Jobs      []job
	// Policy and FairPolicy are the request's, defaults filled in.
	Policy, FairPolicy string
	CPU, Mem           int // role indices, -1 if absent
	IO                 tetris.Roles
	Fair               []bool
	// QueueShare is each queue's fraction of the cluster (capacity
	// scheduler); jobs[].queue indexes it.
	QueueShare []float64
	Knobs      tetris.Resolved
	Slot       float64
	Bins       int
	// Interference is the throughput lost on an over-allocated resource
	// (see share); 0 is lossless proportional sharing.
	Interference float64
}

type job struct {
	id      string
	arrival float64
	weight  float64
	queue   int
	stages  []stage
	index   int
}

type stage struct {
	name     string
	tasks    int
	demand   []float64
	duration float64
	after    []int
	next     []int
	work     float64 // one task's remaining-work contribution
	// inRate > 0: task i reads its input at inRate from machine inAt[i].
	inRate float64
	inAt   []int32
}

// Build validates req and returns the instance.
func Build(req *Request) (*Instance, error) {
	b := &simBuilder{req: req, in: &Instance{Req: req}, qidx: map[string]int{}}
	b.cluster()
	b.policies()
	b.fairResources()
	b.settings()
	b.queues()
	if b.tooManyTasks() {
		return nil, b.vs.Err()
	}
	jids := map[string]bool{}
	for i := range req.Jobs {
		jr := &req.Jobs[i]
		if jids[jr.ID] {
			b.vs.Add(solver.Ptr("jobs", i, "id"), "duplicate job id %q", jr.ID)
		}
		jids[jr.ID] = true
		b.in.Jobs = append(b.in.Jobs, b.job(i, jr))
	}
	b.in.QueueShare = queueShares(b.qcap, len(req.Queues) > 0)
	if err := b.vs.Err(); err != nil {
		return nil, err
	}
	return b.in, nil
}

// simBuilder is Build's state: the instance so far, the violations found,
// the cluster, the roles' resource names and the queues.
type simBuilder struct {
	req  *Request
	in   *Instance
	vs   solver.Violations
	cl   *tetris.Cluster
	ro   Roles
	seed int64
	// qidx maps a queue name to its index in qcap, its capacity.
	qidx map[string]int
	qcap []float64
}

// cluster indexes the machines.
func (b *simBuilder) cluster() {
	in, req := b.in, b.req
	specs := make([]tetris.MachineReq, len(req.Machines))
	for i, m := range req.Machines {
		specs[i] = tetris.MachineReq{Name: m.Name, Capacity: m.Capacity}
	}
	b.cl = tetris.NewCluster(specs, &b.vs)
	in.Resources, in.Total, in.Norm = b.cl.Resources, b.cl.Total, tetris.NormCap(b.cl.Machines)
	for _, m := range b.cl.Machines {
		in.Cap = append(in.Cap, m.Cap)
	}
}

// policies fills in the policies and roles and checks that each policy has
// the resources it allocates.
func (b *simBuilder) policies() {
	in, req := b.in, b.req
	in.Policy, in.FairPolicy = cmp.Or(req.Policy, PolicyTetris), cmp.Or(req.FairPolicy, PolicyDRF)
	if req.Roles != nil {
		b.ro = *req.Roles
	}
	b.ro.CPU, b.ro.Memory = cmp.Or(b.ro.CPU, "cpu"), cmp.Or(b.ro.Memory, "memory")
	ro := b.ro
	in.CPU, in.Mem = b.cl.Role(ro.CPU, "cpu"), b.cl.Role(ro.Memory, "memory")
	in.IO = b.cl.IORoles(ro.DiskRead, ro.NetIn, ro.NetOut)
	for _, p := range []string{in.Policy, in.FairPolicy} {
		switch p {
		case PolicySlotFair, PolicyCapacity:
			if in.Mem < 0 {
				b.vs.Add("/roles/memory", "policy %s allocates memory slots but no machine has resource %q", p, ro.Memory)
			}
		case PolicyTetrisCPUMem:
			if in.CPU < 0 && in.Mem < 0 {
				b.vs.Add("/roles", "policy %s needs the cpu or memory resource (%q, %q)", p, ro.CPU, ro.Memory)
			}
		}
	}
}

// fairResources marks the resources fairness is measured on: those the
// request names, or cpu and memory.
func (b *simBuilder) fairResources() {
	in, req, ro := b.in, b.req, b.ro
	in.Fair = make([]bool, len(in.Resources))
	if req.FairResources != nil {
		for i, r := range req.FairResources {
			k, ok := b.cl.Resource(r)
			if !ok {
				b.vs.Add(solver.Ptr("fair_resources", i), "no machine has resource %q", r)
				continue
			}
			in.Fair[k] = true
		}
		return
	}
	for _, k := range []int{in.CPU, in.Mem} {
		if k >= 0 {
			in.Fair[k] = true
		}
	}
	if (in.Policy == PolicyDRF || in.FairPolicy == PolicyDRF) && in.CPU < 0 && in.Mem < 0 {
		b.vs.Add("/fair_resources", "drf needs resources to share: no cpu (%q) or memory (%q) resource; name them in fair_resources", ro.CPU, ro.Memory)
	}
}

// settings fills in the seed, slot memory, interference, bins and knobs.
func (b *simBuilder) settings() {
	in, req := b.in, b.req
	if req.Seed != nil {
		b.seed = *req.Seed
	}
	in.Slot = DefaultSlotMemory
	if req.SlotMemory != nil {
		in.Slot = *req.SlotMemory
	}
	if req.Interference != nil {
		in.Interference = *req.Interference
	}
	in.Bins = DefaultBins
	if req.Bins != nil {
		in.Bins = *req.Bins
	}
	in.Knobs = req.Knobs.Resolve(&b.vs)
}

// queues indexes the configured queues.
func (b *simBuilder) queues() {
	for i, q := range b.req.Queues {
		if _, dup := b.qidx[q.Name]; dup {
			b.vs.Add(solver.Ptr("queues", i, "name"), "duplicate queue %q", q.Name)
			continue
		}
		b.qidx[q.Name] = len(b.qcap)
		b.qcap = append(b.qcap, q.Capacity)
	}
}

// tooManyTasks refuses a trace over MaxTasks. The task count is checked
// before any per-task allocation (input locations take 4 bytes a task): a
// trace over MaxTasks is refused without building it.
func (b *simBuilder) tooManyTasks() bool {
	total := 0
	for _, jr := range b.req.Jobs {
		for _, sr := range jr.Stages {
			total += min(sr.Tasks, MaxTasks+1) // saturating: no int overflow
			total = min(total, MaxTasks+1)
		}
	}
	if total <= MaxTasks {
		return false
	}
	b.vs.Add("/jobs", "more than %d tasks in total; at most %d are simulated per request", MaxTasks, MaxTasks)
	return true
}

// job builds job i with its queue and its stage DAG.
func (b *simBuilder) job(i int, jr *JobReq) job {
	j := job{id: jr.ID, arrival: jr.Arrival, weight: 1, index: i, queue: b.queue(i, jr)}
	if jr.Weight != nil {
		j.weight = *jr.Weight
	}
	sidx := map[string]int{}
	for s, sr := range jr.Stages {
		if _, dup := sidx[sr.Name]; dup {
			b.vs.Add(solver.Ptr("jobs", i, "stages", s, "name"), "duplicate stage %q in job %q", sr.Name, jr.ID)
		}
		sidx[sr.Name] = s
	}
	for s := range jr.Stages {
		j.stages = append(j.stages, b.stage(i, s, jr, sidx))
	}
	for s := range j.stages {
		for _, p := range j.stages[s].after {
			j.stages[p].next = append(j.stages[p].next, s)
		}
	}
	if s := cycleAt(j.stages); s >= 0 {
		b.vs.Add(solver.Ptr("jobs", i, "stages", s, "after"), "stage %q is on a cycle of the stage DAG", j.stages[s].name)
	}
	return j
}

// queue is job i's queue index ("default" when it names none). Without a
// queue list every named queue gets an equal share; with one, the queue
// must be on it.
func (b *simBuilder) queue(i int, jr *JobReq) int {
	qn := cmp.Or(jr.Queue, "default")
	q, ok := b.qidx[qn]
	if ok {
		return q
	}
	if len(b.req.Queues) > 0 {
		b.vs.Add(solver.Ptr("jobs", i, "queue"), "unknown queue %q", qn)
	}
	q = len(b.qcap)
	b.qidx[qn] = q
	b.qcap = append(b.qcap, 0)
	return q
}

// stage builds stage s of job i: its demand, which must fit some machine,
// its predecessors (sidx: stage name to index), its work and its inputs.
func (b *simBuilder) stage(i, s int, jr *JobReq, sidx map[string]int) stage {
	sr := &jr.Stages[s]
	in := b.in
	st := stage{name: sr.Name, tasks: sr.Tasks, duration: sr.Duration}
	var unknown []string
	st.demand, unknown = b.cl.Vector(sr.Demand)
	for _, r := range unknown {
		b.vs.Add(solver.Ptr("jobs", i, "stages", s, "demand", r), "no machine has resource %q", r)
	}
	fitsSome := slices.ContainsFunc(in.Cap, func(c []float64) bool { return fits(st.demand, c) })
	if !fitsSome && len(in.Cap) > 0 && sr.Tasks > 0 {
		b.vs.Add(solver.Ptr("jobs", i, "stages", s, "demand"), "demand exceeds the capacity of every machine: the stage can never run")
	}
	for k, a := range sr.After {
		p, ok := sidx[a]
		switch {
		case !ok:
			b.vs.Add(solver.Ptr("jobs", i, "stages", s, "after", k), "unknown stage %q in job %q", a, jr.ID)
		case p == s:
			b.vs.Add(solver.Ptr("jobs", i, "stages", s, "after", k), "stage %q waits for itself", a)
		default:
			st.after = append(st.after, p)
		}
	}
	st.work = tetris.TaskWork(st.demand, st.duration, in.Norm)
	if sr.InputRate > 0 || len(sr.InputMachines) > 0 {
		b.inputs(i, s, sr, &st)
	}
	return st
}

// inputs sets the stage's input rate, adds its reads to its work, and
// places each task's input: round-robin over the stage's input machines,
// or on a random machine drawn from the seed, the job and the stage.
func (b *simBuilder) inputs(i, s int, sr *StageReq, st *stage) {
	in := b.in
	if sr.InputRate > 0 && (in.IO.DiskRead < 0 || in.IO.NetIn < 0 || in.IO.NetOut < 0) {
		b.vs.Add(solver.Ptr("jobs", i, "stages", s, "input_rate"), "input reads need the disk_read, net_in and net_out resources (see roles); some machine must have each")
	}
	if sr.InputRate > 0 && in.IO.DiskRead >= 0 {
		st.work += sr.InputRate / math.Max(in.Norm[in.IO.DiskRead], tetris.ShareTieTol) * sr.Duration
	}
	st.inRate = sr.InputRate
	st.inAt = make([]int32, sr.Tasks)
	if len(sr.InputMachines) > 0 {
		ms := make([]int32, len(sr.InputMachines))
		for k, name := range sr.InputMachines {
			m, ok := b.cl.ByName[name]
			if !ok {
				b.vs.Add(solver.Ptr("jobs", i, "stages", s, "input_machines", k), "unknown machine %q", name)
			}
			ms[k] = int32(m)
		}
		for t := range st.inAt {
			st.inAt[t] = ms[t%len(ms)]
		}
	} else if len(in.Cap) > 0 {
		rng := rand.New(rand.NewPCG(uint64(b.seed), uint64(i)<<20|uint64(s)))
		for t := range st.inAt {
			st.inAt[t] = int32(rng.IntN(len(in.Cap)))
		}
	}
}

// queueShares is each queue's capacity fraction: as configured (a queue
// without capacity gets ShareTieTol, which ranks it behind every other), or
// equal shares when the request lists no queues.
func queueShares(capacity []float64, configured bool) []float64 {
	sum := 0.0
	for _, c := range capacity {
		sum += c
	}
	out := make([]float64, len(capacity))
	for q, c := range capacity {
		switch {
		case !configured:
			out[q] = 1 / float64(len(capacity))
		case sum > 0 && c > 0:
			out[q] = c / sum
		default:
			out[q] = tetris.ShareTieTol
		}
	}
	return out
}

// cycleAt returns a stage on a cycle of the DAG (the lowest index found by
// Kahn's algorithm among the stages left over), or -1 if acyclic.
func cycleAt(st []stage) int {
	indeg := make([]int, len(st))
	for s := range st {
		indeg[s] = len(st[s].after)
	}
	queue := []int{}
	for s, n := range indeg {
		if n == 0 {
			queue = append(queue, s)
		}
	}
	seen := 0
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		seen++
		for _, n := range st[s].next {
			indeg[n]--
			if indeg[n] == 0 {
				queue = append(queue, n)
			}
		}
	}
	if seen == len(st) {
		return -1
	}
	for s, n := range indeg {
		if n > 0 {
			return s
		}
	}
	return -1
}

// String names an instance for notes.
func (in *Instance) String() string {
	n := 0
	for _, j := range in.Jobs {
		for _, s := range j.stages {
			n += s.tasks
		}
	}
	return fmt.Sprintf("%d machines, %d jobs, %d tasks", len(in.Cap), len(in.Jobs), n)
}

// fits reports whether demand fits within capacity c, resource by resource.
func fits(demand, c []float64) bool {
	for k, x := range demand {
		if x > c[k] {
			return false
		}
	}
	return true
}
