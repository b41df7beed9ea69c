package simulate

import "github.com/xflex/xflex/solver/xschedule/assign"

// Request is a simulation (schemas/xschedule-simulate.request.json): the
// cluster and applications of an X-Schedule decision round, a trace of
// requests over time, the scheduler's settings and an end time.
type Request struct {
	// Resources, Nodes and Containers describe the cluster explicitly;
	// Placement gives it as an X-Select request and its result instead
	// (containers "node/k", as in xschedule/assign). Every container
	// starts free.
	Resources  []string          `json:"resources,omitempty"`
	Nodes      []assign.Node     `json:"nodes,omitempty"`
	Containers []Container       `json:"containers,omitempty"`
	Placement  *assign.Placement `json:"placement,omitempty"`
	Apps       []assign.App      `json:"apps"`
	// Requests is the trace, in any order: each asks at Arrival.
	Requests []Ask     `json:"requests"`
	Settings *Settings `json:"settings,omitempty"`
	// Prices, per resource, make a container's charge rate Σ size·price
	// instead of its normalised size.
	Prices []float64 `json:"prices,omitempty"`
	// Horizon ends the simulation (default: when nothing is left to
	// happen).
	Horizon  *float64 `json:"horizon,omitempty"`
	Limits   *Limits  `json:"limits,omitempty"`
	BudgetMS *int64   `json:"budget_ms,omitempty"`
	Seed     *int64   `json:"seed,omitempty"`
}

// Container is one placed container, owned by an application.
type Container struct {
	ID    string    `json:"id"`
	Node  string    `json:"node"`
	Size  []float64 `json:"size"`
	Owner string    `json:"owner"`
}

// Ask is one request of the trace: at Arrival, App asks for Count
// containers of at least Size, each held for Duration once granted.
type Ask struct {
	ID  string `json:"id"`
	App string `json:"app"`
	// User is the DRF user the request is charged to in the baseline
	// (default App).
	User               string    `json:"user,omitempty"`
	Count              int       `json:"count"`
	Size               []float64 `json:"size"`
	Arrival            float64   `json:"arrival"`
	Duration           float64   `json:"duration"`
	Priority           int       `json:"priority,omitempty"`
	PreemptionPriority int       `json:"preemption_priority,omitempty"`
	Rack               string    `json:"rack,omitempty"`
	Host               string    `json:"host,omitempty"`
	// Type is "owned_first" (default), "owned_only" or "non_owned".
	Type string `json:"type,omitempty"`
}

// Settings are the scheduler's knobs: X-Schedule's (as in
// xschedule/assign) and the simulation's.
type Settings struct {
	assign.Settings
	// SchedulingInterval (default 1) is the time between decision
	// rounds: rounds run at its multiples while anything is pending.
	SchedulingInterval *float64 `json:"scheduling_interval,omitempty"`
	// Patience, when set, drops a container request not granted within
	// it of being asked (counted as expired).
	Patience *float64 `json:"patience,omitempty"`
}

// Limits bound the response's size (the simulation itself is bounded by
// the budget).
type Limits struct {
	// MaxEvents (default 100000) caps the events listed; later ones are
	// counted in events_dropped.
	MaxEvents *int `json:"max_events,omitempty"`
	// MaxPoints (default 10000) caps the points of each series; a
	// series that reaches it stops and says so (truncated).
	MaxPoints *int `json:"max_points,omitempty"`
}
