package assign

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/xflex/xflex/solver"
)

// Result is the response's result (schemas/xschedule-assign.response.json).
type Result struct {
	// Grants are the containers given this round: free ones, and
	// preempted ones whose notice came due (or grace_period 0).
	Grants []Grant `json:"grants"`
	// Notices are the preemptions started this round.
	Notices []NoticeOut `json:"notices"`
	// Withdrawn are takeover notices (of this round or earlier) that an
	// owner's reclaim of the container replaced this round: their
	// requests no longer get the container (absent when none).
	Withdrawn []NoticeOut `json:"withdrawn,omitempty"`
	// Pending lists every request not wholly served, with the reason.
	Pending []Pending `json:"pending"`
	// Pairs are the pair contexts after the round: every pair given or
	// touched, a before b in application order.
	Pairs []PairOut `json:"pairs"`
}

// Grant is one container given to a request.
type Grant struct {
	Request   string `json:"request"`
	App       string `json:"app"`
	Container string `json:"container"`
	Node      string `json:"node"`
	Owner     string `json:"owner"`
	Kind      string `json:"kind"`
	// From is the application preempted (kind preempted, user still there).
	From               string `json:"from,omitempty"`
	PreemptionPriority int    `json:"preemption_priority"`
}

// NoticeOut is a preemption notice: User must release Container by
// Deadline, when it goes to App for Request.
type NoticeOut struct {
	Container          string  `json:"container"`
	Node               string  `json:"node"`
	Owner              string  `json:"owner"`
	User               string  `json:"user"`
	App                string  `json:"app"`
	Request            string  `json:"request"`
	Deadline           float64 `json:"deadline"`
	Kind               string  `json:"kind"`
	PreemptionPriority int     `json:"preemption_priority"`
}

// Pending is a request left with Remaining containers to find.
type Pending struct {
	Request   string `json:"request"`
	App       string `json:"app"`
	Remaining int    `json:"remaining"`
	Reason    string `json:"reason"`
}

// PairOut is a pair context after the round with its bound Δ and its
// share extrapolated to now.
type PairOut struct {
	Pair
	Bound    float64 `json:"bound"`
	ShareNow float64 `json:"share_now"`
}

// Problem is the X-Schedule decision round as served at POST /v1/xschedule/assign.
func Problem() solver.Problem {
	return solver.Typed[Request, *Model]{
		Name:           "xschedule/assign",
		RequestSchema:  "xschedule-assign.request.json",
		ResponseSchema: "xschedule-assign.response.json",
		Summary:        "X-Schedule: one decision round over owned containers with sharing bounds and preemption",
		Generate:       Generate,
		GenParams:      genParamTable,
		Build:          Build,
		Solve:          solve,
		Picture:        picture,
		// Build on the second core while the body is validated: at
		// 10,000 containers it is a third of the round's time.
		PreBuild: true,
		Memory:   memory,
	}.Problem()
}

func solve(ctx context.Context, b solver.Built[Request, *Model], _ solver.Options) (any, solver.Meta, error) {
	res, complete := b.In.Decide(ctx)
	meta := solver.Meta{Status: solver.StatusFeasible, Solver: "xschedule/assign"}
	if !complete {
		meta.Status = solver.StatusTimeout
	}
	meta.SetObjective(float64(len(res.Grants)))
	meta.Notes = append(meta.Notes, fmt.Sprintf("%d granted, %d notices, %d requests pending", len(res.Grants), len(res.Notices), len(res.Pending)))
	return res, meta, nil
}

// Decide runs one round on m (changing its state) and returns the
// decisions and whether every request was examined before ctx ended.
func (m *Model) Decide(ctx context.Context) (*Result, bool) {
	rd, complete := m.decide(ctx)
	res := &Result{Grants: rd.grants, Notices: rd.notices, Withdrawn: rd.withdrawn, Pending: rd.pending, Pairs: m.pairList()}
	if res.Grants == nil {
		res.Grants = []Grant{}
	}
	if res.Notices == nil {
		res.Notices = []NoticeOut{}
	}
	if res.Pending == nil {
		res.Pending = []Pending{}
	}
	return res, complete
}

// pairList writes the pair contexts in key order.
func (m *Model) pairList() []PairOut {
	keys := make([][2]int, 0, len(m.pairs))
	for k := range m.pairs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int) int { return cmp.Or(a[0]-b[0], a[1]-b[1]) })
	out := make([]PairOut, 0, len(keys))
	for _, k := range keys {
		p := m.pairs[k]
		out = append(out, PairOut{
			Pair:     Pair{A: m.apps[k[0]].name, B: m.apps[k[1]].name, LastShare: p.share, LastSlope: p.slope, LastCalcTime: p.time},
			Bound:    m.bound(k[0], k[1]),
			ShareNow: p.share + p.slope*(m.now-p.time),
		})
	}
	return out
}
