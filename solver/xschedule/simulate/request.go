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
	Requests []Ask `json:"requests"`
	// Masters are application masters over map-only jobs
	// (solver/xschedule/master): each makes its application's asks.
	Masters  []MasterIn `json:"masters,omitempty"`
	Settings *Settings  `json:"settings,omitempty"`
	// Baselines names the baselines to run beside X-Schedule (baselines.go):
	// drf (also drf_best_fit) always runs; yarn_fair and yarn_capacity
	// run when named.
	Baselines []string `json:"baselines,omitempty"`
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
	// AMShare caps the DRF run's job AMs at this share of the cluster
	// (default 0.5, YARN's maxAMShare); masters only.
	AMShare *float64 `json:"am_share,omitempty"`
	// CapacityAMShare caps the yarn_capacity run's job AMs (default 0.1,
	// the Capacity Scheduler's maximum-am-resource-percent).
	CapacityAMShare *float64 `json:"capacity_am_share,omitempty"`
	// HeartbeatInterval (default 1, YARN's NodeManager heartbeat) is the
	// YARN baselines' time between node heartbeats; HeartbeatOrder is the
	// order the nodes heartbeat in each round: rotate (default) or jitter
	// (seeded random).
	HeartbeatInterval *float64 `json:"heartbeat_interval,omitempty"`
	HeartbeatOrder    string   `json:"heartbeat_order,omitempty"`
	// AssignMultiple lets a yarn_fair heartbeat place more than one
	// container (Fair's assignmultiple; default false). yarn_capacity
	// always does (its multiple-assignments default).
	AssignMultiple *bool `json:"assign_multiple,omitempty"`
	// AMLatency and LaunchLatency (default 0) delay a master's use of a
	// granted container, in every run: its AM starts asking for tasks
	// AMLatency after the AM container's grant, a task starts
	// LaunchLatency after its container's grant.
	AMLatency     *float64 `json:"am_latency,omitempty"`
	LaunchLatency *float64 `json:"launch_latency,omitempty"`
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
