package cmmf

// Request is the wire format of POST /v1/cmmf (schemas/cmmf.request.json).
type Request struct {
	MachineTypes []MachineType `json:"machine_types,omitempty"`
	Machines     []Machine     `json:"machines,omitempty"`
	Users        []User        `json:"users"`
	// Divisible allocates fractions of machines; nil means true.
	Divisible *bool `json:"divisible,omitempty"`
	// Method is "flow" (default) or "lp".
	Method string `json:"method,omitempty"`
	// Current is the allocation in force: user → type or machine → amount.
	Current  map[string]map[string]float64 `json:"current,omitempty"`
	BudgetMS *int64                        `json:"budget_ms,omitempty"`
	Seed     *int64                        `json:"seed,omitempty"`
}

// MachineType is a group of identical machines.
type MachineType struct {
	Name       string         `json:"name"`
	Count      int64          `json:"count"`
	Attributes map[string]any `json:"attributes,omitempty"`
}

// Machine is one machine.
type Machine struct {
	Name       string         `json:"name"`
	Attributes map[string]any `json:"attributes,omitempty"`
}

// User is one tenant competing for machines.
type User struct {
	Name string `json:"name"`
	// Weight defaults to 1.
	Weight *float64 `json:"weight,omitempty"`
	// Demand caps the user's total; nil means unlimited.
	Demand *float64 `json:"demand,omitempty"`
	// Allowed names types (or machines) the user can use.
	Allowed []string `json:"allowed,omitempty"`
	// Require lists predicates on machine attributes that must all hold.
	Require []Predicate `json:"require,omitempty"`
}

// Predicate is "attribute op value".
type Predicate struct {
	Attr  string `json:"attr"`
	Op    string `json:"op"`
	Value any    `json:"value"`
}

// Method names.
const (
	MethodFlow = "flow"
	MethodLP   = "lp"
)
