package plan

import (
	"github.com/xflex/xflex/solver/xschedule/simulate"
	"github.com/xflex/xflex/solver/xselect"
)

// Request is the wire format (schemas/xflex-plan.request.json): the
// cluster, the applications with their forecasts, each stage's settings
// and the trace the simulation replays.
type Request struct {
	Resources []string `json:"resources"`
	Cluster   Cluster  `json:"cluster"`
	Apps      []App    `json:"apps"`
	// XSize, Mix, XSelect and Simulate are the stages' settings.
	XSize    *XSizeSettings    `json:"xsize,omitempty"`
	Mix      *MixSettings      `json:"mix,omitempty"`
	XSelect  *XSelectSettings  `json:"xselect,omitempty"`
	Trace    Trace             `json:"trace"`
	Simulate *SimulateSettings `json:"simulate,omitempty"`
	// Baselines are passed to xschedule/simulate's baselines (the
	// schedulers it runs beside X-Schedule; DRF always runs).
	Baselines []string `json:"baselines,omitempty"`
	BudgetMS  *int64   `json:"budget_ms,omitempty"`
	Seed      *int64   `json:"seed,omitempty"`
}

// Cluster is the processing nodes: node types with counts and explicit
// nodes, in that order.
type Cluster struct {
	NodeTypes []NodeType     `json:"node_types,omitempty"`
	Nodes     []xselect.Node `json:"nodes,omitempty"`
}

// NodeType is Count identical nodes named NAME-1 … NAME-Count, of type
// Name, placed on Racks round-robin (none when empty).
type NodeType struct {
	Name     string            `json:"name"`
	Capacity []float64         `json:"capacity"`
	Count    int               `json:"count"`
	Reserved []float64         `json:"reserved,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
	Racks    []string          `json:"racks,omitempty"`
}

// App is an application: its sharing mode and bounds (as X-Schedule reads
// them), where it may run (as X-Select reads it) and its forecast.
type App struct {
	Name          string             `json:"name"`
	Mode          string             `json:"mode,omitempty"`
	SharingBound  float64            `json:"sharing_bound,omitempty"`
	SharingBounds map[string]float64 `json:"sharing_bounds,omitempty"`
	Require       *xselect.Predicate `json:"require,omitempty"`
	Forecast      []Forecast         `json:"forecast"`
}

// Forecast is one kind of request an application expects: containers of
// Size arriving at Rate per unit time, each held for Duration. Weight,
// when given, is its weight in X-Size's profile and its expected
// concurrency in the mix instead of Rate·Duration.
type Forecast struct {
	Name     string    `json:"name,omitempty"`
	Size     []float64 `json:"size"`
	Rate     *float64  `json:"rate,omitempty"`
	Weight   *float64  `json:"weight,omitempty"`
	Duration float64   `json:"duration"`
}

// XSizeSettings are X-Size's: K shapes, the guarantee ε (default
// DefaultEpsilon), the fit and ray family, its baselines, and its share
// of the budget.
type XSizeSettings struct {
	K           int      `json:"k,omitempty"`
	Epsilon     *float64 `json:"epsilon,omitempty"`
	Fit         string   `json:"fit,omitempty"`
	Rays        string   `json:"rays,omitempty"`
	Baselines   *bool    `json:"baselines,omitempty"`
	BudgetShare *float64 `json:"budget_share,omitempty"`
}

// MixSettings turn forecast concurrency into container counts: Scale
// containers per unit of expected concurrency (default 1).
type MixSettings struct {
	Scale *float64 `json:"scale,omitempty"`
}

// XSelectSettings are X-Select's constraints and knobs, in xselect's
// vocabulary (shapes are named s1 … sK in X-Size's order).
type XSelectSettings struct {
	Colocate    [][2]xselect.Ref `json:"colocate,omitempty"`
	Exlocate    [][2]xselect.Ref `json:"exlocate,omitempty"`
	Score       string           `json:"score,omitempty"`
	Method      string           `json:"method,omitempty"`
	BudgetShare *float64         `json:"budget_share,omitempty"`
}

// Trace is the simulation's demand: Requests as given, or, without them,
// requests generated from the forecasts over [0, Horizon) with Seed
// (default the request's seed); see generateTrace.
type Trace struct {
	Requests    []simulate.Ask `json:"requests,omitempty"`
	Horizon     *float64       `json:"horizon,omitempty"`
	Seed        *int64         `json:"seed,omitempty"`
	MaxRequests *int           `json:"max_requests,omitempty"`
}

// SimulateSettings are xschedule/simulate's: the scheduler's settings,
// the end time, the answer's limits, the prices, and its share of the
// budget.
type SimulateSettings struct {
	Settings    *simulate.Settings `json:"settings,omitempty"`
	Horizon     *float64           `json:"horizon,omitempty"`
	Limits      *simulate.Limits   `json:"limits,omitempty"`
	Prices      []float64          `json:"prices,omitempty"`
	BudgetShare *float64           `json:"budget_share,omitempty"`
}
