package assign

import "github.com/xflex/xflex/solver/xselect"

// Request is one X-Schedule decision round (schemas/xschedule-assign.request.json):
// the cluster's containers with their owners and current users, the
// applications' sharing bounds, the pair contexts and the pending requests.
type Request struct {
	// Now is curTime, the time of this round (any unit, the unit of the
	// pair contexts' last_calc_time, of durations and of grace_period).
	Now       float64  `json:"now"`
	Resources []string `json:"resources,omitempty"`
	// Nodes, Resources and Containers describe the cluster explicitly;
	// Placement gives it as an X-Select request and its result instead.
	Nodes      []Node      `json:"nodes,omitempty"`
	Containers []Container `json:"containers,omitempty"`
	Placement  *Placement  `json:"placement,omitempty"`
	// Usage gives current users (and preemption notices) of containers
	// named by id, for containers that come from Placement.
	Usage    []Usage   `json:"usage,omitempty"`
	Apps     []App     `json:"apps"`
	Pairs    []Pair    `json:"pairs,omitempty"`
	Requests []Ask     `json:"requests"`
	Settings *Settings `json:"settings,omitempty"`
	// Prices, per resource, make a container's charge rate Σ size·price
	// instead of its normalised size.
	Prices   []float64 `json:"prices,omitempty"`
	BudgetMS *int64    `json:"budget_ms,omitempty"`
	Seed     *int64    `json:"seed,omitempty"`
}

// Node is one processing node.
type Node struct {
	Name     string    `json:"name"`
	Rack     string    `json:"rack,omitempty"`
	Capacity []float64 `json:"capacity"`
}

// Container is one container as X-Select placed it, with its use.
type Container struct {
	ID    string    `json:"id"`
	Node  string    `json:"node"`
	Size  []float64 `json:"size"`
	Owner string    `json:"owner"`
	// User is the application running in it now; empty when free.
	User string `json:"user,omitempty"`
	// PreemptionPriority is that of the request it serves: among
	// equal scores, lower ones are preempted first.
	PreemptionPriority int     `json:"preemption_priority,omitempty"`
	Notice             *Notice `json:"notice,omitempty"`
}

// Usage is the use of one placed container (by id, "node/k").
type Usage struct {
	ID                 string  `json:"id"`
	User               string  `json:"user,omitempty"`
	PreemptionPriority int     `json:"preemption_priority,omitempty"`
	Notice             *Notice `json:"notice,omitempty"`
}

// Notice is an outstanding preemption notice: at Deadline (or as soon as
// the user releases the container) it goes to App for Request.
type Notice struct {
	App                string  `json:"app"`
	Request            string  `json:"request"`
	Deadline           float64 `json:"deadline"`
	PreemptionPriority int     `json:"preemption_priority,omitempty"`
}

// Placement is an X-Select request and the result of its response: each
// node's containers become containers with ids "node/k" (k counts the
// node's containers from 0 in result order, counts expanded).
type Placement struct {
	Request xselect.Request `json:"request"`
	Result  xselect.Result  `json:"result"`
}

// App is an application: mode "share" (default) or "garbo" (never lends
// or borrows), its universal sharing bound δ_A and per-peer bounds δ_AB.
type App struct {
	Name          string             `json:"name"`
	Mode          string             `json:"mode,omitempty"`
	SharingBound  float64            `json:"sharing_bound,omitempty"`
	SharingBounds map[string]float64 `json:"sharing_bounds,omitempty"`
}

// Pair is the sharing context of two applications. LastShare is how far
// B is in debt to A at LastCalcTime (negative: A to B); LastSlope is the
// rate of change, Σ charges of A's containers used by B minus Σ charges
// of B's containers used by A.
type Pair struct {
	A            string  `json:"a"`
	B            string  `json:"b"`
	LastShare    float64 `json:"last_share"`
	LastSlope    float64 `json:"last_slope"`
	LastCalcTime float64 `json:"last_calc_time"`
}

