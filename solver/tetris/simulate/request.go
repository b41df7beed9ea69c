package simulate

import "github.com/xflex/xflex/solver/tetris"

// Request is the wire format (schemas/tetris-simulate.request.json).
type Request struct {
	Machines      []MachineReq `json:"machines"`
	Jobs          []JobReq     `json:"jobs"`
	Policy        string       `json:"policy,omitempty"`
	Knobs         *Knobs       `json:"knobs,omitempty"`
	Roles         *Roles       `json:"roles,omitempty"`
	FairPolicy    string       `json:"fair_policy,omitempty"`
	FairResources []string     `json:"fair_resources,omitempty"`
	FairShare     string       `json:"fair_share,omitempty"`
	SlotMemory    *float64     `json:"slot_memory,omitempty"`
	Queues        []QueueReq   `json:"queues,omitempty"`
	Bins          *int         `json:"bins,omitempty"`
	// Interference is the fraction of throughput lost per unit of
	// over-allocation (default 0: lossless proportional sharing).
	Interference *float64 `json:"interference,omitempty"`
	BudgetMS     *int64   `json:"budget_ms,omitempty"`
	Seed         *int64   `json:"seed,omitempty"`
}

// MachineReq is one machine.
type MachineReq struct {
	Name     string             `json:"name"`
	Capacity map[string]float64 `json:"capacity"`
}

// JobReq is one job: a DAG of stages.
type JobReq struct {
	ID      string     `json:"id"`
	Arrival float64    `json:"arrival"`
	Weight  *float64   `json:"weight,omitempty"`
	Queue   string     `json:"queue,omitempty"`
	Stages  []StageReq `json:"stages"`
}

// StageReq is one stage: Tasks identical tasks that start only after every
// stage in After has finished (a barrier).
type StageReq struct {
	Name     string             `json:"name"`
	Tasks    int                `json:"tasks"`
	Demand   map[string]float64 `json:"demand"`
	Duration float64            `json:"duration"`
	After    []string           `json:"after,omitempty"`
	// InputRate is the bandwidth each task reads its input at, from the
	// machine holding it: disk read there when placed there, otherwise
	// disk read and network out there and network in where it runs.
	InputRate float64 `json:"input_rate,omitempty"`
	// InputMachines says where the inputs live (task i's on entry
	// i mod len); absent, each task's machine is drawn from the seed.
	InputMachines []string `json:"input_machines,omitempty"`
}

// QueueReq is a capacity-scheduler queue.
type QueueReq struct {
	Name     string  `json:"name"`
	Capacity float64 `json:"capacity"`
}

// Knobs are Tetris's knobs (policy tetris and tetris-cpu-mem).
type Knobs = tetris.Knobs

// Roles name the CPU and memory resources (defaults "cpu", "memory") and
// those remote reads use (defaults "disk_read", "net_in", "net_out").
type Roles struct {
	CPU      string `json:"cpu,omitempty"`
	Memory   string `json:"memory,omitempty"`
	DiskRead string `json:"disk_read,omitempty"`
	NetIn    string `json:"net_in,omitempty"`
	NetOut   string `json:"net_out,omitempty"`
}

// Policies.
const (
	PolicyTetris       = "tetris"
	PolicyTetrisCPUMem = "tetris-cpu-mem"
	PolicyDRF          = "drf"
	PolicySlotFair     = "slot-fair"
	PolicyCapacity     = "capacity"
	PolicyNone         = "none"
)

// Defaults.
const (
	DefaultSlotMemory = 2 // GB, the Facebook cluster's slot (§5.1)
	DefaultBins       = 48
)

// Result is the response body (schemas/tetris-simulate.response.json).
type Result struct {
	Policy        string             `json:"policy"`
	Complete      bool               `json:"complete"`
	Makespan      float64            `json:"makespan"`
	AvgCompletion float64            `json:"avg_completion"`
	AvgFinish     float64            `json:"avg_finish"`
	Jobs          []JobOut           `json:"jobs"`
	Unfinished    []string           `json:"unfinished"`
	Utilization   []UtilBin          `json:"utilization"`
	AvgUtil       map[string]float64 `json:"avg_utilization"`
	Overalloc     map[string]float64 `json:"overallocation"`
	Tasks         TaskStats          `json:"tasks"`
	Fair          *FairOut           `json:"fair,omitempty"`
	MakespanLB    float64            `json:"makespan_lower_bound"`
}

// JobOut is one job's outcome. Completion is the absolute finish time;
// Duration is completion − arrival (the job completion time averaged by
// avg_completion).
type JobOut struct {
	ID           string   `json:"id"`
	Arrival      float64  `json:"arrival"`
	Completion   float64  `json:"completion"`
	Duration     float64  `json:"duration"`
	FairDuration *float64 `json:"fair_duration,omitempty"`
	Slowdown     *float64 `json:"slowdown,omitempty"`
	// Stages lists when each stage finished (its barrier lifted).
	Stages []StageOut `json:"stages"`
}

// StageOut is one stage's finish time.
type StageOut struct {
	Name   string  `json:"name"`
	Finish float64 `json:"finish"`
}

// UtilBin is the average utilization of each resource over [Start, End):
// Used counts what tasks actually get (at most capacity per machine),
// Demanded what they ask for (above 1 when a resource is over-allocated).
type UtilBin struct {
	Start    float64            `json:"start"`
	End      float64            `json:"end"`
	Used     map[string]float64 `json:"used"`
	Demanded map[string]float64 `json:"demanded"`
}

// TaskStats summarises task runs.
type TaskStats struct {
	Count int `json:"count"`
	// Stretch is actual over nominal duration (1 without over-allocation).
	AvgStretch float64 `json:"avg_stretch"`
	MaxStretch float64 `json:"max_stretch"`
}

// FairOut compares the run against the fair policy's run of the same trace.
type FairOut struct {
	Policy            string  `json:"policy"`
	Makespan          float64 `json:"makespan"`
	AvgCompletion     float64 `json:"avg_completion"`
	MakespanReduction float64 `json:"makespan_reduction"`
	AvgReduction      float64 `json:"avg_completion_reduction"`
	SlowedFraction    float64 `json:"slowed_fraction"`
	AvgSlowdown       float64 `json:"avg_slowdown"`
	MaxSlowdown       float64 `json:"max_slowdown"`
}
