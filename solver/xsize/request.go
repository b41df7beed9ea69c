package xsize

// Request is the wire format (schemas/xsize.request.json).
type Request struct {
	Resources []string      `json:"resources"`
	Totals    []float64     `json:"totals"`
	K         int           `json:"k"`
	Requests  []RequestItem `json:"requests"`
	NodeTypes []NodeType    `json:"node_types,omitempty"`
	Epsilon   *float64      `json:"epsilon,omitempty"`
	Fit       string        `json:"fit,omitempty"`
	Rays      string        `json:"rays,omitempty"`
	Baselines *bool         `json:"baselines,omitempty"`
	BudgetMS  *int64        `json:"budget_ms,omitempty"`
	Seed      *int64        `json:"seed,omitempty"`
}

// RequestItem is one resource request with its frequency.
type RequestItem struct {
	Size   []float64 `json:"size"`
	Weight *float64  `json:"weight,omitempty"`
	Name   string    `json:"name,omitempty"`
}

// NodeType is a node capacity every shape may have to fit.
type NodeType struct {
	Name     string    `json:"name"`
	Capacity []float64 `json:"capacity"`
}
