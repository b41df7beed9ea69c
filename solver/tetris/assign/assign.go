package assign

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/tetris"
)

// Result is the response body (schemas/tetris-assign.response.json).
type Result struct {
	Assignments []Assignment  `json:"assignments"`
	Unplaced    []Unplaced    `json:"unplaced"`
	Machines    []MachineFree `json:"machines"`
	Knobs       KnobsOut      `json:"knobs"`
	Summary     Summary       `json:"summary"`
	// unexplained counts the groups whose unplaced tasks the budget left
	// unexplained (reported in meta.notes, not on the wire).
	unexplained int
}

// Assignment is one placed task.
type Assignment struct {
	Task      string  `json:"task"`
	Job       string  `json:"job"`
	Machine   string  `json:"machine"`
	Alignment float64 `json:"alignment"`
	Score     float64 `json:"score"`
	Remote    bool    `json:"remote"`
	Promoted  bool    `json:"promoted"`
	// Share is the job's dominant share before the placement; Rank its
	// place among jobs able to use the machine (0 = furthest below share).
	Share float64 `json:"share"`
	Rank  int     `json:"rank"`
}

// Shortfall is one resource short at one machine.
type Shortfall struct {
	Resource string  `json:"resource"`
	Machine  string  `json:"machine"`
	Need     float64 `json:"need"`
	Free     float64 `json:"free"`
}

// Unplaced explains a task left pending: the worst shortfall at the
// placement closest to fitting (which resource, where), all shortfalls
// there, and per resource how many machines lack it.
type Unplaced struct {
	Task       string         `json:"task"`
	Job        string         `json:"job"`
	Resource   string         `json:"resource"`
	Machine    string         `json:"machine"`
	Need       float64        `json:"need"`
	Free       float64        `json:"free"`
	Remote     bool           `json:"remote"`
	Shortfalls []Shortfall    `json:"shortfalls"`
	Blocked    map[string]int `json:"blocked"`
	Reason     string         `json:"reason"`
}

// MachineFree is a machine's free resources after the round.
type MachineFree struct {
	Name string             `json:"name"`
	Free map[string]float64 `json:"free"`
}

// KnobsOut echoes the knobs used, ε resolved.
type KnobsOut struct {
	Fairness      float64 `json:"fairness"`
	Barrier       float64 `json:"barrier"`
	Epsilon       float64 `json:"epsilon"`
	EpsilonAuto   bool    `json:"epsilon_auto"`
	RemotePenalty float64 `json:"remote_penalty"`
}

// Summary counts the round's outcome.
type Summary struct {
	Placed   int `json:"placed"`
	Unplaced int `json:"unplaced"`
	Remote   int `json:"remote"`
	Promoted int `json:"promoted"`
	Groups   int `json:"groups"`
	// Complete is false when the budget ran out before every machine was
	// visited (the status is then timeout).
	Complete bool `json:"complete"`
}

// solve runs one round on a built request.
func solve(ctx context.Context, b solver.Built[Request, *Instance], opts solver.Options) (any, solver.Meta, error) {
	inst := b.In
	res, err := inst.Run(ctx)
	if err != nil {
		return nil, solver.Meta{}, fmt.Errorf("tetris round: %w", err)
	}
	meta := solver.Meta{
		Status: solver.StatusFeasible,
		Solver: "tetris/round",
		Notes: []string{
			"status is feasible, not optimal: a Tetris round is a deterministic greedy heuristic (alignment + SRTF under the fairness and barrier knobs); it never over-allocates a checked resource, but makes no optimality claim",
			fmt.Sprintf("epsilon %.6g (%s)", inst.Knobs.Epsilon, map[bool]string{true: "auto: ā/p̄ times epsilon_scale", false: "given"}[inst.Knobs.EpsilonAuto]),
		},
	}
	if !res.Summary.Complete {
		meta.Status = solver.StatusTimeout
		meta.Notes = append(meta.Notes, "budget ran out before every machine was visited: the assignments made are valid, later machines got none")
	}
	if n := res.unexplained; n > 0 {
		meta.Notes = append(meta.Notes, fmt.Sprintf("budget ran out before the unplaced tasks of %d group(s) were explained: their reason says so and their other fields are empty", n))
	}
	meta.SetObjective(float64(res.Summary.Placed))
	return res, meta, nil
}

