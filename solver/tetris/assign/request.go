package assign

import "github.com/xflex/xflex/solver/tetris"

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