// Ask is one allocation request: Count containers of at least Size.
type Ask struct {
	ID    string    `json:"id"`
	App   string    `json:"app"`
	Count int       `json:"count"`
	Size  []float64 `json:"size"`
	// Duration is the tasks' run time (used by the simulator; the
	// decision round does not read it).
	Duration           float64 `json:"duration,omitempty"`
	Priority           int     `json:"priority,omitempty"`
	PreemptionPriority int     `json:"preemption_priority,omitempty"`
	Rack               string  `json:"rack,omitempty"`
	Host               string  `json:"host,omitempty"`
	// Type is "owned_first" (default), "owned_only" or "non_owned".
	Type string `json:"type,omitempty"`
}

// Settings are the scheduler's knobs.
type Settings struct {
	// Fitness (default 2): a container larger in aggregate normalised
	// size than Fitness times the request's is not considered.
	Fitness *float64 `json:"fitness,omitempty"`
	// TTLWeight (default 1) weighs the TTL term of the score.
	TTLWeight *float64 `json:"ttl_weight,omitempty"`
	// TTLHorizon (default 3600) caps the TTL projection; the TTL term
	// is TTLWeight·min(TTL, TTLHorizon)/TTLHorizon.
	TTLHorizon *float64 `json:"ttl_horizon,omitempty"`
	// GracePeriod (default 30) is the time a preempted user has to
	// release the container; 0 kills at once.
	GracePeriod *float64 `json:"grace_period,omitempty"`
	// HoldTime (default 60) is the hand-over hold: a container preempted
	// from one application to another is not preempted again between
	// the same two, before it is freed, until HoldTime has passed or
	// their pair context has moved by the container's charge rate times
	// HoldTime (reading hold "pair"; see the package doc).
	HoldTime *float64 `json:"hold_time,omitempty"`
	// Readings choose how the paper's loose sentences are read; the
	// default of each keeps the paper's guarantees (package doc,
	// "Readings that keep the guarantees").
	Readings *Readings `json:"readings,omitempty"`
}

// Readings name the readings of §2.1 where the text allows more than
// one. Each field's first value (the default) protects owners and rules
// out livelock; the second is the literal reading this package made
// before (ReadingsLiteral sets them all), kept so it can be simulated
// and compared.
type Readings struct {
	// Takeover: "borrowed_only" (default) takes over only a container
	// its user borrowed from a third application; "owned_too" may also
	// take a debtor's own container from it.
	Takeover string `json:"takeover,omitempty"`
	// ZeroBound: "on_demand" (default) lets an owner take its container
	// back from a borrower with whom its pair bound is 0 at once, debt
	// or not (the paper's "give the containers back on demand");
	// "in_debt" asks a positive debt as for any bound.
	ZeroBound string `json:"zero_bound,omitempty"`
	// Hold: "pair" (default) applies the hand-over hold (HoldTime);
	// "none" has no hold.
	Hold string `json:"hold,omitempty"`
	// Lending: "owner_first" (default) lends no free container of a
	// class (owner and size) while its owner has a request in the round
	// that could take it and has not yet been served; "priority" lends
	// in request priority order only.
	Lending string `json:"lending,omitempty"`
}

// Reading values (wire names).
const (
	TakeoverBorrowedOnly = "borrowed_only"
	TakeoverOwnedToo     = "owned_too"
	ZeroBoundOnDemand    = "on_demand"
	ZeroBoundInDebt      = "in_debt"
	HoldPair             = "pair"
	HoldNone             = "none"
	LendingOwnerFirst    = "owner_first"
	LendingPriority      = "priority"
)

// ReadingsLiteral are the literal readings: takeovers of owned
// containers, bound 0 eligible only in debt, no hold, lending in
// priority order.
func ReadingsLiteral() *Readings {
	return &Readings{Takeover: TakeoverOwnedToo, ZeroBound: ZeroBoundInDebt, Hold: HoldNone, Lending: LendingPriority}
}
