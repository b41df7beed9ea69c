package assign

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/tetris/workload"
)

// Generate builds a heartbeat snapshot of the paper's deployment (§5.1):
// params "machines" (default 20), "tasks" pending (default 200), "jobs"
// (default 10), "busy" (mean fraction of each resource already in use,
// drawn per machine and resource uniformly within ±BusySpread of it,
// default 0.5) and "locality" (fraction of map
// tasks whose input block lives on a machine, default 1). Map tasks read
// their block through an input (local disk read or remote network read).
func Generate(seed int64, params map[string]string) (any, error) {
	p := workload.NewParams(params)
	nm, nt, nj := p.Num("machines", 20), p.Num("tasks", 200), p.Num("jobs", 10)
	busy, loc := p.Num("busy", 0.5), p.Num("locality", 1)
	if err := p.Err(); err != nil {
		return nil, err
	}
	if nm < 1 || nj < 1 || busy > 1 || loc > 1 {
		return nil, fmt.Errorf("params: need machines ≥ 1, jobs ≥ 1, busy ≤ 1, locality ≤ 1")
	}
	return GenerateRequest(rand.New(rand.NewPCG(uint64(seed), 0x7e7415a5)), int(nm), int(nt), int(nj), busy, loc), nil
}

// BusySpread is how far a machine's per-resource usage strays from the mean
// "busy" fraction in generated snapshots.
const BusySpread = 0.1

// GenerateRequest is Generate with parsed parameters.
func GenerateRequest(rng *rand.Rand, machines, tasks, jobs int, busy, locality float64) *Request {
	req := &Request{}
	capa := workload.DeployMachine()
	for i := 0; i < machines; i++ {
		free := map[string]float64{}
		for _, r := range workload.DeployResources {
			u := math.Min(1, math.Max(0, busy+BusySpread*(2*rng.Float64()-1)))
			free[r] = math.Round(capa[r]*(1-u)*100) / 100
		}
		req.Machines = append(req.Machines, MachineReq{Name: fmt.Sprintf("m%03d", i), Capacity: capa, Free: free})
	}
	specs := workload.Jobs(rng, jobs, 3600, 1)
	// Spread the pending tasks over the jobs, taking each job's stages in
	// order (the pending set of a running job: its map tasks, or its
	// reduce tasks once maps are done).
	per := make([]int, jobs)
	for i := 0; i < tasks; i++ {
		per[rng.IntN(jobs)]++
	}
	for j, js := range specs {
		st := js.Stages[rng.IntN(len(js.Stages))]
		finished := rng.IntN(st.Tasks + 1)
		total := max(st.Tasks, finished+per[j])
		req.Jobs = append(req.Jobs, JobReq{ID: js.ID, Stages: []StageReq{{Name: st.Name, Tasks: total, Finished: total - per[j]}}})
		for k := 0; k < per[j]; k++ {
			dem := map[string]float64{}
			for r, x := range st.Demand {
				dem[r] = x
			}
			t := TaskReq{ID: fmt.Sprintf("%s-%s-%d", js.ID, st.Name, k), Job: js.ID, Stage: st.Name, Demand: dem}
			d := st.Duration
			t.Duration = &d
			if rate, ok := dem["disk_read"]; ok && rng.Float64() < locality {
				delete(dem, "disk_read")
				t.Inputs = []InputReq{{Machine: req.Machines[rng.IntN(machines)].Name, Rate: rate}}
			}
			req.Tasks = append(req.Tasks, t)
		}
	}
	return req
}

// genParamTable declares Generate's parameters for `xflex gen --help`
// and the check for unknown ones.
var genParamTable = []solver.GenParam{
	{Name: "machines", Default: "20", Help: "number of machines"},
	{Name: "tasks", Default: "200", Help: "number of pending tasks"},
	{Name: "jobs", Default: "10", Help: "number of jobs"},
	{Name: "busy", Default: "0.5", Help: "mean fraction of each resource already in use"},
	{Name: "locality", Default: "1", Help: "fraction of map tasks whose input block lives on a machine"},
}