// Instance is a validated request in index form.
type Instance struct {
	Req       *Request
	Resources []string
	Machines  []tetris.Machine
	Groups    []*tetris.Group
	// Tasks maps (group, member) back to request task indices.
	Tasks  [][]int
	Jobs   []tetris.Job
	JobIDs []string
	// Knobs are the knobs in force, Epsilon resolved for this round.
	Knobs tetris.Resolved
	Roles tetris.Roles
	Total []float64
	// Order is the fill order (request order, or the heartbeat's);
	// Offered the same machines ascending.
	Order   []int
	Offered []int
}

// Build validates req and turns it into an Instance. Errors are
// *solver.Error with JSON pointers.
func Build(req *Request) (*Instance, error) {
	b := &assignBuilder{req: req, jidx: map[string]int{}, stages: map[[2]string]stageInfo{}, given: map[int]bool{}}
	b.cl = tetris.NewCluster(req.Machines, &b.vs)
	in := &Instance{Req: req, Resources: b.cl.Resources, Machines: b.cl.Machines, Total: b.cl.Total}
	b.in = in
	ro := Roles{}
	if req.Roles != nil {
		ro = *req.Roles
	}
	in.Roles = b.cl.IORoles(ro.DiskRead, ro.NetIn, ro.NetOut)
	in.Order = heartbeat(req, b.cl.ByName, &b.vs)
	in.Offered = slices.Clone(in.Order) // non-nil: ExplainOn reads nil as every machine
	if in.Offered == nil {
		in.Offered = []int{}
	}
	slices.Sort(in.Offered)
	in.Knobs = req.Knobs.Resolve(&b.vs)
	for i := range req.Jobs {
		b.addJobReq(i, &req.Jobs[i])
	}
	b.addTasks()
	if err := b.vs.Err(); err != nil {
		return nil, err
	}
	if err := in.resolveEpsilon(); err != nil {
		return nil, err
	}
	return in, nil
}

// assignBuilder is Build's state: the instance so far, the violations
// found, and the indices tasks refer to.
type assignBuilder struct {
	req    *Request
	in     *Instance
	vs     solver.Violations
	cl     *tetris.Cluster
	jidx   map[string]int // job id to job index
	stages map[[2]string]stageInfo
	given  map[int]bool // jobs whose remaining work the request gives
}

// stageInfo is a stage's task counts, for the barrier knob.
type stageInfo struct{ tasks, finished int }

// vec is amounts as a resource vector, with a violation at ptr for each
// resource no machine provides.
func (b *assignBuilder) vec(amounts map[string]float64, ptr ...any) []float64 {
	v, bad := b.cl.Vector(amounts)
	for _, r := range bad {
		b.vs.Add(solver.Ptr(append(ptr, r)...), "resource %q is not provided by any machine", r)
	}
	return v
}

// addJob adds a job with id, no allocation and weight 1.
func (b *assignBuilder) addJob(id string) int {
	in := b.in
	j := len(in.Jobs)
	b.jidx[id] = j
	in.JobIDs = append(in.JobIDs, id)
	in.Jobs = append(in.Jobs, tetris.Job{Alloc: make([]float64, len(in.Resources)), Weight: 1})
	return j
}

// addJobReq adds job i of the request with its allocation, weight,
// remaining work and stages.
func (b *assignBuilder) addJobReq(i int, jr *JobReq) {
	if _, dup := b.jidx[jr.ID]; dup {
		b.vs.Add(solver.Ptr("jobs", i, "id"), "duplicate job id %q", jr.ID)
		return
	}
	j := b.addJob(jr.ID)
	job := &b.in.Jobs[j]
	if jr.Allocation != nil {
		job.Alloc = b.vec(jr.Allocation, "jobs", i, "allocation")
	}
	if jr.Weight != nil {
		job.Weight = *jr.Weight
	}
	if jr.RemainingWork != nil {
		job.Work = *jr.RemainingWork
		b.given[j] = true
	}
	for s, st := range jr.Stages {
		key := [2]string{jr.ID, st.Name}
		if _, dup := b.stages[key]; dup {
			b.vs.Add(solver.Ptr("jobs", i, "stages", s, "name"), "duplicate stage %q in job %q", st.Name, jr.ID)
			continue
		}
		if st.Finished > st.Tasks {
			b.vs.Add(solver.Ptr("jobs", i, "stages", s, "finished"), "finished %d exceeds tasks %d", st.Finished, st.Tasks)
		}
		b.stages[key] = stageInfo{st.Tasks, st.Finished}
	}
}

