package flex

// Request is the wire format of POST /v1/flex (schemas/flex.request.json).
type Request struct {
	Slots     int      `json:"slots"`
	Metric    string   `json:"metric"`
	Objective string   `json:"objective,omitempty"`
	Start     float64  `json:"start,omitempty"`
	Jobs      []JobReq `json:"jobs"`
	Exact     bool     `json:"exact,omitempty"`
	// LocalSearch bounds the number of MPS evaluations of the local search
	// over orderings (0 turns it off); nil means DefaultLocalSearchEvals.
	LocalSearch *int `json:"local_search,omitempty"`
	// Refine selects the LP/MILP refinement: "auto" (default), "on", "off".
	Refine string `json:"refine,omitempty"`
	// MaxIntervals caps how many intervals the response lists (a scheduler
	// enforcing only the first interval asks for 1); nil lists all.
	MaxIntervals *int   `json:"max_intervals,omitempty"`
	BudgetMS     *int64 `json:"budget_ms,omitempty"`
	Seed         *int64 `json:"seed,omitempty"`
}

// JobReq is one job of a request.
type JobReq struct {
	ID       string    `json:"id"`
	Work     float64   `json:"work"`
	Min      int       `json:"min"`
	Max      int       `json:"max"`
	Weight   *float64  `json:"weight,omitempty"`
	Deadline *float64  `json:"deadline,omitempty"`
	SLA      []StepReq `json:"sla,omitempty"`
	Arrival  *float64  `json:"arrival,omitempty"`
	Metric   string    `json:"metric,omitempty"`
}

// StepReq is one SLA step: missing pseudo-deadline Deadline costs Penalty.
type StepReq struct {
	Deadline float64 `json:"deadline"`
	Penalty  float64 `json:"penalty"`
}
