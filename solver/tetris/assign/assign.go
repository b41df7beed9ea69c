// Package assign is POST /v1/tetris/assign: one Tetris scheduling round, as
// a resource manager would run it at a heartbeat. The caller sends machines
// with their total and free resources, the pending tasks (peak demands, job,
// stage, input locations), per-job state (remaining work, current
// allocation, stage progress) and the knobs; the answer is the task-to-
// machine assignments with each one's alignment score, and for every task
// left pending the resource that kept it out and where.
//
// The algorithm is solver/tetris.Round; this package decodes, validates,
// groups interchangeable tasks (same job, stage, demand and input rates) so
// a round costs O(groups) per pick rather than O(tasks), and formats.
package assign

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/tetris"
)

// Problem describes tetris/assign.
func Problem() solver.Problem {
	return solver.Problem{
		Name:           "tetris/assign",
		CLIName:        "tetris-assign",
		RequestSchema:  "tetris-assign.request.json",
		ResponseSchema: "tetris-assign.response.json",
		Summary:        "Tetris: one multi-resource packing round (alignment, SRTF, fairness and barrier knobs)",
		Solve:          Solve,
		Generate:       Generate,
		Decode:         decode,
	}
}

// decode is Problem.Decode: the request parsed by Request.UnmarshalJSON
// without encoding/json's two scans of the body first (solver.Decode's
// syntax check and value extraction, 12 ms of 27 on a 1.6 MB request); the
// Runner checks the syntax itself while this runs. UnmarshalJSON hands
// anything unusual to encoding/json, so it returns on any input. The
// instance is built here too, alongside validation (80,000 tasks took
// about 90 ms to build: the whole solve share of a 50 ms budget, spent
// after the deadline). A request that does not build is returned alone;
// Solve then builds it again and reports the error on the validated body.
func decode(raw json.RawMessage) (any, error) {
	var req Request
	if err := req.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	in, err := Build(&req)
	if err != nil {
		return &req, nil
	}
	return &prebuilt{req: &req, in: in}, nil
}

// prebuilt is decode's answer for a request that builds.
type prebuilt struct {
	req *Request
	in  *Instance
}

// Request is the wire format (schemas/tetris-assign.request.json).
type Request struct {
	Machines []MachineReq `json:"machines"`
	Tasks    []TaskReq    `json:"tasks"`
	Jobs     []JobReq     `json:"jobs,omitempty"`
	Knobs    *Knobs       `json:"knobs,omitempty"`
	Roles    *Roles       `json:"roles,omitempty"`
	// Heartbeat lists the machines to fill, in this order, as at the
	// heartbeats of those machines (the paper's node-manager heartbeat);
	// the other machines only lend input bandwidth to remote reads. nil
	// fills every machine in request order.
	Heartbeat []string `json:"heartbeat,omitempty"`
	// MaxUnplaced caps how many unplaced tasks are listed (in request
	// order); summary.unplaced still counts all. nil lists every one.
	MaxUnplaced *int   `json:"max_unplaced,omitempty"`
	BudgetMS    *int64 `json:"budget_ms,omitempty"`
	Seed        *int64 `json:"seed,omitempty"`
}

// MachineReq is one machine: total capacity and what is free now (default:
// all of it).
type MachineReq = tetris.MachineReq

// TaskReq is one pending task.
type TaskReq struct {
	ID       string             `json:"id"`
	Job      string             `json:"job"`
	Stage    string             `json:"stage,omitempty"`
	Demand   map[string]float64 `json:"demand"`
	Duration *float64           `json:"duration,omitempty"`
	Inputs   []InputReq         `json:"inputs,omitempty"`
}

// InputReq is one portion of a task's input: it is read at Rate from
// Machine while the task runs.
type InputReq struct {
	Machine string  `json:"machine"`
	Rate    float64 `json:"rate"`
}

// JobReq carries per-job state the scheduler keeps between rounds.
type JobReq struct {
	ID            string             `json:"id"`
	RemainingWork *float64           `json:"remaining_work,omitempty"`
	Allocation    map[string]float64 `json:"allocation,omitempty"`
	Weight        *float64           `json:"weight,omitempty"`
	Stages        []StageReq         `json:"stages,omitempty"`
}

// StageReq is a stage's progress: Finished of Tasks done.
type StageReq struct {
	Name     string `json:"name"`
	Tasks    int    `json:"tasks"`
	Finished int    `json:"finished"`
}

// Knobs are Tetris's knobs; nil fields take the paper's defaults.
type Knobs = tetris.Knobs

// Roles name the resources placement adjusts for remote reads.
type Roles struct {
	DiskRead string `json:"disk_read,omitempty"`
	NetIn    string `json:"net_in,omitempty"`
	NetOut   string `json:"net_out,omitempty"`
}

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

