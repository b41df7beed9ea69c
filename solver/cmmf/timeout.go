package cmmf

import (
	"context"
	"fmt"
	"math"

	"github.com/xflex/xflex/solver"
)

// What CMMF answers when the budget runs out before the exact method
// finishes (issue 15): a feasible allocation computed in one pass over
// the users' allowed types, and a proven upper bound on the smallest
// weighted share, so meta.gap says how far the answer can be from the
// optimum. The exact method stops early enough to leave time for this
// answer and its result (see resultReserve).

// quickAlloc gives every user machines of one allowed type: users, in
// order, each join the type that would leave the most machines per unit
// of weight (Cap/(joined weight + w)), and each type is split among its
// users in proportion to their weights, cut back to their demands (whole
// machines: rounded down). It is feasible, deterministic and linear in
// the number of (user, allowed type) pairs, and its answer has one entry
// per user (splitting every type among all users that can use it wrote up
// to one per allowed type: 33 MB for 100,000 users, against 18 MB for the
// optimum). It is not CMMF: machines a capped user leaves are not
// redistributed.
func quickAlloc(in *Instance) *Allocation {
	weight := make([]float64, len(in.Types))
	pick := make([]int, len(in.Users))
	for i, u := range in.Users {
		pick[i] = -1
		if u.Demand <= 0 {
			continue
		}
		best := -1.0
		for k, t := range u.Allowed {
			if v := float64(in.Types[t].Cap) / (weight[t] + u.Weight); v > best {
				best, pick[i] = v, k
			}
		}
		if pick[i] >= 0 {
			weight[u.Allowed[pick[i]]] += u.Weight
		}
	}
	a := newAllocation(in)
	for i, u := range in.Users {
		k := pick[i]
		if k < 0 {
			continue
		}
		t := u.Allowed[k]
		v := math.Min(float64(in.Types[t].Cap)*u.Weight/weight[t], u.Demand)
		if !in.Divisible {
			v = math.Floor(v)
		}
		a.Amount[i][k] = v
		a.Total[i] = v
		a.Level[i] = v / u.Weight
	}
	return a
}

// shareBound is a proven upper bound on the smallest weighted share of
// any feasible allocation, divisible or not (whole machines only restrict
// it): no user exceeds its demand, and the users of one class (same
// allowed types) share at most the machines of those types, so their
// smallest share is at most the level at which their wants fill them
// (solveLevel, the divisible flow's starting level).
func shareBound(in *Instance) float64 {
	bound := math.Inf(1)
	for _, u := range in.Users {
		bound = math.Min(bound, u.Demand/u.Weight)
	}
	for _, c := range buildClasses(in) {
		reach := 0.0
		for _, t := range c.types {
			reach += float64(in.Types[t].Cap)
		}
		bound = math.Min(bound, solveLevel(in, c.members, reach))
	}
	return bound
}

// timeoutAnswer is the budget-exhausted answer: quickAlloc's allocation
// with status timeout and shareBound as the bound. Its baselines are
// skipped (ctx has expired).
func timeoutAnswer(ctx context.Context, in *Instance, method string, opts solver.Options) (*Result, solver.Meta) {
	a := quickAlloc(in)
	res, notes := buildResult(ctx, in, a, opts.Seed)
	res.Rounds = []RoundOut{}
	meta := solver.Meta{Status: solver.StatusTimeout, Solver: "cmmf/" + method}
	minShare := 0.0
	if len(res.Leximin) > 0 {
		minShare = res.Leximin[0]
	}
	meta.SetObjective(minShare)
	meta.Notes = []string{fmt.Sprintf("budget of %d ms ran out before the %s method finished; the result splits each machine type among its users by weight, capped at their demands (not CMMF); bound: per-class upper bound on the smallest share", opts.Budget.Milliseconds(), method)}
	if bound := shareBound(in); !math.IsInf(bound, 1) {
		meta.SetBound(clean(bound))
		if *meta.Gap == 0 {
			meta.ObjectiveProven = true
			meta.Notes = append(meta.Notes, "the smallest share equals its upper bound, so the objective is optimal; the larger shares are not leximin-optimal")
		}
	}
	meta.Notes = append(meta.Notes, notes...)
	return res, meta
}

// resultReserve is how much earlier than the budget the exact method
// stops, as a multiple of the time Build took: building the wire result
// (and, on a timeout, quickAlloc) walks the same users and allowed types
// as Build, and measured at most 0.8x Build's time on 20,000 and 100,000
// generated users; 2x leaves room for the machine's load to change.
const resultReserve = 2
