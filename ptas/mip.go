package ptas

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/xflex/xflex/lp"
)

// mipResult is what the p-median MIP proved about the ray-restricted
// problem restricted to the kept candidates.
type mipResult struct {
	sel     []int   // a solution, when one was found
	value   float64 // its cost (+Inf when none)
	bound   float64 // proven lower bound on the optimum over kept candidates
	optimal bool
	backend string
}

// solveMIP solves the p-median formulation over the candidates in keep:
//
//	min Σ_j Σ_{c ∋ j} w_j·cost_c·x_jc
//	Σ_{c ∋ j} x_jc = 1 (every request served), x_jc ≤ y_c, Σ_c y_c ≤ K,
//	y binary, x ∈ [0, 1]
//
// through lp.Solve (CBC). x needs no integrality: with y fixed, serving each
// request from its cheapest open candidate is an optimal vertex. A request
// that no kept candidate covers makes the model infeasible, which the
// caller reads as "nothing beats the incumbent".
func solveMIP(ctx context.Context, rp *rayProblem, keep []int, K int, limit time.Duration) (mipResult, error) {
	m := lp.NewModel()
	n := len(rp.in.U)
	y := make([]int, len(keep))
	byReq := make([][]int, n)
	byReqCand := make([][]int, n)
	for k, c := range keep {
		y[k] = m.AddVar(fmt.Sprintf("y%d", c), 0, 1, 0, true)
	}
	for k, c := range keep {
		x := rp.cands[c].cost
		for _, j32 := range rp.members(c) {
			j := int(j32)
			v := m.AddVar("", 0, 1, rp.in.W[j]*x, false)
			byReq[j] = append(byReq[j], v)
			byReqCand[j] = append(byReqCand[j], k)
			m.AddRow("", []int{v, y[k]}, []float64{1, -1}, math.Inf(-1), 0)
		}
	}
	for j := range byReq {
		if len(byReq[j]) == 0 {
			return mipResult{value: math.Inf(1), bound: math.Inf(1), optimal: true, backend: "reduced"}, nil
		}
		ones := make([]float64, len(byReq[j]))
		for i := range ones {
			ones[i] = 1
		}
		m.AddRow(fmt.Sprintf("serve%d", j), byReq[j], ones, 1, 1)
	}
	ones := make([]float64, len(y))
	for i := range ones {
		ones[i] = 1
	}
	m.AddRow("k", y, ones, math.Inf(-1), float64(K))
	sol, err := lp.Solve(ctx, m, lp.Options{TimeLimit: limit, Threads: 1})
	if err != nil {
		return mipResult{}, fmt.Errorf("ptas: p-median MIP: %w", err)
	}
	res := mipResult{value: math.Inf(1), bound: math.Inf(-1), backend: sol.Backend}
	switch sol.Status {
	case lp.Infeasible:
		res.bound, res.optimal = math.Inf(1), true
		return res, nil
	case lp.Optimal, lp.Feasible:
		if len(sol.X) != len(m.Vars) {
			return res, fmt.Errorf("ptas: p-median MIP: %s solution has %d values for %d columns", sol.Status, len(sol.X), len(m.Vars))
		}
		for k, c := range keep {
			if sol.X[y[k]] > 0.5 {
				res.sel = append(res.sel, c)
			}
		}
		res.value = sol.Objective
		res.bound = sol.Bound
		if sol.Status == lp.Optimal {
			res.optimal = true
			res.bound = sol.Objective
			if !math.IsNaN(sol.Bound) {
				res.bound = math.Min(sol.Bound, sol.Objective)
			}
		}
	default:
		if !math.IsNaN(sol.Bound) {
			res.bound = sol.Bound
		}
	}
	return res, nil
}