// addTasks adds the tasks, grouped by (job, stage, demand, input rates),
// adding each task's work to its job unless the request gives the job's
// remaining work; a task of an unlisted job adds the job.
func (b *assignBuilder) addTasks() {
	in := b.in
	norm := tetris.NormCap(in.Machines)
	tidx := make(map[string]int, len(b.req.Tasks))
	gidx := map[string]int{}
	var keyBuf []byte
	for i := range b.req.Tasks {
		t := &b.req.Tasks[i]
		if _, dup := tidx[t.ID]; dup {
			b.vs.Add(solver.Ptr("tasks", i, "id"), "duplicate task id %q", t.ID)
			continue
		}
		tidx[t.ID] = i
		j, ok := b.jidx[t.Job]
		if !ok {
			j = b.addJob(t.Job)
		}
		dem := b.vec(t.Demand, "tasks", i, "demand")
		inputs, rates := b.inputs(i, t)
		if !b.given[j] {
			in.Jobs[j].Work += b.taskWork(t, dem, inputs, norm)
		}
		sort.Float64s(rates)
		keyBuf = groupKey(keyBuf[:0], j, t.Stage, dem, rates, len(inputs) > 0)
		gi, ok := gidx[string(keyBuf)] // no string is built for the lookup
		if !ok {
			gi = len(in.Groups)
			gidx[string(keyBuf)] = gi
			st := b.stages[[2]string{t.Job, t.Stage}]
			in.Groups = append(in.Groups, &tetris.Group{Job: j, Demand: dem, Promoted: in.Knobs.Promoted(st.finished, st.tasks)})
			in.Tasks = append(in.Tasks, nil)
		}
		g := in.Groups[gi]
		g.Count++
		if len(inputs) > 0 || g.Members != nil {
			g.Members = append(g.Members, tetris.Member{Inputs: inputs})
		}
		in.Tasks[gi] = append(in.Tasks[gi], i)
	}
}

// inputs are task i's inputs on known machines and their rates; a positive
// rate needs every I/O role's resource.
func (b *assignBuilder) inputs(i int, t *TaskReq) ([]tetris.Input, []float64) {
	var inputs []tetris.Input
	var rates []float64
	roles := b.in.Roles
	for k, ip := range t.Inputs {
		m, ok := b.cl.ByName[ip.Machine]
		if !ok {
			b.vs.Add(solver.Ptr("tasks", i, "inputs", k, "machine"), "unknown machine %q", ip.Machine)
			continue
		}
		if ip.Rate > 0 {
			for _, rl := range []struct {
				k    int
				name string
			}{{roles.DiskRead, "disk_read"}, {roles.NetIn, "net_in"}, {roles.NetOut, "net_out"}} {
				if rl.k < 0 {
					b.vs.Add(solver.Ptr("tasks", i, "inputs", k, "rate"), "input bandwidth needs the %s resource (roles/%s), which no machine provides", rl.name, rl.name)
				}
			}
		}
		inputs = append(inputs, tetris.Input{Machine: m, Rate: ip.Rate})
		rates = append(rates, ip.Rate)
	}
	return inputs, rates
}

// taskWork is the task's work: its demand over normalised capacity norm
// for its duration (1 by default), plus its input reads.
func (b *assignBuilder) taskWork(t *TaskReq, dem []float64, inputs []tetris.Input, norm []float64) float64 {
	dur := 1.0
	if t.Duration != nil {
		dur = *t.Duration
	}
	w := tetris.TaskWork(dem, dur, norm)
	dr := b.in.Roles.DiskRead
	for _, ip := range inputs {
		if dr >= 0 && norm[dr] > 0 {
			w += ip.Rate / norm[dr] * dur
		}
	}
	return w
}

// resolveEpsilon sets the automatic ε, refusing one that overflows: only
// the automatic ε can (a given one is at most 1e15 and remaining work is
// finite): ā/p̄ overflows when the demands and durations span too many
// orders of magnitude.
func (in *Instance) resolveEpsilon() error {
	in.Knobs.Epsilon = in.Knobs.EpsilonFor(in.Machines, in.Groups, in.Jobs, nil)
	maxWork := 0.0
	for _, j := range in.Jobs {
		maxWork = max(maxWork, j.Work)
	}
	e := in.Knobs.Epsilon
	if !math.IsInf(e, 0) && !math.IsNaN(e) && !math.IsInf(e*maxWork, 0) {
		return nil
	}
	var vs solver.Violations
	vs.Add("/knobs", "the automatic epsilon ā/p̄ overflows (%g, largest remaining work %g): give knobs.epsilon", e, maxWork)
	return vs.Err()
}

