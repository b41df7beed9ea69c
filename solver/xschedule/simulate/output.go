package simulate

// Result is the response's result (schemas/xschedule-simulate.response.json):
// the trace under X-Schedule, with its pair imbalance series, and the
// same trace under online DRF.
type Result struct {
	Run
	// Imbalance has a series per pair of sharing applications whose
	// context ever moved, a before b in application order (Figure 2).
	Imbalance []PairSeries `json:"imbalance"`
	Baselines Baselines    `json:"baselines"`
}

// Baselines are other schedulers on the same trace and nodes.
type Baselines struct {
	DRF Run `json:"drf"`
	// YarnFair and YarnCapacity are the YARN schedulers (yarn.go), when
	// the request names them.
	YarnFair     *Run `json:"yarn_fair,omitempty"`
	YarnCapacity *Run `json:"yarn_capacity,omitempty"`
}

// Run is one scheduler's simulation of the trace.
type Run struct {
	// Until is how far the simulation got; Ended says why it stopped
	// there: quiet (nothing left to happen), horizon, or budget.
	Until       float64      `json:"until"`
	Ended       string       `json:"ended"`
	Summary     Summary      `json:"summary"`
	Apps        []AppTotals  `json:"apps"`
	Requests    []RequestOut `json:"requests"`
	Events      []Event      `json:"events"`
	Dropped     int          `json:"events_dropped"`
	Utilization Utilization  `json:"utilization"`
	Packing     []NodeOut    `json:"packing"`
	// Masters are the application masters' jobs' outcomes (request
	// field masters), one per application.
	Masters []MasterOut `json:"masters,omitempty"`
}

// Summary totals a run over all applications; container counts count
// a container asked again after a preemption again.
type Summary struct {
	Asked       int     `json:"asked"`
	Granted     int     `json:"granted"`
	Expired     int     `json:"expired"`
	Waiting     int     `json:"waiting"`
	Completed   int     `json:"completed"`
	Preemptions int     `json:"preemptions"`
	AvgWait     float64 `json:"avg_wait"`
	Used        float64 `json:"used"`
}

// AppTotals are one application's totals. Own, Borrowed and Lent are
// container-seconds: in its own containers, in others', and of its
// containers in others' use; Used is Own + Borrowed (under DRF, where
// nothing is owned, all use is in Used).
type AppTotals struct {
	App                 string  `json:"app"`
	Asked               int     `json:"asked"`
	Granted             int     `json:"granted"`
	Expired             int     `json:"expired"`
	Waiting             int     `json:"waiting"`
	Completed           int     `json:"completed"`
	Own                 float64 `json:"own"`
	Borrowed            float64 `json:"borrowed"`
	Lent                float64 `json:"lent"`
	Used                float64 `json:"used"`
	PreemptionsSuffered int     `json:"preemptions_suffered"`
	PreemptionsCaused   int     `json:"preemptions_caused"`
	AvgWait             float64 `json:"avg_wait"`
	waitSum             float64
}

// RequestOut is one request's outcome. Arrival is its first ask; Asked
// counts its containers, asks again after a preemption included; Wait is
// the mean time from a container's ask to its grant; Owners counts the
// grants by the owner of the container (X-Schedule only).
type RequestOut struct {
	ID         string         `json:"id"`
	App        string         `json:"app"`
	User       string         `json:"user"`
	Arrival    float64        `json:"arrival"`
	Asked      int            `json:"asked"`
	Granted    int            `json:"granted"`
	Expired    int            `json:"expired"`
	Waiting    int            `json:"waiting"`
	Preempted  int            `json:"preempted"`
	Completed  int            `json:"completed"`
	FirstGrant *float64       `json:"first_grant,omitempty"`
	LastGrant  *float64       `json:"last_grant,omitempty"`
	Wait       float64        `json:"wait"`
	Owners     map[string]int `json:"owners,omitempty"`
	waitSum    float64
}

// Event is one change of a container. grant: User gets Container for
// Request; notice: User (running Request in it) must give it up for
// ByRequest of ByApp; preempt: it is taken from User, Request's work
// lost; release: User gave it back, Request's work done. Owner is ""
// under DRF.
type Event struct {
	T         float64 `json:"t"`
	Kind      string  `json:"kind"`
	Container string  `json:"container"`
	Owner     string  `json:"owner"`
	User      string  `json:"user"`
	Request   string  `json:"request"`
	ByApp     string  `json:"by_app,omitempty"`
	ByRequest string  `json:"by_request,omitempty"`
}

// Utilization is the cluster's use over time by application: a point
// whenever use changes, ByApp the mean over resources of the fraction
// of the cluster's capacity in the containers each application uses
// (applications using nothing left out).
type Utilization struct {
	Points    []UtilPoint `json:"points"`
	Truncated bool        `json:"truncated"`
}

// UtilPoint is the use from T until the next point.
type UtilPoint struct {
	T     float64            `json:"t"`
	ByApp map[string]float64 `json:"by_app"`
}

// PairSeries is the imbalance of the pair (A, B) over time: Share is how
// far B is in debt to A (negative: A to B), Slope its rate from T until
// the next point, so the series is exact piecewise linear. Bound is Δ_AB.
type PairSeries struct {
	A         string      `json:"a"`
	B         string      `json:"b"`
	Bound     float64     `json:"bound"`
	Points    []PairPoint `json:"points"`
	Truncated bool        `json:"truncated"`
}

// PairPoint is one point of a pair series.
type PairPoint struct {
	T     float64 `json:"t"`
	Share float64 `json:"share"`
	Slope float64 `json:"slope"`
}

// NodeOut is a node's packing at the end: its containers with owners and
// users (X-Schedule: every container; DRF: those in use).
type NodeOut struct {
	Name       string      `json:"name"`
	Rack       string      `json:"rack,omitempty"`
	Capacity   []float64   `json:"capacity"`
	Containers []PackedOut `json:"containers"`
}

// PackedOut is one container of the final packing; User and Request
// are empty when it is free.
type PackedOut struct {
	ID      string    `json:"id"`
	Size    []float64 `json:"size"`
	Owner   string    `json:"owner"`
	User    string    `json:"user"`
	Request string    `json:"request"`
}
