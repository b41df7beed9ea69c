package fairshare

// Request is the wire format of POST /v1/fairshare.
type Request struct {
	Resources  []string        `json:"resources"`
	Servers    []ServerSpec    `json:"servers"`
	Frameworks []FrameworkSpec `json:"frameworks"`
	Policy     string          `json:"policy"`
	Criterion  string          `json:"criterion,omitempty"`
	Alpha      *float64        `json:"alpha,omitempty"`
	Integer    *bool           `json:"integer,omitempty"`
	Selection  string          `json:"server_selection,omitempty"`
	Trials     int             `json:"trials,omitempty"`
	TieBreak   string          `json:"tie_break,omitempty"`
	Compare    bool            `json:"compare,omitempty"`
	LPBackend  string          `json:"lp_backend,omitempty"`
	PFMethod   string          `json:"pf_method,omitempty"`
	Seed       *int64          `json:"seed,omitempty"`
	BudgetMS   *int64          `json:"budget_ms,omitempty"`
}

// ServerSpec is one server, or Count identical servers of one type.
type ServerSpec struct {
	Name     string    `json:"name"`
	Capacity []float64 `json:"capacity"`
	Count    *int      `json:"count,omitempty"`
}

// FrameworkSpec is one framework: per-task demand, priority φ (weight),
// allowed servers δ (nil: all), an optional task cap, and, for the generic
// criterion, per-server utility coefficients u_{n,i} (default 1).
type FrameworkSpec struct {
	Name     string             `json:"name"`
	Demand   []float64          `json:"demand"`
	Weight   *float64           `json:"weight,omitempty"`
	Servers  []string           `json:"servers,omitempty"`
	MaxTasks *float64           `json:"max_tasks,omitempty"`
	Utility  map[string]float64 `json:"utility,omitempty"`
}

// PF methods: the interior-point method on the convex program (default)
// and the inner approximation by LP (the independent second method).
const (
	PFInterior = "interior"
	PFInnerLP  = "inner_lp"
)

// Policy names.
const (
	PolicyMMF        = "mmf"
	PolicyPF         = "pf"
	PolicyEfficiency = "efficiency"
	PolicyDRF        = "drf"
	PolicyTSF        = "tsf"
	PolicyPSDSF      = "psdsf"
	PolicyRPSDSF     = "rpsdsf"
	PolicyBFDRF      = "bfdrf"
)

// Criterion names: the fairness criterion U_n of eq. 2 used by mmf and pf.
const (
	CriterionTasks   = "tasks"   // U_n = x_n / φ_n
	CriterionDRF     = "drf"     // U_n = M_n of eq. 3
	CriterionPSDSF   = "psdsf"   // U_n = Σ_i K_{n,i} of eq. 4
	CriterionGeneric = "generic" // U_n = Σ_i u_{n,i} x_{n,i} / φ_n, u from FrameworkSpec.Utility
)

// Server-selection names for progressive filling.
const (
	SelectRRR   = "rrr"
	SelectJoint = "joint"
)

// Tie-break names for progressive filling.
const (
	// TiePaper: among equal criteria the larger framework index wins, among
	// equal servers the lower server index: the reading that reproduces the
	// paper's Table I (the default).
	TiePaper = "paper"
	// TieLowest: the lower framework index and the lower server index win.
	TieLowest = "lowest"
)

// Result is the wire format of a solve's result.
type Result struct {
	Policy     string            `json:"policy"`
	Selection  string            `json:"server_selection,omitempty"`
	Criterion  string            `json:"criterion,omitempty"`
	Integer    bool              `json:"integer"`
	Frameworks []FrameworkResult `json:"frameworks"`
	TotalTasks float64           `json:"total_tasks"`
	// Efficiency is eq. 10: Σ_n φ_n x_n.
	Efficiency float64 `json:"efficiency"`
	// PFObjective is eq. 8 with the request's α (default 1): Σ_n φ_n g_α(x_n);
	// null when some framework gets nothing and α ≥ 1 (the objective is -∞).
	PFObjective *float64 `json:"pf_objective"`
	// Unused is the capacity left per server (summed over a type's copies).
	Unused map[string][]float64 `json:"unused"`
	// Trials, MeanTotalTasks and SDTotalTasks describe repeated seeded runs
	// of a randomized policy (trials > 1).
	Trials         int      `json:"trials,omitempty"`
	MeanTotalTasks *float64 `json:"mean_total_tasks,omitempty"`
	SDTotalTasks   *float64 `json:"sd_total_tasks,omitempty"`
	// Bound and Gap (exact policies) repeat meta's certificate per policy so
	// compare output keeps them.
	Objective *float64 `json:"objective,omitempty"`
	Bound     *float64 `json:"bound,omitempty"`
	Gap       *float64 `json:"gap,omitempty"`
	Status    string   `json:"status,omitempty"`
	ElapsedMS *float64 `json:"elapsed_ms,omitempty"`
	// Compare holds every policy's result when compare is true.
	Compare []*Result `json:"compare,omitempty"`
}

// FrameworkResult is one framework's allocation.
type FrameworkResult struct {
	Name string `json:"name"`
	// Total is x_n = Σ_i x_{n,i}.
	Total float64 `json:"total"`
	// Share is the criterion value U_n the policy equalises (mmf/pf: the
	// chosen criterion; progressive filling: the policy's own criterion
	// where it is server independent, else x_n/φ_n).
	Share float64 `json:"share"`
	// ByServer is x_{n,i} keyed by server name (nonzero entries only).
	ByServer map[string]float64 `json:"by_server"`
	// MeanByServer and SDByServer are the mean and sample standard
	// deviation of x_{n,i} over seeded trials (trials > 1).
	MeanByServer map[string]float64 `json:"mean_by_server,omitempty"`
	SDByServer   map[string]float64 `json:"sd_by_server,omitempty"`
	MeanTotal    *float64           `json:"mean_total,omitempty"`
	SDTotal      *float64           `json:"sd_total,omitempty"`
}