// heartbeat is the fill order: the heartbeat's machines, or every machine
// in request order. Unknown and repeated names are violations.
func heartbeat(req *Request, byName map[string]int, vs *solver.Violations) []int {
	if req.Heartbeat == nil {
		order := make([]int, len(req.Machines))
		for i := range order {
			order[i] = i
		}
		return order
	}
	order := make([]int, 0, len(req.Heartbeat))
	seen := make(map[int]bool, len(req.Heartbeat))
	for i, name := range req.Heartbeat {
		m, ok := byName[name]
		switch {
		case !ok:
			vs.Add(solver.Ptr("heartbeat", i), "unknown machine %q", name)
		case seen[m]:
			vs.Add(solver.Ptr("heartbeat", i), "machine %q is listed twice", name)
		default:
			seen[m] = true
			order = append(order, m)
		}
	}
	return order
}

// groupKey appends to b the key identifying interchangeable tasks. Tasks
// with inputs and tasks without never share a group (anonymous groups
// carry no members).
func groupKey(b []byte, job int, stage string, dem, rates []float64, hasInputs bool) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(job))
	b = append(b, stage...)
	b = append(b, 0)
	for _, x := range dem {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	if hasInputs {
		b = append(b, 1)
		for _, x := range rates {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
	}
	return b
}

// Config is the round configuration of the instance.
func (in *Instance) Config() tetris.Config {
	return tetris.Config{Fairness: in.Knobs.Fairness, Epsilon: in.Knobs.Epsilon,
		RemotePenalty: in.Knobs.RemotePenalty, Total: in.Total, Roles: in.Roles}
}

// Round runs the Tetris round, visiting the machines in in.Order. It
// mutates the instance.
func (in *Instance) Round(ctx context.Context) ([]tetris.Placement, error) {
	return tetris.Round(ctx, in.Machines, in.Order, in.Groups, in.Jobs, in.Config())
}

// Run executes the round and formats the result. It mutates the instance.
func (in *Instance) Run(ctx context.Context) (*Result, error) {
	ps, err := in.Round(ctx)
	if err != nil && ctx.Err() == nil {
		return nil, err
	}
	// On a budget overrun the placements made so far are still valid (each
	// fitted when made); the rest are reported unplaced.
	res := &Result{Unplaced: []Unplaced{}}
	next := in.assignments(res, ps)
	ups := in.unplacedTasks(ctx, res, next)
	res.Summary.Unplaced = len(ups)
	if m := in.Req.MaxUnplaced; m != nil && *m < len(ups) {
		ups = ups[:*m]
	}
	res.Unplaced = in.unplacedOut(ups)
	res.Machines = in.machinesFree()
	res.Knobs = KnobsOut{Fairness: in.Knobs.Fairness, Barrier: in.Knobs.Barrier, Epsilon: in.Knobs.Epsilon,
		EpsilonAuto: in.Knobs.EpsilonAuto, RemotePenalty: in.Knobs.RemotePenalty}
	res.Summary.Placed = len(res.Assignments)
	res.Summary.Complete = err == nil
	res.Summary.Groups = len(in.Groups)
	return res, nil
}

// assignments writes the placements as res's assignments and counts the
// remote and promoted ones. It returns, per anonymous group, how many of
// its tasks were handed out (they go in request order).
func (in *Instance) assignments(res *Result, ps []tetris.Placement) []int {
	req := in.Req
	res.Assignments = make([]Assignment, 0, len(ps))
	next := make([]int, len(in.Groups))
	for _, p := range ps {
		g := in.Groups[p.Group]
		var ti int
		if p.Member >= 0 {
			ti = in.Tasks[p.Group][p.Member]
		} else {
			ti = in.Tasks[p.Group][next[p.Group]]
			next[p.Group]++
		}
		res.Assignments = append(res.Assignments, Assignment{
			Task: req.Tasks[ti].ID, Job: in.JobIDs[g.Job], Machine: req.Machines[p.Machine].Name,
			Alignment: p.Alignment, Score: p.Score, Remote: p.Remote, Promoted: p.Promoted,
			Share: p.Share, Rank: int(p.Rank),
		})
		if p.Remote {
			res.Summary.Remote++
		}
		if p.Promoted {
			res.Summary.Promoted++
		}
	}
	return next
}

// unplacedTask is a task left unplaced: its request index, its group and
// why.
type unplacedTask struct {
	ti, g int
	r     *tetris.Reason
}

// unplacedTasks lists the unplaced tasks in request order, each with its
// group's reason, counting in res the groups left unexplained. Explaining
// costs a pass over the machines per group; groups the budget leaves
// unexplained get unexplainedReason.
func (in *Instance) unplacedTasks(ctx context.Context, res *Result, next []int) []unplacedTask {
	reasons := tetris.ExplainOn(ctx, in.Machines, in.Offered, in.Groups, in.Config())
	var ups []unplacedTask
	for gi, g := range in.Groups {
		if g.Count == 0 {
			continue
		}
		if reasons[gi] == nil {
			res.unexplained++
		}
		reason := func(i int) *tetris.Reason {
			if reasons[gi] == nil {
				return unexplainedReason
			}
			return reasons[gi][i]
		}
		if g.Members == nil {
			for _, ti := range in.Tasks[gi][next[gi]:] {
				ups = append(ups, unplacedTask{ti, gi, reason(0)})
			}
			continue
		}
		for mi := range g.Members {
			if !g.Members[mi].Placed() {
				ups = append(ups, unplacedTask{in.Tasks[gi][mi], gi, reason(mi)})
			}
		}
	}
	sort.Slice(ups, func(a, b int) bool { return ups[a].ti < ups[b].ti })
	return ups
}

// unplacedOut formats the unplaced tasks. One blocked map per group: every
// task of a group shares it. The tasks of an anonymous group share one
// reason too, formatted once (they differ only in the task id).
func (in *Instance) unplacedOut(ups []unplacedTask) []Unplaced {
	blocked := make([]map[string]int, len(in.Groups))
	done := map[*tetris.Reason]Unplaced{}
	out := make([]Unplaced, 0, len(ups))
	for _, u := range ups {
		if blocked[u.g] == nil {
			blocked[u.g] = map[string]int{}
			for k, n := range u.r.Blocked {
				if n > 0 {
					blocked[u.g][in.Resources[k]] = n
				}
			}
		}
		if in.Groups[u.g].Members != nil {
			out = append(out, in.unplaced(u.ti, in.Groups[u.g].Job, u.r, blocked[u.g]))
			continue
		}
		x, ok := done[u.r]
		if !ok {
			x = in.unplaced(u.ti, in.Groups[u.g].Job, u.r, blocked[u.g])
			done[u.r] = x
		}
		x.Task = in.Req.Tasks[u.ti].ID
		out = append(out, x)
	}
	return out
}

// machinesFree is every machine's free capacity after the round.
func (in *Instance) machinesFree() []MachineFree {
	var out []MachineFree
	for i, m := range in.Machines {
		f := map[string]float64{}
		for k, r := range in.Resources {
			f[r] = m.Free[k]
		}
		out = append(out, MachineFree{Name: in.Req.Machines[i].Name, Free: f})
	}
	return out
}

// unexplainedReason stands for the reason of a group ExplainOn had no
// budget left for: no machine, no shortfalls, nothing blocked.
var unexplainedReason = &tetris.Reason{Machine: -1}

func (in *Instance) unplaced(ti, job int, r *tetris.Reason, blocked map[string]int) Unplaced {
	req := in.Req
	u := Unplaced{Task: req.Tasks[ti].ID, Job: in.JobIDs[job], Remote: r.Remote, Blocked: blocked,
		Shortfalls: make([]Shortfall, 0, len(r.Short))}
	for _, s := range r.Short {
		u.Shortfalls = append(u.Shortfalls, Shortfall{Resource: in.Resources[s.Resource],
			Machine: req.Machines[s.Machine].Name, Need: s.Need, Free: s.Free})
	}
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	switch {
	case r == unexplainedReason:
		u.Reason = "not explained: the budget ran out first"
	case r.Machine < 0:
		u.Reason = "no machines"
		if req.Heartbeat != nil {
			u.Reason = "no machine in the heartbeat"
		}
	case len(u.Shortfalls) == 0:
		// Only when the budget cut the round short: a completed round
		// fills every machine until nothing fits.
		u.Machine = req.Machines[r.Machine].Name
		u.Reason = "fits on " + u.Machine + " but was not placed"
	default:
		w := u.Shortfalls[0]
		u.Resource, u.Machine, u.Need, u.Free = w.Resource, w.Machine, w.Need, w.Free
		where := "on " + w.Machine
		if w.Machine != req.Machines[r.Machine].Name {
			where = "at input machine " + w.Machine + " (placing on " + req.Machines[r.Machine].Name + ")"
		}
		u.Reason = "needs " + num(w.Need) + " " + w.Resource + " " + where + ", " + num(math.Max(w.Free, 0)) +
			" free (closest placement); " + w.Resource + " short on " + strconv.Itoa(blocked[w.Resource]) +
			" of " + strconv.Itoa(len(in.Offered)) + " machines"
	}
	return u
}
