package simulate

import (
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
	var vs solver.Violations
	in := &Instance{Req: req}
	specs := make([]tetris.MachineReq, len(req.Machines))
	for i, m := range req.Machines {
		specs[i] = tetris.MachineReq{Name: m.Name, Capacity: m.Capacity}
	}
	cl := tetris.NewCluster(specs, &vs)
	in.Resources, in.Total, in.Norm = cl.Resources, cl.Total, tetris.NormCap(cl.Machines)
	for _, m := range cl.Machines {
		in.Cap = append(in.Cap, m.Cap)
	}
	d := len(in.Resources)

	// Policy and roles.
	in.Policy, in.FairPolicy = req.Policy, req.FairPolicy
	if in.Policy == "" {
		in.Policy = PolicyTetris
	}
	if in.FairPolicy == "" {
		in.FairPolicy = PolicyDRF
	}
	var ro Roles
	if req.Roles != nil {
		ro = *req.Roles
	}
	if ro.CPU == "" {
		ro.CPU = "cpu"
	}
	if ro.Memory == "" {
		ro.Memory = "memory"
	}
	in.CPU, in.Mem = cl.Role(ro.CPU, "cpu"), cl.Role(ro.Memory, "memory")
	in.IO = cl.IORoles(ro.DiskRead, ro.NetIn, ro.NetOut)
	seed := int64(0)
	if req.Seed != nil {
		seed = *req.Seed
	}
	for _, p := range []string{in.Policy, in.FairPolicy} {
		switch p {
		case PolicySlotFair, PolicyCapacity:
			if in.Mem < 0 {
				vs.Add("/roles/memory", "policy %s allocates memory slots but no machine has resource %q", p, ro.Memory)
			}
		case PolicyTetrisCPUMem:
			if in.CPU < 0 && in.Mem < 0 {
				vs.Add("/roles", "policy %s needs the cpu or memory resource (%q, %q)", p, ro.CPU, ro.Memory)
			}
		}
	}
	in.Fair = make([]bool, d)
	if req.FairResources != nil {
		for i, r := range req.FairResources {
			k, ok := cl.Resource(r)
			if !ok {
				vs.Add(solver.Ptr("fair_resources", i), "no machine has resource %q", r)
				continue
			}
			in.Fair[k] = true
		}
	} else {
		for _, k := range []int{in.CPU, in.Mem} {
			if k >= 0 {
				in.Fair[k] = true
			}
		}
		if (in.Policy == PolicyDRF || in.FairPolicy == PolicyDRF) && in.CPU < 0 && in.Mem < 0 {
			vs.Add("/fair_resources", "drf needs resources to share: no cpu (%q) or memory (%q) resource; name them in fair_resources", ro.CPU, ro.Memory)
		}
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
	in.Knobs = req.Knobs.Resolve(&vs)

	// Queues.
	qidx := map[string]int{}
	var qcap []float64
	for i, q := range req.Queues {
		if _, dup := qidx[q.Name]; dup {
			vs.Add(solver.Ptr("queues", i, "name"), "duplicate queue %q", q.Name)
			continue
		}
		qidx[q.Name] = len(qcap)
		qcap = append(qcap, q.Capacity)
	}

	// The task count is checked before any per-task allocation (input
	// locations take 4 bytes a task): a trace over MaxTasks is refused
	// without building it.
	total := 0
	for _, jr := range req.Jobs {
		for _, sr := range jr.Stages {
			total += min(sr.Tasks, MaxTasks+1) // saturating: no int overflow
			total = min(total, MaxTasks+1)
		}
	}
	if total > MaxTasks {
		vs.Add("/jobs", "more than %d tasks in total; at most %d are simulated per request", MaxTasks, MaxTasks)
		return nil, vs.Err()
	}

	// Jobs and stages.
	jids := map[string]bool{}
	for i, jr := range req.Jobs {
		if jids[jr.ID] {
			vs.Add(solver.Ptr("jobs", i, "id"), "duplicate job id %q", jr.ID)
		}
		jids[jr.ID] = true
		j := job{id: jr.ID, arrival: jr.Arrival, weight: 1, index: i}
		if jr.Weight != nil {
			j.weight = *jr.Weight
		}
		qn := jr.Queue
		if qn == "" {
			qn = "default"
		}
		q, ok := qidx[qn]
		if !ok {
			if len(req.Queues) > 0 {
				vs.Add(solver.Ptr("jobs", i, "queue"), "unknown queue %q", qn)
			}
			// Without a queue list every named queue gets an equal share.
			q = len(qcap)
			qidx[qn] = q
			qcap = append(qcap, 0)
		}
		j.queue = q
		sidx := map[string]int{}
		for s, sr := range jr.Stages {
			if _, dup := sidx[sr.Name]; dup {
				vs.Add(solver.Ptr("jobs", i, "stages", s, "name"), "duplicate stage %q in job %q", sr.Name, jr.ID)
			}
			sidx[sr.Name] = s
		}
		for s, sr := range jr.Stages {
			st := stage{name: sr.Name, tasks: sr.Tasks, duration: sr.Duration}
			var unknown []string
			st.demand, unknown = cl.Vector(sr.Demand)
			for _, r := range unknown {
				vs.Add(solver.Ptr("jobs", i, "stages", s, "demand", r), "no machine has resource %q", r)
			}
			fitsSome := slices.ContainsFunc(in.Cap, func(c []float64) bool { return fits(st.demand, c) })
			if !fitsSome && len(in.Cap) > 0 && sr.Tasks > 0 {
				vs.Add(solver.Ptr("jobs", i, "stages", s, "demand"), "demand exceeds the capacity of every machine: the stage can never run")
			}
			for k, a := range sr.After {
				p, ok := sidx[a]
				switch {
				case !ok:
					vs.Add(solver.Ptr("jobs", i, "stages", s, "after", k), "unknown stage %q in job %q", a, jr.ID)
				case p == s:
					vs.Add(solver.Ptr("jobs", i, "stages", s, "after", k), "stage %q waits for itself", a)
				default:
					st.after = append(st.after, p)
				}
			}
			st.work = tetris.TaskWork(st.demand, st.duration, in.Norm)
			if sr.InputRate > 0 || len(sr.InputMachines) > 0 {
				if sr.InputRate > 0 && (in.IO.DiskRead < 0 || in.IO.NetIn < 0 || in.IO.NetOut < 0) {
					vs.Add(solver.Ptr("jobs", i, "stages", s, "input_rate"), "input reads need the disk_read, net_in and net_out resources (see roles); some machine must have each")
				}
				if sr.InputRate > 0 && in.IO.DiskRead >= 0 {
					st.work += sr.InputRate / math.Max(in.Norm[in.IO.DiskRead], tetris.ShareTieTol) * sr.Duration
				}
				st.inRate = sr.InputRate
				st.inAt = make([]int32, sr.Tasks)
				if len(sr.InputMachines) > 0 {
					ms := make([]int32, len(sr.InputMachines))
					for k, name := range sr.InputMachines {
						m, ok := cl.ByName[name]
						if !ok {
							vs.Add(solver.Ptr("jobs", i, "stages", s, "input_machines", k), "unknown machine %q", name)
						}
						ms[k] = int32(m)
					}
					for t := range st.inAt {
						st.inAt[t] = ms[t%len(ms)]
					}
				} else if len(in.Cap) > 0 {
					rng := rand.New(rand.NewPCG(uint64(seed), uint64(i)<<20|uint64(s)))
					for t := range st.inAt {
						st.inAt[t] = int32(rng.IntN(len(in.Cap)))
					}
				}
			}
			j.stages = append(j.stages, st)
		}
		for s := range j.stages {
			for _, p := range j.stages[s].after {
				j.stages[p].next = append(j.stages[p].next, s)
			}
		}
		if s := cycleAt(j.stages); s >= 0 {
			vs.Add(solver.Ptr("jobs", i, "stages", s, "after"), "stage %q is on a cycle of the stage DAG", j.stages[s].name)
		}
		in.Jobs = append(in.Jobs, j)
	}
	in.QueueShare = queueShares(qcap, len(req.Queues) > 0)
	if err := vs.Err(); err != nil {
		return nil, err
	}
	return in, nil
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
