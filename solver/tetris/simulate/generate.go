package simulate

import (
	"fmt"
	"math/rand/v2"

	"github.com/xflex/xflex/solver"
	"github.com/xflex/xflex/solver/tetris/workload"
)

// Generate builds a trace like the paper's deployment workload (§5.1):
// params "jobs" (default 10), "machines" (default 10), "size" (task-count
// scale, 1 = the paper's couple-thousand / thousand / hundreds classes,
// default 0.05), "horizon" (arrival window in seconds, default 3600),
// "locality" (1: map tasks read their block through input_rate from a
// machine drawn from the seed instead of local disk; default 0) and
// "policy" (default tetris).
func Generate(seed int64, params map[string]string) (any, error) {
	p := workload.NewParams(params)
	nj, nm, size := p.Num("jobs", 10), p.Num("machines", 10), p.Num("size", 0.05)
	hz, loc := p.Num("horizon", 3600), p.Num("locality", 0)
	if err := p.Err(); err != nil {
		return nil, err
	}
	if nm < 1 {
		return nil, fmt.Errorf("param machines: need at least 1")
	}
	pol := params["policy"]
	if pol == "" {
		pol = PolicyTetris
	}
	req := GenerateRequest(rand.New(rand.NewPCG(uint64(seed), 0x51a1a7e)), int(nj), int(nm), size, hz, pol)
	if loc > 0 {
		WithInputs(req)
		req.Seed = &seed
	}
	return req, nil
}

// WithInputs turns every job's first stage (the maps) into input readers:
// its disk-read demand becomes input_rate, read from the block's machine.
func WithInputs(req *Request) {
	for j := range req.Jobs {
		st := &req.Jobs[j].Stages[0]
		dem := map[string]float64{}
		for r, x := range st.Demand {
			if r != "disk_read" {
				dem[r] = x
			}
		}
		st.InputRate = st.Demand["disk_read"]
		st.Demand = dem
	}
}

// GenerateRequest is Generate with parsed parameters.
func GenerateRequest(rng *rand.Rand, jobs, machines int, size, horizon float64, policy string) *Request {
	req := &Request{Policy: policy}
	for i := 0; i < machines; i++ {
		req.Machines = append(req.Machines, MachineReq{Name: fmt.Sprintf("m%03d", i), Capacity: workload.DeployMachine()})
	}
	for _, js := range workload.Jobs(rng, jobs, horizon, size) {
		jr := JobReq{ID: js.ID, Arrival: js.Arrival}
		for _, st := range js.Stages {
			jr.Stages = append(jr.Stages, StageReq{Name: st.Name, Tasks: st.Tasks, Demand: st.Demand, Duration: st.Duration, After: st.After})
		}
		req.Jobs = append(req.Jobs, jr)
	}
	return req
}

// genParamTable declares Generate's parameters for `xflex gen --help`
// and the check for unknown ones.
var genParamTable = []solver.GenParam{
	{Name: "jobs", Default: "10", Help: "number of jobs"},
	{Name: "machines", Default: "10", Help: "number of machines"},
	{Name: "size", Default: "0.05", Help: "task-count scale (1 = the paper's classes)"},
	{Name: "horizon", Default: "3600", Help: "arrival window in seconds"},
	{Name: "locality", Default: "0", Help: "1: map tasks read their block through input_rate"},
	{Name: "policy", Default: "tetris", Help: "the request's policy"},
}