// Solve decodes, validates and runs one round.
func Solve(ctx context.Context, raw json.RawMessage, opts solver.Options) (any, solver.Meta, error) {
	inst, err := instanceOf(raw, opts)
	if err != nil {
		return nil, solver.Meta{}, err
	}
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

// instanceOf is decode's instance when it built one, else the request
// (decode's, or decoded here) built here.
func instanceOf(raw json.RawMessage, opts solver.Options) (*Instance, error) {
	if pb, ok := opts.Decoded.(*prebuilt); ok {
		return pb.in, nil
	}
	req, ok := opts.Decoded.(*Request)
	if !ok {
		req = new(Request)
		if err := solver.Decode(raw, req); err != nil {
			return nil, err
		}
	}
	return Build(req)
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
	var vs solver.Violations
	cl := tetris.NewCluster(req.Machines, &vs)
	in := &Instance{Req: req, Resources: cl.Resources, Machines: cl.Machines, Total: cl.Total}
	d := len(in.Resources)
	vec := func(m map[string]float64, ptr ...any) []float64 {
		v, bad := cl.Vector(m)
		for _, r := range bad {
			vs.Add(solver.Ptr(append(ptr, r)...), "resource %q is not provided by any machine", r)
		}
		return v
	}
	ro := Roles{}
	if req.Roles != nil {
		ro = *req.Roles
	}
	in.Roles = cl.IORoles(ro.DiskRead, ro.NetIn, ro.NetOut)
	in.Order = heartbeat(req, cl.ByName, &vs)
	in.Offered = slices.Clone(in.Order) // non-nil: ExplainOn reads nil as every machine
	if in.Offered == nil {
		in.Offered = []int{}
	}
	slices.Sort(in.Offered)
	in.Knobs = req.Knobs.Resolve(&vs)

	// Jobs.
	jidx := map[string]int{}
	type stageInfo struct{ tasks, finished int }
	stages := map[[2]string]stageInfo{}
	given := map[int]bool{}
	addJob := func(id string) int {
		j := len(in.Jobs)
		jidx[id] = j
		in.JobIDs = append(in.JobIDs, id)
		in.Jobs = append(in.Jobs, tetris.Job{Alloc: make([]float64, d), Weight: 1})
		return j
	}
	for i, jr := range req.Jobs {
		if _, dup := jidx[jr.ID]; dup {
			vs.Add(solver.Ptr("jobs", i, "id"), "duplicate job id %q", jr.ID)
			continue
		}
		j := addJob(jr.ID)
		if jr.Allocation != nil {
			in.Jobs[j].Alloc = vec(jr.Allocation, "jobs", i, "allocation")
		}
		if jr.Weight != nil {
			in.Jobs[j].Weight = *jr.Weight
		}
		if jr.RemainingWork != nil {
			in.Jobs[j].Work = *jr.RemainingWork
			given[j] = true
		}
		for s, st := range jr.Stages {
			key := [2]string{jr.ID, st.Name}
			if _, dup := stages[key]; dup {
				vs.Add(solver.Ptr("jobs", i, "stages", s, "name"), "duplicate stage %q in job %q", st.Name, jr.ID)
				continue
			}
			if st.Finished > st.Tasks {
				vs.Add(solver.Ptr("jobs", i, "stages", s, "finished"), "finished %d exceeds tasks %d", st.Finished, st.Tasks)
			}
			stages[key] = stageInfo{st.Tasks, st.Finished}
		}
	}
	// Tasks, grouped by (job, stage, demand, input rates).
	norm := tetris.NormCap(in.Machines)
	tidx := make(map[string]int, len(req.Tasks))
	gidx := map[string]int{}
	var keyBuf []byte
	for i, t := range req.Tasks {
		if _, dup := tidx[t.ID]; dup {
			vs.Add(solver.Ptr("tasks", i, "id"), "duplicate task id %q", t.ID)
			continue
		}
		tidx[t.ID] = i
		j, ok := jidx[t.Job]
		if !ok {
			j = addJob(t.Job)
		}
		dem := vec(t.Demand, "tasks", i, "demand")
		var inputs []tetris.Input
		var rates []float64
		for k, ip := range t.Inputs {
			m, ok := cl.ByName[ip.Machine]
			if !ok {
				vs.Add(solver.Ptr("tasks", i, "inputs", k, "machine"), "unknown machine %q", ip.Machine)
				continue
			}
			if ip.Rate > 0 {
				for _, rl := range []struct {
					k    int
					name string
				}{{in.Roles.DiskRead, "disk_read"}, {in.Roles.NetIn, "net_in"}, {in.Roles.NetOut, "net_out"}} {
					if rl.k < 0 {
						vs.Add(solver.Ptr("tasks", i, "inputs", k, "rate"), "input bandwidth needs the %s resource (roles/%s), which no machine provides", rl.name, rl.name)
					}
				}
			}
			inputs = append(inputs, tetris.Input{Machine: m, Rate: ip.Rate})
			rates = append(rates, ip.Rate)
		}
		dur := 1.0
		if t.Duration != nil {
			dur = *t.Duration
		}
		if !given[j] {
			w := tetris.TaskWork(dem, dur, norm)
			for _, ip := range inputs {
				if in.Roles.DiskRead >= 0 && norm[in.Roles.DiskRead] > 0 {
					w += ip.Rate / norm[in.Roles.DiskRead] * dur
				}
			}
			in.Jobs[j].Work += w
		}
		sort.Float64s(rates)
		keyBuf = groupKey(keyBuf[:0], j, t.Stage, dem, rates, len(inputs) > 0)
		gi, ok := gidx[string(keyBuf)] // no string is built for the lookup
		if !ok {
			gi = len(in.Groups)
			gidx[string(keyBuf)] = gi
			st := stages[[2]string{t.Job, t.Stage}]
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
	if err := vs.Err(); err != nil {
		return nil, err
	}
	in.Knobs.Epsilon = in.Knobs.EpsilonFor(in.Machines, in.Groups, in.Jobs, nil)
	maxWork := 0.0
	for _, j := range in.Jobs {
		maxWork = max(maxWork, j.Work)
	}
	if e := in.Knobs.Epsilon; math.IsInf(e, 0) || math.IsNaN(e) || math.IsInf(e*maxWork, 0) {
		// Only the automatic ε can get here (a given one is at most 1e15
		// and remaining work is finite): ā/p̄ overflows when the demands
		// and durations span too many orders of magnitude.
		vs.Add("/knobs", "the automatic epsilon ā/p̄ overflows (%g, largest remaining work %g): give knobs.epsilon", e, maxWork)
		return nil, vs.Err()
	}
	return in, nil
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
	req := in.Req
	res := &Result{Assignments: make([]Assignment, 0, len(ps)), Unplaced: []Unplaced{}}
	// Anonymous groups hand out their tasks in request order.
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
	// Explaining costs a pass over the machines per group; groups the
	// budget leaves unexplained get unexplainedReason.
	reasons := tetris.ExplainOn(ctx, in.Machines, in.Offered, in.Groups, in.Config())
	type up struct {
		ti, g int
		r     *tetris.Reason
	}
	var ups []up
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
				ups = append(ups, up{ti, gi, reason(0)})
			}
			continue
		}
		for mi := range g.Members {
			if !g.Members[mi].Placed() {
				ups = append(ups, up{in.Tasks[gi][mi], gi, reason(mi)})
			}
		}
	}
	sort.Slice(ups, func(a, b int) bool { return ups[a].ti < ups[b].ti })
	res.Summary.Unplaced = len(ups)
	if req.MaxUnplaced != nil && *req.MaxUnplaced < len(ups) {
		ups = ups[:*req.MaxUnplaced]
	}
	// One blocked map per group: every task of a group shares it. The
	// tasks of an anonymous group share one reason too, formatted once
	// (they differ only in the task id).
	blocked := make([]map[string]int, len(in.Groups))
	done := map[*tetris.Reason]Unplaced{}
	res.Unplaced = make([]Unplaced, 0, len(ups))
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
			res.Unplaced = append(res.Unplaced, in.unplaced(u.ti, in.Groups[u.g].Job, u.r, blocked[u.g]))
			continue
		}
		x, ok := done[u.r]
		if !ok {
			x = in.unplaced(u.ti, in.Groups[u.g].Job, u.r, blocked[u.g])
			done[u.r] = x
		}
		x.Task = req.Tasks[u.ti].ID
		res.Unplaced = append(res.Unplaced, x)
	}
	for i, m := range in.Machines {
		f := map[string]float64{}
		for k, r := range in.Resources {
			f[r] = m.Free[k]
		}
		res.Machines = append(res.Machines, MachineFree{Name: req.Machines[i].Name, Free: f})
	}
	res.Knobs = KnobsOut{Fairness: in.Knobs.Fairness, Barrier: in.Knobs.Barrier, Epsilon: in.Knobs.Epsilon,
		EpsilonAuto: in.Knobs.EpsilonAuto, RemotePenalty: in.Knobs.RemotePenalty}
	res.Summary.Placed = len(res.Assignments)
	res.Summary.Complete = err == nil
	res.Summary.Groups = len(in.Groups)
	return res, nil
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
